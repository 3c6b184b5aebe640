/*
 * hist_algos.cuh - hist by --algorithm global-atomic, shared-atomic and
 * sort, the three GPU histograms of the examples gpustat grew from.
 * Compiled as the end of hist_kernels.cu: each element's slot (its bin, or
 * below/above/NaN) is that file's perval_slot / ranged_slot, and the counts
 * are its accumulator (64-bit, merged by hist_merge_host), so every
 * algorithm gives the default's counts.
 *
 * - global-atomic: one 64-bit atomicAdd on the global counts per element
 *   (no warp aggregation: the classic kernel, slow on skewed data).
 * - shared-atomic: per-block 32-bit counters in shared memory, the
 *   examples' privatized histogram (one copy per block, not per warp as
 *   the default's byte kernel), added into the global counts at the end.
 *   Slots that do not fit (more than HIST_SHARED_SLOTS: 16-bit data, big
 *   --bins) are taken in windows of HIST_SHARED_SLOTS: one launch per
 *   window, each reading the data and counting only its window's slots,
 *   so 16-bit data is read six times. A launch covers at most
 *   HIST_PIECE_ELEMS elements: no shared counter reaches 2^32.
 * - sort: each element's slot as a 32-bit key (jobs of more slots are
 *   refused), CUB's radix sort over the key's bits, then
 *   cub::DeviceRunLengthEncode gives each distinct slot and its count,
 *   added into the counts by a last kernel (the keys are distinct: no
 *   atomics). In pieces of SORT_PIECE_ELEMS elements; the keys, runs and
 *   CUB's temporary storage come from the stream-ordered pool
 *   (cudaMallocAsync), the one allocation per chunk in the backend: the
 *   scratch is four times a piece, too much to hold per stream.
 */
#include <cub/cub.cuh>
#include "algos.h"

#define SORT_PIECE_ELEMS ((size_t)1 << 26)

/* ---- global-atomic and shared-atomic ---------------------------------------- */

template <typename T, class Slot>
__global__ void __launch_bounds__(HIST_THREADS)
hist_global_atomic_kernel(const T *__restrict__ p, size_t nelem, unsigned C,
			  Slot slot, unsigned long long *cnt)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned col = (unsigned)(t % C), step = (unsigned)(stride % C);

	for (size_t e = t; e < nelem; e += stride) {
		atomicAdd(&cnt[slot(p[e], col)], 1ull);
		col += step;
		if (col >= C)
			col -= C;
	}
}

/* The counter of slot in the window [w0, w0 + wn), or wn for none (a
 * slot below w0 wraps to a huge difference). */
static __host__ __device__ inline uint64_t hist_window_at(uint64_t slot,
							  uint64_t w0,
							  unsigned wn)
{
	uint64_t k = slot - w0;

	return k < wn ? k : wn;
}

/* The length of the window from w0 of nslots slots in windows of
 * HIST_SHARED_SLOTS (the last one shorter). */
static __host__ __device__ inline unsigned hist_window_len(uint64_t nslots,
							   uint64_t w0)
{
	return (unsigned)(nslots - w0 < HIST_SHARED_SLOTS ? nslots - w0
							  : HIST_SHARED_SLOTS);
}

/* The slots [w0, w0 + wn) in wn shared counters. */
template <typename T, class Slot>
__global__ void __launch_bounds__(HIST_THREADS)
hist_shared_atomic_kernel(const T *__restrict__ p, size_t nelem, unsigned C,
			  Slot slot, uint64_t w0, unsigned wn,
			  unsigned long long *cnt)
{
	extern __shared__ uint32_t sh[];
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned col = (unsigned)(t % C), step = (unsigned)(stride % C);

	for (unsigned i = threadIdx.x; i < wn; i += blockDim.x)
		sh[i] = 0;
	__syncthreads();
	for (size_t e = t; e < nelem; e += stride) {
		uint64_t k = hist_window_at(slot(p[e], col), w0, wn);

		if (k < wn)
			atomicAdd(&sh[k], 1u);
		col += step;
		if (col >= C)
			col -= C;
	}
	__syncthreads();
	for (unsigned i = threadIdx.x; i < wn; i += blockDim.x)
		if (sh[i])
			atomicAdd(&cnt[w0 + i], (unsigned long long)sh[i]);
}

