/*
 * vec128.cuh - a thread's share of one column of 32- or 64-bit elements,
 * read as 16-byte vectors, with the tail handled explicitly: how the
 * one-column window sums of reduce_kernels.cu and stats_kernels.cu read.
 *
 * Thread g of a grid of T threads takes vectors g, g + T, ... two at a
 * time (vectors i and i + T: two 16-byte loads in flight per thread, and
 * the threads of a warp read consecutive vectors), then what is left: at
 * most one vector, then the n % lanes elements past the last whole vector,
 * T apart (so one per thread, or none). The generic kernels, one 4-byte
 * load in flight per element, ran f32 at 0.26x (reduce) and 0.14x (stats)
 * CUB's plain float sum on the H100.
 *
 * The caller gives two functions, inlined here: pair(a, c) for two whole
 * vectors (its fast path), and some(a, zero, k) for the first k elements
 * of a (its slow path, one element at a time, shifting the lanes with
 * vec128_shift). Everything left goes through one loop around some(), so that the
 * slow path is inlined once.
 */
#ifndef VEC128_CUH
#define VEC128_CUH

#include <stddef.h>
#include <cuda_runtime.h>

template <typename E> struct vec128;
template <> struct vec128<unsigned> {
	typedef uint4 type;
	enum { lanes = 4 };
};
template <> struct vec128<unsigned long long> {
	typedef ulonglong2 type;
	enum { lanes = 2 };
};

/* Thread g's share of d[0 .. n) (d 16-byte aligned), in a grid of T. */
template <typename E, typename Pair, typename Some>
static __host__ __device__ inline void vec128_walk(const E *d, size_t n,
						   size_t g, size_t T,
						   Pair &&pair, Some &&some)
{
	typedef typename vec128<E>::type V;
	const int lanes = vec128<E>::lanes;
	const V *__restrict__ v = (const V *)d;
	const E *__restrict__ u = d;
	const V zero = {};
	size_t nv = n / lanes, i = g, j;
	V a = zero;
	int k = 0;

	for (; i + T < nv; i += 2 * T)
		pair(v[i], v[i + T]);
	if (i < nv) {		/* the last whole vector of this thread */
		a = v[i];
		k = lanes;
	}
	for (j = lanes * nv + g; k > 0 || j < n; k = 0) {
		if (k == 0) {	/* an element past the last whole vector */
			a.x = u[j];
			j += T;
			k = 1;
		}
		some(a, zero, k);
	}
}

/* Shift the lanes of the pair (a, c) down by one: a.x takes a.y, ...,
 * the last lane of a takes c.x, and so on. The slow paths take the lanes
 * one by one from a.x in a loop that shifts the registers, so that they
 * are inlined once and no lane is indexed (which would put the vectors in
 * local memory). */
static __host__ __device__ inline void vec128_shift(uint4 &a, uint4 &c)
{
	a.x = a.y;
	a.y = a.z;
	a.z = a.w;
	a.w = c.x;
	c.x = c.y;
	c.y = c.z;
	c.z = c.w;
}

static __host__ __device__ inline void vec128_shift(ulonglong2 &a,
						    ulonglong2 &c)
{
	a.x = a.y;
	a.y = c.x;
	c.x = c.y;
}

#endif
