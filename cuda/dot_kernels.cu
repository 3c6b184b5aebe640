/*
 * dot_kernels.cu - exact dot products on the GPU, into the same struct
 * dot_col (acc.h) as src/cpu/cpu_dot.c for every input.
 *
 * dot A B (job->two_inputs): column j of d times column j of d2, C dot
 * products. dot --pairs: column 2j of d times column 2j + 1, C / 2 of them.
 * With n dot products, thread t of a grid of T threads takes product j =
 * t % n of records t / n, t / n + T / n, ...: the grid stride is a whole
 * number of records (threads past (T / n) * n idle), so a thread keeps one
 * dot product and consecutive threads read consecutive elements.
 *
 * Floats (f16/bf16 read as raw bits): every product is exact (under 2^48
 * for the single types, which take exact.cuh's 64-bit adder; 2^106 for
 * f64) and goes into the thread's exact accumulator; a NaN factor or
 * inf * 0 gives NaN, inf times anything else a signed inf, as xsum does.
 * Integers: products are exact in 128 bits and a thread sums them in 192
 * (a 128-bit low part and a carry word, signed for signed types), as
 * cpu_dot.c does, handing the sum to its exact accumulator once, at its
 * end; no thread sees more than 2^20 records per kernel, so nothing
 * overflows. Blocks add into shared slots and then into the device
 * accumulator (cuda/exact.cuh), all in integers: the grouping of threads,
 * blocks, streams and chunks cannot change the bits.
 *
 * The device accumulator: n struct exact_acc, then the record count.
 */
#include <string.h>
#include <type_traits>

#include "exact.cuh"

/* 256 threads, up to 4 blocks per SM (32 warps) to hide load latency. */
#define DOT_THREADS 256
#define DOT_BLOCKS_PER_SM 4
/* Shared memory is n exact accumulators of EXACT_SLOTS slots, 1152 bytes
 * each: 64 take 73728 bytes, under the 227 KB a block may opt in to. */
#define DOT_MAX_PRODUCTS 64
/* Products per thread below which fewer blocks are launched: zeroing and
 * flushing the shared slots must not dominate small chunks. */
#define DOT_MIN_PER_THREAD 16

/* Where the factors of dot product j of record k are: a[k * C + j * step +
 * aoff] and b[k * C + j * step + boff]. */
struct dot_map {
	unsigned C, n;		/* elements per record, dot products */
	unsigned step, aoff, boff;
};

/* ---- one thread's share --------------------------------------------------- */

/* Products of records k0, k0 + kstep, ... starting at elements ia / ib. */
template <typename T>
__host__ __device__ static void dot_fold_float(struct exact_thr *s,
					       const T *__restrict__ a,
					       const T *__restrict__ b,
					       size_t nrec, size_t k0,
					       size_t kstep, size_t ia,
					       size_t ib, size_t di,
					       long long *slot)
{
	for (size_t k = k0; k < nrec; k += kstep, ia += di, ib += di) {
		struct exact_term p = exact_mul(exact_elem(a[ia]), exact_elem(b[ib]));

		s->flags |= p.flags;
		if constexpr (std::is_same_v<T, double>)	/* 106 bits */
			exact_thr_add(s, p.m, p.e, slot);
		else						/* 48 bits */
			exact_thr_add64(s, (long long)p.m, p.e, slot);
	}
}

template <typename T>
__host__ __device__ static void dot_fold_int(struct exact_thr *s,
					     const T *__restrict__ a,
					     const T *__restrict__ b,
					     size_t nrec, size_t k0,
					     size_t kstep, size_t ia, size_t ib,
					     size_t di, long long *slot)
{
	unsigned __int128 lo = 0;	/* the sum is hi * 2^128 + lo */
	long long hi = 0;

	for (size_t k = k0; k < nrec; k += kstep, ia += di, ib += di) {
		if constexpr (std::is_signed_v<T>) {
			__int128 p = (__int128)(long long)a[ia] * (long long)b[ib];

			lo += (unsigned __int128)p;
			hi += (long long)(lo < (unsigned __int128)p) - (p < 0);
		} else {
			unsigned __int128 p = (unsigned __int128)
				(unsigned long long)a[ia] * (unsigned long long)b[ib];

			lo += p;
			hi += lo < p;
		}
	}
	exact_thr_add_u128(s, lo, false, 0, slot);
	exact_thr_add(s, (__int128)hi, 128, slot);
}

/* Dot product j's share of thread t of a grid of nthr threads; false for a
 * thread past the last whole stride of records, which has none. sh: the
 * block's shared slots, n accumulators. */
template <typename T>
__host__ __device__ static bool dot_fold(struct exact_thr *s, const T *a,
					 const T *b, size_t nrec,
					 const struct dot_map &m, size_t t,
					 size_t nthr, long long *sh)
{
	size_t kstep = nthr / m.n, j = t % m.n, k0 = t / m.n;
	size_t i = k0 * m.C + j * m.step, di = kstep * m.C;
	long long *slot = sh + j * EXACT_SLOTS;

	exact_thr_init(s, std::is_integral_v<T> ? 0 : EXACT_EMIN);
	if (t >= kstep * m.n)
		return false;
	if constexpr (std::is_integral_v<T>)
		dot_fold_int(s, a, b, nrec, k0, kstep, i + m.aoff, i + m.boff,
			     di, slot);
	else
		dot_fold_float(s, a, b, nrec, k0, kstep, i + m.aoff, i + m.boff,
			       di, slot);
	return true;
}