/* ---- sort ------------------------------------------------------------------- */

template <typename T, class Slot>
__global__ void hist_keys_kernel(const T *__restrict__ p, size_t nelem,
				 unsigned C, Slot slot, uint32_t *keys)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned col = (unsigned)(t % C), step = (unsigned)(stride % C);

	for (size_t e = t; e < nelem; e += stride) {
		keys[e] = (uint32_t)slot(p[e], col);
		col += step;
		if (col >= C)
			col -= C;
	}
}

/* cnt[run_key[i]] += run_len[i] for the *nruns runs. */
__global__ void hist_runs_kernel(const uint32_t *run_key,
				 const uint32_t *run_len, const int *nruns,
				 unsigned long long *cnt)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < *nruns;
	     i += gridDim.x * blockDim.x)
		cnt[run_key[i]] += run_len[i];
}

/* Bits of the largest slot below nslots. */
static __host__ __device__ inline int hist_key_bits(uint64_t nslots)
{
	int b = 1;

	while (b < 32 && (nslots - 1) >> b)
		b++;
	return b;
}

/* Sort the keys of nelem (<= SORT_PIECE_ELEMS) elements and count runs. */
template <typename T, class Slot>
static cudaError_t hist_sort_piece(const T *p, size_t nelem, unsigned C,
				   const Slot &slot, uint64_t nslots,
				   unsigned long long *cnt, int nsm,
				   cudaStream_t s)
{
	int n = (int)nelem, bits = hist_key_bits(nslots);
	size_t sort_bytes = 0, rle_bytes = 0, tmp_bytes;
	uint32_t *keys, *sorted, *run_key, *run_len;
	int *nruns;
	void *tmp, *all;
	unsigned blocks = grid_for(nelem, HIST_THREADS * 16, nsm);

	CUDA_RET(cub::DeviceRadixSort::SortKeys(NULL, sort_bytes, (uint32_t *)NULL,
						(uint32_t *)NULL, n, 0, bits, s));
	CUDA_RET(cub::DeviceRunLengthEncode::Encode(NULL, rle_bytes,
						    (uint32_t *)NULL,
						    (uint32_t *)NULL,
						    (uint32_t *)NULL, (int *)NULL,
						    n, s));
	tmp_bytes = sort_bytes > rle_bytes ? sort_bytes : rle_bytes;
	CUDA_RET(cudaMallocAsync(&all, 4 * nelem * sizeof(uint32_t) + 256 +
				 tmp_bytes, s));
	keys = (uint32_t *)all;
	sorted = keys + nelem;
	run_key = sorted + nelem;
	run_len = run_key + nelem;
	nruns = (int *)(run_len + nelem);
	tmp = (char *)all + 4 * nelem * sizeof(uint32_t) + 256;
	hist_keys_kernel<<<blocks, HIST_THREADS, 0, s>>>(p, nelem, C, slot, keys);
	cudaError_t e = cudaGetLastError();

	if (e == cudaSuccess)
		e = cub::DeviceRadixSort::SortKeys(tmp, sort_bytes, keys, sorted,
						   n, 0, bits, s);
	if (e == cudaSuccess)
		e = cub::DeviceRunLengthEncode::Encode(tmp, rle_bytes, sorted,
						       run_key, run_len, nruns,
						       n, s);
	if (e == cudaSuccess) {
		hist_runs_kernel<<<blocks, HIST_THREADS, 0, s>>>(run_key,
				run_len, nruns, cnt);
		e = cudaGetLastError();
	}
	cudaError_t f = cudaFreeAsync(all, s);

	return e != cudaSuccess ? e : f;
}

/* ---- launchers -------------------------------------------------------------- */

