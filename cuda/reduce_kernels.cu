/*
 * reduce_kernels.cu - reduce (sum, min, max, and, or, xor) per column on the
 * GPU, into the same struct red_col as src/cpu/cpu_reduce.c, bit for bit.
 *
 * Records of `columns` interleaved values are read as one flat array of
 * elements; the grid stride is the thread count rounded down to a multiple
 * of columns, so each thread always meets the same column and keeps one
 * register accumulator. Blocks gather per column in shared memory and add
 * to the device accumulator once per kernel.
 *
 * - sum: exact (exact.cuh). One column of f32 or f64 (the common case)
 *   reads 16-byte vectors, two per iteration, into exact.cuh's window
 *   accumulators: branch-free integer adds while values stay within the
 *   window's binades, the thread's exact_thr for the rest. Other floats go
 *   through a thread's exact_thr; integers add up in a 64-bit (narrow
 *   types) or 128-bit register, which cannot overflow under the per-launch
 *   cap, and enter the slots once.
 * - min/max: values become order-preserving 64-bit keys (integers with the
 *   sign bit flipped; floats as doubles, -0.0 below +0.0, NaN flagged and
 *   skipped like the CPU does) and meet in atomicMax. min stores ~key, so
 *   that for both ops a zeroed accumulator is the identity and 0 means
 *   "no value seen" (no real key maps there).
 * - and/or/xor: the two's complement bits sign-extended to 64, as the CPU
 *   has them; and stores the OR of the complements (zero is its identity).
 * - prod: floats keep the CPU's bracket [lo, hi] * 2^exp of the exact
 *   product (128-bit ends, lo rounded down and hi up at every step), as
 *   struct fprod; integers the exact magnitude below 2^128, as struct
 *   iprod; NaN, zero, inf, overflow and the sign are flags (the
 *   arithmetic is numerics/xprod_core.h's, shared with the CPU and the
 *   scan). A thread multiplies K factors exactly in 64 bits (K = 64 /
 *   significand or integer bits: f64 1, f32 2, f16 5, bf16 8, u8 8 ...),
 *   then the product into its bracket with one 128x64-bit step. Blocks combine per column in
 *   a shared tree; each block leaves its partials in the accumulator's
 *   scratch, and a one-block kernel multiplies them into the column. A
 *   float result is given only when the bracket's ends round alike, and is
 *   then the correctly rounded exact product: the CPU's bits whenever the
 *   CPU gives a result too. Other groupings widen a bracket differently
 *   (by about 2^-126 of the product per factor), so for a product that
 *   close to a rounding tie one side may round and the other fail, as the
 *   CPU may with another thread count. Integer products are exact in any
 *   grouping, overflow included.
 * Scans are cuda/scan/'s.
 *
 * The kernels are here; a thread's share of a sum (red_sum.cuh) and of a
 * product with its block's tree (red_prod.cuh), the accumulator's layout,
 * the launch geometry and the merge into the CPU's struct red_col
 * (red_dev.cuh) are in headers the host checks include too.
 */
#include "red_prod.cuh"
#include "red_sum.cuh"

/* ---- kernels ------------------------------------------------------------- */

/* The grid stride: whole records' worth of threads. */
static __device__ inline size_t red_stride(unsigned columns)
{
	size_t total = (size_t)gridDim.x * blockDim.x;

	return total - total % columns;
}

/* Sums of n elements (nrec records of columns) into acc[columns]. Shared
 * memory: columns * EXACT_SLOTS slots. */
template <typename T>
__global__ void __launch_bounds__(RED_THREADS)
red_sum_kernel(struct red_dev_head *h, struct exact_acc *acc, const T *d,
	       size_t n, size_t nrec, unsigned columns)
{
	extern __shared__ long long slot[];
	size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = red_stride(columns);
	long long *mine = slot + (size_t)(g % columns) * EXACT_SLOTS;
	struct exact_thr t;

	if (g == 0)
		atomicAdd(&h->count, (unsigned long long)nrec);
	exact_block_zero(slot, columns * EXACT_SLOTS);
	__syncthreads();
	exact_thr_init(&t, dtype_is_float<T>::value ? EXACT_EMIN : 0);
	if (g < stride)
		red_sum_thread(&t, d, n, g, stride, mine);
	exact_thr_finish(&t, mine, &acc[g % columns]);
	__syncthreads();
	exact_block_flush(slot, acc, columns);
}

