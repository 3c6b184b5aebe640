/*
 * scan_round.cuh - an exact prefix into its output bits: one correct
 * rounding of a 128-bit magnitude (with a sticky bit) into f16, bf16, f32
 * or f64, by the hardware's conversions where the result is a normal f32
 * or f64 and by ieee.h's ieee_round (the CPU's) otherwise; a double
 * (min/max) into a float format; an exact integer into an integer type,
 * with the why of one that does not fit (struct scan_bad).
 */
#ifndef SCAN_ROUND_CUH
#define SCAN_ROUND_CUH

#include "scan_base.cuh"

/* m rounded to nearest even as an f32 and an f64 (bits). The hardware's
 * conversions on the device; the host's, also correctly rounded, in the
 * host check. */
static __host__ __device__ inline unsigned scan_u64_f32(u64 m)
{
#ifdef __CUDA_ARCH__
	return __float_as_uint(__ull2float_rn(m));
#else
	float v = (float)m;
	unsigned b;

	memcpy(&b, &v, sizeof(b));
	return b;
#endif
}

static __host__ __device__ inline u64 scan_u64_f64(u64 m)
{
#ifdef __CUDA_ARCH__
	return (u64)__double_as_longlong(__ull2double_rn(m));
#else
	return exact_bits_f64((double)m);
#endif
}

/*
 * ieee_round, faster where the result is a normal f32 or f64 (nearly
 * always): the top 64 bits of m with the rest folded into a sticky lsb
 * convert with one hardware rounding (the sticky bit lies far below the
 * rounding bit, so that rounding is the correct one), and scaling by a
 * power of two is then exact. Subnormal, overflowing and half-precision
 * results take ieee_round.
 */
/* (neg ? -m : m) * 2^e (m != 0) rounded by the hardware into *bits, for a
 * normal f32 or f64 result; false for any other. */
static __host__ __device__ inline bool scan_round_hw(u64 m, long e, bool neg,
						     const struct ieee_fmt &f,
						     u64 *bits)
{
	if (f.width == 32) {
		u64 b = scan_u64_f32(m);
		long be = (long)(b >> 23) + e;

		*bits = (u64)neg << 31 | ((b + ((u64)e << 23)) & 0x7fffffffull);
		return be >= 1 && be <= 254;
	}
	if (f.width == 64) {
		u64 b = scan_u64_f64(m);
		long be = (long)(b >> 52) + e;

		*bits = (u64)neg << 63 | ((b + ((u64)e << 52)) & ~SCAN_SIGN);
		return be >= 1 && be <= 2046;
	}
	return false;
}

static __host__ __device__ inline u64 scan_round_fast(u128 m, bool sticky,
						      long e, bool neg,
						      const struct ieee_fmt &f)
{
	u64 bits;

	if (m != 0) {
		int z = ieee_clz128(m);
		u128 t = m << z;		/* top bit at 127 */
		u64 m64 = (u64)(t >> 64) | (u64)((u64)t != 0 || sticky);

		/* value ~ m64 * 2^(e + 64 - z) */
		if (scan_round_hw(m64, e + 64 - z, neg, f, &bits))
			return bits;
	}
	return ieee_round(m, sticky, e, neg, &f);
}

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
		*bits = scan_round_fast(v < 0 ? -(u128)v : (u128)v, false, 0,
					v < 0, c.fmt);
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