template <typename T, class Slot>
static cudaError_t hist_algo_piece(const struct gs_job *job, const T *p,
				   size_t nelem, uint64_t nslots,
				   const Slot &slot, unsigned long long *cnt,
				   int nsm, cudaStream_t s)
{
	unsigned C = job->columns, blocks = grid_for(nelem, HIST_THREADS * 16, nsm);

	if (job->algo == ALGO_GLOBAL_ATOMIC) {
		hist_global_atomic_kernel<<<blocks, HIST_THREADS, 0, s>>>(
			p, nelem, C, slot, cnt);
		CUDA_LAUNCHED();
		return cudaSuccess;
	}
	if (job->algo == ALGO_SORT)
		return hist_sort_piece(p, nelem, C, slot, nslots, cnt, nsm, s);
	for (uint64_t w0 = 0; w0 < nslots; w0 += HIST_SHARED_SLOTS) {
		unsigned wn = hist_window_len(nslots, w0);

		hist_shared_atomic_kernel<<<blocks, HIST_THREADS,
					    wn * sizeof(uint32_t), s>>>(
			p, nelem, C, slot, w0, wn, cnt);
		CUDA_LAUNCHED();
	}
	return cudaSuccess;
}

/* In pieces that start on a record: HIST_PIECE_ELEMS elements (32-bit
 * shared counters), SORT_PIECE_ELEMS for sort. */
template <typename T, class Slot>
static cudaError_t hist_algo_slots(const struct gs_job *job, void *dacc,
				   const void *d, size_t nrec, const Slot &slot,
				   int nsm, cudaStream_t s)
{
	unsigned C = job->columns;
	size_t most = job->algo == ALGO_SORT ? SORT_PIECE_ELEMS : HIST_PIECE_ELEMS;
	size_t piece = most / C < 1 ? 1 : most / C;

	for (size_t r0 = 0; r0 < nrec; r0 += piece) {
		size_t k = nrec - r0 < piece ? nrec - r0 : piece;

		CUDA_RET(hist_algo_piece(job, (const T *)d + r0 * C, k * C,
					 hist_nslots(job), slot,
					 (unsigned long long *)dacc, nsm, s));
	}
	return cudaSuccess;
}

static cudaError_t hist_algo_launch(const struct gs_job *job, void *dacc,
				    const void *d, const void * /* d2 */,
				    size_t nrec, int nsm, cudaStream_t s)
{
	enum gs_type t = job->dtype.type;
	uint64_t c0 = 3 * (uint64_t)job->columns;

	if (nrec == 0)
		return cudaSuccess;
	if (!job->ranged && type_size(t) == 1) {
		struct perval_slot<uint8_t> slot = { c0, 256, t == GS_I8 ? 0x80u : 0 };

		return hist_algo_slots<uint8_t>(job, dacc, d, nrec, slot, nsm, s);
	}
	if (!job->ranged) {
		struct perval_slot<uint16_t> slot = { c0, 65536,
						      t == GS_I16 ? 0x8000u : 0 };

		return hist_algo_slots<uint16_t>(job, dacc, d, nrec, slot, nsm, s);
	}
	return dtype_dispatch(t, [&](auto tag) {
		typedef hist_elem<DTYPE_OF(tag)> E;
		struct ranged_slot<typename E::raw, E::conv, E::bt> slot = {
			hist_ranged_make(job), 3 * (uint64_t)job->columns,
			job->columns };

		return hist_algo_slots<typename E::raw>(job, dacc, d, nrec,
							slot, nsm, s);
	});
}

static bool hist_algo_supports(const struct gs_job *job, const char **why)
{
	if (!hist_supports(job, why))
		return false;
	if (job->algo == ALGO_SORT && hist_nslots(job) > ((uint64_t)1 << 32)) {
		*why = "sort takes at most 2^32 bins in all columns (with the "
		       "below, above and NaN counts)";
		return false;
	}
	return true;
}

const struct gpu_ops gpu_hist_algo_ops = {
	hist_algo_supports,
	hist_dev_acc_bytes,
	hist_algo_launch,
	hist_merge_host,
	NULL,			/* init_dev: zeroed */
};
