/*
 * red_prod.cuh - reduce --op prod's grouping on the GPU: a thread's product
 * of its factors, the block's tree over the threads' partials, the scratch
 * slot of a block's partial and the one-block gather (the arithmetic is
 * numerics/xprod_core.h's, the elements' folds prod.cuh's). __host__
 * __device__, so that tests/gpu/prod_host_check.cu
 * replays the kernels of reduce_kernels.cu in their grouping.
 */
#ifndef RED_PROD_CUH
#define RED_PROD_CUH

#include "red_dev.cuh"

/* This thread's product of d[g], d[g + stride] ... below n (stride a
 * multiple of columns: one column), into *p: whole groups of
 * red_prod_group<T>() factors, then the shorter last one. */
template <typename T>
static __host__ __device__ inline void
red_prod_thread(red_prod_t<T> *p, const T *d, size_t n, size_t g,
		size_t stride)
{
	constexpr int K = red_prod_group<T>();
	constexpr bool flt = dtype_is_float<T>::value;
	unsigned long long m;
	uint64_t flags = 0;
	size_t i = g;
	int e;

	if constexpr (flt)
		fprod_one(p);
	else
		*p = iprod{ { 1, 0 }, 0 };
	for (; i + (K - 1) * stride < n; i += K * stride) {
		m = 1;
		e = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int k = 0; k < K; k++) {
			if constexpr (flt)
				red_fold(d[i + k * stride], &m, &e, &flags);
			else
				red_ifold(d[i + k * stride], &m, &flags);
		}
		if constexpr (flt)
			fprod_mul64(p, m, e);
		else
			iprod_mul64(p, m);
	}
	if (i < n) {		/* the tail: under K factors */
		m = 1;
		e = 0;
		for (; i < n; i += stride) {
			if constexpr (flt)
				red_fold(d[i], &m, &e, &flags);
			else
				red_ifold(d[i], &m, &flags);
		}
		if constexpr (flt)
			fprod_mul64(p, m, e);
		else
			iprod_mul64(p, m);
	}
	p->flags = flags;
}

/* Merge part[t + off] into part[t] for every t < cnt: one step of a tree,
 * spread over the block's threads (on the host, where tests replay it:
 * every t in turn). Every thread of the block must call it. */
template <typename P>
static __host__ __device__ inline void red_p_step(P *part, unsigned cnt,
						  unsigned off)
{
#ifdef __CUDA_ARCH__
	if (threadIdx.x < cnt)
		red_p_merge(&part[threadIdx.x], &part[threadIdx.x + off]);
	__syncthreads();
#else
	for (unsigned t = 0; t < cnt; t++)
		red_p_merge(&part[t], &part[t + off]);
#endif
}

/* Multiply part[0 .. nthr) down to part[0 .. columns), where part[t] and
 * part[t + k * columns] belong to the same column: first the threads past
 * the last whole multiple m of columns, then halving the m / columns parts
 * of each column. part[t], t < columns, then holds the product of every
 * part[t + k * columns]. */
template <typename P>
static __host__ __device__ inline void red_p_tree(P *part, unsigned nthr,
						  unsigned columns)
{
	unsigned m = nthr / columns * columns;

	red_p_step(part, nthr - m, m);
	for (unsigned q = m / columns; q > 1; q = (q + 1) / 2)
		red_p_step(part, (q - (q + 1) / 2) * columns,
			   (q + 1) / 2 * columns);
}

/* Where block b's partial of its thread t's column goes in the scratch
 * (t < columns): scratch[b][column], the column that of thread
 * b * RED_THREADS + t. */
static __host__ __device__ inline size_t red_prod_slot(unsigned b, unsigned t,
							unsigned columns)
{
	return (size_t)b * columns +
	       ((size_t)b * RED_THREADS + t) % columns;
}

/* Thread t of the gathering block: the product of scratch[t], scratch[t +
 * m] ... below parts (m a multiple of columns: all of column t % columns),
 * or the empty product for t >= m. */
template <typename P>
static __host__ __device__ inline void red_p_gather(P *mine, const P *scratch,
						    size_t parts, unsigned t,
						    unsigned m)
{
	*mine = P{};
	if (t < m)
		for (size_t j = t; j < parts; j += m)
			red_p_merge(mine, &scratch[j]);
}

#endif
