/*
 * hist_kernels.cu - histograms on the GPU, with the same counts as
 * src/cpu/cpu_hist.c for every input.
 *
 * The device accumulator is the value array of struct hist_acc (acc.h):
 * below[C], above[C], nan[C], counts[C][nbins], all uint64_t. A value's
 * place in it is its "slot"; merge_host adds the arrays, so the GPU result
 * has the CPU backend's bits whatever the stream or chunk split.
 *
 * Records are read as one flat array of nrec * C elements; each thread walks
 * it with a grid stride and keeps the column of its element up to date by
 * modular addition (two 64-bit divisions per thread, none per element).
 *
 * Two ways to count, chosen by the number of slots S = (3 + nbins) * C:
 *  - S <= HIST_SHARED_SLOTS (8-bit per-value bins with few columns, small
 *    ranged histograms): each block counts into S 32-bit shared counters
 *    and adds the non-zero ones into the 64-bit global counts at its end.
 *    A launch covers at most HIST_PIECE_ELEMS elements, so no shared
 *    counter can reach 2^32.
 *  - otherwise (16-bit per-value bins, large ranged histograms): 64-bit
 *    global atomics, aggregated per warp with __match_any_sync, so a run of
 *    equal values (a dark image, a constant signal) costs one atomic per 32
 *    elements instead of 32 on one address.
 * Estimated from an H100's atomic throughput: the shared path is bound by shared atomics, some hundreds of GB/s for random
 * or constant bytes; the global path by L2 atomics, roughly 10^11 per second
 * for scattered 16-bit values (about 200 GB/s of input) and about a tenth
 * of that for constant data. Both are above what the host-to-device copies
 * deliver (PCIe, tens of GB/s), which is why nothing cleverer is done for
 * 16-bit data (such as shared sub-ranges that read the chunk twice).
 *
 * Ranged bins repeat cpu_hist.c's arithmetic operation for operation:
 * every step is one IEEE operation rounded to nearest (a conversion, a
 * subtraction, a division, a multiplication, an addition, a rounding to
 * f16/f32), which gives the same bits on both processors. Without --range
 * (job->data_range) numpy works in the data's type: each step in double is
 * then rounded to the bin type at once (op()), as cpu_hist.c does. On the device the
 * steps are written with the _rn intrinsics, which nvcc never contracts into
 * fused multiply-adds (it would contract i * step + lo in an edge). Edges
 * are computed where they are needed, as the CPU does, so there is no edge
 * table to copy.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dtype.cuh"
#include "gpu.h"

/* 256 threads and 4 blocks per SM: 32 warps per SM hide the load latency,
 * and 4 blocks of HIST_SHARED_SLOTS counters (48 KB each) fit the 228 KB of
 * an H100 SM. */
#define HIST_THREADS 256
#define HIST_BLOCKS_PER_SM 4
/* 48 KB of 32-bit counters: the most a block may use without opting in
 * (cudaFuncSetAttribute); 8-bit data with up to 47 columns fits. */
#define HIST_SHARED_SLOTS 12288u
/* Elements per launch: a shared counter sees at most this many increments,
 * below 2^32. */
#define HIST_PIECE_ELEMS ((size_t)1 << 31)
/* A shared-path block flushes S counters: give it at least 8 elements per
 * counter, so that small chunks are not dominated by the flush. */
#define HIST_MIN_PER_SLOT 8
/* Columns beyond this would overflow the column arithmetic (col + step). */
#define HIST_MAX_COLUMNS (1u << 30)

#define NO_SLOT UINT64_MAX	/* a lane past the end of the data */

#include "hist_bin.cuh"

/* ---- the kernels ---------------------------------------------------------- */

struct shared_sink {
	uint32_t *cnt;

	__device__ void add(uint64_t slot)
	{
		if (slot != NO_SLOT)
			atomicAdd(&cnt[slot], 1u);
	}
};

/* Called by all 32 lanes of a warp together (fold's loop is warp-uniform):
 * the lowest lane of each group of equal slots adds the group's size. */
struct global_sink {
	unsigned long long *cnt;

	__device__ void add(uint64_t slot)
	{
		unsigned peers = __match_any_sync(0xffffffffu,
						  (unsigned long long)slot);

		if (slot != NO_SLOT && (threadIdx.x & 31) == (unsigned)__ffs(peers) - 1)
			atomicAdd(&cnt[slot], (unsigned long long)__popc(peers));
	}
};

/* Thread t of a grid of stride threads counts elements t, t + stride, ...
 * of p. The loop runs over the warp's first element so that every lane of a
 * warp makes the same number of trips (global_sink needs them together);
 * lanes past the end add NO_SLOT. col is the column of element e. */
template <typename T, class Slot, class Sink>
__host__ __device__ static void fold(const T *__restrict__ p, size_t nelem,
				     unsigned C, size_t t, size_t stride,
				     const Slot &slot, Sink &sink)
{
	size_t lane = t % 32;
	unsigned col = (unsigned)(t % C), step = (unsigned)(stride % C);

	for (size_t e0 = t - lane; e0 < nelem; e0 += stride) {
		size_t e = e0 + lane;

		sink.add(e < nelem ? slot(p[e], col) : NO_SLOT);
		col += step;
		if (col >= C)
			col -= C;
	}
}