/* Sum of n f32 or f64 of one column into acc[0]; d 16-byte aligned, n at
 * most exact_launch_cap(gridDim.x), so that no thread takes more than
 * 2^18 + 4 elements (under EXACT_WIN_TERMS) nor a block more than
 * EXACT_BLOCK_TERMS. */
template <typename T>
__global__ void __launch_bounds__(RED_THREADS)
red_sum_win_kernel(struct red_dev_head *h, struct exact_acc *acc,
		   const T *d, size_t n)
{
	__shared__ long long slot[EXACT_SLOTS];
	size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	struct exact_thr t;

	if (g == 0)
		atomicAdd(&h->count, (unsigned long long)n);
	exact_block_zero(slot, EXACT_SLOTS);
	__syncthreads();
	exact_thr_init(&t, EXACT_EMIN);
	red_win_thread(&t, d, n, g, (size_t)gridDim.x * blockDim.x, slot);
	exact_thr_finish(&t, slot, acc);
	__syncthreads();
	exact_block_flush(slot, acc, 1);
}

/* Fold x into a thread's word for op. */
template <typename T, int OP>
static __host__ __device__ inline void
red_word_fold(T x, unsigned long long *w, bool *nan)
{
	unsigned long long k;

	if constexpr (OP == OP_MIN || OP == OP_MAX) {
		if (!red_key(x, &k))
			*nan = true;
		else if ((OP == OP_MIN ? ~k : k) > *w)
			*w = OP == OP_MIN ? ~k : k;
	} else if constexpr (!dtype_is_float<T>::value) {
		/* sign- or zero-extended to 64 bits, as the CPU's __int128 */
		unsigned long long b = std::is_signed<T>::value ?
			(unsigned long long)(long long)x : (unsigned long long)x;

		if (OP == OP_AND)
			*w |= ~b;
		else if (OP == OP_OR)
			*w |= b;
		else
			*w ^= b;
	}
}

/* Combine w into *p (shared or global) for op. */
template <int OP>
static __device__ inline void red_word_atomic(unsigned long long *p,
					      unsigned long long w)
{
	if (OP == OP_MIN || OP == OP_MAX)
		atomicMax(p, w);
	else if (OP == OP_XOR)
		atomicXor(p, w);
	else
		atomicOr(p, w);
}

/* min/max/and/or/xor of n elements into acc[columns]. Shared memory:
 * 2 * columns words (the words, then the NaN flags). */
template <typename T, int OP>
__global__ void __launch_bounds__(RED_THREADS)
red_word_kernel(struct red_dev_head *h, struct red_dev_word *acc, const T *d,
		size_t n, size_t nrec, unsigned columns)
{
	extern __shared__ unsigned long long sw[];
	size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = red_stride(columns);
	unsigned col = (unsigned)(g % columns);
	unsigned long long w = 0;
	bool nan = false;

	if (g == 0)
		atomicAdd(&h->count, (unsigned long long)nrec);
	for (unsigned i = threadIdx.x; i < 2 * columns; i += blockDim.x)
		sw[i] = 0;
	__syncthreads();
	if (g < stride)
		for (size_t i = g; i < n; i += stride)
			red_word_fold<T, OP>(d[i], &w, &nan);
	if (w)
		red_word_atomic<OP>(&sw[col], w);
	if (nan)
		atomicOr(&sw[columns + col], 1ull);
	__syncthreads();
	for (unsigned i = threadIdx.x; i < columns; i += blockDim.x) {
		if (sw[i])
			red_word_atomic<OP>(&acc[i].word, sw[i]);
		if (sw[columns + i])
			atomicOr(&acc[i].nan, 1ull);
	}
}

