/*
 * agent_scan.cuh - the tile work of a scan (CUB's agent layer): how a
 * chunk is cut, the loads and stores of a thread's records, and the three
 * kernels every scan runs, templated on the monoid Op (scan_ops.cuh).
 *
 * Three kernels per chunk, for all columns at once. Each column is cut
 * into tiles of SCAN_TILE records (thread t of a tile owns SCAN_ITEMS
 * consecutive records), and its tiles into parts of consecutive tiles, one
 * block per (column, part), as many blocks as fit on the GPU at once:
 *   1. totals: each part's total, into partv[col][part] (a reduction: each
 *      thread adds its records tile after tile);
 *   2. carry: one block per column scans its parts' totals starting from
 *      the column's carry (the prefix of every earlier chunk), overwrites
 *      each with the part's exclusive prefix and advances the carry;
 *   3. out: each block walks its part's tiles in order, scanning a tile
 *      from the prefix before it and writing every output, rounded once
 *      from the exact value (a correct rounding of the K-limb magnitude,
 *      as xsum_round does it; a product's from both ends of its bracket,
 *      as fprod_round does it).
 * Both tile kernels load a tile's records while the tile before is added.
 * Everything is stream-ordered: no host round trip between chunks. The
 * scans of the parts' totals and of each tile are block_scan.cuh's warp
 * scan, or in the kernels of --algorithm (CLASSIC) the classic scan
 * cfg.block names (block_scan_classic.cuh); nothing else differs. A part's
 * total is a reduction, by the warp scan whatever the algorithm.
 *
 * Integer outputs are range-checked, and a product can fail (an integer
 * past 2^128, a float bracket whose ends round apart). A failing element
 * becomes a key record * columns + column (the CPU reports the smallest
 * record, then the smallest column): each block finds its smallest in
 * shared memory and leaves why it failed (struct scan_bad: the prefix, or
 * the kind of failure) in bad[col][part]; a global atomicMin keeps the
 * smallest key; a one-thread kernel copies the why that goes with it into
 * the status the host reads, and gpu_scan_status_check words cpu_scan's
 * message from it.
 */
#ifndef AGENT_SCAN_CUH
#define AGENT_SCAN_CUH

#include "block_scan_classic.cuh"

/*
 * How the tile kernels cut a chunk: each column's tiles into parts of tpp
 * consecutive tiles, one block per (column, part), parts * columns blocks
 * in all. The totals kernel reduces a part, the carry kernel scans the
 * parts' totals, the out kernel walks a part's tiles in order carrying the
 * prefix from tile to tile, so the serial chain per column is only as long
 * as its parts.
 */
struct scan_split {
	size_t tpp;		/* tiles per part */
	unsigned parts;		/* parts per column */
};

/* ntiles (>= 1) tiles of each of `columns` columns, for at most `blocks`
 * blocks. */
static __host__ __device__ inline struct scan_split
scan_split_of(size_t ntiles, unsigned columns, unsigned blocks)
{
	unsigned per_col = blocks / columns ? blocks / columns : 1;
	struct scan_split p;

	p.tpp = (ntiles + per_col - 1) / per_col;
	p.tpp = p.tpp > SCAN_MAX_TPP ? SCAN_MAX_TPP : p.tpp;
	p.parts = (unsigned)((ntiles + p.tpp - 1) / p.tpp);
	return p;
}

template <class Op> struct scan_args {
	const typename Op::elem *in;
	void *out;
	size_t nrec, ntiles;
	struct scan_split sp;
	unsigned columns;
	scan_cfg cfg;
	typename Op::V *carry;		/* [columns] */
	typename Op::V *partv;		/* [columns][parts]: totals, then
					 * exclusive prefixes */
	struct scan_bad *bad;		/* [columns][parts] */
	struct scan_status *st;
	const struct scan_win *win;	/* float sums with a window, or NULL */
};

/* The job's cfg for this launch into *c; true if the chunk's mode is not
 * this variant's (the kernel then does nothing). */
template <class Op>
static __device__ __forceinline__ bool scan_skip(const scan_args<Op> &a,
						scan_cfg *c)
{
	*c = a.cfg;
	if (!a.win)
		return false;
	if (a.win->mode != (int)Op::WINDOW)
		return true;
	c->w = a.win->w;
	return false;
}

