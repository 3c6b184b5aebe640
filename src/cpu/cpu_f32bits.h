/*
 * cpu_f32bits.h - element i of a buffer of f32, bf16 or f16 as the bits of
 * the f32 of the same value (exact: every bf16 and f16 is an f32): how the
 * CPU's exponent-binned f32 sums (cpu_stats.c, cpu_dot.c) read the three
 * single-or-narrower float types with one loop each.
 */
#ifndef CPU_F32BITS_H
#define CPU_F32BITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gs.h"

static inline uint32_t bits_f32(const void *p, size_t i)
{
	return ((const uint32_t *)p)[i];
}

static inline uint32_t bits_bf16(const void *p, size_t i)
{
	return (uint32_t)((const uint16_t *)p)[i] << 16;	/* top half of f32 */
}

static inline uint32_t bits_f16(const void *p, size_t i)
{
	float f = f16_to_f32(((const uint16_t *)p)[i]);
	uint32_t b;

	memcpy(&b, &f, sizeof b);
	return b;
}

#endif
