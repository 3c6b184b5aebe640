/*
 * exact_algos.cuh - the two classic ways to reduce on a GPU, on gpustat's
 * exact sums (exact.cuh), for sum/reduce --op sum (reduce_algos.cu) and
 * dot (dot_algos.cuh): --algorithm atomic and block-tree.
 *
 * Both take a Fold: a thread's share of the job, as the default kernels
 * compute it (red_sum_thread, dot_fold):
 *   bool f(struct exact_thr *s, size_t t, size_t nthr, long long *slots)
 * starts s, folds the elements of thread t of nthr into it, and returns
 * whether t has any; its rare flushes go to slots + col * EXACT_SLOTS
 * (col = t % ncol, ncol accumulators). Each block runs u = blockDim.x less
 * blockDim.x % ncol threads, so nthr is a multiple of ncol and a thread's
 * accumulator is threadIdx.x % ncol.
 *
 * - atomic (the examples' "each thread atomicAdds its sum"): every thread
 *   flushes its register sum straight into one global slot array G
 *   (ncol x EXACT_SLOTS int64, 64-bit atomicAdd), no shared memory. A
 *   launch takes at most ATOMIC_TERMS elements, so G's slots, which gain
 *   < 2^33 per flush and at most one flush per element plus one per
 *   thread, stay below 2^60; after each launch one block drains G into the
 *   accumulator (32-bit halves, as exact_block_flush) and zeroes it, and
 *   exact_normalize carries.
 * - block-tree (the examples' shared-memory tree): each thread leaves its
 *   struct exact_thr in shared memory; log2(u / ncol) steps add lane
 *   l + h into lane l (exact_thr_add: exact, and where the 128-bit register
 *   would overflow it spills into the block's shared slots, exactly); lane
 *   0 flushes into the slots, and the block stores them, plainly, as its
 *   row of the scratch B. A second kernel, one thread per slot, adds the
 *   blocks' rows in 128 bits and the sum into the accumulator. Launches are
 *   capped as the default's (exact_launch_cap): a shared slot stays below
 *   2^62, TREE_MAX_BLOCKS rows below 2^72.
 * Integer arithmetic throughout: the bits are the default kernels'.
 */
#ifndef EXACT_ALGOS_CUH
#define EXACT_ALGOS_CUH

#include "exact.cuh"

#define ALGO_THREADS 256
/* Elements per atomic launch: (2^26 + threads) flushes of < 2^33 keep a
 * global slot below 2^60. */
#define ATOMIC_TERMS ((size_t)1 << 26)
/* Blocks of a block-tree launch: its scratch is TREE_MAX_BLOCKS rows of
 * ncol x EXACT_SLOTS int64 (at most 64 accumulators: 72 MiB). */
#define TREE_MAX_BLOCKS 512u

/* Bytes of scratch after the default accumulator: G for atomic (the first
 * ncol rows of B) or B for block-tree. */
static inline size_t exact_algo_scratch(enum gs_algo a, unsigned ncol)
{
	size_t row = (size_t)ncol * EXACT_SLOTS * sizeof(long long);

	return a == ALGO_BLOCK_TREE ? TREE_MAX_BLOCKS * row : row;
}

/* The threads of a block that work: a multiple of ncol. */
static __host__ __device__ inline unsigned exact_algo_used(unsigned threads,
							   unsigned ncol)
{
	return threads - threads % ncol;
}

/* ---- atomic ---------------------------------------------------------------- */

template <class Fold>
__global__ void __launch_bounds__(ALGO_THREADS)
exact_atomic_kernel(Fold f, unsigned ncol, long long *G, struct exact_acc *acc,
		    unsigned long long *count, size_t nrec)
{
	unsigned u = exact_algo_used(blockDim.x, ncol);
	size_t t = (size_t)blockIdx.x * u + threadIdx.x;
	struct exact_thr s;

	if (t == 0 && count)
		atomicAdd(count, (unsigned long long)nrec);
	if (threadIdx.x >= u)
		return;
	if (f(&s, t, (size_t)gridDim.x * u, G))
		exact_thr_finish(&s, G + (t % ncol) * EXACT_SLOTS,
				 &acc[t % ncol]);
}

