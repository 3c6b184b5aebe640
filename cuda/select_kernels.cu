/*
 * select_kernels.cu - quantile's, median's and mode's passes on the GPU:
 * the digit histograms of radix select (CMD_SELECT, also mode's one
 * histogram of 8/16-bit values), the keys of the last few buckets
 * (CMD_COLLECT) and mode's counts of distinct values (CMD_MODECOUNT), into
 * the CPU's accumulators (cpu/select.h), so that the passes and the result
 * have the CPU backend's bits. What one thread does is
 * select_kernels.cuh's.
 *
 * A select or collect pass's device accumulator is the CPU's, word for
 * word, followed by the pass's tables (its prefixes, where each column's begin, and a collect's
 * offsets), which init_dev copies there at open. merge_host is the CPU's
 * own merge: counts add; a collect's keys are appended to each bucket's,
 * in whatever order the streams and warps stored them, and the pass sorts
 * each bucket before it reads it, so the order never shows.
 *
 * Select counts as hist_kernels.cu does: 32-bit shared counters per block,
 * flushed into the 64-bit counts, when every slot fits shared memory
 * (8-bit digits, narrow digits of later passes); else 64-bit global
 * atomics, one per group of equal slots of a warp (__match_any_sync), so
 * constant data costs an atomic per 32 elements. A 16-bit digit (the
 * first pass of most types) has 65,536 bins a column: global. Collect is
 * global: a key's place in its bucket is the count its bucket's fill had,
 * one atomic per group of a warp whose lanes take consecutive places.
 *
 * Mode of 32- and 64-bit types (CMD_MODECOUNT) counts in a hash table per
 * column and stream (select_kernels.cuh's mode_dev_insert: a key claimed by
 * one compare-and-swap, its count by atomics, a warp's equal keys added
 * once), merged by the CPU's insert; more distinct values than the CPU's
 * table holds is found as the CPU finds it.
 */
#include <stdint.h>
#include <string.h>

#include "gpu.h"
#include "select_kernels.cuh"

/* 256 threads and 4 blocks per SM, as the histograms (hist_kernels.cu). */
#define SELECT_THREADS 256
#define SELECT_BLOCKS_PER_SM 4
/* Elements per launch: a shared counter sees at most this many increments,
 * below 2^32. */
#define SELECT_PIECE_ELEMS ((size_t)1 << 31)
/* At least 8 elements per shared counter a block flushes. */
#define SELECT_MIN_PER_SLOT 8
/* Columns beyond this would overflow the column arithmetic (col + step). */
#define SELECT_MAX_COLUMNS (1u << 30)

/* ---- the kernels ---------------------------------------------------------- */

/* count[col] += the piece's records: block 0 alone, once a launch. */
__device__ static inline void add_records(unsigned long long *acc, unsigned C,
					  size_t nrec)
{
	if (blockIdx.x == 0)
		for (unsigned k = threadIdx.x; k < C; k += blockDim.x)
			acc[k] += nrec;
}

template <typename T>
__global__ void __launch_bounds__(SELECT_THREADS)
select_shared_kernel(const typename select_key_of<T>::raw *__restrict__ p,
		     size_t nelem, size_t nrec, struct select_dev d,
		     unsigned nslots, unsigned long long *acc)
{
	typedef select_key_of<T> K;
	extern __shared__ uint32_t sh[];

	add_records(acc, d.columns, nrec);
	for (unsigned s = threadIdx.x; s < nslots; s += blockDim.x)
		sh[s] = 0;
	__syncthreads();
	select_walk(nelem, d.columns, (size_t)blockIdx.x * blockDim.x + threadIdx.x,
		    (size_t)gridDim.x * blockDim.x,
		    [&](size_t e, unsigned col, bool live) {
			    uint64_t slot = live ? select_slot<K>(d, p[e], col)
						 : SELECT_NO_SLOT;

			    if (slot != SELECT_NO_SLOT)
				    atomicAdd(&sh[slot], 1u);
		    });
	__syncthreads();
	for (unsigned s = d.columns + threadIdx.x; s < nslots; s += blockDim.x)
		if (sh[s])
			atomicAdd(&acc[s], (unsigned long long)sh[s]);
}

