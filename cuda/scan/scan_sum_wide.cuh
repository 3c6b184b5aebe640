/*
 * scan_sum_wide.cuh - exact sums as K-limb two's complement fixed point
 * (struct sum_val) and the wide sum monoid scan_sum_wide (scan_ops.cuh says
 * how wide for each type).
 */
#ifndef SCAN_SUM_WIDE_CUH
#define SCAN_SUM_WIDE_CUH

#include "scan_round.cuh"

template <int K> struct sum_val {
	uint64_t l[K];		/* two's complement, little-endian limbs
				 * (xsum_core.h's, struct xsum's type) */
	unsigned flags;		/* EXACT_NAN | EXACT_PINF | EXACT_NINF */
};

/* a + b, limb by limb with carries. */
template <int K>
static __host__ __device__ __forceinline__ sum_val<K>
sum_add(const sum_val<K> &a, const sum_val<K> &b)
{
	sum_val<K> r;
	u64 c = 0;

SCAN_UNROLL
	for (int j = 0; j < K; j++) {
		u64 s = a.l[j] + b.l[j], t = s + c;

		c = (u64)(s < a.l[j]) | (u64)(t < s);
		r.l[j] = t;
	}
	r.flags = a.flags | b.flags;
	return r;
}

/* (neg ? -mag : mag) * 2^s as K limbs; mag < 2^64, s / 64 + 1 < K. The
 * register array is indexed only by unrolled constants: selects, no local
 * memory. */
template <int K>
static __host__ __device__ __forceinline__ void sum_place(sum_val<K> *v, u64 mag,
							  int s, bool neg)
{
	int k = s / 64, b = s % 64;
	u64 lo = mag << b, hi = b ? mag >> (64 - b) : 0, c = neg;

SCAN_UNROLL
	for (int j = 0; j < K; j++) {
		u64 w = j == k ? lo : j == k + 1 ? hi : 0;

		w = (neg ? ~w : w) + c;	/* two's complement: ~x + 1 */
		c = c && w == 0;
		v->l[j] = w;
	}
}

/* A sum rounded into f: xsum_core.h's exact_limbs_round, xsum_round's. */
template <int K>
static __host__ __device__ inline u64 sum_round(const sum_val<K> &v, int lsb,
						const struct ieee_fmt &f)
{
	return exact_limbs_round(v.l, K, v.flags, lsb, &f);
}

/* The identity and the add of K-limb sums, for the monoids that hold
 * them (scan_sum_wide, scan_sum_window). */
template <int K> struct sum_monoid {
	static __host__ __device__ __forceinline__ sum_val<K>
	ident(const scan_cfg &)
	{
		sum_val<K> v;

SCAN_UNROLL
		for (int j = 0; j < K; j++)
			v.l[j] = 0;
		v.flags = 0;
		return v;
	}

	static __host__ __device__ __forceinline__ sum_val<K>
	add(const sum_val<K> &a, const sum_val<K> &b, const scan_cfg &)
	{
		return sum_add<K>(a, b);
	}
};

/* Sums of element type T in K limbs with lsb 2^L. */
template <typename T, int K, int L> struct scan_sum_wide : sum_monoid<K> {
	typedef T elem;
	typedef sum_val<K> V;
	enum { WINDOW = 0 };	/* runs when no narrow window is chosen */

	static __host__ __device__ __forceinline__ V of(T x, const scan_cfg &)
	{
		V v;

		if constexpr (dtype_is_float<T>::value) {
			struct exact_term t = exact_elem(x);
			bool neg = t.m < 0;

			sum_place<K>(&v, (u64)(neg ? -t.m : t.m), t.e - L, neg);
			v.flags = t.flags;
		} else {
			v.l[0] = (u64)x;
			v.l[1] = std::is_signed<T>::value && x < 0 ? ~0ull : 0;
SCAN_UNROLL
			for (int j = 2; j < K; j++)
				v.l[j] = v.l[1];
			v.flags = 0;
		}
		return v;
	}

	/* The output bits of prefix v; false (and *why the prefix) if an
	 * integer output cannot hold it. */
	static __host__ __device__ __forceinline__ bool
	out(const V &v, const scan_cfg &c, u64 *bits, struct scan_bad *why)
	{
		if constexpr (dtype_is_float<T>::value) {
			*bits = sum_round<K>(v, L, c.fmt);
			return true;
		} else {
			__int128 p = (__int128)((u128)v.l[1] << 64 | v.l[0]);

			scan_why_int(p, why);
			return scan_put_int(p, c, bits);
		}
	}
};

#endif
