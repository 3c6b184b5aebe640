/*
 * reduce_kernels.cu - reduce (sum, min, max, and, or, xor) per column on the
 * GPU, into the same struct red_col as src/cpu_reduce.c, bit for bit.
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
 * prod stays on the CPU (its bracketed product is sequential), and so does
 * scan.
 *
 * The device accumulator: struct red_dev_head (the record count), then per
 * column a struct exact_acc (sum) or a struct red_dev_word.
 */
#include <stdint.h>
#include <type_traits>
#include "exact.cuh"

/* 256 threads and 4 blocks per SM: enough resident warps to cover memory
 * latency on H100 with the 128-bit registers of the sum path. */
#define RED_THREADS 256
#define RED_BLOCKS_PER_SM 4
/* Shared slots per column: 64 columns of sums take 64 * 144 * 8 = 72 KiB
 * of shared memory, three blocks per SM. More columns run on the CPU. */
#define RED_MAX_COLUMNS 64
/* Dynamic shared memory beyond this needs the kernel's opt-in. */
#define RED_SMEM_DEFAULT (48 * 1024)
/* 1: one-column f32/f64 sums take the vector + window kernel; 0: the
 * generic one (the path before it, kept to compare). On the H100 at 1 GiB
 * the generic f32 kernel ran at 0.26x CUB's plain float sum: about 80
 * instructions and one 4-byte load in flight per element. */
#ifndef RED_SUM_WINDOW
#define RED_SUM_WINDOW 1
#endif

#define RED_SIGN (1ull << 63)

struct red_dev_head {
	unsigned long long count;	/* records folded in */
	unsigned long long pad;		/* keeps what follows 16-byte aligned */
};

struct red_dev_word {
	unsigned long long word;	/* min: ~key, max: key, and: ~bits ... */
	unsigned long long nan;		/* floats: a NaN was seen */
};

/* The half types, as they lie in memory. */
struct red_f16 { unsigned short v; };
struct red_bf16 { unsigned short v; };

/* ---- element types ------------------------------------------------------- */

template <typename T> struct red_is_float : std::false_type {};
template <> struct red_is_float<red_f16> : std::true_type {};
template <> struct red_is_float<red_bf16> : std::true_type {};
template <> struct red_is_float<float> : std::true_type {};
template <> struct red_is_float<double> : std::true_type {};

static __host__ __device__ inline struct exact_term red_term(red_f16 x) { return exact_f16(x.v); }
static __host__ __device__ inline struct exact_term red_term(red_bf16 x) { return exact_bf16(x.v); }
static __host__ __device__ inline struct exact_term red_term(float x) { return exact_f32(x); }
static __host__ __device__ inline struct exact_term red_term(double x) { return exact_f64(x); }

static __host__ __device__ inline double red_f64(red_f16 x) { return exact_f16_to_f32(x.v); }
static __host__ __device__ inline double red_f64(red_bf16 x) { return exact_bf16_to_f32(x.v); }
static __host__ __device__ inline double red_f64(float x) { return x; }
static __host__ __device__ inline double red_f64(double x) { return x; }

/* Order of doubles (not NaN) as unsigned keys, -0.0 < +0.0: negative
 * values reversed below the positive ones. */
static __host__ __device__ inline unsigned long long red_key_f64(double v)
{
	unsigned long long u = exact_bits_f64(v);

	return u >> 63 ? ~u : u | RED_SIGN;
}