/* nslots 32-bit counters per block, flushed into the 64-bit counts. */
template <typename T, class Slot>
__global__ void __launch_bounds__(HIST_THREADS)
hist_shared_kernel(const T *__restrict__ p, size_t nelem, unsigned C,
		   Slot slot, unsigned nslots, unsigned long long *cnt)
{
	extern __shared__ uint32_t sh[];
	struct shared_sink sink = { sh };

	for (unsigned s = threadIdx.x; s < nslots; s += blockDim.x)
		sh[s] = 0;
	__syncthreads();
	fold(p, nelem, C, (size_t)blockIdx.x * blockDim.x + threadIdx.x,
	     (size_t)gridDim.x * blockDim.x, slot, sink);
	__syncthreads();
	for (unsigned s = threadIdx.x; s < nslots; s += blockDim.x)
		if (sh[s] != 0)
			atomicAdd(&cnt[s], (unsigned long long)sh[s]);
}

template <typename T, class Slot>
__global__ void __launch_bounds__(HIST_THREADS)
hist_global_kernel(const T *__restrict__ p, size_t nelem, unsigned C,
		   Slot slot, unsigned long long *cnt)
{
	struct global_sink sink = { cnt };

	fold(p, nelem, C, (size_t)blockIdx.x * blockDim.x + threadIdx.x,
	     (size_t)gridDim.x * blockDim.x, slot, sink);
}

/* The common case, one column of bytes: 16-byte loads (the generic fold
 * loads one byte per lane per trip, which left it at 0.15x CUB's
 * HistogramEven: 323 GB/s on the H100) and a 256-counter histogram per
 * warp, so warps never contend for a shared counter. bin = byte ^ flip.
 * p is 16-byte aligned (a cudaMalloc'd chunk buffer, launched in pieces
 * of HIST_PIECE_ELEMS); the tail of fewer than 16 bytes goes one by one. */
#define U8_WARPS (HIST_THREADS / 32)

__global__ void __launch_bounds__(HIST_THREADS)
hist_u8_kernel(const uint8_t *__restrict__ p, size_t n, unsigned flip,
	       unsigned long long *cnt)
{
	__shared__ uint32_t sh[U8_WARPS][256];
	uint32_t *mine = sh[threadIdx.x / 32];
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x, nv = n / 16;
	const uint4 *v = (const uint4 *)p;

	for (unsigned i = threadIdx.x; i < U8_WARPS * 256; i += blockDim.x)
		(&sh[0][0])[i] = 0;
	__syncthreads();
	for (size_t i = t; i < nv; i += stride) {
		uint4 x = v[i];
		uint32_t w[4] = { x.x, x.y, x.z, x.w };

		for (int k = 0; k < 4; k++)
			for (int b = 0; b < 32; b += 8)
				atomicAdd(&mine[((w[k] >> b) ^ flip) & 0xff], 1u);
	}
	for (size_t e = nv * 16 + t; e < n; e += stride)
		atomicAdd(&mine[(p[e] ^ flip) & 0xff], 1u);
	__syncthreads();
	for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) {
		unsigned long long sum = 0;

		for (int w = 0; w < U8_WARPS; w++)
			sum += sh[w][b];
		if (sum)
			atomicAdd(&cnt[b], sum);
	}
}

static cudaError_t launch_u8(void *dacc, const void *d, size_t n, unsigned flip,
			     int nsm, cudaStream_t s)
{
	/* counts of column 0 start after below, above and nan */
	unsigned long long *cnt = (unsigned long long *)dacc + 3;

	for (size_t off = 0; off < n; off += HIST_PIECE_ELEMS) {
		size_t m = n - off < HIST_PIECE_ELEMS ? n - off : HIST_PIECE_ELEMS;
		/* at least 4 KiB a block, so small chunks do not pay for
		 * many flushes */
		size_t want = (m + 4095) / 4096;
		size_t most = (size_t)(nsm > 0 ? nsm : 1) * HIST_BLOCKS_PER_SM;
		unsigned blocks = (unsigned)(want < 1 ? 1 : want > most ? most : want);

		hist_u8_kernel<<<blocks, HIST_THREADS, 0, s>>>(
			(const uint8_t *)d + off, m, flip, cnt);
		CUDA_LAUNCHED();
	}
	return cudaSuccess;
}

/* ---- launchers ------------------------------------------------------------ */

/* Blocks for nelem elements, at least per_block each, at most
 * HIST_BLOCKS_PER_SM per SM. */
static unsigned grid_for(size_t nelem, size_t per_block, int nsm)
{
	size_t most = (size_t)(nsm > 0 ? nsm : 1) * HIST_BLOCKS_PER_SM;
	size_t b = (nelem + per_block - 1) / per_block;

	return (unsigned)(b < 1 ? 1 : b > most ? most : b);
}

/* Count nrec records of p into cnt, nslots slots in all, in launches of at
 * most HIST_PIECE_ELEMS elements that start on a record. */