/* Products of n elements (nrec records of columns): each block's product
 * of each column into scratch[blockIdx.x][column] (red_prod_slot), for
 * red_prod_gather_kernel. */
template <typename T>
__global__ void __launch_bounds__(RED_THREADS)
red_prod_kernel(struct red_dev_head *h, red_prod_t<T> *scratch, const T *d,
		size_t n, size_t nrec, unsigned columns)
{
	__shared__ red_prod_t<T> part[RED_THREADS];
	size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = red_stride(columns);

	if (g == 0)
		atomicAdd(&h->count, (unsigned long long)nrec);
	red_prod_thread(&part[threadIdx.x], d, g < stride ? n : 0, g, stride);
	__syncthreads();
	red_p_tree(part, RED_THREADS, columns);
	if (threadIdx.x < columns)
		scratch[red_prod_slot(blockIdx.x, threadIdx.x, columns)] =
			part[threadIdx.x];
}

/* One block: acc[c] *= the product of the parts (blocks * columns of
 * them) of column c in scratch. The stream orders it after the kernel that
 * wrote them and before the next one, so nothing races. */
template <typename P>
__global__ void __launch_bounds__(RED_THREADS)
red_prod_gather_kernel(P *acc, const P *scratch, size_t parts,
		       unsigned columns)
{
	__shared__ P part[RED_THREADS];

	red_p_gather(&part[threadIdx.x], scratch, parts, threadIdx.x,
		     RED_THREADS / columns * columns);
	__syncthreads();
	red_p_tree(part, RED_THREADS, columns);
	if (threadIdx.x < columns)
		red_p_merge(&acc[threadIdx.x], &part[threadIdx.x]);
}

/* ---- launchers ----------------------------------------------------------- */

/* One column of f32/f64 at a 16-byte aligned address (chunks are): the
 * window kernel, in launches of at most exact_launch_cap() elements (a
 * multiple of 4, so every launch starts aligned). */
template <typename T>
static cudaError_t red_sum_win_launch(void *dacc, const T *d, size_t n,
				      int nsm, cudaStream_t s)
{
	unsigned blocks = red_blocks(n, nsm);
	size_t per = exact_launch_cap(blocks);
	struct red_dev_head *h = (struct red_dev_head *)dacc;
	struct exact_acc *acc = (struct exact_acc *)(h + 1);

	for (size_t r = 0; r < n; r += per) {
		size_t k = n - r < per ? n - r : per;

		red_sum_win_kernel<T><<<blocks, RED_THREADS, 0, s>>>(h, acc,
				d + r, k);
		CUDA_LAUNCHED();
		CUDA_RET(exact_normalize(acc, 1, s));
	}
	return cudaSuccess;
}

/* Sums, in launches of at most exact_launch_cap() elements, each followed
 * by the normalization that keeps the global slots in range. */
template <typename T>
static cudaError_t red_sum_launch(const struct gs_job *job, void *dacc,
				  const T *d, size_t nrec, int nsm,
				  cudaStream_t s)
{
	unsigned c = job->columns, blocks = red_blocks(nrec * c, nsm);
	size_t smem = (size_t)c * EXACT_SLOTS * sizeof(long long);
	size_t per = exact_launch_cap(blocks) / c;
	struct red_dev_head *h = (struct red_dev_head *)dacc;
	struct exact_acc *acc = (struct exact_acc *)(h + 1);

	if constexpr (RED_SUM_WINDOW && (std::is_same<T, float>::value ||
					 std::is_same<T, double>::value))
		if (c == 1 && (uintptr_t)d % 16 == 0)
			return red_sum_win_launch(dacc, d, nrec, nsm, s);
	if (smem > RED_SMEM_DEFAULT)
		CUDA_RET(cudaFuncSetAttribute(red_sum_kernel<T>,
				cudaFuncAttributeMaxDynamicSharedMemorySize,
				(int)smem));
	for (size_t r = 0; r < nrec; r += per) {
		size_t k = nrec - r < per ? nrec - r : per;

		red_sum_kernel<T><<<blocks, RED_THREADS, smem, s>>>(h, acc,
				d + r * c, k * c, k, c);
		CUDA_LAUNCHED();
		CUDA_RET(exact_normalize(acc, c, s));
	}
	return cudaSuccess;
}

