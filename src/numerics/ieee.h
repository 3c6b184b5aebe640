/*
 * ieee.h - the one rounding core: an exact binary value, (m + d) * 2^e with
 * a 128-bit integer m and a sticky fraction d, rounded once to nearest even
 * into f16, bf16, f32 or f64, for the host (C11) and the device (CUDA C++)
 * alike.
 *
 * Every exact accumulator ends here: xsum_round and the statistics
 * (xsum.c), the float products (xprod.c), the scans' outputs
 * (cpu_scan.c), and the device code that must give the same bits. Written
 * once so that the CPU and the GPU cannot round differently: the functions
 * are GS_HD, static inline in C and __host__ __device__ under nvcc. The
 * half formats' exact widening to float is here for the same reason.
 */
#ifndef IEEE_H
#define IEEE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define GS_HD static __host__ __device__ inline
#else
#define GS_HD static inline
#endif
/* GS_HD for code on a hot path that must be inlined into a loop which
 * passes it constants, and for code off it (not inlined into the loops). */
#ifdef __CUDACC__
#define GS_HD_HOT static __host__ __device__ __forceinline__
#define GS_HD_COLD static __host__ __device__ __noinline__
#else
#define GS_HD_HOT static inline __attribute__((always_inline))
#define GS_HD_COLD static __attribute__((noinline))
#endif
#define GS_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The IEEE formats results are rounded to. */
enum xfmt { XF_F16, XF_BF16, XF_F32, XF_F64 };

struct ieee_fmt {
	int p;			/* significand bits, hidden bit included */
	int emin, emax;		/* emax is also the bias */
	int width;		/* total bits */
	uint64_t inf, nan;	/* +inf; the quiet NaN every result uses */
};

/* A function rather than a table: device code cannot read a host array,
 * and with f known at compile time (nearly every call) it folds away. */
GS_HD struct ieee_fmt ieee_fmt_of(enum xfmt f)
{
	struct ieee_fmt r;

	switch (f) {
	case XF_F16:
		r.p = 11, r.emin = -14, r.emax = 15, r.width = 16;
		r.inf = 0x7c00, r.nan = 0x7e00;
		break;
	case XF_BF16:
		r.p = 8, r.emin = -126, r.emax = 127, r.width = 16;
		r.inf = 0x7f80, r.nan = 0x7fc0;
		break;
	case XF_F32:
		r.p = 24, r.emin = -126, r.emax = 127, r.width = 32;
		r.inf = 0x7f800000, r.nan = 0x7fc00000;
		break;
	default:
		r.p = 53, r.emin = -1022, r.emax = 1023, r.width = 64;
		r.inf = 0x7ff0000000000000ull, r.nan = 0x7ff8000000000000ull;
		break;
	}
	return r;
}

/* Leading zeros of x (all its bits for 0), and trailing zeros of x != 0,
 * in 64 and in 32 bits: the device's instructions, the compiler's builtins. */
#ifdef __CUDA_ARCH__
GS_HD int ieee_clz64(uint64_t x) { return __clzll((long long)x); }
GS_HD int ieee_ctz64(uint64_t x) { return __ffsll((long long)x) - 1; }
GS_HD int ieee_clz32(uint32_t x) { return __clz((int)x); }
GS_HD int ieee_ctz32(uint32_t x) { return __ffs((int)x) - 1; }
#else
GS_HD int ieee_clz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }
GS_HD int ieee_ctz64(uint64_t x) { return __builtin_ctzll(x); }
GS_HD int ieee_clz32(uint32_t x) { return x ? __builtin_clz(x) : 32; }
GS_HD int ieee_ctz32(uint32_t x) { return __builtin_ctz(x); }
#endif

/* Is u the bits of a NaN of the format whose +inf is inf (any width)? */
GS_HD bool ieee_is_nan(uint64_t u, uint64_t inf)
{
	return (u & (inf | (inf - 1))) > inf;
}

/* Leading zeros of m != 0. */
GS_HD int ieee_clz128(unsigned __int128 m)
{
	uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;

	return hi ? ieee_clz64(hi) : 64 + ieee_clz64(lo);
}