/* acc += G's slot i (of ncol * EXACT_SLOTS), as exact_block_flush adds a
 * shared slot (exact_slot_spill). */
static __host__ __device__ inline void exact_drain_slot(const long long *G,
							 struct exact_acc *acc,
							 unsigned i)
{
	exact_slot_spill(acc[i / EXACT_SLOTS].slot, i % EXACT_SLOTS, G[i]);
}

/* One block: acc += G, G = 0. */
template <int Unused = 0>
__global__ void exact_drain_kernel(long long *G, struct exact_acc *acc,
				   unsigned ncol)
{
	for (unsigned i = threadIdx.x; i < ncol * EXACT_SLOTS; i += blockDim.x)
		exact_drain_slot(G, acc, i);
	__syncthreads();
	for (unsigned i = threadIdx.x; i < ncol * EXACT_SLOTS; i += blockDim.x)
		G[i] = 0;
}

/* ---- block-tree ------------------------------------------------------------ */

static __host__ __device__ inline unsigned exact_pow2_above(unsigned n)
{
	unsigned p = 1;

	while (p < n)
		p *= 2;
	return p;
}

/* Thread tid's part of the tree step h: lane l (< h) += lane l + h of
 * its accumulator. st: u states, lane-major (thread = lane * ncol + col);
 * sh: the block's slots, for a spill. The lanes a step reads (>= h) are
 * not the ones it writes, so the threads of a step may run in any order. */
static __host__ __device__ inline void exact_tree_pair(struct exact_thr *st,
							unsigned tid,
							unsigned h, unsigned u,
							unsigned ncol,
							long long *sh)
{
	unsigned lanes = u / ncol, col = tid % ncol, lane = tid / ncol;

	if (tid < u && lane < h && lane + h < lanes) {
		const struct exact_thr *o = &st[tid + h * ncol];

		st[tid].flags |= o->flags;
		exact_thr_add(&st[tid], o->acc, o->b, sh + col * EXACT_SLOTS);
	}
}

/* The steps h = half the lanes rounded up to a power of two, down to 1:
 * lane 0 of each accumulator ends with the block's sum. */
static __device__ inline void exact_tree(struct exact_thr *st, unsigned u,
					 unsigned ncol, long long *sh)
{
	for (unsigned h = exact_pow2_above(u / ncol) / 2; h > 0; h /= 2) {
		exact_tree_pair(st, threadIdx.x, h, u, ncol, sh);
		__syncthreads();
	}
}

/* Shared memory: ncol * EXACT_SLOTS slots, then blockDim.x states. */
template <class Fold>
__global__ void __launch_bounds__(ALGO_THREADS)
exact_tree_kernel(Fold f, unsigned ncol, long long *B, struct exact_acc *acc,
		  unsigned long long *count, size_t nrec)
{
	extern __shared__ long long sh[];
	struct exact_thr *st = (struct exact_thr *)(sh + ncol * EXACT_SLOTS);
	unsigned u = exact_algo_used(blockDim.x, ncol), n = ncol * EXACT_SLOTS;
	size_t t = (size_t)blockIdx.x * u + threadIdx.x;
	struct exact_thr s;

	if (t == 0 && count)
		atomicAdd(count, (unsigned long long)nrec);
	exact_block_zero(sh, n);
	__syncthreads();
	/* an idle thread's state is an empty sum: adding it changes nothing */
	if (threadIdx.x >= u || !f(&s, t, (size_t)gridDim.x * u, sh))
		exact_thr_init(&s, 0);
	st[threadIdx.x] = s;
	__syncthreads();
	exact_tree(st, u, ncol, sh);
	if (threadIdx.x < ncol)
		exact_thr_finish(&st[threadIdx.x], sh + threadIdx.x * EXACT_SLOTS,
				 &acc[threadIdx.x]);
	__syncthreads();
	for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
		B[(size_t)blockIdx.x * n + i] = sh[i];
}

