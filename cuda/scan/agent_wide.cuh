/*
 * agent_wide.cuh - the out kernel of a float sum whose chunk takes the wide
 * window (scan_window.cuh's mode 0: no window of 1 to 3 limbs holds its
 * prefixes), with the default block scan.
 *
 * scan_out_kernel on scan_sum_wide's K-limb values (f64: 34 limbs) pays K
 * limbs for every element's value, every add and every rounding, and a
 * block scan of K-limb values per tile: 48.8 ms per GiB of f64 on an H100,
 * compute-bound (bench/RESULTS.md). A term touches two limbs, though, and
 * a carry rarely goes far; an output needs the top three limbs of the
 * magnitude. So this kernel gives each thread a run of consecutive records
 * of its block's part and keeps the thread's prefix in shared memory, K
 * limbs a thread, limb-major (limb j of thread t at j * SCAN_THREADS + t:
 * lanes at different limbs still hit different banks):
 *   1. each thread adds its run's terms into its limbs (wide_term);
 *   2. the block scans the threads' sums limb by limb from the part's
 *      prefix (partv): each limb an exclusive 128-bit scan of the threads'
 *      limbs, plus the carries out of the limb below;
 *   3. each thread reads its run again and walks it from its prefix: a
 *      term into two limbs and any carry (wide_term), then where the sign,
 *      the top limb and the lowest nonzero limb now are (wide_fix, struct
 *      wide_at), and each output rounded from three limbs (wide_round),
 *      exactly as sum_round rounds all K.
 * The limb work is __host__ __device__: the host check walks random terms
 * (tests/gpu/scan_check_round.cuh) against scan_sum_wide's adds and
 * sum_round, the one core's rounding.
 */
#ifndef AGENT_WIDE_CUH
#define AGENT_WIDE_CUH

#include "agent_scan.cuh"

/* Where a prefix kept as K limbs stands, beside its limbs. */
struct wide_at {
	int top;		/* the highest limb that is not the sign's
				 * extension (0 or all ones), or -1 */
	int low;		/* the lowest nonzero limb, or K */
	bool neg;		/* the sign: limb K - 1's top bit */
	unsigned flags;		/* EXACT_NAN | EXACT_PINF | EXACT_NINF */
};

/* Add (neg ? -mag : mag) * 2^s to the K two's complement limbs a[0], a[S],
 * a[2S] ...; mag < 2^63, s / 64 + 1 < K (scan_sum_wide's bounds). Returns
 * the highest limb written: a carry past limb k + 1 goes on only while it
 * runs through a full (or, borrowing, an empty) limb. */
template <int K>
static __host__ __device__ __forceinline__ int wide_term(u64 *a, unsigned S,
							 u64 mag, int s, bool neg)
{
	int k = s >> 6, b = s & 63, j = k + 2;
	u64 lo = mag << b, hi = b ? mag >> (64 - b) : 0, x, y;
	bool c;

	x = a[k * S];
	if (!neg) {
		y = x + lo;
		c = y < x;
		a[k * S] = y;
		x = a[(k + 1) * S];
		y = x + (hi + c);		/* hi < 2^63: no wrap */
		c = y < x;
		a[(k + 1) * S] = y;
		for (; c && j < K; j++) {
			y = a[j * S] + 1;
			a[j * S] = y;
			c = y == 0;
		}
	} else {
		y = x - lo;
		c = x < lo;
		a[k * S] = y;
		x = a[(k + 1) * S];
		lo = hi + c;
		a[(k + 1) * S] = x - lo;
		c = x < lo;
		for (; c && j < K; j++) {
			x = a[j * S];
			a[j * S] = x - 1;
			c = x == 0;
		}
	}
	return j - 1;
}

/* *w for limbs just written by wide_term from limb k up to limb m: the
 * sign changes only where the carry reached limb K - 1 (and then the top
 * is looked for from there); the top limb moves up to m or, where the
 * term cancelled, down; the lowest nonzero limb can change only if it was
 * at k or above. */
template <int K>
static __host__ __device__ __forceinline__ void wide_fix(const u64 *a,
							 unsigned S,
							 struct wide_at *w,
							 int k, int m)
{
	bool neg = m == K - 1 ? a[(K - 1) * S] >> 63 : w->neg;
	u64 ext = neg ? ~0ull : 0;
	int t = m > w->top ? m : w->top;

	while (t >= 0 && a[t * S] == ext)
		t--;
	w->top = t;
	w->neg = neg;
	if (w->low >= k) {
		int l = k;

		while (l < K && a[l * S] == 0)
			l++;
		w->low = l;
	}
}

/* *w of limbs a (flags apart), from scratch. */
template <int K>
static __host__ __device__ __forceinline__ void wide_find(const u64 *a,
							  unsigned S,
							  struct wide_at *w)
{
	w->neg = a[(K - 1) * S] >> 63;
	w->low = 0;
	while (w->low < K && a[w->low * S] == 0)
		w->low++;
	w->top = K - 1;
	while (w->top >= 0 && a[w->top * S] == (w->neg ? ~0ull : 0))
		w->top--;
}

