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
 * Values become terms, and terms slots, by numerics/xsum_core.h, which
 * struct xsum uses too; the rest is __host__ __device__ so that the host
 * can replay the kernels (tests/gpu/exact_host.cu).
 */
#ifndef EXACT_CUH
#define EXACT_CUH

#include "dtype.cuh"
#include "gpu.h"
#include "vec128.cuh"
#include "xsum_core.h"

/* Bits left above a restarted thread accumulator's top term: up to 2^12
 * terms of its size add before an overflow forces a flush, while terms
 * 2^(115 - bits(M)) smaller still fit (f32: 91 binades, f64: 62). */
#define EXACT_HEADROOM 12
/* Terms per block per accumulator per kernel: 2^28 flushes (plus one per
 * thread) of pieces < 2^33 keep a shared slot below 2^62. */
#define EXACT_BLOCK_TERMS (1ull << 28)

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

	exact_thr_add_nb(t, m, e, 64 - ieee_clz64(a), slot);
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
 * takes the slow path (exact_win_add): a value above the
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

/* A window's format (dtype.cuh's) and span. */
template <class W> struct exact_wfmt;
template <> struct exact_wfmt<struct exact_w32> : dtype_fmt<float> {
	typedef unsigned U;
	enum { SPAN = EXACT_W32_SPAN };
};
template <> struct exact_wfmt<struct exact_w64> : dtype_fmt<double> {
	typedef unsigned long long U;
	enum { SPAN = EXACT_W64_SPAN };
};

template <class W>
static __host__ __device__ inline void exact_win_init(W *w)
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
static __host__ __device__ inline long long exact_win_term(unsigned u, int b)
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
static __host__ __device__ inline __int128 exact_win_term(unsigned long long u,
							  int b)
{
	int d = (int)((u >> 52) & 0x7ff) - b;
	unsigned long long s = (u & 0xfffffffffffffull) | 1ull << 52;
	unsigned __int128 t = (unsigned __int128)s << d;

	return (__int128)((long long)u < 0 ? -t : t);
}

/* Move a window's sum into t (exactly) and empty it. */
template <class W>
static __host__ __device__ inline void exact_win_fold(W *w, struct exact_thr *t,
						      long long *slot)
{
	if (w->acc)
		exact_thr_add(t, w->acc, w->b - exact_wfmt<W>::bias_p, slot);
	w->acc = 0;
}

/* Add any value of the window's format (bits u): the window's path if it
 * is in the window or above it (then the window moves up to it first),
 * t's otherwise. The new b keeps the invariant: e <= emax - 1 and
 * e > b + SPAN >= SPAN + 1. */
template <class W>
static __host__ __device__ inline void
exact_win_add(W *w, struct exact_thr *t, typename exact_wfmt<W>::U u,
	      long long *slot)
{
	typedef exact_wfmt<W> F;
	const int FB = F::p - 1;
	const typename F::U frac = ((typename F::U)1 << FB) - 1;
	int e = (int)((u >> FB) & F::emax);
	long long m = (long long)(u & frac);
	bool neg = u >> (8 * sizeof(u) - 1);

	if (e == F::emax) {
		t->flags |= m ? EXACT_NAN : neg ? EXACT_NINF : EXACT_PINF;
		return;
	}
	if (e > w->b + F::SPAN) {
		exact_win_fold(w, t, slot);
		w->b = e - F::SPAN;
	}
	if (e >= w->b) {
		w->acc += exact_win_term(u, w->b);
		return;
	}
	if (e == 0 && m == 0)
		return;
	m |= (long long)(e != 0) << FB;
	exact_thr_add64(t, neg ? -m : m, (e ? e : 1) - F::bias_p, slot);
}

/* The first k of the elements of a vector pair (eight f32, a.x .. c.w, or
 * four f64), one by one (see vec128_shift). */
template <class W, class V>
static __host__ __device__ inline void
exact_win_add_first(W *w, struct exact_thr *t, V a, V c, int k,
		    long long *slot)
{
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
	for (int i = 0; i < k; i++) {
		exact_win_add(w, t, a.x, slot);
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
		long long s0 = exact_win_term(a.x, b) + exact_win_term(a.y, b),
			  s1 = exact_win_term(a.z, b) + exact_win_term(a.w, b),
			  s2 = exact_win_term(c.x, b) + exact_win_term(c.y, b),
			  s3 = exact_win_term(c.z, b) + exact_win_term(c.w, b);

		w->acc += (s0 + s1) + (s2 + s3);	/* < 2^55 */
		return;
	}
	exact_win_add_first(w, t, a, c, 8, slot);
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
		w->acc += (exact_win_term(a.x, b) + exact_win_term(a.y, b)) +
			  (exact_win_term(c.x, b) + exact_win_term(c.y, b));
		return;
	}
	exact_win_add_first(w, t, a, c, 4, slot);
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
 * g[0 .. n), after a __syncthreads(): a global slot gains < 2^33 per
 * block (exact_slot_spill). */
static __device__ inline void exact_block_flush(const long long *slot,
						struct exact_acc *g, unsigned n)
{
	for (unsigned i = threadIdx.x; i < n * EXACT_SLOTS; i += blockDim.x)
		exact_slot_spill(g[i / EXACT_SLOTS].slot, i % EXACT_SLOTS,
				 slot[i]);
}

/* Bring every slot of g[i] but the top into [-2^31, 2^31) (exact_slots_carry);
 * one thread per accumulator (144 serial steps: microseconds, once per
 * kernel). */
template <int Unused = 0>
__global__ void exact_normalize_kernel(struct exact_acc *g, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		exact_slots_carry(g[i].slot, EXACT_SLOTS);
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
	xsum_add_slots(x, (const struct exact_acc *)host_copy);
}

#endif
