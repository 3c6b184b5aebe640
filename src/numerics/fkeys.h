/*
 * fkeys.h - order keys of float bits, for the host (C11) and the device
 * (CUDA C++) alike, GS_HD as in ieee.h: the bits of a non-NaN f16, bf16,
 * f32 or f64 with the magnitude flipped where the sign is set, read as a
 * signed integer, order like the values, -0 below +0 (key16 .. key64,
 * f64_key; the map is its own inverse). With the sign bit flipped as well
 * they order as unsigned integers (ukey32, ukey64, f64_ukey, fkey_nz):
 * what the device's atomic min and max, its scans and key columns
 * compare. Every min, max, key column and select compares these, on
 * either processor.
 */
#ifndef FKEYS_H
#define FKEYS_H

#include "ieee.h"

GS_HD int16_t key16(uint16_t b)
{
	return (int16_t)(b ^ ((uint16_t)((int16_t)b >> 15) >> 1));
}

GS_HD int32_t key32(uint32_t b)
{
	return (int32_t)(b ^ ((uint32_t)((int32_t)b >> 31) >> 1));
}

GS_HD int64_t key64(uint64_t b)
{
	return (int64_t)(b ^ ((uint64_t)((int64_t)b >> 63) >> 1));
}

/* The f32 or f64 whose key is k. */
GS_HD double key32_to_f64(int32_t k)
{
	return ieee_f32_from_bits((uint32_t)key32((uint32_t)k));
}

GS_HD double key64_to_f64(int64_t k)
{
	return ieee_f64_from_bits((uint64_t)key64((uint64_t)k));
}

GS_HD int64_t f64_key(double v)
{
	return key64(exact_bits_f64(v));
}

/* Unsigned keys: the signed ones with the sign bit flipped. */
GS_HD uint32_t ukey32(uint32_t b)
{
	return (uint32_t)key32(b) ^ 0x80000000u;
}

GS_HD uint64_t ukey64(uint64_t b)
{
	return (uint64_t)key64(b) ^ (1ull << 63);
}

GS_HD uint64_t f64_ukey(double v)
{
	return ukey64(exact_bits_f64(v));
}

GS_HD double ukey_to_f64(uint64_t k)
{
	return key64_to_f64((int64_t)(k ^ (1ull << 63)));
}

/* The unsigned key of a float's bits b whose sign bit is s (any width),
 * -0 taken as +0: what select (quantile, mode) counts. */
GS_HD uint64_t fkey_nz(uint64_t b, uint64_t s)
{
	if (b == s)
		b = 0;
	return b & s ? ~b & (s | (s - 1)) : b | s;
}

#endif