/* The status the host reads; key SCAN_NONE when every output could be
 * written. */
struct scan_status {
	u64 key;			/* record * columns + column */
	u64 rec;
	struct scan_bad why;		/* of that output */
	unsigned col, pad;
};

/* A thread's SCAN_ITEMS consecutive elements as whole vectors (16 bytes,
 * or 8 for bytes): a tile starts SCAN_TILE elements into a buffer from
 * cudaMalloc, so each thread's run is aligned to its own size. Element
 * loads strided by SCAN_ITEMS touched 8 times the cache lines per load. */
template <typename T> union scan_vec {
	T x[SCAN_ITEMS];
	uint4 v[(sizeof(T) * SCAN_ITEMS + 15) / 16];
	u64 w;
};

/* One column, every item of this thread in the chunk, and buffers as
 * aligned as cudaMalloc's: vectors. */
template <class Op>
static __device__ __forceinline__ bool scan_vec_ok(const scan_args<Op> &a,
						   size_t r0)
{
	return a.columns == 1 && r0 + SCAN_ITEMS <= a.nrec &&
	       ((size_t)a.in | (size_t)a.out) % 16 == 0;
}

template <typename T>
static __device__ __forceinline__ void scan_vload(const T *p, T *x)
{
	scan_vec<T> u;

	if constexpr (sizeof(T) * SCAN_ITEMS >= 16) {
SCAN_UNROLL
		for (unsigned i = 0; i < sizeof(u.v) / 16; i++)
			u.v[i] = ((const uint4 *)p)[i];
	} else {
		u.w = *(const u64 *)p;
	}
SCAN_UNROLL
	for (int j = 0; j < SCAN_ITEMS; j++)
		x[j] = u.x[j];
}

/* The low bytes of bits[] as SCAN_ITEMS values of U at p, as vectors. */
template <typename U>
static __device__ __forceinline__ void scan_vstore(void *p, const u64 *bits)
{
	scan_vec<U> u;

SCAN_UNROLL
	for (int j = 0; j < SCAN_ITEMS; j++)
		u.x[j] = (U)bits[j];
	if constexpr (sizeof(U) * SCAN_ITEMS >= 16) {
SCAN_UNROLL
		for (unsigned i = 0; i < sizeof(u.v) / 16; i++)
			((uint4 *)p)[i] = u.v[i];
	} else {
		*(u64 *)p = u.w;
	}
}

/* This thread's records from r0 of column col into x[] (those before
 * nrec; the rest of x[] is left as it is). */
template <class Op>
static __device__ __forceinline__ void scan_fetch(const scan_args<Op> &a,
						  unsigned col, size_t r0,
						  typename Op::elem *x)
{
	if (scan_vec_ok(a, r0)) {
		scan_vload(a.in + r0, x);
		return;
	}
SCAN_UNROLL
	for (int j = 0; j < SCAN_ITEMS; j++) {
		size_t r = r0 + j;

		if (r < a.nrec)
			x[j] = a.in[r * a.columns + col];
	}
}

/* The records of x[] (from r0, those before nrec) added to t in order;
 * FULL: all SCAN_ITEMS of them are records (no tests). With e, each
 * record's value goes into e[] too (for scan_outs). */
template <bool FULL, class Op>
static __device__ __forceinline__ typename Op::V
scan_fold(const scan_args<Op> &a, const scan_cfg &c, size_t r0,
	  const typename Op::elem *x, typename Op::V t,
	  typename Op::V *e = NULL)
{
SCAN_UNROLL
	for (int j = 0; j < SCAN_ITEMS; j++)
		if (FULL || r0 + j < a.nrec) {
			typename Op::V v = Op::of(x[j], c);

			if (e)
				e[j] = v;
			t = Op::add(t, v, c);
		}
	return t;
}

/* scan_fold for a thread's records from r0: unrolled without tests where
 * they are whole vectors (all but a chunk's last tile, one column). */
template <class Op>
static __device__ __forceinline__ typename Op::V
scan_fold_any(const scan_args<Op> &a, const scan_cfg &c, size_t r0,
	      const typename Op::elem *x, typename Op::V t,
	      typename Op::V *e = NULL)
{
	if (scan_vec_ok(a, r0))
		return scan_fold<true>(a, c, r0, x, t, e);
	return scan_fold<false>(a, c, r0, x, t, e);
}

