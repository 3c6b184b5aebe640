/*
 * exact.cuh - exact sums on the device: terms M * 2^E (M a signed integer
 * with |M| < 2^127, E in [EXACT_EMIN, -EXACT_EMIN)) added with no rounding,
 * after Neal's small superaccumulator, and handed to the host as a struct
 * xsum (src/numerics/xsum.h) with the same value.
 *
 * Three levels, fastest first:
 * - a thread keeps (acc, b), the value acc * 2^b, in registers, and adds a
 *   term with a shift and a 128-bit add when it lands on or above b and the
 *   add does not overflow (checked, so no count limit). Otherwise it flushes
 *   acc into the block's slots and restarts at the new term, with b set
 *   EXACT_HEADROOM bits of growth below the top, so that smaller terms that
 *   follow still fit. Data whose values lie within ~2^60 of each other
 *   rarely flush.
 * - a block keeps int64 slots in shared memory, slot q weighing
 *   2^(32q + EXACT_EMIN); a flush splits acc into five pieces of magnitude
 *   < 2^33 aligned to slots and adds each with a 64-bit shared atomic. A
 *   slot thus absorbs 2^30 flushes: launchers keep a block under
 *   EXACT_BLOCK_TERMS terms per accumulator per kernel (exact_launch_cap).
 * - struct exact_acc in global memory: the same slots, to which each block
 *   adds its shared slots once at the end of the kernel (split in 32-bit
 *   halves, so each add is < 2^33), and exact_normalize() after every kernel
 *   brings every slot back into [-2^31, 2^31), so no number of chunks can
 *   overflow it.
 * NaN and the infinities are flags (EXACT_NAN ...), like struct xsum's.
 *
 * Everything is integer arithmetic, so the grouping (threads, blocks,
 * streams, chunks) cannot change the value. A zeroed struct exact_acc is an
 * empty sum (the backend cudaMemsets device accumulators).
 *
 * The decomposition helpers are __host__ __device__ so that the host can
 * check them against the CPU code.
 */
#ifndef EXACT_CUH
#define EXACT_CUH

#include <string.h>
#include "dtype.cuh"
#include "gpu.h"
#include "vec128.cuh"

/* Weight of slot 0's unit: the lsb of struct xsum, below the smallest
 * product of two doubles (2^-2148). */
#define EXACT_EMIN (-2176)
/* A term with E < 2176 and |M| < 2^127, shifted by up to 31 bits, ends in
 * slot (2176 + 2175) / 32 + 4 = 139; four more slots take the carries of
 * up to 2^128 such terms, far beyond any stream. */
#define EXACT_SLOTS 144
/* Bits left above a restarted thread accumulator's top term: up to 2^12
 * terms of its size add before an overflow forces a flush, while terms
 * 2^(115 - bits(M)) smaller still fit (f32: 91 binades, f64: 62). */
#define EXACT_HEADROOM 12
/* Terms per block per accumulator per kernel: 2^28 flushes (plus one per
 * thread) of pieces < 2^33 keep a shared slot below 2^62. */
#define EXACT_BLOCK_TERMS (1ull << 28)

#define EXACT_NAN 1u
#define EXACT_PINF 2u
#define EXACT_NINF 4u

/* One exact sum in global memory; zeroed means 0. */
struct exact_acc {
	long long slot[EXACT_SLOTS];	/* slot q weighs 2^(32q + EXACT_EMIN) */
	unsigned long long flags;	/* EXACT_NAN | EXACT_PINF | EXACT_NINF */
};

/* A term m * 2^e, or a special value (flags != 0, m == 0). m == 0 with no
 * flags is a zero: it adds nothing. */
struct exact_term {
	__int128 m;
	int e;
	unsigned flags;
};

/* ---- decomposition -------------------------------------------------------- */

