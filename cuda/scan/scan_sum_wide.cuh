/*
 * scan_sum_wide.cuh - exact sums as K-limb two's complement fixed point
 * (struct sum_val) and the wide sum monoid scan_sum_wide (scan_ops.cuh says
 * how wide for each type).
 */
#ifndef SCAN_SUM_WIDE_CUH
#define SCAN_SUM_WIDE_CUH

#include "scan_round.cuh"

template <int K> struct sum_val {
	u64 l[K];		/* two's complement, little-endian limbs */
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

/*
 * Round a sum into f as xsum_round does (xsum_core.h's rounding: flags
 * first, then the magnitude's top 128 bits and a sticky bit for the rest).
 * An exact zero is +0.
 */
template <int K>
static __host__ __device__ inline u64 sum_round(const sum_val<K> &v, int lsb,
						const struct ieee_fmt &f)
{
	u64 m[K], mh = 0, a = 0, b = 0, c2 = 0, cy;
	bool neg = v.l[K - 1] >> 63, low = false;
	int h = -1, cut, k;

	if (v.flags)
		return exact_flags_round(v.flags, &f);
	cy = neg;
SCAN_UNROLL
	for (int j = 0; j < K; j++) {
		m[j] = (neg ? ~v.l[j] : v.l[j]) + cy;
		cy = cy && m[j] == 0;
		if (m[j]) {
			h = j;
			mh = m[j];
		}
	}
	if (h < 0)
		return 0;
	cut = exact_cut(64 * h + 63 - exact_clz64(mh));
	k = cut / 64;
SCAN_UNROLL
	for (int j = 0; j < K; j++) {
		a = j == k ? m[j] : a;
		b = j == k + 1 ? m[j] : b;
		c2 = j == k + 2 ? m[j] : c2;
		low |= j < k && m[j] != 0;
	}
	return exact_top_round(a, b, c2, cut, low, lsb, neg, &f);
}

/* Sums of element type T in K limbs with lsb 2^L. */
template <typename T, int K, int L> struct scan_sum_wide {
	typedef T elem;
	typedef sum_val<K> V;
	enum { WINDOW = 0 };	/* runs when no narrow window is chosen */

	static __host__ __device__ __forceinline__ V ident(const scan_cfg &)
	{
		V v;

SCAN_UNROLL
		for (int j = 0; j < K; j++)
			v.l[j] = 0;
		v.flags = 0;
		return v;
	}

	static __host__ __device__ __forceinline__ V
	add(const V &a, const V &b, const scan_cfg &)
	{
		return sum_add<K>(a, b);
	}

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
