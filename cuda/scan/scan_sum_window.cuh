/*
 * scan_sum_window.cuh - the monoids of float sums in a chunk's window
 * (scan_window.cuh): N limbs at the window's lsb (scan_sum_window), and
 * one limb by the hardware's conversions (scan_sum_hw).
 */
#ifndef SCAN_SUM_WINDOW_CUH
#define SCAN_SUM_WINDOW_CUH

#include "scan_window.cuh"

/* Float sums of element type T in N limbs whose lsb is cfg.w. */
template <typename T, int N> struct scan_sum_window : sum_monoid<N> {
	typedef T elem;
	typedef sum_val<N> V;
	enum { WINDOW = N };

	/* Every bit of x lies at or above w, so the low bits shifted out
	 * when x's exponent is below w are zeros. */
	static __host__ __device__ __forceinline__ V of(T x, const scan_cfg &c)
	{
		if constexpr (N == 1)
			return of1(x, c.w);
		struct exact_term t = exact_elem(x);
		bool neg = t.m < 0;
		u64 mag = (u64)(neg ? -t.m : t.m);
		int s = mag ? t.e - c.w : 0;
		V v;

		if (s < 0) {
			mag >>= -s & 63;
			s = 0;
		}
		sum_place<N>(&v, mag, s, neg);
		v.flags = t.flags;
		return v;
	}

	static __host__ __device__ __forceinline__ bool
	out(const V &v, const scan_cfg &c, u64 *bits, struct scan_bad *)
	{
		if constexpr (N == 1)
			*bits = sum_round1(v, c.w, c.fmt);
		else
			*bits = sum_round<N>(v, c.w, c.fmt);
		return true;
	}

	/* One limb: of without the 128-bit term, from x's fields. */
	static __host__ __device__ __forceinline__ V of1(T x, int w)
	{
		bool neg;
		u64 m;
		int e;
		V v;

		/* no branches: a zero or a special gives 0 (the shift
		 * counts are masked, as only theirs may pass 63) */
		v.flags = scan_fields(x, &neg, &m, &e);
		e -= w;
		m = e >= 0 ? m << (e & 63) : m >> (-e & 63);
		m = v.flags ? 0 : m;
		v.l[0] = neg ? 0 - m : m;
		return v;
	}

	/* One limb: the prefix is a 64-bit integer times 2^w, and the
	 * hardware rounds it at once (sum_round's steps otherwise). */
	static __host__ __device__ __forceinline__ u64
	sum_round1(const V &v, int w, const struct ieee_fmt &f)
	{
		long long x = (long long)v.l[0];
		u64 m = x < 0 ? 0 - (u64)x : (u64)x, bits;

		if (v.flags || x == 0)
			return sum_round<1>(v, w, f);
		if ((bits = ieee_round_hw(m, w, x < 0, &f)))
			return bits;
		return ieee_round(m, false, w, x < 0, &f);
	}
};

/*
 * The one-limb window again, by the hardware's conversions, for a chunk
 * with no NaN or infinity (in it or in its carry) whose window lsb w
 * suits the formats (scan_sum_hw_range):
 * - an element is x * 2^-w, an integer below 2^62 (every bit of x lies at
 *   or above w), so the float multiply by the power of two is exact and
 *   the conversion to a 64-bit integer (truncating) is too;
 * - a prefix v (a 64-bit integer, v * 2^w the exact value) is rounded
 *   once to the output format by the conversion of v, and the multiply by
 *   2^w is exact again: |v * 2^w| >= 2^w is normal when it is not zero,
 *   and past the largest finite value round-to-nearest gives the
 *   infinity that correct rounding gives. 0 is +0, as sum_round makes it.
 * The same integers and the same bits as scan_sum_window<T, 1>, with no field
 * extraction or shifts per element (the host check compares the two).
 */
struct sum_hw_val {
	long long v;
};

/* 2^k as a float or a double (a normal power of two). */
template <typename F>
static __host__ __device__ __forceinline__ F scan_pow2(int k)
{
	if constexpr (sizeof(F) == 4)
		return ieee_f32_from_bits((unsigned)(127 + k) << 23);
	else
		return ieee_f64_from_bits((u64)(1023 + k) << 52);
}

/* The window lsbs w for which element type T and output type O (float or
 * double) take scan_sum_hw: 2^w and 2^-w normal in T's float type, 2^w in
 * O. With 2^w normal in T the elements are too, so nothing here leans on
 * subnormal arithmetic (a build that flushes them would still be right). */
template <typename T, typename O>
static void scan_sum_hw_range(int *lo, int *hi)
{
	/* T's normal exponents run from tlo to 1 - tlo, so 2^w and 2^-w are
	 * both normal in T for w in [tlo, -tlo] */
	int tlo = sizeof(T) == 8 ? -1022 : -126;
	int olo = sizeof(O) == 8 ? -1022 : -126, ohi = sizeof(O) == 8 ? 1023 : 127;

	*lo = tlo > olo ? tlo : olo;
	*hi = -tlo < ohi ? -tlo : ohi;
}

/* A one-limb window becomes scan_sum_hw's (mode 4) when neither the chunk
 * nor the carry has a NaN or an infinity (flags, their OR) and w lies in
 * [hlo, hhi], scan_sum_hw_range's for the job (hlo > hhi: no such variant). */
static __host__ __device__ inline void scan_sum_hw_pick(struct scan_win *win,
						      unsigned flags, int hlo,
						      int hhi)
{
	if (win->mode == 1 && !flags && win->w >= hlo && win->w <= hhi)
		win->mode = 4;
}

/* x as a float or a double (bf16 widens exactly to f32). */
template <typename T>
static __host__ __device__ __forceinline__ auto scan_hw_value(T x)
{
	if constexpr (std::is_same<T, bf16_bits>::value)
		return ieee_bf16_to_f32(x.v);
	else
		return x;
}

template <typename T, typename O> struct scan_sum_hw {
	typedef T elem;
	typedef sum_hw_val V;
	enum { WINDOW = 4 };
	typedef decltype(scan_hw_value(T())) F;

	static __host__ __device__ __forceinline__ V ident(const scan_cfg &)
	{
		return V{0};
	}

	static __host__ __device__ __forceinline__ V
	add(const V &a, const V &b, const scan_cfg &)
	{
		return V{(long long)((u64)a.v + (u64)b.v)};
	}

	static __host__ __device__ __forceinline__ V of(T x, const scan_cfg &c)
	{
		F p = scan_hw_value(x) * scan_pow2<F>(-c.w);
#ifdef __CUDA_ARCH__
		if constexpr (sizeof(F) == 4)
			return V{__float2ll_rz(p)};
		else
			return V{__double2ll_rz(p)};
#else
		return V{(long long)p};
#endif
	}

	static __host__ __device__ __forceinline__ bool
	out(const V &v, const scan_cfg &c, u64 *bits, struct scan_bad *)
	{
#ifdef __CUDA_ARCH__
		if constexpr (sizeof(O) == 4)
			*bits = __float_as_uint(__ll2float_rn(v.v) * scan_pow2<O>(c.w));
		else
			*bits = (u64)__double_as_longlong(__ll2double_rn(v.v) *
							  scan_pow2<O>(c.w));
#else
		if constexpr (sizeof(O) == 4)
			*bits = exact_bits_f32((float)v.v * scan_pow2<O>(c.w));
		else
			*bits = exact_bits_f64((double)v.v * scan_pow2<O>(c.w));
#endif
		return true;
	}
};

#endif
