/*
 * hist_bin.cuh - where a 1-D histogram puts an element, on the device and
 * the host alike: cpu_hist.c's ranged bins operation for operation (see
 * hist_kernels.cu's comment) and one bin per value. hist_kernels.cu (the
 * counts) and histw_kernels.cu (weighted sums) share it.
 */
#ifndef HIST_BIN_CUH
#define HIST_BIN_CUH

#include <math.h>
#include <stdint.h>
#include <type_traits>

#include "dtype.cuh"
#include "hist1d_bin.h"

enum { CONV_NUM, CONV_F16, CONV_BF16 };	/* how an element becomes a double */

/* How a ranged hist reads each element type (dtype.cuh's): the type as
 * stored, how it becomes a double, and cpu_hist.c's bin type (f16 for f16,
 * f32 for f32 and bf16, f64 for f64 and every integer). */
template <typename T> struct hist_elem {
	typedef T raw;
	enum { conv = CONV_NUM };
	enum { bt = std::is_same<T, float>::value ? BT_F32 : BT_F64 };
};
template <> struct hist_elem<f16_bits> {
	typedef uint16_t raw;
	enum { conv = CONV_F16, bt = BT_F16 };
};
template <> struct hist_elem<bf16_bits> {
	typedef uint16_t raw;
	enum { conv = CONV_BF16, bt = BT_F32 };
};

template <int CONV, typename T>
__host__ __device__ static inline double to_double(T x)
{
	if constexpr (CONV == CONV_F16)
		return ieee_f16_to_f32(x);
	else if constexpr (CONV == CONV_BF16)
		return ieee_f32_from_bits((uint32_t)x << 16);
	else
		return (double)x;	/* 64-bit integers round to nearest */
}

/* ---- slots: where an element is counted --------------------------------- */

/* counts0: where the counts start (3 * columns: below, above and nan
 * come first). */
template <typename T, int CONV, int BT>
struct ranged_slot {
	struct hist_ranged r;
	uint64_t counts0;
	unsigned columns;

	__host__ __device__ uint64_t operator()(T x, unsigned c) const
	{
		uint64_t i = hist_ranged_bin(&r, (enum hist_bt)BT, r.in_bt,
					     to_double<CONV>(x));

		if (i < r.n)
			return counts0 + c * r.n + i;
		return (i - r.n) * columns + c;	/* below, above, nan */
	}
};

/* One bin per value; flip maps signed values so that the minimum is bin 0. */
template <typename T>
struct perval_slot {
	uint64_t counts0, nbins;
	unsigned flip;

	__host__ __device__ uint64_t operator()(T x, unsigned c) const
	{
		return counts0 + c * nbins + (T)(x ^ flip);
	}
};

#endif
