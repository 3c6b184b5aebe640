/*
 * scan_round.cuh - an exact prefix into its output bits (a 128-bit
 * magnitude by ieee.h's ieee_round_fast, the CPU's: the hardware's
 * conversions where the result is a normal f32 or f64); a double (min/max)
 * into a float format; an exact integer into an integer type, with the why
 * of one that does not fit (struct scan_bad).
 */
#ifndef SCAN_ROUND_CUH
#define SCAN_ROUND_CUH

#include "scan_base.cuh"

/* A double (the value of a min/max prefix) into f: exactly for f64, but
 * with every NaN the one the CPU writes (ieee_round_f64 keeps a NaN's
 * payload); by the hardware's one correct rounding for f32; by ieee.h's
 * for the half formats. */
static __host__ __device__ inline u64 scan_round_f64(double v,
						     const struct ieee_fmt &f)
{
	if (f.width == 64)
		return v != v ? f.nan : exact_bits_f64(v);
	if (f.width == 32 && v == v) {
#ifdef __CUDA_ARCH__
		return __float_as_uint(__double2float_rn(v));
#else
		float x = (float)v;
		unsigned b;

		memcpy(&b, &x, sizeof(b));
		return b;
#endif
	}
	return ieee_round_f64(v, &f);
}

/* Why an output cannot be written (the host builds cpu_scan's message from
 * it): the prefix as an __int128, or as a sign and a 128-bit magnitude (a
 * product's, which can pass 2^127), or no value at all. */
enum scan_bad_kind {
	SCAN_BAD_INT,		/* lo, hi: the prefix overflows the output type */
	SCAN_BAD_MAG,		/* lo, hi, neg: the same for a product */
	SCAN_BAD_WIDE,		/* an integer product passed 2^128 */
	SCAN_BAD_ROUND,		/* a float product cannot be rounded exactly */
};

struct scan_bad {
	u64 lo, hi;
	unsigned neg, kind;
};

/* An exact integer into the output type; false if it does not fit. */
static __host__ __device__ inline bool scan_put_int(__int128 v,
						    const struct scan_cfg &c,
						    u64 *bits)
{
	unsigned nb = 8 * c.osize;
	__int128 lo, hi;

	if (c.ofloat) {
		*bits = ieee_round_fast(v < 0 ? -(u128)v : (u128)v, false, 0,
					v < 0, &c.fmt);
		return true;
	}
	hi = c.osigned ? ((__int128)1 << (nb - 1)) - 1 : ((__int128)1 << nb) - 1;
	lo = c.osigned ? -hi - 1 : 0;
	*bits = (u64)v;
	return v >= lo && v <= hi;
}

/* v as the why of an output that does not fit. */
static __host__ __device__ __forceinline__ void scan_why_int(__int128 v,
							     struct scan_bad *why)
{
	why->lo = (u64)v;
	why->hi = (u64)((u128)v >> 64);
	why->neg = 0;
	why->kind = SCAN_BAD_INT;
}

#endif