static __host__ __device__ inline unsigned long long exact_bits_f64(double v)
{
	unsigned long long u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

static __host__ __device__ inline unsigned exact_bits_f32(float v)
{
	unsigned u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

/* An IEEE value of p significand bits (hidden bit included) and exponent
 * field width w, given its fields: m * 2^e exactly. bias_p = bias + p - 1. */
static __host__ __device__ inline struct exact_term
exact_fields(bool neg, unsigned be, unsigned long long frac, unsigned emax_field,
	     int p, int bias_p)
{
	struct exact_term t = { 0, 0, 0 };
	long long m;

	if (be == emax_field) {
		t.flags = frac ? EXACT_NAN : neg ? EXACT_NINF : EXACT_PINF;
		return t;
	}
	m = (long long)(frac | (unsigned long long)(be != 0) << (p - 1));
	t.m = neg ? -m : m;
	t.e = (int)(be + (be == 0)) - bias_p;
	return t;
}

static __host__ __device__ inline struct exact_term exact_f64(double v)
{
	unsigned long long u = exact_bits_f64(v);

	return exact_fields(u >> 63, (unsigned)(u >> 52) & 0x7ff,
			    u & 0xfffffffffffffull, 0x7ff, 53, 1075);
}

static __host__ __device__ inline struct exact_term exact_f32(float v)
{
	unsigned u = exact_bits_f32(v);

	return exact_fields(u >> 31, (u >> 23) & 0xff, u & 0x7fffff, 0xff, 24,
			    150);
}

/* Half types as raw bits (uint16_t in memory). */
static __host__ __device__ inline struct exact_term exact_f16(unsigned short h)
{
	return exact_fields(h >> 15, (h >> 10) & 0x1f, h & 0x3ff, 0x1f, 11, 25);
}

static __host__ __device__ inline struct exact_term exact_bf16(unsigned short h)
{
	return exact_fields(h >> 15, (h >> 7) & 0xff, h & 0x7f, 0xff, 8, 134);
}

static __host__ __device__ inline struct exact_term exact_i64(long long v)
{
	struct exact_term t = { v, 0, 0 };

	return t;
}

static __host__ __device__ inline struct exact_term exact_u64(unsigned long long v)
{
	struct exact_term t = { (__int128)v, 0, 0 };

	return t;
}

static __host__ __device__ inline bool exact_is_zero(struct exact_term t)
{
	return t.m == 0 && t.flags == 0;
}

static __host__ __device__ inline bool exact_is_neg(struct exact_term t)
{
	return t.flags ? t.flags == EXACT_NINF : t.m < 0;
}

/*
 * The exact product of two terms, for |a.m| * |b.m| < 2^127 (two f64
 * mantissas: 106 bits; f32: 48; i64 * i64 fits, u64 * u64 does not: use
 * exact_thr_add_u128 for those). Specials as struct xsum has them: a NaN
 * operand or inf * 0 is NaN, inf times anything else is a signed inf.
 */
static __host__ __device__ inline struct exact_term
exact_mul(struct exact_term a, struct exact_term b)
{
	struct exact_term t = { 0, 0, 0 };

	if (a.flags | b.flags) {
		if ((a.flags | b.flags) & EXACT_NAN || exact_is_zero(a) ||
		    exact_is_zero(b))
			t.flags = EXACT_NAN;
		else
			t.flags = exact_is_neg(a) != exact_is_neg(b) ?
				  EXACT_NINF : EXACT_PINF;
		return t;
	}
	t.m = a.m * b.m;
	t.e = a.e + b.e;
	return t;
}

static __host__ __device__ inline struct exact_term exact_prod_f64(double a, double b)
{
	return exact_mul(exact_f64(a), exact_f64(b));
}

static __host__ __device__ inline struct exact_term exact_prod_f32(float a, float b)
{
	return exact_mul(exact_f32(a), exact_f32(b));
}

/* ---- the kernels' element types (dtype.cuh) -------------------------------- */

/* A float element as an exact term m * 2^e (NaN and inf as flags). */
static __host__ __device__ inline struct exact_term exact_elem(f16_bits x) { return exact_f16(x.v); }
static __host__ __device__ inline struct exact_term exact_elem(bf16_bits x) { return exact_bf16(x.v); }
static __host__ __device__ inline struct exact_term exact_elem(float x) { return exact_f32(x); }
static __host__ __device__ inline struct exact_term exact_elem(double x) { return exact_f64(x); }

/* A float element's value as a double (exact: every format fits). */
static __host__ __device__ inline double exact_elem_f64(f16_bits x) { return ieee_f16_to_f32(x.v); }
static __host__ __device__ inline double exact_elem_f64(bf16_bits x) { return ieee_bf16_to_f32(x.v); }
static __host__ __device__ inline double exact_elem_f64(float x) { return x; }
static __host__ __device__ inline double exact_elem_f64(double x) { return x; }

/* A float element's bits, in the low dtype_fmt<T>::w (dtype.cuh) bits. */
static __host__ __device__ inline unsigned long long exact_elem_bits(f16_bits x) { return x.v; }
static __host__ __device__ inline unsigned long long exact_elem_bits(bf16_bits x) { return x.v; }
static __host__ __device__ inline unsigned long long exact_elem_bits(float x) { return exact_bits_f32(x); }
static __host__ __device__ inline unsigned long long exact_elem_bits(double x) { return exact_bits_f64(x); }

/* ---- slots ---------------------------------------------------------------- */

static __host__ __device__ inline int exact_clz64(unsigned long long x)
{
#ifdef __CUDA_ARCH__
	return __clzll((long long)x);
#else
	return x ? __builtin_clzll(x) : 64;
#endif
}

/* Significant bits of |m| (0 for 0). */
static __host__ __device__ inline int exact_nbits(__int128 m)
{
	unsigned __int128 a = m < 0 ? -(unsigned __int128)m : (unsigned __int128)m;
	unsigned long long hi = (unsigned long long)(a >> 64);

	if (hi)
		return 128 - exact_clz64(hi);
	return 64 - exact_clz64((unsigned long long)a);
}

/* *p += v, atomically on the device (shared or global memory); plainly on
 * the host, where tests emulate one thread. */
static __host__ __device__ inline void exact_atomic_add(long long *p, long long v)
{
#ifdef __CUDA_ARCH__
	atomicAdd((unsigned long long *)p, (unsigned long long)v);
#else
	*p = (long long)((unsigned long long)*p + (unsigned long long)v);
#endif
}

/*
 * slot[] += m * 2^e, EXACT_EMIN <= e < -EXACT_EMIN, |m| < 2^127. With
 * e - EXACT_EMIN = 32q + r, m * 2^r = hi * 2^(64+r) + lo * 2^r, each half
 * shifted into 96 bits and cut at 32-bit boundaries: five pieces of
 * magnitude < 2^33 into slots q .. q + 4.
 */
static __host__ __device__ inline void exact_slots_add(long long *slot,
							__int128 m, int e)
{
	unsigned p = (unsigned)(e - EXACT_EMIN), q = p / 32, r = p % 32;
	unsigned __int128 a = (unsigned __int128)(unsigned long long)m << r;
	__int128 b = (__int128)((unsigned __int128)(long long)(m >> 64) << r);
	const long long mask = 0xffffffff;
	long long piece[5];

	piece[0] = (long long)a & mask;
	piece[1] = (long long)(a >> 32) & mask;
	piece[2] = (long long)(a >> 64) + ((long long)b & mask);
	piece[3] = (long long)(b >> 32) & mask;
	piece[4] = (long long)(b >> 64);	/* arithmetic: the sign */
	for (int k = 0; k < 5; k++)
		if (piece[k])
			exact_atomic_add(&slot[q + k], piece[k]);
}

/* ---- the thread accumulator ----------------------------------------------- */

struct exact_thr {
	__int128 acc;		/* value acc * 2^b, |acc| < 2^127 */
	int b;
	unsigned flags;
};

/* b: where to start; 0 suits integer terms (which then never flush). */
static __host__ __device__ inline void exact_thr_init(struct exact_thr *t, int b)
{
	t->acc = 0;
	t->b = b;
	t->flags = 0;
}

static __host__ __device__ inline void exact_thr_flush(struct exact_thr *t,
							long long *slot)
{
	if (t->acc)
		exact_slots_add(slot, t->acc, t->b);
	t->acc = 0;
}

/* Add m * 2^e, |m| < 2^127 with nb = its significant bits, e in range;
 * slot: this accumulator's slots in the block's shared memory, for the rare
 * flush. */
static __host__ __device__ inline void exact_thr_add_nb(struct exact_thr *t,
							 __int128 m, int e,
							 int nb, long long *slot)
{
	int d = e - t->b, b;
	__int128 v, s;

	if (m == 0)
		return;
	if (d >= 0 && d + nb <= 126) {
		v = (__int128)((unsigned __int128)m << d);
		s = (__int128)((unsigned __int128)t->acc + (unsigned __int128)v);
		if (((s ^ t->acc) & (s ^ v)) >= 0) {	/* no signed overflow */
			t->acc = s;
			return;
		}
	}
	exact_thr_flush(t, slot);
	b = e + nb - (127 - EXACT_HEADROOM);
	b = b > e ? e : b;
	t->b = b < EXACT_EMIN ? EXACT_EMIN : b;
	t->acc = (__int128)((unsigned __int128)m << (e - t->b));
}

static __host__ __device__ inline void exact_thr_add(struct exact_thr *t,
						      __int128 m, int e,
						      long long *slot)
{
	exact_thr_add_nb(t, m, e, exact_nbits(m), slot);
}

/* The same for |m| < 2^63 (every single float), with a cheaper bit count. */
static __host__ __device__ inline void exact_thr_add64(struct exact_thr *t,
							long long m, int e,
							long long *slot)
{
	unsigned long long a = m < 0 ? -(unsigned long long)m : (unsigned long long)m;

	exact_thr_add_nb(t, m, e, 64 - exact_clz64(a), slot);
}

static __host__ __device__ inline void exact_thr_add_term(struct exact_thr *t,
							   struct exact_term x,
							   long long *slot)
{
	t->flags |= x.flags;
	exact_thr_add(t, x.m, x.e, slot);
}

/* Add (neg ? -mag : mag) * 2^e for any 128-bit magnitude (u64 * u64), as
 * its two 64-bit halves, each of which fits a signed term. */
static __host__ __device__ inline void
exact_thr_add_u128(struct exact_thr *t, unsigned __int128 mag, bool neg, int e,
		   long long *slot)
{
	__int128 hi = (__int128)(mag >> 64), lo = (__int128)(unsigned long long)mag;

	exact_thr_add(t, neg ? -hi : hi, e + 64, slot);
	exact_thr_add(t, neg ? -lo : lo, e, slot);
}

/* ---- windowed fast paths for f32 and f64 ----------------------------------
 *
 * Most data lies within a few dozen binades of its largest values. A window
 * accumulator keeps the exponent fields b .. b + span of one format in a
 * 128-bit integer acc, weighing 2^(b - bias - p + 1) (the ulp of the window's
 * lowest binade): a value in the window adds its signed significand shifted
 * by (exponent field - b), with no test of any kind, so the hot loop is a
 * few integer instructions per element and branch-free. Everything else
 * takes the slow path (exact_w32_add / exact_w64_add): a value above the
 * window moves the window up (acc goes into the thread's struct exact_thr,
 * exact, and b becomes its exponent less the span); values below it, zeros,
 * subnormals, infinities and NaNs go to the struct exact_thr as before. So
 * the window follows the largest value a thread has seen, and the values
 * more than span binades below that are the only slow ones.
 *
 * Invariant: 1 <= b and b + span <= the largest finite exponent field, so
 * subnormals, zeros and specials never pass the window test. Bounds (no
 * count check is ever made, so they are proved here):
 * - f32, span 28: a term is below 2^24 * 2^28 = 2^52 (24-bit significand),
 *   eight of them below 2^55 in the int64 that gathers one iteration; the
 *   128-bit acc holds 2^72 such terms.
 * - f64, span 52: a term is below 2^53 * 2^52 = 2^105, so acc may take
 *   EXACT_WIN_TERMS = 2^21 terms (< 2^126) between two folds: the launchers
 *   give no thread more elements than that per kernel (the launch cap keeps
 *   a thread under 2^19).
 * - stats squares of f32 (stats_kernels.cu): a term is below 2^48 * 2^56 =
 *   2^104, 2^21 of them below 2^125.
 */
#define EXACT_W32_SPAN 28
#define EXACT_W64_SPAN 52
#define EXACT_WIN_TERMS (1u << 21)

struct exact_w32 {
	__int128 acc;	/* value acc * 2^(b - 150) */
	int b;		/* window: exponent fields b .. b + EXACT_W32_SPAN */
};

struct exact_w64 {
	__int128 acc;	/* value acc * 2^(b - 1075) */
	int b;		/* window: exponent fields b .. b + EXACT_W64_SPAN */
};

static __host__ __device__ inline void exact_w32_init(struct exact_w32 *w)
{
	w->acc = 0;
	w->b = 1;
}

static __host__ __device__ inline void exact_w64_init(struct exact_w64 *w)
{
	w->acc = 0;
	w->b = 1;
}

/* Does f32 (bits u) lie in the window at b? */
static __host__ __device__ inline bool exact_w32_in(unsigned u, int b)
{
	return (unsigned)((int)((u >> 23) & 0xff) - b) <= EXACT_W32_SPAN;
}

/* Its value in units of 2^(b - 150), for u in the window: the significand
 * times +-2^d, d <= 28, as one 32 x 32 -> 64-bit multiply. */
static __host__ __device__ inline long long exact_w32_term(unsigned u, int b)
{
	int d = (int)((u >> 23) & 0xff) - b;
	int s = (int)((u & 0x7fffff) | 0x800000);
	int p = (int)u < 0 ? -(1 << d) : 1 << d;

	return (long long)s * p;
}

static __host__ __device__ inline bool exact_w64_in(unsigned long long u, int b)
{
	return (unsigned)((int)((u >> 52) & 0x7ff) - b) <= EXACT_W64_SPAN;
}

/* The same for f64: the 53-bit significand shifted by d <= 52. */
static __host__ __device__ inline __int128 exact_w64_term(unsigned long long u,
							  int b)
{
	int d = (int)((u >> 52) & 0x7ff) - b;
	unsigned long long s = (u & 0xfffffffffffffull) | 1ull << 52;
	unsigned __int128 t = (unsigned __int128)s << d;

	return (__int128)((long long)u < 0 ? -t : t);
}

/* Move a window's sum into t (exactly) and empty it. */
static __host__ __device__ inline void exact_w32_fold(struct exact_w32 *w,
						      struct exact_thr *t,
						      long long *slot)
{
	if (w->acc)
		exact_thr_add(t, w->acc, w->b - 150, slot);
	w->acc = 0;
}

static __host__ __device__ inline void exact_w64_fold(struct exact_w64 *w,
						      struct exact_thr *t,
						      long long *slot)
{
	if (w->acc)
		exact_thr_add(t, w->acc, w->b - 1075, slot);
	w->acc = 0;
}

/* Add any f32 (bits u): the window's path if it is in the window or above
 * it (then the window moves up to it first), t's otherwise. */
static __host__ __device__ inline void exact_w32_add(struct exact_w32 *w,
						     struct exact_thr *t,
						     unsigned u, long long *slot)
{
	int e = (int)((u >> 23) & 0xff);
	long long m = (long long)(u & 0x7fffff);

	if (e == 0xff) {
		t->flags |= m ? EXACT_NAN : u >> 31 ? EXACT_NINF : EXACT_PINF;
		return;
	}
	if (e > w->b + EXACT_W32_SPAN) {
		/* e <= 254 and e > b + 28 >= 29: the new b keeps the invariant */
		exact_w32_fold(w, t, slot);
		w->b = e - EXACT_W32_SPAN;
	}
	if (e >= w->b) {
		w->acc += exact_w32_term(u, w->b);
		return;
	}
	if (e == 0 && m == 0)
		return;
	m |= (long long)(e != 0) << 23;
	exact_thr_add64(t, u >> 31 ? -m : m, (e ? e : 1) - 150, slot);
}

static __host__ __device__ inline void exact_w64_add(struct exact_w64 *w,
						     struct exact_thr *t,
						     unsigned long long u,
						     long long *slot)
{
	int e = (int)((u >> 52) & 0x7ff);
	long long m = (long long)(u & 0xfffffffffffffull);

	if (e == 0x7ff) {
		t->flags |= m ? EXACT_NAN : u >> 63 ? EXACT_NINF : EXACT_PINF;
		return;
	}
	if (e > w->b + EXACT_W64_SPAN) {
		/* e <= 2046 and e > b + 52 >= 53: the new b keeps the invariant */
		exact_w64_fold(w, t, slot);
		w->b = e - EXACT_W64_SPAN;
	}
	if (e >= w->b) {
		w->acc += exact_w64_term(u, w->b);
		return;
	}
	if (e == 0 && m == 0)
		return;
	m |= (long long)(e != 0) << 52;
	exact_thr_add64(t, u >> 63 ? -m : m, (e ? e : 1) - 1075, slot);
}

/* The first k of the eight f32 (bits) a.x .. c.w, one by one (see
 * vec128_shift). */
static __host__ __device__ inline void
exact_w32_add_first(struct exact_w32 *w, struct exact_thr *t, uint4 a,
		    uint4 c, int k, long long *slot)
{
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
	for (int i = 0; i < k; i++) {
		exact_w32_add(w, t, a.x, slot);
		vec128_shift(a, c);
	}
}

/* Eight f32 (bits a, c) into w: branch-free when all lie in the window,
 * one by one through the slow path otherwise. */
static __host__ __device__ inline void exact_w32_add8(struct exact_w32 *w,
						      struct exact_thr *t,
						      uint4 a, uint4 c,
						      long long *slot)
{
	int b = w->b;

	if (exact_w32_in(a.x, b) & exact_w32_in(a.y, b) &
	    exact_w32_in(a.z, b) & exact_w32_in(a.w, b) &
	    exact_w32_in(c.x, b) & exact_w32_in(c.y, b) &
	    exact_w32_in(c.z, b) & exact_w32_in(c.w, b)) {
		long long s0 = exact_w32_term(a.x, b) + exact_w32_term(a.y, b),
			  s1 = exact_w32_term(a.z, b) + exact_w32_term(a.w, b),
			  s2 = exact_w32_term(c.x, b) + exact_w32_term(c.y, b),
			  s3 = exact_w32_term(c.z, b) + exact_w32_term(c.w, b);

		w->acc += (s0 + s1) + (s2 + s3);	/* < 2^55 */
		return;
	}
	exact_w32_add_first(w, t, a, c, 8, slot);
}

/* The first k of the four f64 (bits) a.x .. c.y, one by one. */
static __host__ __device__ inline void
exact_w64_add_first(struct exact_w64 *w, struct exact_thr *t, ulonglong2 a,
		    ulonglong2 c, int k, long long *slot)
{
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
	for (int i = 0; i < k; i++) {
		exact_w64_add(w, t, a.x, slot);
		vec128_shift(a, c);
	}
}

/* Four f64 (bits a, c) the same way. */
static __host__ __device__ inline void exact_w64_add4(struct exact_w64 *w,
						      struct exact_thr *t,
						      ulonglong2 a, ulonglong2 c,
						      long long *slot)
{
	int b = w->b;

	if (exact_w64_in(a.x, b) & exact_w64_in(a.y, b) &
	    exact_w64_in(c.x, b) & exact_w64_in(c.y, b)) {
		w->acc += (exact_w64_term(a.x, b) + exact_w64_term(a.y, b)) +
			  (exact_w64_term(c.x, b) + exact_w64_term(c.y, b));
		return;
	}
	exact_w64_add_first(w, t, a, c, 4, slot);
}

#ifdef __CUDACC__
/* ---- block and grid level (device only) ----------------------------------- */

/* Zero n shared slots (all of a block's accumulators); __syncthreads()
 * before use is the caller's. */
static __device__ inline void exact_block_zero(long long *slot, unsigned n)
{
	for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
		slot[i] = 0;
}

/* End of a thread's work: flush its register sum into its shared slots and
 * its flags into its global accumulator. */
static __device__ inline void exact_thr_finish(struct exact_thr *t,
					       long long *slot,
					       struct exact_acc *g)
{
	exact_thr_flush(t, slot);
	if (t->flags)
		atomicOr(&g->flags, (unsigned long long)t->flags);
}

/* Add a block's shared slots of n accumulators (slot[n][EXACT_SLOTS]) to
 * g[0 .. n), after a __syncthreads(). Each shared slot goes in as its low 32
 * bits and its high part one slot up, so a global slot gains < 2^33 per
 * block. */
static __device__ inline void exact_block_flush(const long long *slot,
						struct exact_acc *g, unsigned n)
{
	for (unsigned i = threadIdx.x; i < n * EXACT_SLOTS; i += blockDim.x) {
		long long v = slot[i], hi = v >> 32;
		unsigned q = i % EXACT_SLOTS;
		long long *gs = g[i / EXACT_SLOTS].slot;

		if (v == 0)
			continue;
		if (q == EXACT_SLOTS - 1) {
			exact_atomic_add(&gs[q], v);
			continue;
		}
		exact_atomic_add(&gs[q], v & 0xffffffff);
		if (hi)
			exact_atomic_add(&gs[q + 1], hi);
	}
}

/* Bring every slot of g[i] into [-2^31, 2^31), carrying upwards; one thread
 * per accumulator (144 serial steps: microseconds, once per kernel). */
template <int Unused = 0>
__global__ void exact_normalize_kernel(struct exact_acc *g, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	long long *s;
	long long c = 0;

	if (i >= n)
		return;
	s = g[i].slot;
	for (int q = 0; q < EXACT_SLOTS - 1; q++) {
		long long v = s[q] + c;

		c = (v + (1ll << 31)) >> 32;
		s[q] = v - (long long)((unsigned long long)c << 32);
	}
	s[EXACT_SLOTS - 1] += c;
}

#define EXACT_NORM_THREADS 64

/* Normalize g[0 .. n) on stream st: call after every kernel that adds. */
static inline cudaError_t exact_normalize(struct exact_acc *g, unsigned n,
					  cudaStream_t st)
{
	unsigned blocks = (n + EXACT_NORM_THREADS - 1) / EXACT_NORM_THREADS;

	if (n == 0)
		return cudaSuccess;
	exact_normalize_kernel<<<blocks, EXACT_NORM_THREADS, 0, st>>>(g, n);
	CUDA_LAUNCHED();
	return cudaSuccess;
}
#endif

/* Elements one kernel may take with `blocks` blocks so that no block adds
 * more than EXACT_BLOCK_TERMS terms to an accumulator, for kernels whose
 * grid stride is at least half their threads (the slack covers that and
 * uneven tails); launchers split bigger chunks. */
static inline size_t exact_launch_cap(unsigned blocks)
{
	return (size_t)blocks * (EXACT_BLOCK_TERMS / 4);
}

/* What an H100 SM holds, less 1 KB per block reserved by the system: it
 * bounds how many blocks of a large shared layout run at once. */
#define SM_SHARED_BYTES (228u * 1024)
#define BLOCK_RESERVED_BYTES 1024u
/* Without opting in, a block may have 48 KB of dynamic shared memory. */
#define DEFAULT_SHARED_BYTES (48u * 1024)

/* Blocks for n items of a kernel whose blocks hold `shared` bytes of exact
 * accumulators: enough that each of `threads` threads gets min_per_thread
 * items (zeroing and flushing the shared slots must not dominate small
 * chunks), at most blocks_per_sm per SM, and no more than the SMs' shared
 * memory holds at once. */
static inline unsigned exact_grid(size_t n, size_t shared, int nsm,
				  unsigned threads, unsigned blocks_per_sm,
				  unsigned min_per_thread)
{
	size_t per_sm = SM_SHARED_BYTES / (shared + BLOCK_RESERVED_BYTES);
	size_t most, b, per_block = (size_t)threads * min_per_thread;

	per_sm = per_sm < 1 ? 1 : per_sm > blocks_per_sm ? blocks_per_sm : per_sm;
	most = (size_t)(nsm > 0 ? nsm : 1) * per_sm;
	b = (n + per_block - 1) / per_block;
	return (unsigned)(b < 1 ? 1 : b > most ? most : b);
}

/* ---- host side ------------------------------------------------------------ */

/* x += the sum in host_copy (a struct exact_acc copied from the device),
 * exactly. */
static inline void exact_to_xsum(const void *host_copy, struct xsum *x)
{
	const struct exact_acc *a = (const struct exact_acc *)host_copy;
	__int128 c = 0;

	for (int q = 0; q < EXACT_SLOTS; q++) {
		__int128 v = a->slot[q] + c;

		/* balanced carries: a negative sum leaves no -1s up top */
		c = q < EXACT_SLOTS - 1 ? (v + ((__int128)1 << 31)) >> 32 : 0;
		v -= (__int128)((unsigned __int128)c << 32);
		if (v)
			xsum_add_i128(x, v, 32 * q + EXACT_EMIN);
	}
	x->nan |= (a->flags & EXACT_NAN) != 0;
	x->pinf |= (a->flags & EXACT_PINF) != 0;
	x->ninf |= (a->flags & EXACT_NINF) != 0;
}

#endif