template <typename T, class Slot>
static cudaError_t launch_slots(const struct gs_job *job, void *dacc,
				const void *d, size_t nrec, uint64_t nslots,
				const Slot &slot, int nsm, cudaStream_t s)
{
	unsigned C = job->columns;
	size_t piece = HIST_PIECE_ELEMS / C;	/* records per launch */
	unsigned long long *cnt = (unsigned long long *)dacc;
	bool shared = nslots <= HIST_SHARED_SLOTS;
	size_t per_block = shared ? nslots * HIST_MIN_PER_SLOT : HIST_THREADS;

	if (per_block < HIST_THREADS)
		per_block = HIST_THREADS;
	for (size_t r0 = 0; r0 < nrec; r0 += piece) {
		const T *p = (const T *)d + r0 * C;
		size_t nelem = (nrec - r0 < piece ? nrec - r0 : piece) * C;
		unsigned blocks = grid_for(nelem, per_block, nsm);

		if (shared)
			hist_shared_kernel<<<blocks, HIST_THREADS,
					     nslots * sizeof(uint32_t), s>>>(
				p, nelem, C, slot, (unsigned)nslots, cnt);
		else
			hist_global_kernel<<<blocks, HIST_THREADS, 0, s>>>(
				p, nelem, C, slot, cnt);
		CUDA_LAUNCHED();
	}
	return cudaSuccess;
}

static uint64_t hist_nbins(const struct gs_job *job)
{
	if (job->ranged)
		return job->bins;
	return (uint64_t)1 << (8 * type_size(job->dtype.type));
}

static uint64_t hist_nslots(const struct gs_job *job)
{
	return (3 + hist_nbins(job)) * job->columns;
}

template <typename T, int CONV, int BT>
static cudaError_t launch_ranged(const struct gs_job *job, void *dacc,
				 const void *d, size_t nrec, int nsm,
				 cudaStream_t s)
{
	struct ranged_slot<T, CONV, BT> slot = { hist_ranged_make(job),
						 3 * (uint64_t)job->columns,
						 job->columns };

	return launch_slots<T>(job, dacc, d, nrec, hist_nslots(job), slot,
			       nsm, s);
}

template <typename T>
static cudaError_t launch_perval(const struct gs_job *job, void *dacc,
				 const void *d, size_t nrec, int nsm,
				 cudaStream_t s, unsigned flip)
{
	struct perval_slot<T> slot = { 3 * (uint64_t)job->columns,
				       hist_nbins(job), flip };

	return launch_slots<T>(job, dacc, d, nrec, hist_nslots(job), slot,
			       nsm, s);
}

/* One bin per value (8- or 16-bit data), or ranged bins as hist_elem
 * says. */
static cudaError_t hist_launch(const struct gs_job *job, void *dacc,
			       const void *d, const void * /* d2 */,
			       size_t nrec, int nsm, cudaStream_t s)
{
	enum gs_type t = job->dtype.type;

	if (!job->ranged) {
		if (type_size(t) == 1 && job->columns == 1)
			return launch_u8(dacc, d, nrec, t == GS_I8 ? 0x80 : 0,
					 nsm, s);
		if (type_size(t) == 1)
			return launch_perval<uint8_t>(job, dacc, d, nrec, nsm,
						      s, t == GS_I8 ? 0x80 : 0);
		return launch_perval<uint16_t>(job, dacc, d, nrec, nsm, s,
					       t == GS_I16 ? 0x8000 : 0);
	}
	return dtype_dispatch(t, [&](auto tag) {
		typedef hist_elem<DTYPE_OF(tag)> E;

		return launch_ranged<typename E::raw, E::conv, E::bt>(job, dacc,
				d, nrec, nsm, s);
	});
}

/* ---- the ops table ---------------------------------------------------------- */

static bool hist_supports(const struct gs_job *job, const char **why)
{
	if (!job->ranged && type_size(job->dtype.type) > 2) {
		*why = "hist: one bin per value needs 8- or 16-bit data";
		return false;
	}
	if (job->ranged && job->bins == 0) {
		*why = "hist: no bins";
		return false;
	}
	if (job->columns == 0 || job->columns > HIST_MAX_COLUMNS) {
		*why = "hist: more than 2^30 columns";
		return false;
	}
	return true;
}

static size_t hist_dev_acc_bytes(const struct gs_job *job)
{
	return hist_nslots(job) * sizeof(uint64_t);
}

static void hist_merge_host(const struct gs_job * /* job */, void *acc,
			    const void *hacc)
{
	struct hist_acc *h = (struct hist_acc *)acc;
	const uint64_t *src = (const uint64_t *)hacc;
	uint64_t n = (3 + h->nbins) * h->columns;

	for (uint64_t i = 0; i < n; i++)
		h->v[i] += src[i];
}

const struct gpu_ops gpu_hist_ops = {
	hist_supports,
	hist_dev_acc_bytes,
	hist_launch,
	hist_merge_host,
	NULL,			/* init_dev: zeroed */
};

/* --algorithm global-atomic, shared-atomic, sort: they share the slots
 * (algos/). */
#include "hist_algos.cuh"
