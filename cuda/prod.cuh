/*
 * prod.cuh - exact products on the GPU, for reduce_kernels.cu (through
 * red_prod.cuh) and the scan (cuda/scan/scan_prod.cuh): the values and
 * their arithmetic are numerics/xprod_core.h's (struct fprod, struct
 * iprod), the CPU's own, so a product of the same factors in the same
 * grouping is the CPU's bracket bit for bit; another grouping gives
 * another (valid) bracket. Here: the elements of the kernels' types
 * (dtype.cuh) enter in groups (red_fold, red_ifold), and red_p_merge names
 * both merges for the templates. An all-zero value is the empty product,
 * so a zeroed accumulator is one.
 */
#ifndef PROD_CUH
#define PROD_CUH

#include "exact.cuh"
#include "xprod_core.h"

static __host__ __device__ inline void red_p_merge(struct fprod *p,
						   const struct fprod *q)
{
	fprod_merge(p, q);
}

static __host__ __device__ inline void red_p_merge(struct iprod *p,
						   const struct iprod *q)
{
	iprod_merge(p, q);
}

/* ---- elements into products ----------------------------------------------
 * A thread multiplies a few elements exactly in 64 bits (m * 2^e and the
 * flags) and only then takes the product into its bracket or magnitude:
 * one 128x64-bit step per group instead of one per element. */

/* The partial product of element type T. */
template <typename T>
using red_prod_t = typename std::conditional<dtype_is_float<T>::value,
		struct fprod, struct iprod>::type;

/* Factors a thread multiplies exactly in 64 bits before its bracket or
 * magnitude takes them: 64 / (significand or integer bits). */
template <typename T>
static __host__ __device__ constexpr int red_prod_group()
{
	if constexpr (dtype_is_float<T>::value)
		return 64 / dtype_fmt<T>::p;
	else
		return 64 / (8 * (int)sizeof(T));
}

/* Fold float x into (*m, *e, *flags): m * 2^e is the product of the finite
 * nonzero factors so far; NaN, inf and zero only set flags (prod_factor,
 * as the CPU's fprod_mul_f64). */
template <typename T>
static __host__ __device__ inline void
red_fold(T x, unsigned long long *m, int *e, uint64_t *flags)
{
	uint64_t f;
	int fe;

	if (prod_factor(exact_elem_bits(x), dtype_fmt<T>::p, dtype_fmt<T>::w,
			&f, &fe, flags)) {
		*m *= f;
		*e += fe;
	}
}

/* The same for integers (e unused): *m takes |x|, a zero sets PROD_ZERO,
 * as iprod_mul does. */
template <typename T>
static __host__ __device__ inline void
red_ifold(T x, unsigned long long *m, uint64_t *flags)
{
	unsigned long long a = (unsigned long long)x;
	bool neg = false;

	if constexpr (std::is_signed<T>::value) {
		neg = x < 0;
		a = neg ? 0 - (unsigned long long)(long long)x : a;
	}
	*flags = prod_flags(*flags, iprod_factor_flags(a, neg));
	*m *= a ? a : 1;
}

#endif
