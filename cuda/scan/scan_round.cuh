/*
 * scan_round.cuh - an exact prefix into its output bits: one correct
 * rounding of a 128-bit magnitude (with a sticky bit) into f16, bf16, f32
 * or f64, by the hardware's conversions where the result is a normal f32
 * or f64; a double (min/max) into a float format; an exact integer into an
 * integer type, with the why of one that does not fit (struct scan_bad).
 */
#ifndef SCAN_ROUND_CUH
#define SCAN_ROUND_CUH

#include "scan_base.cuh"

static __host__ __device__ inline int scan_clz128(u128 m)
{
	u64 hi = (u64)(m >> 64);

	return hi ? exact_clz64(hi) : 64 + exact_clz64((u64)m);
}

/* (m + d) >> sh rounded to nearest even, where 0 <= d < 1 is nonzero iff
 * sticky; sh >= 1. */
static __host__ __device__ inline u128 scan_shr_round(u128 m, long sh,
						      bool sticky)
{
	u128 q, rem, half;

	if (sh > 128)
		return 0;
	if (sh == 128)
		return m > (u128)1 << 127 || (m == (u128)1 << 127 && sticky);
	q = m >> sh;
	rem = m & (((u128)1 << sh) - 1);
	half = (u128)1 << (sh - 1);
	return q + (rem > half || (rem == half && (sticky || (q & 1))));
}

/*
 * Round (neg ? -1 : 1) * (m + d) * 2^e once, to nearest even, into f, with
 * d as above; m == 0 gives a zero of the given sign. Callers with sticky
 * set pass a full 128-bit m, so d only ever lies below the rounding bit.
 * The same steps as cpu_reduce.c's round_u128, with the sticky bit added.
 */
static __host__ __device__ inline u64 scan_round(u128 m, bool sticky, long e,
						 bool neg, const struct scan_fmt &f)
{
	u64 sign = (u64)neg << (f.width - 1);
	long top, q;
	u128 mant;

	if (m == 0)
		return sign;
	top = e + 127 - scan_clz128(m);	/* value in [2^top, 2^(top+1)) */
	if (top > f.emax + 1)
		return sign | f.inf;
	q = top - (f.p - 1);		/* weight of the last kept bit */
	if (q < f.emin - (f.p - 1))
		q = f.emin - (f.p - 1);
	mant = q > e ? scan_shr_round(m, q - e, sticky) : m << (e - q);
	if (mant >> f.p) {		/* rounded up into the next binade */
		mant >>= 1;
		q++;
	}
	if (mant >> (f.p - 1) == 0)	/* subnormal or zero */
		return sign | (u64)mant;
	if (q + f.p - 1 > f.emax)
		return sign | f.inf;
	return sign | (u64)(q + f.p - 1 + f.emax) << (f.p - 1) |
	       ((u64)mant & ((1ull << (f.p - 1)) - 1));
}

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
 * scan_round, faster where the result is a normal f32 or f64 (nearly
 * always): the top 64 bits of m with the rest folded into a sticky lsb
 * convert with one hardware rounding (the sticky bit lies far below the
 * rounding bit, so that rounding is the correct one), and scaling by a
 * power of two is then exact. Subnormal, overflowing and half-precision
 * results take scan_round.
 */
/* (neg ? -m : m) * 2^e (m != 0) rounded by the hardware into *bits, for a
 * normal f32 or f64 result; false for any other. */
static __host__ __device__ inline bool scan_round_hw(u64 m, long e, bool neg,
						     const struct scan_fmt &f,
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
						      const struct scan_fmt &f)
{
	u64 bits;

	if (m != 0) {
		int z = scan_clz128(m);
		u128 t = m << z;		/* top bit at 127 */
		u64 m64 = (u64)(t >> 64) | (u64)((u64)t != 0 || sticky);

		/* value ~ m64 * 2^(e + 64 - z) */
		if (scan_round_hw(m64, e + 64 - z, neg, f, &bits))
			return bits;
	}
	return scan_round(m, sticky, e, neg, f);
}

/* A double (the value of a min/max prefix) into f: exactly for f64, one
 * correct rounding for f32. */
static __host__ __device__ inline u64 scan_round_f64(double v,
						     const struct scan_fmt &f)
{
	u64 u = exact_bits_f64(v), m = u & 0xfffffffffffffull;

	if (f.width == 64)
		return v != v ? f.nan : u;
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
	unsigned be = (unsigned)(u >> 52) & 0x7ff;

	if (be == 0x7ff)
		return m ? f.nan : (u >> 63) << (f.width - 1) | f.inf;
	m |= (u64)(be != 0) << 52;
	return scan_round(m, false, (long)(be + (be == 0)) - 1075, u >> 63, f);
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
