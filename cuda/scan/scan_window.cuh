/*
 * scan_window.cuh - the narrow window of a chunk's float sums: the bits
 * each chunk spans, the window that holds its prefixes, and moving exact
 * values between the wide limbs, the window and exact.cuh's slots.
 */
#ifndef SCAN_WINDOW_CUH
#define SCAN_WINDOW_CUH

#include "scan_sum_wide.cuh"

/*
 * The wide sums (scan_sum_wide.cuh) cost K limbs per add (f64: 34) and
 * a K-limb rounding per output. Real data spans few binades, so each
 * chunk first finds the lowest set bit and the highest top bit of its
 * finite nonzero values (scan_wbits, a reduction), and scan_window_pick
 * picks a window of N = 1, 2 or 3 limbs whose lsb w is the lowest bit of
 * the chunk and of the carry, if the carry plus any prefix of the chunk
 * fits in it: then every value of the chunk is an integer multiple of 2^w
 * below 2^(w + 64N - 1) in magnitude, and the narrow kernels give the same
 * exact values, so the same rounded bits. The wide carry stays the one
 * canonical carry between chunks.
 *
 * One kernel (scan_win_totals_kernel) reads the chunk once for both: each
 * part's exact total, as exact.cuh's reduction keeps it (a window in
 * registers, slots in shared memory), and its lowest and top bits. Then
 * one block (scan_win_carry_kernel) picks the window (scan_window_pick),
 * turns the parts' totals into wide values (scan_slots_wide), scans them
 * from the wide carries, advances the carries and writes each part's prefix
 * narrowed to the window for the chosen variant's out kernel.
 */

/* The chunk's bits and its choice of window, one per handle. */
struct scan_win {
	int lo, nhi;		/* lowest bit, minus the highest top bit */
	int w, mode;		/* window lsb; 0 (wide), 1, 2 or 3 limbs,
				 * 4 (one limb, scan_sum_hw) */
};

/* lo and nhi start here (a byte-wise memset of 0x7f): "no bit seen". */
#define SCAN_WIN_NONE 0x7f7f7f7f

/* A float element's fields: its value is (*neg ? -*m : *m) * 2^*e with
 * *m < 2^53 (0 for a zero); the flags of an infinity or a NaN (then *m is
 * meaningless), 0 for a finite value. No 128-bit term, no branch. */
template <typename T>
static __host__ __device__ __forceinline__ unsigned scan_fields(T x, bool *neg,
								u64 *m, int *e)
{
	typedef dtype_fmt<T> F;
	typedef dtype_bits<T> U;
	const U abs = ((U)1 << (F::w - 1)) - 1, frac = ((U)1 << (F::p - 1)) - 1;
	const U inf = abs & ~frac;
	U u = (U)exact_elem_bits(x), a = u & abs;
	unsigned be = (unsigned)(a >> (F::p - 1));

	*neg = (u >> (F::w - 1)) & 1;
	*m = (u64)((a & frac) | (U)(be != 0) << (F::p - 1));
	*e = (int)(be + (be == 0)) - F::bias_p;
	/* EXACT_NAN 1, EXACT_PINF 2, EXACT_NINF 4 */
	return (unsigned)(a > inf) | (unsigned)(a == inf) << (1 + *neg);
}

/*
 * The lowest set bit and the top bit of a run of float elements (the
 * window's bits), with no bit count per element: for finite nonzero |x|
 * of bits a, clearing a's lowest set bit leaves a value of the same
 * binade, and the difference is exact: the value of x's lowest bit (|x|
 * itself when the fraction is 0). Positive floats order as their bits, so
 * an integer min of those values' bits and an integer max of the a's
 * suffice; scan_wbits_done takes the two bit positions once. bf16 works
 * as f32 (its bits shifted up: the same value); f16 has no window.
 */
template <typename T> struct scan_wbits {
	typedef dtype_bits<T> U;
	typedef typename std::conditional<sizeof(T) == 8, double, float>::type F;
	U low, top;	/* smallest lowest-bit value, largest |x|, as bits */
};

