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

/* ---- exact arithmetic on both processors ------------------------------- */

#ifdef __CUDA_ARCH__
#define DADD(a, b) __dadd_rn(a, b)
#define DSUB(a, b) __dsub_rn(a, b)
#define DMUL(a, b) __dmul_rn(a, b)
#define DDIV(a, b) __ddiv_rn(a, b)
#define FSUB(a, b) __fsub_rn(a, b)
#else				/* host: SSE2 with -ffp-contract=off is the same */
#define DADD(a, b) ((a) + (b))
#define DSUB(a, b) ((a) - (b))
#define DMUL(a, b) ((a) * (b))
#define DDIV(a, b) ((a) / (b))
#define FSUB(a, b) ((a) - (b))
#endif

enum { BT_F16, BT_F32, BT_F64 };		/* the bin type, as in cpu_hist.c */
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

template <int BT>
__host__ __device__ static inline double round_to(double x)
{
	if (BT == BT_F16)
		return ieee_f64_round_f16(x);	/* numpy's direct double->half */
	if (BT == BT_F32)
		return (float)x;
	return x;
}

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

/* ---- ranged bins ------------------------------------------------------- */

/* cpu_hist.c's struct ranged, plus where the slots of the counts start. */
struct rparams {
	uint64_t n;
	bool in_bt;		/* numpy's default range: steps in the bin type */
	double rn;		/* n as numpy's steps see it (f16 rounds it) */
	double lo, hi;		/* the outer edges */
	double lob, hib;	/* lo and hi rounded to the bin type */
	double delta, step;	/* linspace's hi - lo and delta / n */
	double denom;		/* the estimate's divisor: delta, or job->span */
	uint64_t counts0;	/* 3 * C: below, above and nan come first */
	unsigned columns;
};

/* One step of numpy's arithmetic: rounded to the bin type where numpy
 * works in the data's type (its default range), else double. */
template <int BT>
__host__ __device__ static inline double op(const struct rparams &r, double x)
{
	return r.in_bt ? round_to<BT>(x) : x;
}

template <int BT>
static struct rparams rparams_make(const struct gs_job *job)
{
	struct rparams r;

	r.n = job->bins;
	r.in_bt = job->data_range;
	r.rn = op<BT>(r, (double)r.n);
	r.lo = job->lo;
	r.hi = job->hi;
	if (r.lo == r.hi) {
		r.lo = op<BT>(r, r.lo - 0.5);
		r.hi = op<BT>(r, r.hi + 0.5);
	}
	r.lob = round_to<BT>(r.lo);
	r.hib = round_to<BT>(r.hi);
	r.delta = op<BT>(r, r.hi - r.lo);
	r.step = op<BT>(r, r.delta / r.rn);
	r.denom = job->data_range && job->span != 0 ? job->span : r.delta;
	r.counts0 = 3 * (uint64_t)job->columns;
	r.columns = job->columns;
	return r;
}

/* Edge i in the bin type: numpy's linspace, i * step + lo in two roundings
 * (i / n * delta + lo where step underflowed), the last edge exactly hi. */
template <int BT>
__host__ __device__ static inline double edge_at(const struct rparams &r,
						 uint64_t i)
{
	double ri = op<BT>(r, (double)i), y;

	if (i == r.n)
		return r.hib;
	if (r.step != 0)
		y = op<BT>(r, DMUL(ri, r.step));
	else
		y = op<BT>(r, DMUL(op<BT>(r, DDIV(ri, r.rn)), r.delta));
	return round_to<BT>(DADD(y, r.lo));
}

/* v - lo rounded to the bin type; f16 subtracts in float, as numpy's half
 * loops do, then rounds to f16. */
template <int BT>
__host__ __device__ static inline double diff_in(const struct rparams &r,
						 double v)
{
	if (BT == BT_F16)
		return ieee_f64_round_f16(FSUB((float)v, (float)r.lob));
	if (BT == BT_F32)
		return FSUB((float)v, (float)r.lob);
	return DSUB(v, r.lob);
}

/* Where numpy's estimate is infinite or NaN (v - lo overflows the bin type):
 * the last bin i with edge[i] <= v, lo <= v <= hi. */
template <int BT>
__host__ __device__ static uint64_t search_bin(const struct rparams &r,
					       double v)
{
	uint64_t a = 0, b = r.n - 1;

	while (a < b) {
		uint64_t m = a + (b - a + 1) / 2;
		if (edge_at<BT>(r, m) <= v)
			a = m;
		else
			b = m - 1;
	}
	return a;
}

/* The bin of v (exact in the bin type): 0..n-1, or n below, n + 1 above,
 * n + 2 NaN; cpu_hist.c's ranged_bin. */
template <int BT>
__host__ __device__ static inline uint64_t ranged_bin(const struct rparams &r,
						      double v)
{
	uint64_t n = r.n, i;

	if (v != v)
		return n + 2;
	if (v < r.lob)
		return n;
	if (v > r.hib)
		return n + 1;
	double est = op<BT>(r, DMUL(op<BT>(r, DDIV(diff_in<BT>(r, v), r.denom)), r.rn));
	if (!(est < DADD((double)n, 1.0)))
		return search_bin<BT>(r, v);
	i = est < (double)n ? (uint64_t)est : n - 1;
	if (v < edge_at<BT>(r, i)) {
		if (i > 0)
			i--;
	} else if (i != n - 1 && v >= edge_at<BT>(r, i + 1)) {
		i++;
	}
	return i;
}

/* ---- slots: where an element is counted --------------------------------- */

template <typename T, int CONV, int BT>
struct ranged_slot {
	struct rparams r;

	__host__ __device__ uint64_t operator()(T x, unsigned c) const
	{
		uint64_t i = ranged_bin<BT>(r, to_double<CONV>(x));

		if (i < r.n)
			return r.counts0 + c * r.n + i;
		return (i - r.n) * r.columns + c;	/* below, above, nan */
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
