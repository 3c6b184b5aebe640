/*
 * block_scan_classic.cuh - the block-wide scans --algorithm picks, the
 * classic ones of the GPU teaching examples, over the same monoid values
 * as block_scan.cuh's warp scan: one value per thread across the block's
 * SCAN_THREADS threads, in shared memory.
 *   hillis-steele  step doubling: log2(n) steps, x[i] = x[i - d] + x[i]
 *                  for d = 1, 2, 4 ... (n log n additions). In place: a
 *                  step reads, waits for every thread, then writes, so
 *                  the buffer is n values, not two of them.
 *   blelloch       the work-efficient scan (2n additions in 2 log2(n)
 *                  steps): an up-sweep (a reduce tree: x[r] = x[r - d] +
 *                  x[r] at every 2d-th element) leaves the total at the
 *                  root; the root is set aside and becomes the empty
 *                  prefix, and a down-sweep (a node's left child takes the
 *                  node's prefix, its right child that prefix + the left
 *                  subtree's total) leaves each thread's exclusive prefix.
 * Terms are added left + right, in the order of the records, as every
 * monoid's add expects. The monoids are exact, so every block scan gives
 * the same prefixes and the same output bits; only a product's bracket,
 * which follows the grouping, differs, and its output, when written, is the
 * exact prefix correctly rounded either way (scan_ops.cuh).
 *
 * The steps are __host__ __device__ functions of the shared array and a
 * thread's index, so tests/gpu replays them on the host in the device's
 * order. scan_block picks the kernels' block scan: the warp scan, or these
 * by cfg.block, compiled into the kernels of --algorithm only (CLASSIC),
 * whose buffer is the launch's dynamic shared memory (scan_block_bytes:
 * over 48 KiB for the wide f64 sum, which the launchers allow).
 */
#ifndef BLOCK_SCAN_CLASSIC_CUH
#define BLOCK_SCAN_CLASSIC_CUH

#include "block_scan.cuh"

static_assert((SCAN_THREADS & (SCAN_THREADS - 1)) == 0,
	      "the classic block scans pair threads in a power-of-two tree");

/* The steps' loops stay loops: unrolled, every step's add of a wide
 * value (34 limbs for f64) was inlined again, in every kernel. */
#define SCAN_LOOP _Pragma("unroll 1")

/* Shared values of a classic block scan: one per thread, and blelloch's
 * total set aside beside them. */
#define SCAN_CLASSIC_SLOTS (SCAN_THREADS + 1)

/* Hillis-Steele's step d for thread i, whose value is v (= x[i]): the
 * value d before it + v, or v where there is none. */
template <class Op>
static __host__ __device__ __forceinline__ typename Op::V
hs_step(const typename Op::V *x, unsigned i, unsigned d,
	const typename Op::V &v, const scan_cfg &c)
{
	return i >= d ? Op::add(x[i - d], v, c) : v;
}

/* The up-sweep at stride d for thread k < SCAN_THREADS / (2d): the last
 * element of the k-th pair of subtrees (each of d elements) takes the
 * pair's total. */
template <class Op>
static __host__ __device__ __forceinline__ void
blelloch_up(typename Op::V *x, unsigned k, unsigned d, const scan_cfg &c)
{
	unsigned r = 2 * d * (k + 1) - 1;

	x[r] = Op::add(x[r - d], x[r], c);
}

/* Between the sweeps (one thread): the block's total set aside, the root
 * the empty prefix. */
template <class Op>
static __host__ __device__ __forceinline__ void
blelloch_root(typename Op::V *x, const scan_cfg &c)
{
	x[SCAN_THREADS] = x[SCAN_THREADS - 1];
	x[SCAN_THREADS - 1] = Op::ident(c);
}

/* The down-sweep at stride d for thread k: x[r] holds the prefix before
 * the pair of subtrees, x[r - d] the left one's total; the left subtree
 * takes the prefix, the right one the prefix + the left one's total. */
template <class Op>
static __host__ __device__ __forceinline__ void
blelloch_down(typename Op::V *x, unsigned k, unsigned d, const scan_cfg &c)
{
	unsigned r = 2 * d * (k + 1) - 1;
	typename Op::V left = x[r - d];

	x[r - d] = x[r];
	x[r] = Op::add(x[r], left, c);
}

/* The classic block scans have block_scan's contract: every thread calls,
 * with its value; the exclusive prefix is returned and the block's total
 * goes to *total. x holds SCAN_CLASSIC_SLOTS values. Each starts with a
 * barrier, so that back to back calls wait for the last one's reads. */
template <class Op>
static __device__ __forceinline__ typename Op::V
block_scan_hs(typename Op::V in, typename Op::V *x, typename Op::V *total,
	      const scan_cfg &c)
{
	unsigned i = threadIdx.x;
	typename Op::V v = in;

	__syncthreads();
	x[i] = v;
	__syncthreads();
SCAN_LOOP
	for (unsigned d = 1; d < SCAN_THREADS; d <<= 1) {
		v = hs_step<Op>(x, i, d, v, c);
		__syncthreads();	/* this step's reads before its writes */
		x[i] = v;
		__syncthreads();
	}
	*total = x[SCAN_THREADS - 1];
	return i ? x[i - 1] : Op::ident(c);
}

template <class Op>
static __device__ __forceinline__ typename Op::V
block_scan_blelloch(typename Op::V in, typename Op::V *x,
		    typename Op::V *total, const scan_cfg &c)
{
	unsigned i = threadIdx.x;

	__syncthreads();
	x[i] = in;
	__syncthreads();
SCAN_LOOP
	for (unsigned d = 1; d < SCAN_THREADS; d <<= 1) {
		if (i < SCAN_THREADS / (2 * d))
			blelloch_up<Op>(x, i, d, c);
		__syncthreads();
	}
	if (i == 0)
		blelloch_root<Op>(x, c);
	__syncthreads();
SCAN_LOOP
	for (unsigned d = SCAN_THREADS / 2; d; d >>= 1) {
		if (i < SCAN_THREADS / (2 * d))
			blelloch_down<Op>(x, i, d, c);
		__syncthreads();
	}
	*total = x[SCAN_THREADS];
	return x[i];
}

/* The shared memory a kernel's block scan works in: the warp scan's
 * SCAN_SHARED values (static), or the classic scans' buffer, the launch's
 * dynamic shared memory. */
template <bool CLASSIC, class V>
static __device__ __forceinline__ V *scan_block_mem(void)
{
	if constexpr (CLASSIC) {
		extern __shared__ uint4 scan_classic_mem[];

		return (V *)scan_classic_mem;
	} else {
		__shared__ V sh[SCAN_SHARED];

		return sh;
	}
}

/* The kernels' block scan: the warp scan, or with CLASSIC the one cfg.block
 * names (the same for every thread of the launch). */
template <bool CLASSIC, class Op>
static __device__ __forceinline__ typename Op::V
scan_block(typename Op::V in, typename Op::V *sh, typename Op::V *total,
	   const scan_cfg &c)
{
	if constexpr (!CLASSIC)
		return block_scan<Op>(in, sh, total, c);
	else if (c.block == SCAN_BLOCK_HS)
		return block_scan_hs<Op>(in, sh, total, c);
	else
		return block_scan_blelloch<Op>(in, sh, total, c);
}

/* The dynamic shared memory a launch of a kernel on values V gives its
 * block scan: none for the warp scan. */
template <bool CLASSIC, class V>
static __host__ __device__ constexpr size_t scan_block_bytes(void)
{
	return CLASSIC ? SCAN_CLASSIC_SLOTS * sizeof(V) : 0;
}

#endif