/* (m + d) >> sh rounded to nearest even, where 0 <= d < 1 is nonzero iff
 * sticky; sh >= 1. */
GS_HD unsigned __int128 ieee_shr_round(unsigned __int128 m, int64_t sh,
				       bool sticky)
{
	const unsigned __int128 one = 1;
	unsigned __int128 q, rem, half;

	if (sh > 128)
		return 0;
	if (sh == 128)
		return m > one << 127 || (m == one << 127 && sticky);
	q = m >> sh;
	rem = m & ((one << sh) - 1);
	half = one << (sh - 1);
	return q + (rem > half || (rem == half && (sticky || (q & 1))));
}

/*
 * Round (neg ? -1 : 1) * (m + d) * 2^e once, to nearest even, into f, with
 * d as above; returns the bit pattern (in the low bits). m == 0 gives a
 * zero of the given sign. Callers with sticky set give m at least p + 2
 * significant bits, so that d only ever lies below the rounding bit.
 */
GS_HD uint64_t ieee_round(unsigned __int128 m, bool sticky, int64_t e,
			  bool neg, const struct ieee_fmt *f)
{
	uint64_t sign = (uint64_t)neg << (f->width - 1);
	int64_t top, q;
	unsigned __int128 mant;

	if (m == 0)
		return sign;
	top = e + 127 - ieee_clz128(m);	/* value in [2^top, 2^(top+1)) */
	if (top > f->emax + 1)
		return sign | f->inf;
	q = top - (f->p - 1);		/* weight of the last kept bit */
	if (q < f->emin - (f->p - 1))
		q = f->emin - (f->p - 1);
	mant = q > e ? ieee_shr_round(m, q - e, sticky) : m << (e - q);
	if (mant >> f->p) {		/* rounded up into the next binade */
		mant >>= 1;
		q++;
	}
	if (mant >> (f->p - 1) == 0)	/* subnormal or zero */
		return sign | (uint64_t)mant;
	if (q + f->p - 1 > f->emax)
		return sign | f->inf;
	return sign | (uint64_t)(q + f->p - 1 + f->emax) << (f->p - 1) |
	       ((uint64_t)mant & ((1ull << (f->p - 1)) - 1));
}

/* m rounded to nearest even as an f32 and an f64 (bits): the device's
 * conversions under nvcc, the host's (also correctly rounded) in C. */
GS_HD uint32_t ieee_u64_f32(uint64_t m)
{
#ifdef __CUDA_ARCH__
	return __float_as_uint(__ull2float_rn(m));
#else
	float v = (float)m;
	uint32_t b;

	memcpy(&b, &v, sizeof(b));
	return b;
#endif
}

GS_HD uint64_t ieee_u64_f64(uint64_t m)
{
#ifdef __CUDA_ARCH__
	return (uint64_t)__double_as_longlong(__ull2double_rn(m));
#else
	double v = (double)m;
	uint64_t b;

	memcpy(&b, &v, sizeof(b));
	return b;
#endif
}

/* (neg ? -m : m) * 2^e (m != 0) rounded by one conversion, where the result
 * is a normal f32 or f64; 0 (no such result's bits) for any other. */
GS_HD uint64_t ieee_round_hw(uint64_t m, int64_t e, bool neg,
			     const struct ieee_fmt *f)
{
	if (f->width == 32) {
		uint64_t b = ieee_u64_f32(m);
		int64_t be = (int64_t)(b >> 23) + e;

		return be >= 1 && be <= 254 ? (uint64_t)neg << 31 |
		       ((b + ((uint64_t)e << 23)) & 0x7fffffffull) : 0;
	}
	if (f->width == 64) {
		uint64_t b = ieee_u64_f64(m);
		int64_t be = (int64_t)(b >> 52) + e;

		return be >= 1 && be <= 2046 ? (uint64_t)neg << 63 |
		       ((b + ((uint64_t)e << 52)) & ~(1ull << 63)) : 0;
	}
	return 0;
}

