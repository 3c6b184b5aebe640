/*
 * cpu_keys.h - order keys of float bits: the bits of a non-NaN f16, bf16,
 * f32 or f64 with the magnitude flipped where the sign is set, read as a
 * signed integer, order like the values, -0 below +0. The map is its own
 * inverse. What the CPU's min and max compare (cpu_stats.c, cpu_reduce.c).
 */
#ifndef CPU_KEYS_H
#define CPU_KEYS_H

#include <stdint.h>
#include <string.h>

static inline int16_t key16(uint16_t b)
{
	return (int16_t)(b ^ ((uint16_t)((int16_t)b >> 15) >> 1));
}

static inline int32_t key32(uint32_t b)
{
	return (int32_t)(b ^ ((uint32_t)((int32_t)b >> 31) >> 1));
}

static inline int64_t key64(uint64_t b)
{
	return (int64_t)(b ^ ((uint64_t)((int64_t)b >> 63) >> 1));
}

/* The f32 or f64 whose key is k. */
static inline double key32_to_f64(int32_t k)
{
	uint32_t b = (uint32_t)key32((uint32_t)k);
	float f;

	memcpy(&f, &b, sizeof f);
	return f;
}

static inline double key64_to_f64(int64_t k)
{
	uint64_t b = (uint64_t)key64((uint64_t)k);
	double d;

	memcpy(&d, &b, sizeof d);
	return d;
}

#endif