/* Limb j of the magnitude, as xsum_core.h's exact_mag_limb makes it. */
template <int K>
static __host__ __device__ __forceinline__ u64 wide_mag(const u64 *a,
							unsigned S,
							const struct wide_at &w,
							int j)
{
	return j < w.low || j >= K ? 0 :
	       exact_mag_limb(a[j * S], j, w.low, w.neg);
}

/* The prefix rounded into f, as sum_round rounds its K limbs (flags first,
 * then the magnitude's top 128 bits and a sticky bit for the rest), from
 * the three limbs under the magnitude's top. */
template <int K>
static __host__ __device__ __forceinline__ u64 wide_round(const u64 *a,
							  unsigned S,
							  const struct wide_at &w,
							  int lsb,
							  const struct ieee_fmt &f)
{
	int h, cut, k;

	if (w.flags)
		return exact_flags_round(w.flags, &f);
	/* a negative prefix's magnitude tops at its top limb, or at its lowest
	 * nonzero one (all ones above it: the magnitude is that limb's) */
	h = w.neg && w.low > w.top ? w.low : w.top;
	if (h < 0)
		return 0;
	cut = exact_cut(64 * h + 63 - ieee_clz64(wide_mag<K>(a, S, w, h)));
	k = cut / 64;
	return exact_top_round(wide_mag<K>(a, S, w, k), wide_mag<K>(a, S, w, k + 1),
			       wide_mag<K>(a, S, w, k + 2), cut, w.low < k, lsb,
			       w.neg, &f);
}

/* Element x's term into the limbs (L: the lsb of limb 0); its flags into
 * *fl. The limb it starts at into *k, the highest written into *m; false
 * if it adds nothing (zero, NaN, an infinity). */
template <typename T, int K, int L>
static __host__ __device__ __forceinline__ bool wide_elem(u64 *a, unsigned S,
							  T x, unsigned *fl,
							  int *k, int *m)
{
	struct exact_term t = exact_elem(x);
	bool neg = t.m < 0;

	*fl |= t.flags;
	if (t.m == 0)
		return false;
	*k = (t.e - L) >> 6;
	*m = wide_term<K>(a, S, (u64)(neg ? -t.m : t.m), t.e - L, neg);
	return true;
}

/* Limb j of a run's prefix: ex, the exclusive 128-bit sum of limb j of the
 * runs before it, plus limb j of the part's prefix and *cy, the carry out
 * of limb j - 1 (then the carry out of limb j). */
static __host__ __device__ __forceinline__ u64 wide_limb(u128 ex, u64 pre,
							u64 *cy)
{
	u128 v = ex + pre + *cy;

	*cy = (u64)(v >> 64);
	return (u64)v;
}

/* The exclusive sum of one u64 a thread across the block, in 128 bits;
 * sh: SCAN_WARPS values. Every thread calls it. */
static __device__ __forceinline__ u128 wide_block_excl(u64 v, u128 *sh)
{
	unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	u128 inc = v, pre = 0;

SCAN_UNROLL
	for (unsigned d = 1; d < 32; d <<= 1) {
		u64 lo = __shfl_up_sync(0xffffffffu, (u64)inc, d);
		u64 hi = __shfl_up_sync(0xffffffffu, (u64)(inc >> 64), d);

		if (lane >= d)
			inc += (u128)hi << 64 | lo;
	}
	if (lane == 31)
		sh[warp] = inc;
	__syncthreads();
	for (unsigned i = 0; i < warp; i++)
		pre += sh[i];
	__syncthreads();	/* sh is the next call's */
	return pre + inc - v;
}

/* This thread's SCAN_ITEMS records from r (those before end) into x[]; how
 * many. Whole vectors where they can be (one column, aligned buffers, all
 * SCAN_ITEMS records: a run starts a multiple of SCAN_ITEMS into the part,
 * which starts at a tile). */
template <class Op>
static __device__ __forceinline__ unsigned wide_fetch(const scan_args<Op> &a,
						      unsigned col, size_t r,
						      size_t end,
						      typename Op::elem *x)
{
	unsigned n = end - r < SCAN_ITEMS ? (unsigned)(end - r) : SCAN_ITEMS;

	if (n == SCAN_ITEMS && scan_vec_ok(a, r)) {
		scan_vload(a.in + r, x);
		return n;
	}
	for (unsigned j = 0; j < n; j++)
		x[j] = a.in[(r + j) * a.columns + col];
	return n;
}

/* Bytes of shared memory scan_wide_out_kernel<T, K, L> takes: K limbs a
 * thread. */
template <int K>
static __host__ __device__ constexpr size_t scan_wide_bytes(void)
{
	return (size_t)K * SCAN_THREADS * sizeof(u64);
}

