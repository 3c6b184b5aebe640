/*
 * red_sum.cuh - reduce --op sum's share of one GPU thread: the generic
 * loop over its elements, and for one column of f32 or f64 the 16-byte
 * vector walk into exact.cuh's window accumulators. __host__ __device__,
 * so that tests/gpu/exact_host.cu runs a grid's threads on the host.
 */
#ifndef RED_SUM_CUH
#define RED_SUM_CUH

#include "red_dev.cuh"
#include "vec128.cuh"

/* This thread's sum of its elements of d[0 .. n), into t. */
template <typename T>
static __host__ __device__ inline void
red_sum_thread(struct exact_thr *t, const T *d, size_t n, size_t g,
	       size_t stride, long long *slot)
{
	if constexpr (dtype_is_float<T>::value) {
		for (size_t i = g; i < n; i += stride) {
			struct exact_term x = exact_elem(d[i]);

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

/* f32: this thread's share of d[0 .. n) (vec128_walk: d 16-byte aligned,
 * the thread g of T), into its window, then folded into t. */
static __host__ __device__ inline void
red_win_thread(struct exact_thr *t, const float *d, size_t n, size_t g,
	       size_t T, long long *slot)
{
	struct exact_w32 w;

	exact_win_init(&w);
	vec128_walk((const unsigned *)d, n, g, T,
		    [&w, t, slot](uint4 a, uint4 c) {
			    exact_w32_add8(&w, t, a, c, slot);
		    },
		    [&w, t, slot](uint4 a, uint4 c, int k) {
			    exact_win_add_first(&w, t, a, c, k, slot);
		    });
	exact_win_fold(&w, t, slot);
}

/* f64: the same, two doubles per vector. */
static __host__ __device__ inline void
red_win_thread(struct exact_thr *t, const double *d, size_t n, size_t g,
	       size_t T, long long *slot)
{
	struct exact_w64 w;

	exact_win_init(&w);
	vec128_walk((const unsigned long long *)d, n, g, T,
		    [&w, t, slot](ulonglong2 a, ulonglong2 c) {
			    exact_w64_add4(&w, t, a, c, slot);
		    },
		    [&w, t, slot](ulonglong2 a, ulonglong2 c, int k) {
			    exact_win_add_first(&w, t, a, c, k, slot);
		    });
	exact_win_fold(&w, t, slot);
}

#endif
