/*
 * group_kernels.cu - --by COLS on the GPU: hash aggregation into a table of
 * exact per-key accumulators (group_dev.h), with the same bytes as the
 * CPU's cpu_group.c for every input.
 *
 * Each stream's device accumulator is group_dev.h's block: a head the
 * host lays out at open (group_gpu_layout), a table of slots, a spill
 * area. Each thread takes records and folds each with gd_fold, the very
 * code the host's tests run (tests/unit_groupdev.c): its key's slot found
 * or claimed (linear probing, a slot's state word claimed by CAS), then
 * per value column a count, a NaN count, the extremes as order keys
 * (atomicMax), and exact fixed-point sums and sums of squares, limb by
 * limb with carries (64-bit atomicAdd; never a float atomic). A record
 * whose value is out of its type's window, or whose key is new once the
 * table is full, is copied to the spill area. Before each launch the host
 * reads the area's count and, where the launch could overflow it, folds
 * the spilled records with the CPU's kernel into the backend's host
 * accumulator and empties the area (launch_part), so any number of keys
 * runs: those past the table at the CPU's pace. At finish, a kernel
 * copies the used slots together (gd_compact) and only they come back
 * (read_back: 1,000 keys are kilobytes, not the table), then merge_host
 * reads them into the CPU's own payloads (group_gpu_merge: exact ksums
 * through group_absorb, on several threads) and folds the spilled
 * records, so the result does not depend on where a record went.
 *
 * Chosen over sorting by key (CUB's radix sort, then a reduce by key) on
 * the argument, not yet on a measurement: the table reads each record
 * once and keeps no per-chunk output, where a sort moves keys and values
 * through several passes per chunk and still needs exact sums of 6 limbs
 * a sign per run of equal keys; bench/bench_group_sort.cu (run by
 * bench/bench_group_gpu.sh) times the two on the device.
 */
#include <stdint.h>

#include "gpu.h"
extern "C" {
#include "group_gpu.h"
}

/* 256 threads, 8 blocks per SM: the kernel is bound by its atomics and
 * probes, not by occupancy. */
#define GROUP_THREADS 256
#define GROUP_BLOCKS_PER_SM 8

__global__ void group_kernel(unsigned char *base, const unsigned char *d,
			     size_t nrec)
{
	struct gd_head *h = (struct gd_head *)base;
	size_t rs = h->rs;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	     i < nrec; i += (size_t)gridDim.x * blockDim.x)
		gd_fold(h, base, d + i * rs);
}

static cudaError_t group_launch(const struct gs_job *job, void *dacc,
				const void *d, const void * /* d2 */,
				size_t nrec, int nsm, cudaStream_t s)
{
	size_t most = (size_t)(nsm > 0 ? nsm : 1) * GROUP_BLOCKS_PER_SM;
	size_t b = (nrec + GROUP_THREADS - 1) / GROUP_THREADS;
	unsigned blocks = (unsigned)(b < 1 ? 1 : b > most ? most : b);

	(void)job;
	group_kernel<<<blocks, GROUP_THREADS, 0, s>>>((unsigned char *)dacc,
						      (const unsigned char *)d,
						      nrec);
	CUDA_LAUNCHED();
	return cudaSuccess;
}

/* Slots 0 .. slots-1 of the table at base, used ones to out. */
__global__ void compact_kernel(unsigned char *base, uint64_t *out)
{
	struct gd_head *h = (struct gd_head *)base;
	const uint64_t *tab = (const uint64_t *)(base + h->table_off);

	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	     i < h->slots; i += (uint64_t)gridDim.x * blockDim.x)
		gd_compact(h, tab, out, &h->used, i);
}

/* dacc's head, its used slots together (compact) and its spilled records
 * into hacc, at the layout's offsets. The whole table where a buffer for
 * the slots cannot be had. */