/* The wide window's outputs of a part, as scan_out_kernel<scan_sum_wide>
 * writes them (the same exact prefixes, rounded once): see the top of
 * this file. */
template <typename T, int K, int L>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_wide_out_kernel(const scan_args<scan_sum_wide<T, K, L>> a)
{
	typedef scan_sum_wide<T, K, L> Op;
	extern __shared__ uint4 scan_wide_mem[];
	__shared__ u128 sh[SCAN_WARPS];
	u64 *lim = (u64 *)scan_wide_mem + threadIdx.x;
	const unsigned S = SCAN_THREADS;
	const sum_val<K> *pre = a.partv + blockIdx.x;
	T x[SCAN_ITEMS], nx[SCAN_ITEMS];
	size_t t0, t1, r0, r1, seg, s0, s1, r;
	unsigned col, fl = 0, n = 0, nn = 0;
	struct wide_at w;
	u128 f;
	u64 cy = 0;
	scan_cfg c;
	int k, m;

	static_assert(dtype_is_float<T>::value, "the wide window is a float sum's");
	if (scan_skip(a, &c))
		return;
	col = scan_part(a, &t0, &t1);
	r0 = t0 * SCAN_TILE;
	r1 = t1 * SCAN_TILE < a.nrec ? t1 * SCAN_TILE : a.nrec;
	seg = ((r1 - r0 + SCAN_THREADS - 1) / SCAN_THREADS + SCAN_ITEMS - 1) /
	      SCAN_ITEMS * SCAN_ITEMS;
	s0 = r0 + threadIdx.x * seg < r1 ? r0 + threadIdx.x * seg : r1;
	s1 = s0 + seg < r1 ? s0 + seg : r1;

	/* 1. the run's sum */
	for (int j = 0; j < K; j++)
		lim[j * S] = 0;
	if (s0 < s1)
		n = wide_fetch(a, col, s0, s1, x);
	for (r = s0; r < s1; r += SCAN_ITEMS) {
		if (r + SCAN_ITEMS < s1)
			nn = wide_fetch(a, col, r + SCAN_ITEMS, s1, nx);
SCAN_UNROLL
		for (unsigned j = 0; j < SCAN_ITEMS; j++)
			if (j < n)
				wide_elem<T, K, L>(lim, S, x[j], &fl, &k, &m);
SCAN_UNROLL
		for (unsigned j = 0; j < SCAN_ITEMS; j++)
			x[j] = nx[j];
		n = nn;
	}

	/* 2. the run's prefix: the part's, plus the runs before it. A flag's
	 * count in 20 bits (at most SCAN_THREADS threads have it) */
	f = wide_block_excl((u64)(fl & 1) | (u64)(fl & 2) << 19 |
			    (u64)(fl & 4) << 38, sh);
	w.flags = pre->flags | ((u64)f & 0xfffff ? 1 : 0) |
		  ((u64)f >> 20 & 0xfffff ? 2 : 0) | ((u64)f >> 40 & 0xfffff ? 4 : 0);
	for (int j = 0; j < K; j++) {
		u128 ex = wide_block_excl(lim[j * S], sh);

		lim[j * S] = wide_limb(ex, pre->l[j], &cy);
	}
	wide_find<K>(lim, S, &w);

	/* 3. the walk */
	if (s0 < s1)
		n = wide_fetch(a, col, s0, s1, x);
	for (r = s0; r < s1; r += SCAN_ITEMS) {
		u64 bits[SCAN_ITEMS];

		if (r + SCAN_ITEMS < s1)
			nn = wide_fetch(a, col, r + SCAN_ITEMS, s1, nx);
SCAN_UNROLL
		for (unsigned j = 0; j < SCAN_ITEMS; j++) {
			if (j >= n)
				break;
			if (c.excl)
				bits[j] = wide_round<K>(lim, S, w, L, c.fmt);
			if (wide_elem<T, K, L>(lim, S, x[j], &w.flags, &k, &m))
				wide_fix<K>(lim, S, &w, k, m);
			if (!c.excl)
				bits[j] = wide_round<K>(lim, S, w, L, c.fmt);
		}
		if (n == SCAN_ITEMS && scan_vec_ok(a, r)) {
			void *p = (char *)a.out + r * c.osize;

			switch (c.osize) {
			case 2: scan_vstore<unsigned short>(p, bits); break;
			case 4: scan_vstore<unsigned>(p, bits); break;
			default: scan_vstore<u64>(p, bits); break;
			}
		} else {
			for (unsigned j = 0; j < n; j++)
				scan_store(a.out, (r + j) * a.columns + col,
					   c.osize, bits[j]);
		}
SCAN_UNROLL
		for (unsigned j = 0; j < SCAN_ITEMS; j++)
			x[j] = nx[j];
		n = nn;
	}
}

#endif