static __host__ __device__ inline double red_f64_of_key(unsigned long long k)
{
	unsigned long long u = k >> 63 ? k & ~RED_SIGN : ~k;
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

/* The key of x, or false for a NaN. */
template <typename T>
static __host__ __device__ inline bool red_key(T x, unsigned long long *k)
{
	if constexpr (red_is_float<T>::value) {
		double v = red_f64(x);

		if (v != v)
			return false;
		*k = red_key_f64(v);
	} else if constexpr (std::is_signed<T>::value) {
		*k = (unsigned long long)(long long)x ^ RED_SIGN;
	} else {
		*k = (unsigned long long)x;
	}
	return true;
}

/* ---- kernels ------------------------------------------------------------- */

/* The grid stride: whole records' worth of threads. */
static __device__ inline size_t red_stride(unsigned columns)
{
	size_t total = (size_t)gridDim.x * blockDim.x;

	return total - total % columns;
}

/* This thread's sum of its elements of d[0 .. n), into t. */
template <typename T>
static __host__ __device__ inline void
red_sum_thread(struct exact_thr *t, const T *d, size_t n, size_t g,
	       size_t stride, long long *slot)
{
	if constexpr (red_is_float<T>::value) {
		for (size_t i = g; i < n; i += stride) {
			struct exact_term x = red_term(d[i]);

			t->flags |= x.flags;
			exact_thr_add64(t, (long long)x.m, x.e, slot);
		}
	} else if constexpr (sizeof(T) < 8) {
		long long s = 0;	/* < 2^20 terms of < 2^32 */

		for (size_t i = g; i < n; i += stride)
			s += d[i];
		exact_thr_add(t, s, 0, slot);
	} else {
		__int128 s = 0;		/* < 2^20 terms of < 2^64 */

		for (size_t i = g; i < n; i += stride)
			s += d[i];
		exact_thr_add(t, s, 0, slot);
	}
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
	exact_thr_init(&t, red_is_float<T>::value ? EXACT_EMIN : 0);
	if (g < stride)
		red_sum_thread(&t, d, n, g, stride, mine);
	exact_thr_finish(&t, mine, &acc[g % columns]);
	__syncthreads();
	exact_block_flush(slot, acc, columns);
}

/* f32: this thread's share of d[0 .. n), pairs of 16-byte vectors T apart,
 * into its window (then folded into t). d is 16-byte aligned. */
static __host__ __device__ inline void
red_win_thread(struct exact_thr *t, const float *d, size_t n, size_t g,
	       size_t T, long long *slot)
{
	const uint4 *__restrict__ v = (const uint4 *)d;
	const unsigned *__restrict__ u = (const unsigned *)d;
	size_t nv = n / 4, i = g;
	struct exact_w32 w;
	const uint4 zero = { 0, 0, 0, 0 };
	uint4 a = zero;
	size_t j;
	int k = 0;

	exact_w32_init(&w);
	for (; i + T < nv; i += 2 * T)
		exact_w32_add8(&w, t, v[i], v[i + T], slot);
	/* left: at most one vector, then the n % 4 elements past the last
	 * vector, T apart (one per thread or none when T >= 3); one loop, so
	 * that the slow path is inlined once */
	if (i < nv) {
		a = v[i];
		k = 4;
	}
	for (j = 4 * nv + g; k > 0 || j < n; k = 0) {
		if (k == 0) {
			a.x = u[j];
			j += T;
			k = 1;
		}
		exact_w32_add_first(&w, t, a, zero, k, slot);
	}
	exact_w32_fold(&w, t, slot);
}

/* f64: the same, two doubles per vector. */
static __host__ __device__ inline void
red_win_thread(struct exact_thr *t, const double *d, size_t n, size_t g,
	       size_t T, long long *slot)
{
	const ulonglong2 *__restrict__ v = (const ulonglong2 *)d;
	const unsigned long long *__restrict__ u = (const unsigned long long *)d;
	size_t nv = n / 2, i = g;
	struct exact_w64 w;
	const ulonglong2 zero = { 0, 0 };
	ulonglong2 a = zero;
	size_t j;
	int k = 0;

	exact_w64_init(&w);
	for (; i + T < nv; i += 2 * T)
		exact_w64_add4(&w, t, v[i], v[i + T], slot);
	/* left: at most one vector, then the odd element, as for f32 */
	if (i < nv) {
		a = v[i];
		k = 2;
	}
	for (j = 2 * nv + g; k > 0 || j < n; k = 0) {
		if (k == 0) {
			a.x = u[j];
			j += T;
			k = 1;
		}
		exact_w64_add_first(&w, t, a, zero, k, slot);
	}
	exact_w64_fold(&w, t, slot);
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
	} else if constexpr (!red_is_float<T>::value) {
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

/* ---- launchers ----------------------------------------------------------- */

static bool red_supports(const struct gs_job *job, const char **why)
{
	if (job->cmd == CMD_SCAN) {
		*why = "scan runs on the CPU";
		return false;
	}
	if (job->cmd != CMD_REDUCE) {
		*why = "not a reduction";
		return false;
	}
	if (job->op == OP_PROD) {
		*why = "prod runs on the CPU";
		return false;
	}
	if (type_is_float(job->dtype.type) && job->op > OP_MAX) {
		*why = "bit operations need an integer type";
		return false;
	}
	if (job->columns > RED_MAX_COLUMNS) {
		*why = "more than 64 columns run on the CPU";
		return false;
	}
	return true;
}

static size_t red_dev_acc_bytes(const struct gs_job *job)
{
	size_t col = job->op == OP_SUM ? sizeof(struct exact_acc) :
					 sizeof(struct red_dev_word);

	return sizeof(struct red_dev_head) + col * job->columns;
}

static unsigned red_blocks(size_t n, int nsm)
{
	size_t want = (n + RED_THREADS - 1) / RED_THREADS;
	size_t most = (size_t)nsm * RED_BLOCKS_PER_SM;

	return (unsigned)(want < most ? (want ? want : 1) : most);
}

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

template <typename T>
static cudaError_t red_launch_type(const struct gs_job *job, void *dacc,
				   const void *dv, size_t nrec, int nsm,
				   cudaStream_t s)
{
	const T *d = (const T *)dv;

	switch (job->op) {
	case OP_SUM: return red_sum_launch(job, dacc, d, nrec, nsm, s);
	case OP_MIN: return red_word_launch<T, OP_MIN>(job, dacc, d, nrec, nsm, s);
	case OP_MAX: return red_word_launch<T, OP_MAX>(job, dacc, d, nrec, nsm, s);
	default: break;
	}
	if constexpr (!red_is_float<T>::value) {
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
	switch (job->dtype.type) {
	case GS_U8: return red_launch_type<unsigned char>(job, dacc, d, nrec, nsm, s);
	case GS_I8: return red_launch_type<signed char>(job, dacc, d, nrec, nsm, s);
	case GS_U16: return red_launch_type<unsigned short>(job, dacc, d, nrec, nsm, s);
	case GS_I16: return red_launch_type<short>(job, dacc, d, nrec, nsm, s);
	case GS_U32: return red_launch_type<unsigned>(job, dacc, d, nrec, nsm, s);
	case GS_I32: return red_launch_type<int>(job, dacc, d, nrec, nsm, s);
	case GS_U64: return red_launch_type<unsigned long long>(job, dacc, d, nrec, nsm, s);
	case GS_I64: return red_launch_type<long long>(job, dacc, d, nrec, nsm, s);
	case GS_F16: return red_launch_type<red_f16>(job, dacc, d, nrec, nsm, s);
	case GS_BF16: return red_launch_type<red_bf16>(job, dacc, d, nrec, nsm, s);
	case GS_F32: return red_launch_type<float>(job, dacc, d, nrec, nsm, s);
	case GS_F64: return red_launch_type<double>(job, dacc, d, nrec, nsm, s);
	default: return cudaErrorInvalidValue;
	}
}

/* ---- merging into the CPU accumulator ------------------------------------ */

/* Fold a device min/max word (not 0) into c the way cpu_reduce.c's mm_fold
 * does: only a strictly better value replaces the current one. */
static void red_merge_mm(const struct gs_job *job, struct red_col *c,
			 unsigned long long w)
{
	enum gs_type t = job->dtype.type;
	bool mn = job->op == OP_MIN;
	unsigned long long k = mn ? ~w : w, kc;
	union gs_scalar *v = &c->u.mm.v;

	if (type_is_float(t)) {
		kc = red_key_f64(v->f);		/* the CPU never stores a NaN */
		if (mn ? k < kc : k > kc)
			v->f = red_f64_of_key(k);
	} else if (type_is_signed(t)) {
		long long x = (long long)(k ^ RED_SIGN);

		if (mn ? x < v->i : x > v->i)
			v->i = x;
	} else {
		if (mn ? k < v->u : k > v->u)
			v->u = k;
	}
}

static void red_merge_word(const struct gs_job *job, struct red_col *c,
			   const struct red_dev_word *d)
{
	switch (job->op) {
	case OP_MIN:
	case OP_MAX:
		if (type_is_float(job->dtype.type))
			c->u.mm.nan |= d->nan != 0;
		if (d->word)
			red_merge_mm(job, c, d->word);
		break;
	case OP_AND: c->u.bits &= ~d->word; break;
	case OP_OR: c->u.bits |= d->word; break;
	case OP_XOR: c->u.bits ^= d->word; break;
	default: break;
	}
}

static void red_merge_host(const struct gs_job *job, void *acc, const void *hacc)
{
	const struct red_dev_head *h = (const struct red_dev_head *)hacc;
	struct red_col *c = (struct red_col *)acc;

	for (unsigned i = 0; i < job->columns; i++) {
		if (job->op == OP_SUM)
			exact_to_xsum((const struct exact_acc *)(h + 1) + i,
				      &c[i].u.sum);
		else
			red_merge_word(job, &c[i],
				       (const struct red_dev_word *)(h + 1) + i);
		c[i].count += h->count;
	}
}

const struct gpu_ops gpu_reduce_ops = {
	red_supports,
	red_dev_acc_bytes,
	red_launch,
	red_merge_host,
};
