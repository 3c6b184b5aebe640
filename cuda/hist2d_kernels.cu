/*
 * hist2d_kernels.cu - numpy.histogram2d on the GPU, with the same counts as
 * src/cpu/cpu_hist2d.c for every input.
 *
 * Each thread takes records (x, y): the first two values of a record of C
 * (the columns -F picked are the record by then), converted exactly to
 * double, and finds their code with hist2d_bin.h: the very functions the
 * CPU calls, so a point cannot fall in another bin here. The edges are
 * computed on the host (hist2d_edges, numpy's linspace) and copied once,
 * at open (init_dev), behind the counts in the device accumulator, where
 * the kernels read them (through L1: 8 KiB an axis of 1024 bins):
 *
 *   u64 nan, outside, counts[NX * NY]   (struct hist2d_acc's words)
 *   f64 x edges[NX + 1], y edges[NY + 1]
 *
 * merge_host adds the first part into struct hist2d_acc, so the GPU result
 * has the CPU backend's bits whatever the stream, chunk or GPU split.
 *
 * Two ways to count, as hist_kernels.cu chooses:
 *  - NX * NY <= H2_SHARED_BINS (64 x 64, 100 x 100, 128 x 127): each block
 *    counts into 32-bit shared counters and adds the non-zero ones into the
 *    64-bit global counts at its end. A launch covers at most H2_PIECE
 *    records, so no shared counter can reach 2^32.
 *  - otherwise (1024 x 1024: 8 MiB of counts, mostly in L2): 64-bit global
 *    atomics, one per group of equal codes of a warp (__match_any_sync), so
 *    constant or clustered points cost one atomic per group, not per lane.
 * NaN and outside points are counted in registers by each thread and added
 * once per warp at its end: a stream of points all outside the range would
 * otherwise contend on one address.
 */
#include <stdint.h>
#include <stdlib.h>

#include "dtype.cuh"
#include "gpu.h"
#include "hist2d_bin.h"

/* 256 threads, as the 1-D histograms; up to 4 blocks per SM where the
 * shared tile allows (64 KiB each: 3 on an H100's 228 KiB). */
#define H2_THREADS 256
#define H2_BLOCKS_PER_SM 4
/* 64 KiB of 32-bit counters a block (opted in above the default 48 KiB
 * with cudaFuncSetAttribute). */
#define H2_SHARED_BINS 16384u
/* Records per launch: a shared counter sees at most this many increments,
 * below 2^32; a thread's nan and outside counts too. */
#define H2_PIECE ((size_t)1 << 31)
/* A shared-path block flushes NX * NY counters: give it at least 8
 * records per counter, so that small chunks are not dominated by it. */
#define H2_MIN_PER_BIN 8

#define NO_CODE 0xfffffffdu	/* a lane past the end of the records */

/* ---- an element as the CPU converts it --------------------------------- */

template <typename T> struct h2_elem {
	typedef T raw;
	__device__ static double conv(T x) { return (double)x; }
};
template <> struct h2_elem<f16_bits> {
	typedef uint16_t raw;
	__device__ static double conv(uint16_t x) { return ieee_f16_to_f32(x); }
};
template <> struct h2_elem<bf16_bits> {
	typedef uint16_t raw;
	__device__ static double conv(uint16_t x)
	{
		return ieee_f32_from_bits((uint32_t)x << 16);
	}
};

/* What a launch needs: the device accumulator (nan, outside, counts,
 * then the edges), the bins of each axis, and the record's width. */
struct h2_params {
	unsigned long long *acc;
	const double *ex, *ey;	/* in acc, after the counts */
	uint64_t nx, ny;
	uint32_t nbins;		/* nx * ny */
	unsigned C;
};

/* An axis from the edges in device memory: lo and hi are its first and
 * last edge, as the CPU takes them from its own copy. */
__device__ static struct h2axis h2_axis(const double *e, uint64_t n)
{
	return h2axis_make(e, e[0], e[n], n);
}

/* ---- the kernels ----------------------------------------------------------- */

