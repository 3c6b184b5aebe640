/*
 * stats_kernels.cu - count, NaN count, min, max, exact sum and exact sum of
 * squares per column on the GPU (stats, and the min/max pass of hist), with
 * the same struct stats_col (acc.h) as src/cpu/cpu_stats.c for every input.
 *
 * Thread t of a grid of T threads takes column j = t % C of records t / C,
 * t / C + T / C, ...: the grid stride is a whole number of records (threads
 * past (T / C) * C idle), so a thread keeps one column and consecutive
 * threads still read consecutive elements.
 *
 * Floats (f16/bf16 read as raw bits and decoded exactly): each non-NaN value
 * v goes into two exact thread accumulators of cuda/exact.cuh, v and v*v
 * (an exact product: 48 bits for f32, so both take the 64-bit adder; 106
 * for f64); NaNs are only counted.
 * Integers: a thread sums v in an __int128 and v^2 (up to 2^128 for 64-bit
 * values) in 192 bits, a 128-bit low part and a carry word, as cpu_stats.c
 * does, and hands both to its exact accumulators once, at its end: no
 * thread sees more than 2^20 elements per kernel (the launch cap below), so
 * neither overflows.
 *
 * One column of f32 at a 16-byte aligned address (the common case) takes
 * a faster path: 16-byte vector loads, two per iteration, and exact.cuh's
 * exponent window for both sums (the squares of in-window values are
 * integers (s * 2^d)^2 in a 128-bit window sum of their own), with the
 * exact_thr pair above only for values outside the window, NaNs and the
 * infinities.
 *
 * Min and max are order-preserving unsigned keys of the bits (floats: -0
 * below +0, NaNs never get there; signed integers: the sign bit flipped), so
 * one 64-bit atomicMax does each, first in shared memory per block, then in
 * global memory. The device accumulator keeps the max key and the max of
 * the complemented keys (the min): 0 is the identity of both, which is what
 * the backend's cudaMemset leaves.
 *
 * A thread's share (the element's key, both sums, the window path) is in
 * stats_fold.cuh, which tests/gpu/exact_host.cu runs on the host.
 *
 * merge_host decodes the keys into the double / int64 / uint64 that
 * cpu_stats.c stores and merges through stats_kernels.acc_merge, so the rule
 * for combining min, max and counts is the CPU's own.
 */
#include <stdint.h>
#include <string.h>
#include <type_traits>

#include "stats_fold.cuh"

/* 256 threads, up to 4 blocks per SM (32 warps) to hide load latency. */
#define STATS_THREADS 256
#define STATS_BLOCKS_PER_SM 4
/* Shared memory is 2 * C exact accumulators of EXACT_SLOTS slots (2304
 * bytes per column) plus 24 bytes per column of NaN counts and keys: 64
 * columns take 148992 bytes, under the 227 KB a block may opt in to. */
#define STATS_MAX_COLUMNS 64
/* Elements per thread below which fewer blocks are launched: zeroing and
 * flushing the shared slots must not dominate small chunks. */
#define STATS_MIN_PER_THREAD 16
/* 1: one-column f32 takes the vector + window path; 0: the generic one
 * (0.14x CUB's plain float sum on the H100, about 150 instructions and one
 * 4-byte load in flight per element). */
#ifndef STATS_WINDOW
#define STATS_WINDOW 1
#endif

/* The value of a key as cpu_stats.c stores it for type t. */
static union gs_scalar key_value(enum gs_type t, unsigned long long k)
{
	union gs_scalar v;

	if (t == GS_F64) {
		unsigned long long u = k ^ (k >> 63 ? 1ull << 63 : ~0ull);

		memcpy(&v.f, &u, sizeof v.f);
	} else if (type_is_float(t)) {
		unsigned u = (unsigned)k ^ (k >> 31 & 1 ? 0x80000000u : 0xffffffffu);

		v.f = ieee_f32_from_bits(u);
	} else if (type_is_signed(t)) {
		v.i = (long long)(k ^ 1ull << 63);
	} else {
		v.u = k;
	}
	return v;
}