/* This block's column and its part's tiles [*t, *end). */
template <class Op>
static __device__ __forceinline__ unsigned scan_part(const scan_args<Op> &a,
						     size_t *t, size_t *end)
{
	size_t first = (size_t)(blockIdx.x % a.sp.parts) * a.sp.tpp;

	*t = first;
	*end = first + a.sp.tpp < a.ntiles ? first + a.sp.tpp : a.ntiles;
	return blockIdx.x / a.sp.parts;
}

/* Phase 1: every part's total (each thread's records of every tile of
 * the part, tile by tile, then the block's total). The next tile's
 * records are loaded while this one's are added. */
template <class Op>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_totals_kernel(const scan_args<Op> a)
{
	typedef typename Op::V V;
	__shared__ V sh[SCAN_SHARED];
	typename Op::elem x[SCAN_ITEMS], nx[SCAN_ITEMS];
	size_t t, end, r0;
	unsigned col;
	scan_cfg c;
	V sum, tot;

	if (scan_skip(a, &c))
		return;
	col = scan_part(a, &t, &end);
	r0 = t * SCAN_TILE + (size_t)threadIdx.x * SCAN_ITEMS;
	sum = Op::ident(c);
	scan_fetch(a, col, r0, x);
	for (; t < end; t++, r0 += SCAN_TILE) {
		if (t + 1 < end)
			scan_fetch(a, col, r0 + SCAN_TILE, nx);
		sum = Op::add(sum, scan_fold_any(a, c, r0, x, Op::ident(c)), c);
SCAN_UNROLL
		for (int j = 0; j < SCAN_ITEMS; j++)
			x[j] = nx[j];
	}
	block_scan<Op>(sum, sh, &tot, c);
	if (threadIdx.x == 0)
		a.partv[blockIdx.x] = tot;
}

/* Phase 2: block `col` turns its column's part totals into exclusive
 * prefixes from the carry, and advances the carry. */
template <class Op, bool CLASSIC = false>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_carry_kernel(const scan_args<Op> a)
{
	typedef typename Op::V V;
	V *sh = scan_block_mem<CLASSIC, V>();
	unsigned col = blockIdx.x;
	V carry, *pv = a.partv + (size_t)col * a.sp.parts;
	scan_cfg c;

	if (scan_skip(a, &c))
		return;
	carry = a.carry[col];
	for (unsigned p0 = 0; p0 < a.sp.parts; p0 += SCAN_THREADS) {
		unsigned i = p0 + threadIdx.x;
		V v = i < a.sp.parts ? pv[i] : Op::ident(c), tot, ex;

		ex = scan_block<CLASSIC, Op>(v, sh, &tot, c);
		if (i < a.sp.parts)
			pv[i] = Op::add(carry, ex, c);
		carry = Op::add(carry, tot, c);
	}
	if (threadIdx.x == 0)
		a.carry[col] = carry;
}

static __device__ __forceinline__ void scan_store(void *out, size_t i,
						  unsigned size, u64 bits)
{
	switch (size) {
	case 1: ((unsigned char *)out)[i] = (unsigned char)bits; break;
	case 2: ((unsigned short *)out)[i] = (unsigned short)bits; break;
	case 4: ((unsigned *)out)[i] = (unsigned)bits; break;
	default: ((u64 *)out)[i] = bits; break;
	}
}

/* A tile's smallest failing key: its why goes to bad[blockIdx.x] (the
 * part's), the key into the status. Every thread calls this (uniform per
 * block); true if the tile had a failing output. */
template <class Op>
static __device__ __forceinline__ bool scan_fail(const scan_args<Op> &a,
						 u64 key, const struct scan_bad &why)
{
	__shared__ u64 least;
	bool any;

	if (threadIdx.x == 0)
		least = SCAN_NONE;
	__syncthreads();
	if (key != SCAN_NONE)
		atomicMin(&least, key);
	__syncthreads();
	any = least != SCAN_NONE;
	if (key != SCAN_NONE && key == least) {
		a.bad[blockIdx.x] = why;
		atomicMin(&a.st->key, key);
	}
	__syncthreads();	/* least is reset by the next tile */
	return any;
}

/* The out kernel keeps each record's value from the scan of its tile to
 * its output where values are small (not the wide sums' K limbs). */
template <class Op> struct scan_keep {
	static const bool value = sizeof(typename Op::V) <= 16;
};