/* The nan and outside counts of a thread, once per warp. */
__device__ static void add_misses(unsigned long long *acc,
				  unsigned long long nan,
				  unsigned long long out)
{
	for (int d = 16; d > 0; d /= 2) {
		nan += __shfl_down_sync(0xffffffffu, nan, d);
		out += __shfl_down_sync(0xffffffffu, out, d);
	}
	if ((threadIdx.x & 31) == 0) {
		if (nan)
			atomicAdd(&acc[0], nan);
		if (out)
			atomicAdd(&acc[1], out);
	}
}

/* Thread t of a grid of stride threads codes records t, t + stride, ...
 * The loop runs over the warp's first record so that every lane of a warp
 * makes the same trips (the global sink's __match_any_sync needs them
 * together); lanes past the end see NO_CODE. sink(code) counts a bin. */
template <typename E, class Sink>
__device__ static void h2_fold(const typename E::raw *__restrict__ p,
			       size_t nrec, const struct h2_params &k,
			       Sink &sink)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x, lane = t % 32;
	struct h2axis ax = h2_axis(k.ex, k.nx), ay = h2_axis(k.ey, k.ny);
	unsigned long long nan = 0, out = 0;

	for (size_t r0 = t - lane; r0 < nrec; r0 += stride) {
		size_t r = r0 + lane;
		uint32_t code = NO_CODE;

		if (r < nrec) {
			const typename E::raw *q = p + r * k.C;

			code = hist2d_code(&ax, &ay, E::conv(q[0]),
					   E::conv(q[1]));
			nan += code == HIST2D_CODE_NAN;
			out += code == HIST2D_CODE_OUT;
		}
		sink(code);
	}
	add_misses(k.acc, nan, out);
}

template <typename E>
__global__ void __launch_bounds__(H2_THREADS)
h2_shared_kernel(const typename E::raw *__restrict__ p, size_t nrec,
		 struct h2_params k)
{
	extern __shared__ uint32_t sh[];

	for (uint32_t b = threadIdx.x; b < k.nbins; b += blockDim.x)
		sh[b] = 0;
	__syncthreads();
	auto sink = [&](uint32_t code) {
		if (code < k.nbins)
			atomicAdd(&sh[code], 1u);
	};
	h2_fold<E>(p, nrec, k, sink);
	__syncthreads();
	for (uint32_t b = threadIdx.x; b < k.nbins; b += blockDim.x)
		if (sh[b] != 0)
			atomicAdd(&k.acc[2 + b], (unsigned long long)sh[b]);
}

/* Called by all 32 lanes of a warp together: the lowest lane of each group
 * of equal codes adds the group's size. */
template <typename E>
__global__ void __launch_bounds__(H2_THREADS)
h2_global_kernel(const typename E::raw *__restrict__ p, size_t nrec,
		 struct h2_params k)
{
	auto sink = [&](uint32_t code) {
		unsigned peers = __match_any_sync(0xffffffffu, code);

		if (code < k.nbins &&
		    (threadIdx.x & 31) == (unsigned)__ffs(peers) - 1)
			atomicAdd(&k.acc[2 + code],
				  (unsigned long long)__popc(peers));
	};
	h2_fold<E>(p, nrec, k, sink);
}

/* ---- launchers --------------------------------------------------------------- */

static uint64_t h2_nbins(const struct gs_job *job)
{
	return job->bins * job->ybins;
}

/* Where the edges lie in a device accumulator. */
static double *h2_edges(const struct gs_job *job, void *dacc)
{
	return (double *)((unsigned long long *)dacc + 2 + h2_nbins(job));
}

/* Blocks for nrec records, at least per_block each, at most most. */
static unsigned h2_grid(size_t nrec, size_t per_block, size_t most)
{
	size_t b = (nrec + per_block - 1) / per_block;

	return (unsigned)(b < 1 ? 1 : b > most ? most : b);
}

static struct h2_params h2_params_make(const struct gs_job *job, void *dacc)
{
	struct h2_params k;

	k.acc = (unsigned long long *)dacc;
	k.nx = job->bins;
	k.ny = job->ybins;
	k.ex = h2_edges(job, dacc);
	k.ey = k.ex + k.nx + 1;
	k.nbins = (uint32_t)(k.nx * k.ny);
	k.C = job->columns;
	return k;
}