/* ---- the kernel ------------------------------------------------------------ */

template <typename T>
__global__ void __launch_bounds__(DOT_THREADS)
dot_kernel(const T *__restrict__ a, const T *__restrict__ b, size_t nrec,
	   struct dot_map m, struct exact_acc *g, unsigned long long *count)
{
	extern __shared__ long long sh[];
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	struct exact_thr s;

	exact_block_zero(sh, m.n * EXACT_SLOTS);
	__syncthreads();
	if (dot_fold(&s, a, b, nrec, m, t, (size_t)gridDim.x * blockDim.x, sh)) {
		unsigned j = (unsigned)(t % m.n);

		exact_thr_finish(&s, sh + j * EXACT_SLOTS, &g[j]);
	}
	__syncthreads();
	exact_block_flush(sh, g, m.n);
	if (t == 0)
		*count += nrec;	/* kernels of one stream run in order */
}

/* ---- launchers ------------------------------------------------------------ */

static struct dot_map dot_map_of(const struct gs_job *job)
{
	struct dot_map m;

	m.C = job->columns;
	m.n = job->two_inputs ? job->columns : job->columns / 2;
	m.step = job->two_inputs ? 1 : 2;
	m.aoff = 0;
	m.boff = job->two_inputs ? 0 : 1;
	return m;
}


/*
 * Fold nrec records in launches of at most exact_launch_cap(blocks) / n
 * records, blocks * 2^26 / n. A thread then takes at most that over T / n
 * records (T = 256 * blocks threads; T / n >= 4, so the floor loses at most
 * half), 2^19 + 1, and a block's threads of one dot product at most 256
 * times that, under EXACT_BLOCK_TERMS. Each launch is followed by
 * exact_normalize, as exact.cuh requires.
 */
template <typename T>
static cudaError_t dot_launch_t(const struct gs_job *job, void *dacc,
				const void *d, const void *d2, size_t nrec,
				int nsm, cudaStream_t s)
{
	struct dot_map m = dot_map_of(job);
	struct exact_acc *g = (struct exact_acc *)dacc;
	unsigned long long *count = (unsigned long long *)(g + m.n);
	const T *a = (const T *)d, *b = (const T *)(job->two_inputs ? d2 : d);
	size_t shared = (size_t)m.n * EXACT_SLOTS * sizeof(long long);
	unsigned blocks = exact_grid(nrec * m.n, shared, nsm, DOT_THREADS,
				     DOT_BLOCKS_PER_SM, DOT_MIN_PER_THREAD);
	size_t piece = exact_launch_cap(blocks) / m.n;

	if (shared > DEFAULT_SHARED_BYTES)
		CUDA_RET(cudaFuncSetAttribute(dot_kernel<T>,
					      cudaFuncAttributeMaxDynamicSharedMemorySize,
					      (int)shared));
	for (size_t r0 = 0; r0 < nrec; r0 += piece) {
		size_t k = nrec - r0 < piece ? nrec - r0 : piece;

		dot_kernel<T><<<blocks, DOT_THREADS, shared, s>>>(
			a + r0 * m.C, b + r0 * m.C, k, m, g, count);
		CUDA_LAUNCHED();
		CUDA_RET(exact_normalize(g, m.n, s));
	}
	return cudaSuccess;
}

static cudaError_t dot_launch(const struct gs_job *job, void *dacc,
			      const void *d, const void *d2, size_t nrec,
			      int nsm, cudaStream_t s)
{
	if (nrec == 0)
		return cudaSuccess;
	if (job->two_inputs && !d2)
		return cudaErrorInvalidValue;
	return dtype_dispatch(job->dtype.type, [&](auto tag) {
		return dot_launch_t<DTYPE_OF(tag)>(job, dacc, d, d2, nrec, nsm, s);
	});
}

/* ---- the ops table ---------------------------------------------------------- */

static bool dot_supports(const struct gs_job *job, const char **why)
{
	struct dot_map m = dot_map_of(job);

	if (m.n == 0 || (!job->two_inputs && job->columns % 2)) {
		*why = "dot --pairs: needs an even number of columns";
		return false;
	}
	if (m.n > DOT_MAX_PRODUCTS) {
		*why = "dot: the CUDA kernels take at most 64 dot products";
		return false;
	}
	if (job->dtype.type >= GS_NTYPES) {
		*why = "dot: unknown element type";
		return false;
	}
	return true;
}

static size_t dot_dev_acc_bytes(const struct gs_job *job)
{
	return dot_map_of(job).n * sizeof(struct exact_acc) +
	       sizeof(unsigned long long);
}

static void dot_merge_host(const struct gs_job *job, void *acc,
			   const void *hacc)
{
	unsigned n = dot_map_of(job).n;
	const struct exact_acc *g = (const struct exact_acc *)hacc;
	const unsigned long long *count = (const unsigned long long *)(g + n);
	struct dot_col *cols = (struct dot_col *)acc;

	for (unsigned j = 0; j < n; j++) {
		cols[j].count += *count;
		exact_to_xsum(&g[j], &cols[j].s);
	}
}

const struct gpu_ops gpu_dot_ops = {
	dot_supports,
	dot_dev_acc_bytes,
	dot_launch,
	dot_merge_host,
	NULL,			/* init_dev: zeroed */
};

/* --algorithm atomic and block-tree: they share dot_fold (algos/). */
#include "dot_algos.cuh"