template <typename T>
__global__ void __launch_bounds__(SELECT_THREADS)
select_global_kernel(const typename select_key_of<T>::raw *__restrict__ p,
		     size_t nelem, size_t nrec, struct select_dev d,
		     unsigned long long *acc)
{
	typedef select_key_of<T> K;
	unsigned lane = threadIdx.x & 31;

	add_records(acc, d.columns, nrec);
	select_walk(nelem, d.columns, (size_t)blockIdx.x * blockDim.x + threadIdx.x,
		    (size_t)gridDim.x * blockDim.x,
		    [&](size_t e, unsigned col, bool live) {
			    uint64_t slot = live ? select_slot<K>(d, p[e], col)
						 : SELECT_NO_SLOT;
			    unsigned peers = __match_any_sync(0xffffffffu,
						(unsigned long long)slot);

			    if (slot != SELECT_NO_SLOT &&
				lane == (unsigned)__ffs(peers) - 1)
				    atomicAdd(&acc[slot],
					      (unsigned long long)__popc(peers));
		    });
}

/* Each group of lanes of one slot takes consecutive places from one
 * atomic: lane order within the group. */
template <typename T>
__global__ void __launch_bounds__(SELECT_THREADS)
collect_kernel(const typename select_key_of<T>::raw *__restrict__ p,
	       size_t nelem, size_t nrec, struct select_dev d,
	       unsigned long long *acc)
{
	typedef select_key_of<T> K;
	unsigned lane = threadIdx.x & 31;

	add_records(acc, d.columns, nrec);
	select_walk(nelem, d.columns, (size_t)blockIdx.x * blockDim.x + threadIdx.x,
		    (size_t)gridDim.x * blockDim.x,
		    [&](size_t e, unsigned col, bool live) {
			    uint64_t key = 0;
			    uint64_t slot = live ? collect_slot<K>(d, p[e], col, &key)
						 : SELECT_NO_SLOT;
			    unsigned peers = __match_any_sync(0xffffffffu,
						(unsigned long long)slot);
			    unsigned leader = (unsigned)__ffs(peers) - 1;
			    unsigned long long at = 0;

			    if (slot != SELECT_NO_SLOT && lane == leader)
				    at = atomicAdd(&acc[slot],
						   (unsigned long long)__popc(peers));
			    at = __shfl_sync(0xffffffffu, at, leader);
			    collect_store(d, (uint64_t *)acc, slot,
					  at + __popc(peers & ((1u << lane) - 1)), key);
		    });
}

/* Each group of lanes of one column and key (or NaN) adds its size once. */
template <typename T>
__global__ void __launch_bounds__(SELECT_THREADS)
modecount_kernel(const typename select_key_of<T>::raw *__restrict__ p,
		 size_t nelem, size_t nrec, struct mode_dev d)
{
	typedef select_key_of<T> K;
	unsigned lane = threadIdx.x & 31;

	if (blockIdx.x == 0)
		for (unsigned k = threadIdx.x; k < d.columns; k += blockDim.x)
			((struct mode_col *)(d.acc + k * d.col_bytes))->count += nrec;
	select_walk(nelem, d.columns, (size_t)blockIdx.x * blockDim.x + threadIdx.x,
		    (size_t)gridDim.x * blockDim.x,
		    [&](size_t e, unsigned col, bool live) {
			    uint64_t key = 0;
			    unsigned kind = !live ? 0 : K::key(p[e], &key) ? 2 : 1;
			    unsigned peers = __match_any_sync(0xffffffffu,
						(unsigned long long)key) &
				    __match_any_sync(0xffffffffu,
						(unsigned long long)col * 4 + kind);

			    if (kind == 0 || lane != (unsigned)__ffs(peers) - 1)
				    return;
			    if (kind == 1)
				    MODE_ADD(&((struct mode_col *)(d.acc + col *
						d.col_bytes))->nan, __popc(peers));
			    else
				    mode_dev_insert(d, col, key, __popc(peers));
		    });
}

/* Every slot's key MODE_FREE (the rest is zeroed before). */
__global__ void __launch_bounds__(SELECT_THREADS)
mode_free_kernel(struct mode_dev d)
{
	uint64_t n = (uint64_t)d.columns * d.cap;

	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		struct mode_col *c = (struct mode_col *)(d.acc + i / d.cap * d.col_bytes);

		((struct mode_slot *)(c + 1))[i % d.cap].key = MODE_FREE;
	}
}

/* ---- the accumulator and its tables --------------------------------------- */

static size_t select_dev_acc_bytes(const struct gs_job *job)
{
	if (job->cmd == CMD_MODECOUNT)	/* and free[columns] */
		return mode_kernels.acc_size(job) + job->columns * (size_t)8;
	return select_host_acc_bytes(job) + select_table_words(job) * 8;
}

/* Zero counts, the plan's tables after them (from job->select, on the
 * host: plain copies, once a pass). */