template <typename E>
static cudaError_t h2_launch_t(const struct gs_job *job, void *dacc,
			       const void *d, size_t nrec, int nsm,
			       cudaStream_t s)
{
	struct h2_params k = h2_params_make(job, dacc);
	bool shared = h2_nbins(job) <= H2_SHARED_BINS;
	size_t most = (size_t)(nsm > 0 ? nsm : 1) * H2_BLOCKS_PER_SM;
	size_t per_block = shared ? h2_nbins(job) * H2_MIN_PER_BIN : H2_THREADS;
	size_t tile = (size_t)h2_nbins(job) * sizeof(uint32_t);

	if (per_block < H2_THREADS)
		per_block = H2_THREADS;
	if (shared && tile > 48 * 1024)
		CUDA_RET(cudaFuncSetAttribute(h2_shared_kernel<E>,
				cudaFuncAttributeMaxDynamicSharedMemorySize,
				(int)tile));
	for (size_t r0 = 0; r0 < nrec; r0 += H2_PIECE) {
		const typename E::raw *p = (const typename E::raw *)d + r0 * k.C;
		size_t m = nrec - r0 < H2_PIECE ? nrec - r0 : H2_PIECE;
		unsigned blocks = h2_grid(m, per_block, most);

		if (shared)
			h2_shared_kernel<E><<<blocks, H2_THREADS, tile, s>>>(p, m, k);
		else
			h2_global_kernel<E><<<blocks, H2_THREADS, 0, s>>>(p, m, k);
		CUDA_LAUNCHED();
	}
	return cudaSuccess;
}

static cudaError_t h2_launch(const struct gs_job *job, void *dacc,
			     const void *d, const void * /* d2 */, size_t nrec,
			     int nsm, cudaStream_t s)
{
	return dtype_dispatch(job->dtype.type, [&](auto tag) {
		return h2_launch_t<h2_elem<DTYPE_OF(tag)>>(job, dacc, d, nrec,
							   nsm, s);
	});
}

/* ---- the ops table -------------------------------------------------------------- */

static bool h2_supports(const struct gs_job *job, const char **why)
{
	if (job->columns < 2) {
		*why = "hist2d: records of x and y";
		return false;
	}
	if (job->bins < 1 || job->ybins < 1 ||
	    job->bins > HIST2D_MAX_BINS / job->ybins) {
		*why = "hist2d: NX * NY from 1 to 2^25";
		return false;
	}
	return true;
}

static size_t h2_dev_acc_bytes(const struct gs_job *job)
{
	return (2 + h2_nbins(job)) * sizeof(uint64_t) +
	       (job->bins + 1 + job->ybins + 1) * sizeof(double);
}

/* Zero counts, then the edges (hist2d_edges, numpy's linspace, on the
 * host); a pageable copy returns once its bytes are staged, so e may go. */
static cudaError_t h2_init_dev(const struct gs_job *job, void *dacc,
			       cudaStream_t s)
{
	uint64_t nx = job->bins, ny = job->ybins;
	size_t ne = nx + 1 + ny + 1;
	double *e = (double *)malloc(ne * sizeof(double));
	cudaError_t rc;

	if (!e)
		return cudaErrorMemoryAllocation;
	hist2d_edges(job, 0, e);
	hist2d_edges(job, 1, e + nx + 1);
	rc = cudaMemsetAsync(dacc, 0, (2 + h2_nbins(job)) * sizeof(uint64_t), s);
	if (rc == cudaSuccess)
		rc = cudaMemcpyAsync(h2_edges(job, dacc), e, ne * sizeof(double),
				     cudaMemcpyHostToDevice, s);
	free(e);
	return rc;
}

static void h2_merge_host(const struct gs_job *job, void *acc,
			  const void *hacc)
{
	struct hist2d_acc *h = (struct hist2d_acc *)acc;
	const uint64_t *src = (const uint64_t *)hacc;
	uint64_t n = h2_nbins(job);

	h->nan += src[0];
	h->outside += src[1];
	for (uint64_t i = 0; i < n; i++)
		h->counts[i] += src[2 + i];
}

const struct gpu_ops gpu_hist2d_ops = {
	h2_supports,
	h2_dev_acc_bytes,
	h2_launch,
	h2_merge_host,
	h2_init_dev,
};