/* ---- the device accumulator ---------------------------------------------- */

/* Per column, after the 2 * C exact sums (s1 of column j is sum 2j, s2 is
 * 2j + 1) and the record count. */
struct stats_dcol {
	unsigned long long nan, kmax, nkmin;
};

struct stats_dev {
	struct exact_acc *sum;
	unsigned long long *count;
	struct stats_dcol *col;
};

static struct stats_dev stats_dev_at(void *dacc, unsigned C)
{
	struct stats_dev d;

	d.sum = (struct exact_acc *)dacc;
	d.count = (unsigned long long *)(d.sum + 2 * C);
	d.col = (struct stats_dcol *)(d.count + 1);
	return d;
}

static size_t stats_shared_bytes(unsigned C)
{
	return 2 * C * EXACT_SLOTS * sizeof(long long) +
	       3 * C * sizeof(unsigned long long);
}

/* ---- the kernel ------------------------------------------------------------ */

/*
 * Shared memory: the 2 * C accumulators' slots, then nan[C], kmax[C] and
 * nkmin[C], all zeroed here and added to the device accumulator at the end.
 */
template <typename T>
__global__ void __launch_bounds__(STATS_THREADS)
stats_kernel(const T *__restrict__ p, size_t nrec, unsigned C,
	     struct stats_dev d)
{
	extern __shared__ long long sh[];
	unsigned long long *mm = (unsigned long long *)(sh + 2 * C * EXACT_SLOTS);
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	struct stats_thr r;

	bool mine = true;

	exact_block_zero(sh, 2 * C * EXACT_SLOTS + 3 * C);
	__syncthreads();
	if constexpr (STATS_WINDOW && std::is_same_v<T, float>)
		if (C == 1 && (uintptr_t)p % 16 == 0)
			stats_fold_win(&r, p, nrec, t,
				       (size_t)gridDim.x * blockDim.x, sh);
		else
			mine = stats_fold(&r, p, nrec, C, t,
					  (size_t)gridDim.x * blockDim.x, sh);
	else
		mine = stats_fold(&r, p, nrec, C, t,
				  (size_t)gridDim.x * blockDim.x, sh);
	if (mine) {
		unsigned j = (unsigned)(t % C);
		long long *slot = sh + 2 * j * EXACT_SLOTS;

		exact_thr_finish(&r.s1, slot, &d.sum[2 * j]);
		exact_thr_finish(&r.s2, slot + EXACT_SLOTS, &d.sum[2 * j + 1]);
		if (r.nan)
			atomicAdd(&mm[j], r.nan);
		if (r.kmax)
			atomicMax(&mm[C + j], r.kmax);
		if (r.nkmin)
			atomicMax(&mm[2 * C + j], r.nkmin);
	}
	__syncthreads();
	exact_block_flush(sh, d.sum, 2 * C);
	for (unsigned j = threadIdx.x; j < C; j += blockDim.x) {
		if (mm[j])
			atomicAdd(&d.col[j].nan, mm[j]);
		if (mm[C + j])
			atomicMax(&d.col[j].kmax, mm[C + j]);
		if (mm[2 * C + j])
			atomicMax(&d.col[j].nkmin, mm[2 * C + j]);
	}
	if (t == 0)
		*d.count += nrec;	/* kernels of one stream run in order */
}

/* ---- launchers ------------------------------------------------------------ */


/*
 * Fold nrec records in launches of at most exact_launch_cap(blocks) / C
 * records, blocks * 2^26 / C. A thread then takes at most that over T / C
 * records (T = 256 * blocks threads; T / C >= 4, so the floor loses at most
 * half), 2^19 + 1, and a block's threads of one column at most 256 times
 * that, under EXACT_BLOCK_TERMS. Each launch is followed by exact_normalize,
 * as exact.cuh requires.
 */
