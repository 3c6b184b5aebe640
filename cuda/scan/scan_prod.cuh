/*
 * scan_prod.cuh - the product monoids, on numerics/xprod_core.h's values:
 * a float bracket of the exact product, an exact integer magnitude below
 * 2^128.
 */
#ifndef SCAN_PROD_CUH
#define SCAN_PROD_CUH

#include "scan_round.cuh"

/*
 * A prefix product is xprod_core.h's value: a float bracket (struct
 * fprod) or an integer magnitude below 2^128 (struct iprod), with
 * flags for NaN, zero, inf, the sign and overflow; the all-zero value is
 * the empty product, 1. The kernels group the factors otherwise than
 * cpu_scan's one pass, so a bracket differs from the CPU's, but it holds
 * the same exact product: where both round (the ends agree) they give
 * its correct rounding, the same bits. An integer product is exact in any
 * grouping.
 */

/* Whether a bracket is one exact factor with a single nonzero limb, as
 * scan_fprod::of makes them. */
static __host__ __device__ __forceinline__ bool scan_fp_single(const fprod &b)
{
	return b.hi[0] == 0 && b.lo[0] == 0 && b.lo[1] == b.hi[1] && b.hi[1];
}

/* Products of float type T. */
template <typename T> struct scan_fprod {
	typedef T elem;
	typedef fprod V;
	enum { WINDOW = 0 };

	static __host__ __device__ __forceinline__ V ident(const scan_cfg &)
	{
		return V{};
	}

	/* a * b. A single factor b (every element) takes the 128x64-bit
	 * step, which rounds exactly as the full merge would: half the
	 * multiplies. */
	static __host__ __device__ __forceinline__ V
	add(const V &a, const V &b, const scan_cfg &)
	{
		V r = a;

		if (r.hi[1] && scan_fp_single(b)) {
			r.flags = prod_flags(r.flags, b.flags);
			fprod_mul64(&r, b.hi[1], b.exp + 64);
		} else {
			red_p_merge(&r, &b);
		}
		return r;
	}

	/* x as a bracket of one exact limb (hi[1], top bit set), or as a
	 * flag (prod_factor, as fprod_mul_f64). */
	static __host__ __device__ __forceinline__ V of(T x, const scan_cfg &)
	{
		V v = {};
		uint64_t m;
		int e;

		if (prod_factor(exact_elem_bits(x), dtype_fmt<T>::p,
				dtype_fmt<T>::w, &m, &e, &v.flags)) {
			int z = ieee_clz64(m);

			v.lo[1] = v.hi[1] = m << z;
			v.exp = (long long)e - z - 64;
		}
		return v;
	}

	/* fprod_round_fmt, as the CPU's fprod_round. */
	static __host__ __device__ __forceinline__ bool
	out(const V &v, const scan_cfg &c, u64 *bits, struct scan_bad *why)
	{
		uint64_t b;
		bool ok = fprod_round_fmt(&v, &c.fmt, &b);

		why->lo = why->hi = 0;
		why->neg = 0;
		why->kind = SCAN_BAD_ROUND;
		*bits = b;
		return ok;
	}
};

/* Products of integer type T. */
template <typename T> struct scan_iprod {
	typedef T elem;
	typedef iprod V;
	enum { WINDOW = 0 };

	static __host__ __device__ __forceinline__ V ident(const scan_cfg &)
	{
		return V{};
	}

	/* a * b; a factor below 2^64 (every element) takes the 128x64-bit
	 * step, with the same overflow test as the full merge. */
	static __host__ __device__ __forceinline__ V
	add(const V &a, const V &b, const scan_cfg &)
	{
		V r = a;

		if ((r.mag[0] | r.mag[1]) && b.mag[0] && !b.mag[1]) {
			r.flags = prod_flags(r.flags, b.flags);
			iprod_mul64(&r, b.mag[0]);
		} else {
			red_p_merge(&r, &b);
		}
		return r;
	}

	/* |x|, or a zero flag (iprod_factor_flags, as iprod_mul). */
	static __host__ __device__ __forceinline__ V of(T x, const scan_cfg &)
	{
		u64 m = (u64)x;
		bool neg = false;

		if constexpr (std::is_signed<T>::value) {
			neg = x < 0;
			m = neg ? 0 - (u64)(long long)x : (u64)(long long)x;
		}
		V v = { { m, 0 }, iprod_factor_flags(m, neg) };

		return v;
	}

	/* As cpu_scan's icur and put_int: a zero wins, then overflow past
	 * 2^128 fails, then the exact value must fit the output type. */
	static __host__ __device__ __forceinline__ bool
	out(const V &v, const scan_cfg &c, u64 *bits, struct scan_bad *why)
	{
		bool zero = v.flags & PROD_ZERO;
		bool neg = (v.flags & PROD_NEG) && !zero;
		u128 mag = (u128)v.mag[1] << 64 | v.mag[0];
		unsigned nb = 8 * c.osize;

		if (zero)
			mag = 0;
		else if (mag == 0)
			mag = 1;		/* the empty product */
		why->lo = (u64)mag;
		why->hi = (u64)(mag >> 64);
		why->neg = neg;
		why->kind = SCAN_BAD_MAG;
		*bits = (u64)(neg ? -mag : mag);
		if (!zero && (v.flags & PROD_OVER)) {
			why->kind = SCAN_BAD_WIDE;
			return false;
		}
		if (c.ofloat) {
			*bits = ieee_round_fast(mag, false, 0, neg, &c.fmt);
			return true;
		}
		if (c.osigned)
			return mag <= ((u128)1 << (nb - 1)) - !neg;
		return !neg && mag <= ((u128)1 << nb) - 1;
	}
};

#endif