/* The outputs of a thread's records of a tile from run, the prefix
 * before them; the first failing key and why into *key, *fail. VEC: all
 * SCAN_ITEMS are records of one column, stored as vectors. The records'
 * values are e[] where the out kernel keeps them, of(x[]) otherwise. */
template <bool VEC, class Op>
static __device__ __forceinline__ void scan_outs(const scan_args<Op> &a,
						 const scan_cfg &c, unsigned col,
						 size_t r0,
						 const typename Op::elem *x,
						 const typename Op::V *e,
						 typename Op::V run, u64 *key,
						 struct scan_bad *fail)
{
	u64 bits[SCAN_ITEMS];
	struct scan_bad why;

SCAN_UNROLL
	for (int j = 0; j < SCAN_ITEMS; j++) {
		size_t r = r0 + j;
		typename Op::V v;

		if (!VEC && r >= a.nrec)
			break;
		if constexpr (scan_keep<Op>::value)
			v = e[j];
		else
			v = Op::of(x[j], c);
		if (!c.excl)
			run = Op::add(run, v, c);
		/* a failing output's bits are stored too: the writer keeps
		 * only the records before it */
		if (!Op::out(run, c, &bits[j], &why) && *key == SCAN_NONE) {
			*key = (u64)r * a.columns + col;
			*fail = why;
		}
		if (!VEC)
			scan_store(a.out, r * a.columns + col, c.osize, bits[j]);
		if (c.excl)
			run = Op::add(run, v, c);
	}
	if (VEC) {
		void *p = (char *)a.out + r0 * c.osize;

		switch (c.osize) {
		case 1: scan_vstore<unsigned char>(p, bits); break;
		case 2: scan_vstore<unsigned short>(p, bits); break;
		case 4: scan_vstore<unsigned>(p, bits); break;
		default: scan_vstore<u64>(p, bits); break;
		}
	}
}

/* Phase 3: every output of a part, tile by tile from the part's prefix
 * (the next tile's records load meanwhile). A column's keys grow with the
 * record, so the part's first failing tile holds its smallest key: later
 * tiles record none. */
template <class Op, bool CLASSIC = false>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_out_kernel(const scan_args<Op> a)
{
	typedef typename Op::V V;
	V *sh = scan_block_mem<CLASSIC, V>();
	typename Op::elem x[SCAN_ITEMS], nx[SCAN_ITEMS];
	V e[scan_keep<Op>::value ? SCAN_ITEMS : 1];
	V *ep = scan_keep<Op>::value ? e : NULL;
	size_t t, end, r0;
	unsigned col;
	bool failed = false;
	scan_cfg c;
	V pre;

	if (scan_skip(a, &c))
		return;
	col = scan_part(a, &t, &end);
	r0 = t * SCAN_TILE + (size_t)threadIdx.x * SCAN_ITEMS;
	pre = a.partv[blockIdx.x];
	scan_fetch(a, col, r0, x);
	for (; t < end; t++, r0 += SCAN_TILE) {
		V tot, run;
		u64 key = SCAN_NONE;
		struct scan_bad fail = {};
		bool vec = scan_vec_ok(a, r0);

		if (t + 1 < end)
			scan_fetch(a, col, r0 + SCAN_TILE, nx);
		run = vec ? scan_fold<true>(a, c, r0, x, Op::ident(c), ep)
			  : scan_fold<false>(a, c, r0, x, Op::ident(c), ep);
		run = scan_block<CLASSIC, Op>(run, sh, &tot, c);
		run = Op::add(pre, run, c);
		pre = Op::add(pre, tot, c);
		if (vec)
			scan_outs<true>(a, c, col, r0, x, e, run, &key, &fail);
		else
			scan_outs<false>(a, c, col, r0, x, e, run, &key, &fail);
		if (c.can_fail && !failed)
			failed = scan_fail(a, key, fail);
SCAN_UNROLL
		for (int j = 0; j < SCAN_ITEMS; j++)
			x[j] = nx[j];
	}
}

/* After phase 3: the failing record, column and why, for the host.
 * Defined once, in dispatch_scan.cu, and launched from every dispatch
 * translation unit through this declaration. */
__global__ void scan_status_kernel(struct scan_status *st,
				   const struct scan_bad *bad,
				   unsigned columns, struct scan_split sp);

#endif
