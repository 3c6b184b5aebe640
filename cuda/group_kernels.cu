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
 * table is full, is copied to the spill area. At finish, merge_host reads
 * the table back into the CPU's own payloads (group_gpu_merge: exact
 * ksums through group_absorb) and folds the spilled records with the
 * CPU's kernel, so the result does not depend on where a record went.
 * An overflowing spill area fails the run with one line (acc_error).
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

static bool group_supports(const struct gs_job *job, const char **why)
{
	return group_gpu_supports(job, why);
}

static size_t group_dev_acc_bytes(const struct gs_job *job)
{
	struct gd_head h;

	return group_gpu_layout(job, 0, &h);
}

/* Zero the block, then its head; a pageable copy returns once its bytes
 * are staged, so h may go. */
static cudaError_t group_init_dev(const struct gs_job *job, void *dacc,
				  cudaStream_t s)
{
	struct gd_head h;
	size_t bytes = group_gpu_layout(job, 0, &h);

	CUDA_RET(cudaMemsetAsync(dacc, 0, bytes, s));
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