static cudaError_t select_init_dev(const struct gs_job *job, void *dacc,
				   cudaStream_t s)
{
	struct select_table_part part[3];
	unsigned n = select_table_parts(job, part);
	size_t acc = select_host_acc_bytes(job);
	char *t = (char *)dacc + acc;

	if (job->cmd == CMD_MODECOUNT) {
		CUDA_RET(cudaMemsetAsync(dacc, 0, select_dev_acc_bytes(job), s));
		mode_free_kernel<<<256, SELECT_THREADS, 0, s>>>(mode_dev_of(job, dacc));
		CUDA_LAUNCHED();
		return cudaSuccess;
	}
	CUDA_RET(cudaMemsetAsync(dacc, 0, acc, s));
	for (unsigned i = 0; i < n; t += part[i].words * 8, i++)
		if (part[i].words)
			CUDA_RET(cudaMemcpyAsync(t, part[i].src, part[i].words * 8,
						 cudaMemcpyHostToDevice, s));
	return cudaSuccess;
}

/* ---- launchers ------------------------------------------------------------ */

/* Blocks for nelem elements, at least per_block each, at most
 * SELECT_BLOCKS_PER_SM per SM. */
static unsigned grid_for(size_t nelem, size_t per_block, int nsm)
{
	size_t most = (size_t)(nsm > 0 ? nsm : 1) * SELECT_BLOCKS_PER_SM;
	size_t b = (nelem + per_block - 1) / per_block;

	return (unsigned)(b < 1 ? 1 : b > most ? most : b);
}

template <typename T>
static cudaError_t select_launch_t(const struct gs_job *job, void *dacc,
				   const void *d, size_t nrec, int nsm,
				   cudaStream_t s)
{
	typedef typename select_key_of<T>::raw R;
	struct select_dev dv = select_dev_of(job, dacc);
	unsigned C = job->columns, nslots = select_shared_slots(job);
	size_t piece = SELECT_PIECE_ELEMS / C;	/* records per launch */
	size_t per_block = (size_t)nslots * SELECT_MIN_PER_SLOT;
	unsigned long long *acc = (unsigned long long *)dacc;

	if (per_block < SELECT_THREADS)
		per_block = SELECT_THREADS;
	for (size_t r0 = 0; r0 < nrec; r0 += piece) {
		const R *p = (const R *)d + r0 * C;
		size_t m = nrec - r0 < piece ? nrec - r0 : piece;
		unsigned blocks = grid_for(m * C, per_block, nsm);

		if (job->cmd == CMD_MODECOUNT)
			modecount_kernel<T><<<blocks, SELECT_THREADS, 0, s>>>(
				p, m * C, m, mode_dev_of(job, dacc));
		else if (job->cmd == CMD_COLLECT)
			collect_kernel<T><<<blocks, SELECT_THREADS, 0, s>>>(
				p, m * C, m, dv, acc);
		else if (nslots)
			select_shared_kernel<T><<<blocks, SELECT_THREADS,
						  nslots * sizeof(uint32_t), s>>>(
				p, m * C, m, dv, nslots, acc);
		else
			select_global_kernel<T><<<blocks, SELECT_THREADS, 0, s>>>(
				p, m * C, m, dv, acc);
		CUDA_LAUNCHED();
	}
	return cudaSuccess;
}

static cudaError_t select_launch(const struct gs_job *job, void *dacc,
				 const void *d, const void * /* d2 */,
				 size_t nrec, int nsm, cudaStream_t s)
{
	return dtype_dispatch(job->dtype.type, [&](auto tag) {
		return select_launch_t<DTYPE_OF(tag)>(job, dacc, d, nrec, nsm, s);
	});
}

/* ---- the ops table ---------------------------------------------------------- */

static bool select_supports(const struct gs_job *job, const char **why)
{
	if (!job->select) {
		*why = "select: no plan";
		return false;
	}
	if (job->columns == 0 || job->columns > SELECT_MAX_COLUMNS) {
		*why = "quantile: more than 2^30 columns";
		return false;
	}
	if (job->cmd != CMD_SELECT && type_size(job->dtype.type) < 4) {
		*why = "quantile, mode: 8- and 16-bit keys take histograms";
		return false;
	}
	return true;
}

static void select_merge_host(const struct gs_job *job, void *acc,
			      const void *hacc)
{
	select_merge(job, acc, hacc);
}

/* CMD_SELECT, CMD_COLLECT and CMD_MODECOUNT: the launcher picks the
 * kernel by job->cmd. */
const struct gpu_ops gpu_select_ops = {
	select_supports,
	select_dev_acc_bytes,
	select_launch,
	select_merge_host,
	select_init_dev,
};