/*
 * ieee_round, faster where the result is a normal f32 or f64 (nearly
 * always): the top 64 bits of m with the rest folded into a sticky lsb
 * convert with one correct rounding (the sticky bit lies far below the
 * rounding bit, so that rounding is the correct one), and scaling by a
 * power of two is then exact. Subnormal, overflowing and half-precision
 * results take ieee_round.
 */
GS_HD uint64_t ieee_round_fast(unsigned __int128 m, bool sticky, int64_t e,
			       bool neg, const struct ieee_fmt *f)
{
	if (m != 0) {
		int z = ieee_clz128(m);
		unsigned __int128 t = m << z;		/* top bit at 127 */
		uint64_t m64 = (uint64_t)(t >> 64) | (uint64_t)((uint64_t)t != 0 || sticky);
		/* value ~ m64 * 2^(e + 64 - z) */
		uint64_t bits = ieee_round_hw(m64, e + 64 - z, neg, f);

		if (bits)
			return bits;
	}
	return ieee_round(m, sticky, e, neg, f);
}

/* A double into f, correctly rounded; f64 keeps every bit (a NaN's
 * payload too), narrower formats give their NaN for any NaN. */
GS_HD uint64_t ieee_round_f64(double v, const struct ieee_fmt *f)
{
	uint64_t u, m;
	unsigned be;

	memcpy(&u, &v, sizeof(u));
	if (f->width == 64)
		return u;
	be = (unsigned)(u >> 52) & 0x7ff;
	m = u & 0xfffffffffffffull;
	if (be == 0x7ff)
		return m ? f->nan : (u >> 63) << (f->width - 1) | f->inf;
	m |= (uint64_t)(be != 0) << 52;
	return ieee_round(m, false, (int64_t)(be + (be == 0)) - 1075, u >> 63,
			  f);
}

/*
 * x rounded to the nearest f16, ties to even, as the double of that value
 * (ieee_round_f64 into f16, widened back), in a few integer steps for the
 * histograms' loops on either side. Normal results: add half an f16 ulp
 * less one to the 42 bits that f16 drops, plus the kept last bit (ties go
 * to even), then clear them; a carry into the exponent is the right result.
 * Subnormal results: adding 2^28, whose ulp is 2^-24, rounds to a multiple
 * of 2^-24. From 65520 (65504 + half an ulp) up the result is infinite; a
 * NaN stays as it is.
 */
GS_HD double ieee_f64_round_f16(double x)
{
	uint64_t u, s;
	double a;

	memcpy(&u, &x, sizeof(u));
	s = u & 1ull << 63;
	u &= ~s;
	if (u >= 0x40effe0000000000ull) {		/* 65520 */
		u = u > 0x7ff0000000000000ull ? u : 0x7ff0000000000000ull;
	} else if (u < 0x3f10000000000000ull) {		/* 2^-14 */
		memcpy(&a, &u, sizeof(a));
		a = (a + 0x1p28) - 0x1p28;
		memcpy(&u, &a, sizeof(u));
	} else {
		u += 0x1ffffffffffull + (u >> 42 & 1);
		u &= ~0x3ffffffffffull;
	}
	u |= s;
	memcpy(&a, &u, sizeof(a));
	return a;
}

/* ---- the half formats, widened ------------------------------------------ */

GS_HD float ieee_f32_from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

GS_HD double ieee_f64_from_bits(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

GS_HD unsigned long long exact_bits_f64(double v)
{
	unsigned long long u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

GS_HD unsigned exact_bits_f32(float v)
{
	unsigned u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

/* An f16 as the float of the same value (exact). Subnormal halves are
 * m * 2^-24: exact as a float product. NaN payloads move to the top of the
 * float's fraction, as hardware does. */
GS_HD float ieee_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f;
	uint32_t m = h & 0x3ff;
	float sub;

	if (e == 0x1f)
		return ieee_f32_from_bits(sign | 0x7f800000 | m << 13);
	if (e)
		return ieee_f32_from_bits(sign | (e + 112) << 23 | m << 13);
	sub = (float)m * 0x1p-24f;
	return sign ? -sub : sub;
}

/* bfloat16 is the top half of a float. */
GS_HD float ieee_bf16_to_f32(uint16_t h)
{
	return ieee_f32_from_bits((uint32_t)h << 16);
}

#endif