static cudaError_t group_read_back(const struct gs_job *job, void *dacc,
				   void *hacc, int nsm, cudaStream_t s)
{
	struct gd_head *h = (struct gd_head *)hacc;
	unsigned char *db = (unsigned char *)dacc, *hb = (unsigned char *)hacc;
	uint64_t *out = NULL;
	size_t bytes, nsp;
	unsigned blocks = (unsigned)(nsm > 0 ? nsm : 1) * GROUP_BLOCKS_PER_SM;
	cudaError_t e;

	(void)job;
	CUDA_RET(cudaMemcpyAsync(h, db, sizeof(*h), cudaMemcpyDeviceToHost, s));
	CUDA_RET(cudaStreamSynchronize(s));
	bytes = h->keys * h->sw * sizeof(uint64_t);
	h->compact = 1;		/* no keys: none to read */
	h->used = 0;
	if (h->keys && cudaMalloc(&out, bytes) != cudaSuccess) {
		cudaGetLastError();	/* not sticky: read it all */
		out = NULL;
	}
	if (out) {
		e = cudaMemsetAsync(&((struct gd_head *)db)->used, 0,
				    sizeof(uint64_t), s);
		if (e == cudaSuccess) {
			compact_kernel<<<blocks, GROUP_THREADS, 0, s>>>(db,
									out);
			e = cudaGetLastError();
		}
		if (e == cudaSuccess)
			e = cudaMemcpyAsync(hb + h->table_off, out, bytes,
					    cudaMemcpyDeviceToHost, s);
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(s);
		cudaFree(out);
		CUDA_RET(e);
		h->used = h->keys;
	} else if (h->keys) {
		h->compact = 0;
		CUDA_RET(cudaMemcpyAsync(hb + h->table_off, db + h->table_off,
					 h->slots * h->sw * sizeof(uint64_t),
					 cudaMemcpyDeviceToHost, s));
	}
	nsp = h->spilled < h->spill_cap ? h->spilled : h->spill_cap;
	if (nsp)
		CUDA_RET(cudaMemcpyAsync(hb + h->spill_off, db + h->spill_off,
					 nsp * h->rs, cudaMemcpyDeviceToHost,
					 s));
	return cudaStreamSynchronize(s);
}

/* Room in dacc's spill area for n more records: where its count and n
 * could pass it, its records folded by the CPU into part and the area
 * emptied (after s's kernels). */
static cudaError_t make_room(const struct gs_job *job, void *dacc, void *part,
			     void *hacc, const struct gd_head *h, size_t n,
			     cudaStream_t s)
{
	struct gd_head *dh = (struct gd_head *)dacc;
	unsigned char *db = (unsigned char *)dacc, *hb = (unsigned char *)hacc;
	uint64_t sp = 0;

	CUDA_RET(cudaMemcpyAsync(&sp, &dh->spilled, sizeof(sp),
				 cudaMemcpyDeviceToHost, s));
	CUDA_RET(cudaStreamSynchronize(s));
	if (!(sp = group_gpu_drain(h, sp, n)))
		return cudaSuccess;
	CUDA_RET(cudaMemcpyAsync(hb + h->spill_off, db + h->spill_off,
				 sp * h->rs, cudaMemcpyDeviceToHost, s));
	CUDA_RET(cudaStreamSynchronize(s));
	(void)group_gpu_fold_spill(job, (struct group_acc *)part,
				   hb + h->spill_off, sp);
	return cudaMemsetAsync(&dh->spilled, 0, sizeof(uint64_t), s);
}

/* nrec records at d in pieces of a spill area at most, room made for
 * each: no record is ever dropped, whatever the keys. */
static cudaError_t group_launch_part(const struct gs_job *job, void *dacc,
				     void *part, void *hacc, const void *d,
				     size_t nrec, int nsm, cudaStream_t s)
{
	struct gd_head h;
	const unsigned char *p = (const unsigned char *)d;
	char why[160];

	/* keys bounded below the table's, values that always fit: nothing
	 * can spill, so no wait (auto's own condition) */
	if (group_gpu_auto(job, why, sizeof(why)))
		return group_launch(job, dacc, d, NULL, nrec, nsm, s);
	group_gpu_layout(job, 0, &h);
	while (nrec) {
		size_t n = nrec < h.spill_cap ? nrec : (size_t)h.spill_cap;

		CUDA_RET(make_room(job, dacc, part, hacc, &h, n, s));
		CUDA_RET(group_launch(job, dacc, p, NULL, n, nsm, s));
		p += n * h.rs;
		nrec -= n;
	}
	return cudaSuccess;
}

static bool group_supports(const struct gs_job *job, const char **why)
{
	return group_gpu_supports(job, why);
}

static size_t group_dev_acc_bytes(const struct gs_job *job)
{
	struct gd_head h;

	return group_gpu_layout(job, 0, &h);
}

/* Zero the head and the table (the spill area needs none), then write
 * the head; a pageable copy returns once its bytes are staged, so h may
 * go. */
static cudaError_t group_init_dev(const struct gs_job *job, void *dacc,
				  cudaStream_t s)
{
	struct gd_head h;
	(void)group_gpu_layout(job, 0, &h);
	CUDA_RET(cudaMemsetAsync(dacc, 0, h.spill_off, s));
	return cudaMemcpyAsync(dacc, &h, sizeof(h), cudaMemcpyHostToDevice, s);
}

static void group_merge_host(const struct gs_job *job, void *acc,
			     const void *hacc)
{
	group_gpu_merge(job, (struct group_acc *)acc, hacc);
}

const struct gpu_ops gpu_group_ops = {
	group_supports,
	group_dev_acc_bytes,
	group_launch,
	group_merge_host,
	group_init_dev,
};

const struct gpu_hooks gpu_group_hooks = {
	group_read_back,
	group_launch_part,
};
