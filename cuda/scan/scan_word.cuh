/*
 * scan_word.cuh - min, max, and, or and xor: one 64-bit word per prefix
 * (an order-preserving key for min/max, the sign-extended bits for the
 * others) and a NaN flag.
 */
#ifndef SCAN_WORD_CUH
#define SCAN_WORD_CUH

#include "scan_round.cuh"

struct word_val {
	u64 w;			/* min/max: key; and/or/xor: bits */
	unsigned nan;		/* floats: a NaN was seen */
};

/* min, max, and, or or xor (OP, fixed at compile time: the add is then
 * a compare and select or one logic op) over element type T. */
template <typename T, int OP> struct scan_word {
	typedef T elem;
	typedef word_val V;
	enum { WINDOW = 0 };
	/* signed integers compare as their bits with the sign flipped */
	static const bool FLIP = std::is_signed<T>::value &&
				 !dtype_is_float<T>::value &&
				 (OP == OP_MIN || OP == OP_MAX);

	static __host__ __device__ __forceinline__ V ident(const scan_cfg &c)
	{
		V v = { c.ident, 0 };

		return v;
	}

	static __host__ __device__ __forceinline__ V
	add(const V &a, const V &b, const scan_cfg &)
	{
		V r;

		if constexpr (OP == OP_MIN)
			r.w = a.w < b.w ? a.w : b.w;
		else if constexpr (OP == OP_MAX)
			r.w = a.w > b.w ? a.w : b.w;
		else if constexpr (OP == OP_AND)
			r.w = a.w & b.w;
		else if constexpr (OP == OP_OR)
			r.w = a.w | b.w;
		else
			r.w = a.w ^ b.w;
		r.nan = a.nan | b.nan;
		return r;
	}

	static __host__ __device__ __forceinline__ V of(T x, const scan_cfg &c)
	{
		V v = { c.ident, 0 };

		if constexpr (dtype_is_float<T>::value) {
			double d = exact_elem_f64(x);

			v.nan = d != d;	/* the word stays the identity */
			v.w = v.nan ? c.ident : f64_ukey(d);
		} else {
			/* sign- or zero-extended, as the CPU's __int128 */
			u64 b = std::is_signed<T>::value ? (u64)(long long)x
							 : (u64)x;

			v.w = FLIP ? b ^ SCAN_SIGN : b;
		}
		return v;
	}

	static __host__ __device__ __forceinline__ bool
	out(const V &v, const scan_cfg &c, u64 *bits, struct scan_bad *why)
	{
		if constexpr (dtype_is_float<T>::value) {
			*bits = v.nan ? c.fmt.nan
				      : scan_round_f64(ukey_to_f64(v.w), c.fmt);
			return true;
		} else {
			u64 w = FLIP ? v.w ^ SCAN_SIGN : v.w;
			__int128 p = std::is_signed<T>::value ? (__int128)(long long)w
							      : (__int128)w;

			scan_why_int(p, why);
			return scan_put_int(p, c, bits);
		}
	}
};

/* f(scan_word<T, op>()), for the op of a job (floats: min or max). */
template <typename T, class F>
static auto scan_word_op(int op, F f)
{
	if (op == OP_MIN)
		return f(scan_word<T, OP_MIN>());
	if constexpr (!dtype_is_float<T>::value) {
		if (op == OP_AND)
			return f(scan_word<T, OP_AND>());
		if (op == OP_OR)
			return f(scan_word<T, OP_OR>());
		if (op == OP_XOR)
			return f(scan_word<T, OP_XOR>());
	}
	return f(scan_word<T, OP_MAX>());
}

/* The word of the empty prefix for op over type t (host, at open): what
 * cpu_reduce.c starts from, as a key or bits. */
static inline u64 scan_word_ident(enum gs_type t, enum gs_op op)
{
	unsigned nb = 8 * (unsigned)type_size(t);
	u64 umax = nb == 64 ? ~0ull : (1ull << nb) - 1;

	if (type_is_float(t))
		return op == OP_MIN ? f64_ukey(__builtin_inf())
				    : f64_ukey(-__builtin_inf());
	switch (op) {
	case OP_MIN:	/* the key of the largest value */
		return type_is_signed(t) ? (umax >> 1) ^ SCAN_SIGN : umax;
	case OP_MAX:	/* the key of the smallest value */
		return type_is_signed(t) ? (~(umax >> 1)) ^ SCAN_SIGN : 0;
	case OP_AND:
		return type_is_signed(t) ? ~0ull : umax;
	default:
		return 0;
	}
}

#endif