template <typename T, int OP>
static cudaError_t red_word_launch(const struct gs_job *job, void *dacc,
				   const T *d, size_t nrec, int nsm,
				   cudaStream_t s)
{
	unsigned c = job->columns;
	size_t smem = 2 * (size_t)c * sizeof(unsigned long long);
	struct red_dev_head *h = (struct red_dev_head *)dacc;

	red_word_kernel<T, OP><<<red_blocks(nrec * c, nsm), RED_THREADS, smem, s>>>(
		h, (struct red_dev_word *)(h + 1), d, nrec * c, nrec, c);
	CUDA_LAUNCHED();
	return cudaSuccess;
}

/* Products: the block kernel, then the one-block gather into the columns
 * (acc[columns], then the scratch, in dacc after the head). */
template <typename T>
static cudaError_t red_prod_launch(const struct gs_job *job, void *dacc,
				   const T *d, size_t nrec, int nsm,
				   cudaStream_t s)
{
	unsigned c = job->columns, blocks = red_prod_blocks(nrec * c, nsm);
	struct red_dev_head *h = (struct red_dev_head *)dacc;
	red_prod_t<T> *acc = (red_prod_t<T> *)(h + 1), *scratch = acc + c;

	red_prod_kernel<T><<<blocks, RED_THREADS, 0, s>>>(h, scratch, d,
			nrec * c, nrec, c);
	CUDA_LAUNCHED();
	red_prod_gather_kernel<<<1, RED_THREADS, 0, s>>>(acc, scratch,
			(size_t)blocks * c, c);
	CUDA_LAUNCHED();
	return cudaSuccess;
}

template <typename T>
static cudaError_t red_launch_type(const struct gs_job *job, void *dacc,
				   const void *dv, size_t nrec, int nsm,
				   cudaStream_t s)
{
	const T *d = (const T *)dv;

	switch (job->op) {
	case OP_SUM: return red_sum_launch(job, dacc, d, nrec, nsm, s);
	case OP_PROD: return red_prod_launch(job, dacc, d, nrec, nsm, s);
	case OP_MIN: return red_word_launch<T, OP_MIN>(job, dacc, d, nrec, nsm, s);
	case OP_MAX: return red_word_launch<T, OP_MAX>(job, dacc, d, nrec, nsm, s);
	default: break;
	}
	if constexpr (!dtype_is_float<T>::value) {
		switch (job->op) {
		case OP_AND: return red_word_launch<T, OP_AND>(job, dacc, d, nrec, nsm, s);
		case OP_OR: return red_word_launch<T, OP_OR>(job, dacc, d, nrec, nsm, s);
		case OP_XOR: return red_word_launch<T, OP_XOR>(job, dacc, d, nrec, nsm, s);
		default: break;
		}
	}
	return cudaErrorInvalidValue;	/* refused by red_supports */
}

static cudaError_t red_launch(const struct gs_job *job, void *dacc,
			      const void *d, const void *d2, size_t nrec,
			      int nsm, cudaStream_t s)
{
	(void)d2;
	if (nrec == 0)
		return cudaSuccess;
	return dtype_dispatch(job->dtype.type, [&](auto tag) {
		return red_launch_type<DTYPE_OF(tag)>(job, dacc, d, nrec, nsm, s);
	});
}

const struct gpu_ops gpu_reduce_ops = {
	red_supports,
	red_dev_acc_bytes,
	red_launch,
	red_merge_host,
	NULL,			/* init_dev: zeroed */
};