/* *p += v for |v| < 2^127 at slot q and up, in 32-bit pieces (the last
 * one signed, |piece| <= 2^32), each < 2^33: the slots stay normalizable. */
static __host__ __device__ inline void exact_slots_add_wide(long long *p,
							     unsigned q,
							     __int128 v)
{
	const __int128 lim = (__int128)1 << 32;

	for (; q < EXACT_SLOTS - 1 && (v > lim || v < -lim); q++) {
		long long lo = (long long)(v & 0xffffffff);

		if (lo)
			exact_atomic_add(&p[q], lo);
		v >>= 32;	/* floor: v = (v >> 32) * 2^32 + lo */
	}
	if (v)
		exact_atomic_add(&p[q], (long long)v);
}

/* The second pass: one thread per slot of every accumulator adds the
 * blocks' rows of B (nblocks of them) into acc. */
template <int Unused = 0>
__global__ void exact_tree_gather_kernel(const long long *B, unsigned nblocks,
					 unsigned ncol, struct exact_acc *acc)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x, n = ncol * EXACT_SLOTS;
	__int128 v = 0;

	if (i >= n)
		return;
	for (unsigned b = 0; b < nblocks; b++)
		v += B[(size_t)b * n + i];
	exact_slots_add_wide(acc[i / EXACT_SLOTS].slot, i % EXACT_SLOTS, v);
}

/* ---- launchers ------------------------------------------------------------- */

/* Fold nelem elements' worth of the job (piece() gives the fold of the
 * records [r0, r0 + k) and how many elements that is) into acc[ncol], with
 * scratch at G; count (or NULL) += records. */
template <class Piece>
static cudaError_t exact_algo_launch(enum gs_algo a, size_t nrec,
				     unsigned per_rec, unsigned ncol,
				     struct exact_acc *acc, long long *scratch,
				     unsigned long long *count, int nsm,
				     cudaStream_t s, const Piece &piece)
{
	unsigned u = exact_algo_used(ALGO_THREADS, ncol);
	size_t n = nrec * per_rec, most = (size_t)(nsm > 0 ? nsm : 1) * 4;
	size_t want = (n + (size_t)u * 16 - 1) / ((size_t)u * 16);
	unsigned blocks = (unsigned)(want < 1 ? 1 : want > most ? most : want);
	size_t cap, smem = (size_t)ncol * EXACT_SLOTS * sizeof(long long) +
			   ALGO_THREADS * sizeof(struct exact_thr);

	if (a == ALGO_BLOCK_TREE) {
		blocks = blocks > TREE_MAX_BLOCKS ? TREE_MAX_BLOCKS : blocks;
		cap = exact_launch_cap(blocks);
	} else {
		cap = ATOMIC_TERMS;
	}
	cap = cap / per_rec < 1 ? 1 : cap / per_rec;	/* records */
	for (size_t r0 = 0; r0 < nrec; r0 += cap) {
		size_t k = nrec - r0 < cap ? nrec - r0 : cap;
		auto f = piece(r0, k);

		if (a == ALGO_ATOMIC) {
			exact_atomic_kernel<<<blocks, ALGO_THREADS, 0, s>>>(
				f, ncol, scratch, acc, count, k);
			CUDA_LAUNCHED();
			exact_drain_kernel<<<1, ALGO_THREADS, 0, s>>>(scratch,
								    acc, ncol);
		} else {
			if (smem > DEFAULT_SHARED_BYTES)
				CUDA_RET(cudaFuncSetAttribute(
					exact_tree_kernel<decltype(f)>,
					cudaFuncAttributeMaxDynamicSharedMemorySize,
					(int)smem));
			exact_tree_kernel<<<blocks, ALGO_THREADS, smem, s>>>(
				f, ncol, scratch, acc, count, k);
			CUDA_LAUNCHED();
			exact_tree_gather_kernel<<<(ncol * EXACT_SLOTS + 127) / 128,
						   128, 0, s>>>(scratch, blocks,
								ncol, acc);
		}
		CUDA_LAUNCHED();
		CUDA_RET(exact_normalize(acc, ncol, s));
	}
	return cudaSuccess;
}

#endif