template <typename T>
static __host__ __device__ __forceinline__ void scan_wbits_init(scan_wbits<T> *s)
{
	s->low = ~(typename scan_wbits<T>::U)0;
	s->top = 0;
}

template <typename T>
static __host__ __device__ __forceinline__ void scan_wbits_add(scan_wbits<T> *s,
							       T x)
{
	typedef typename scan_wbits<T>::U U;
	typedef dtype_fmt<typename scan_wbits<T>::F> G;
	const U abs = ((U)1 << (G::w - 1)) - 1, frac = ((U)1 << (G::p - 1)) - 1;
	const U inf = abs & ~frac;
	U a, c, low;

	if constexpr (std::is_same<T, bf16_bits>::value)
		a = ((U)x.v << 16) & abs;
	else
		a = (U)exact_elem_bits(x) & abs;
	c = a & (a - 1);
	if constexpr (sizeof(T) == 8)
		low = exact_bits_f64(ieee_f64_from_bits(a) -
				     ieee_f64_from_bits(c));
	else
		low = exact_bits_f32(ieee_f32_from_bits(a) - ieee_f32_from_bits(c));
	low = a & frac ? low : a;
	if (a - 1 < inf - 1) {	/* finite, nonzero: selects, not a branch */
		s->low = low < s->low ? low : s->low;
		s->top = a > s->top ? a : s->top;
	}
}

/* The run's lowest bit and minus its top bit, folded into lo and nhi. */
template <typename T>
static __host__ __device__ __forceinline__ void
scan_wbits_done(const scan_wbits<T> *s, int *lo, int *nhi)
{
	typedef typename scan_wbits<T>::U U;
	typedef dtype_fmt<typename scan_wbits<T>::F> G;
	const int FB = G::p - 1, BIAS_P = G::bias_p;
	const U frac = ((U)1 << FB) - 1;
	int l, h;
	unsigned bl, bh;

	if (s->top == 0)
		return;		/* zeros and specials only */
	bl = (unsigned)(s->low >> FB);	/* a power of two */
	bh = (unsigned)(s->top >> FB);
	if constexpr (sizeof(T) == 8) {
		l = bl ? (int)bl - (BIAS_P - FB) :
			 1 - BIAS_P + ieee_ctz64(s->low);
		h = bh ? (int)bh - (BIAS_P - FB) :
			 1 - BIAS_P + 63 - ieee_clz64(s->top & frac);
	} else {
		l = bl ? (int)bl - (BIAS_P - FB) :
			 1 - BIAS_P + ieee_ctz32(s->low);
		h = bh ? (int)bh - (BIAS_P - FB) :
			 1 - BIAS_P + 31 - ieee_clz32(s->top & frac);
	}
	*lo = l < *lo ? l : *lo;
	*nhi = -h < *nhi ? -h : *nhi;
}

/* Bits [d, d + 64N) of v (d >= 0), as N limbs: exact when v has no bit
 * below d and fits the N limbs' range. */
template <int K, int N>
static __host__ __device__ inline sum_val<N> sum_narrow(const sum_val<K> &v,
							int d)
{
	sum_val<N> r;
	u64 sign = v.l[K - 1] >> 63 ? ~0ull : 0;
	int q = d / 64, s = d % 64;

	for (int j = 0; j < N; j++) {
		u64 a = q + j < K ? v.l[q + j] : sign;
		u64 b = q + j + 1 < K ? v.l[q + j + 1] : sign;

		r.l[j] = s ? a >> s | b << (64 - s) : a;
	}
	r.flags = v.flags;
	return r;
}