template <typename T>
static cudaError_t stats_launch_t(const struct gs_job *job, void *dacc,
				  const void *d, size_t nrec, int nsm,
				  cudaStream_t s)
{
	unsigned C = job->columns;
	struct stats_dev dev = stats_dev_at(dacc, C);
	size_t shared = stats_shared_bytes(C);
	unsigned blocks = exact_grid(nrec * C, shared, nsm, STATS_THREADS,
				     STATS_BLOCKS_PER_SM, STATS_MIN_PER_THREAD);
	size_t piece = exact_launch_cap(blocks) / C;

	if (shared > DEFAULT_SHARED_BYTES)
		CUDA_RET(cudaFuncSetAttribute(stats_kernel<T>,
					      cudaFuncAttributeMaxDynamicSharedMemorySize,
					      (int)shared));
	for (size_t r0 = 0; r0 < nrec; r0 += piece) {
		size_t n = nrec - r0 < piece ? nrec - r0 : piece;

		stats_kernel<T><<<blocks, STATS_THREADS, shared, s>>>(
			(const T *)d + r0 * C, n, C, dev);
		CUDA_LAUNCHED();
		CUDA_RET(exact_normalize(dev.sum, 2 * C, s));
	}
	return cudaSuccess;
}

static cudaError_t stats_launch(const struct gs_job *job, void *dacc,
				const void *d, const void * /* d2 */,
				size_t nrec, int nsm, cudaStream_t s)
{
	if (nrec == 0)
		return cudaSuccess;
	return dtype_dispatch(job->dtype.type, [&](auto tag) {
		return stats_launch_t<DTYPE_OF(tag)>(job, dacc, d, nrec, nsm, s);
	});
}

/* ---- the ops table ---------------------------------------------------------- */

static bool stats_supports(const struct gs_job *job, const char **why)
{
	if (job->columns > STATS_MAX_COLUMNS) {
		*why = "stats: the CUDA kernels take at most 64 columns";
		return false;
	}
	if (job->dtype.type >= GS_NTYPES) {
		*why = "stats: unknown element type";
		return false;
	}
	/* Over 48 KB a block must opt in, up to the GPU's limit: 227 KB on
	 * the H100, 99 KB on sm_86/sm_89 (about 43 columns). Asked only
	 * then: the query starts the driver, which a small job need not. */
	size_t need = stats_shared_bytes(job->columns);
	int dev = 0, most = 0;

	if (need > DEFAULT_SHARED_BYTES && cudaGetDevice(&dev) == cudaSuccess &&
	    cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin,
				   dev) == cudaSuccess && need > (size_t)most) {
		*why = "stats: this GPU's shared memory holds the exact sums of "
		       "fewer columns";
		return false;
	}
	return true;
}

static size_t stats_dev_acc_bytes(const struct gs_job *job)
{
	unsigned C = job->columns;

	return 2 * C * sizeof(struct exact_acc) + sizeof(unsigned long long) +
	       C * sizeof(struct stats_dcol);
}

/* Column by column: the device's share as a struct stats_col, merged by the
 * CPU's own rule (a share with no values leaves min and max alone). */
static void stats_merge_host(const struct gs_job *job, void *acc,
			     const void *hacc)
{
	unsigned C = job->columns;
	struct stats_dev d = stats_dev_at((void *)hacc, C);
	struct stats_col *cols = (struct stats_col *)acc;
	struct gs_job one = *job;
	enum gs_type t = job->dtype.type;

	one.columns = 1;
	for (unsigned j = 0; j < C; j++) {
		struct stats_col c;

		memset(&c, 0, sizeof c);
		xsum_init(&c.s1);
		xsum_init(&c.s2);
		c.count = *d.count;
		c.nan = d.col[j].nan;
		c.min = key_value(t, ~d.col[j].nkmin);
		c.max = key_value(t, d.col[j].kmax);
		exact_to_xsum(&d.sum[2 * j], &c.s1);
		exact_to_xsum(&d.sum[2 * j + 1], &c.s2);
		stats_kernels.acc_merge(&one, &cols[j], &c);
	}
}

const struct gpu_ops gpu_stats_ops = {
	stats_supports,
	stats_dev_acc_bytes,
	stats_launch,
	stats_merge_host,
	NULL,			/* init_dev: zeroed */
};