/* n * 2^d (d >= 0) as K limbs, n sign-extended. */
template <int N, int K>
static __host__ __device__ inline sum_val<K> sum_widen(const sum_val<N> &n,
						       int d)
{
	sum_val<K> r;
	u64 sign = n.l[N - 1] >> 63 ? ~0ull : 0;
	int q = d / 64, s = d % 64;

	for (int j = 0; j < K; j++) {
		int i = j - q;
		u64 a = i < 0 ? 0 : i < N ? n.l[i] : sign;
		u64 b = i - 1 < 0 ? 0 : i - 1 < N ? n.l[i - 1] : sign;

		r.l[j] = s ? a << s | b >> (64 - s) : a;
	}
	r.flags = n.flags;
	return r;
}

/* Lowest set bit and top bit of |v| (limb positions); false if v is 0. */
template <int K>
static __host__ __device__ inline bool sum_bits(const sum_val<K> &v, int *lo,
						int *top)
{
	bool neg = v.l[K - 1] >> 63;
	u64 cy = neg;
	int l = -1, h = -1;

	for (int j = 0; j < K; j++) {
		u64 m = (neg ? ~v.l[j] : v.l[j]) + cy;

		cy = cy && m == 0;
		if (m && l < 0)
			l = 64 * j + ieee_ctz64(m);
		if (m)
			h = 64 * j + 63 - ieee_clz64(m);
	}
	*lo = l;
	*top = h;
	return h >= 0;
}

/*
 * The chunk's window, from its lowest bit and minus its top bit (win->lo,
 * win->nhi), the wide carries at its start and nrec (>= 1): every prefix
 * of a column is its carry plus at most nrec values below 2^(hi+1), so
 * below 2^(max(carry top, hi + lg) + 2) with nrec < 2^lg; a window of N
 * limbs at lsb w holds it when that is at most 2^(w + 64N - 1). Sets
 * win->w and win->mode.
 */
template <int K, int L>
static __host__ __device__ inline void scan_window_pick(struct scan_win *win,
							const sum_val<K> *carry,
							unsigned columns,
							size_t nrec)
{
	int lo = win->lo, lg = 64 - ieee_clz64(nrec), top, cl, ct, span;

	top = lo == SCAN_WIN_NONE ? INT_MIN / 2 : -win->nhi + lg;
	for (unsigned c = 0; c < columns; c++) {
		if (!sum_bits<K>(carry[c], &cl, &ct))
			continue;
		lo = L + cl < lo ? L + cl : lo;
		top = L + ct > top ? L + ct : top;
	}
	if (lo == SCAN_WIN_NONE) {	/* every value zero: any window */
		lo = L;
		top = L;
	}
	span = top - lo + 3;
	win->w = lo;
	win->mode = span <= 64 ? 1 : span <= 128 ? 2 : span <= 192 ? 3 : 0;
}

/*
 * An exact sum of values of bits >= 2^L (struct exact_acc's slots, slot q
 * weighing 2^(32q + EXACT_EMIN), each a signed 64-bit count) as K limbs at
 * lsb 2^L, for a sum that fits them. The slots below the one that holds
 * bit L are zero (every piece of such a value lies at or above it); from
 * there the slots are carried into 32-bit digits, the unique two's
 * complement form of the sum, which has no bit below L, and the digits
 * are shifted down to L.
 */
template <int K, int L>
static __host__ __device__ inline sum_val<K> scan_slots_wide(const long long *slot,
							unsigned flags)
{
	const int q0 = (L - EXACT_EMIN) / 32, s = (L - EXACT_EMIN) % 32;
	sum_val<K + 1> b;
	long long c = 0;
	sum_val<K> r;

SCAN_UNROLL
	for (int i = 0; i < 2 * (K + 1); i++) {
		long long v = (q0 + i < EXACT_SLOTS ? slot[q0 + i] : 0) + c;
		u64 d = (u64)v & 0xffffffffull;

		c = v >> 32;	/* arithmetic: a negative sum borrows */
		if (i % 2)
			b.l[i / 2] |= d << 32;
		else
			b.l[i / 2] = d;
	}
	b.flags = flags;
	r = sum_narrow<K + 1, K>(b, s);
	return r;
}

#endif
