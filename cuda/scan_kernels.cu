/*
 * scan_kernels.cu - prefix scans (sum, prod, min, max, and, or, xor) per
 * column on the GPU, bit-identical to src/cpu_scan.c. The API is
 * cuda/scan.h.
 *
 * Every prefix is kept exactly, as a value of a monoid:
 * - sums: a two's complement fixed-point integer of K 64-bit limbs whose
 *   lsb weighs 2^L, wide enough for the whole range of the input type and
 *   2^63 elements (so nothing ever rounds or overflows), plus NaN/+inf/-inf
 *   flags. Integers: K = 2, L = 0 (|prefix| < 2^63 * 2^64). f16: K = 2,
 *   L = -24 (bits -24 .. 79). f32 and bf16: K = 6, L = -149 (bits -149 ..
 *   191). f64: K = 34, L = -1074 (bits -1074 .. 1087, under 2176 - 1074).
 *   Adding is a K-limb integer add, so every grouping gives the same bits.
 * - prod: prod.cuh's values, as reduce_kernels.cu has them: for floats a
 *   bracket [lo, hi] * 2^exp of the exact product (128-bit ends, rounded
 *   outward at every step), for integers the exact magnitude below 2^128;
 *   NaN, zero, inf, the sign and overflow are flags. The tiles group the
 *   factors otherwise than cpu_scan's one pass, so the brackets differ,
 *   but a float output is written only when both ends round alike, and is
 *   then the exact prefix correctly rounded: the CPU's bits wherever the
 *   CPU rounds it too. Within about n * 2^-126 (relative, n factors) of a
 *   rounding tie one side may fail alone, as the CPU may between thread
 *   counts.
 *   Integer products are exact in any grouping, overflow included. The
 *   grouping follows the tiles and the parts (below), and the number of
 *   parts the GPU's size and occupancy: which near-ties fail may differ
 *   between GPU models, as between CPU thread counts.
 * - min/max: order-preserving 64-bit keys (as reduce_kernels.cu: floats as
 *   doubles with -0.0 below +0.0, NaN a sticky flag; signed integers with
 *   the sign bit flipped); and/or/xor: the sign-extended 64-bit two's
 *   complement bits, as cpu_scan.c keeps them.
 * The empty prefix is the identity cpu_reduce.c starts from (sum 0, prod
 * 1, min the largest value of the input type, +inf for floats, and all
 * ones ...), so exclusive scans start where the CPU does.
 *
 * Three kernels per chunk, for all columns at once. Each column is cut
 * into tiles of SCAN_TILE records (thread t of a tile owns SCAN_ITEMS
 * consecutive records), and its tiles into parts of consecutive tiles, one
 * block per (column, part), as many blocks as fit on the GPU at once:
 *   1. totals: each part's total, into partv[col][part] (a reduction: each
 *      thread adds its records tile after tile);
 *   2. carry: one block per column scans its parts' totals starting from
 *      the column's carry (the prefix of every earlier chunk), overwrites
 *      each with the part's exclusive prefix and advances the carry;
 *   3. out: each block walks its part's tiles in order, scanning a tile
 *      from the prefix before it and writing every output, rounded once
 *      from the exact value (a correct rounding of the K-limb magnitude,
 *      as xsum_round does it; a product's from both ends of its bracket,
 *      as fprod_round does it).
 * Both tile kernels load a tile's records while the tile before is added.
 * Everything is stream-ordered: no host round trip between chunks.
 *
 * Float sums of f32, bf16 and f64 take two other kernels first: one reads
 * the chunk once for each part's exact total and the chunk's lowest and
 * highest value bits, one block then picks a 1-, 2- or 3-limb window
 * holding the carry and every prefix of the chunk (or the wide K limbs),
 * scans the parts and writes their prefixes in the window; every
 * variant's out kernel is launched and those not chosen return at once.
 * A one-limb window of a chunk with no NaN or infinity, into f32 or f64,
 * takes the hardware's conversions (scan_hsum: no bit fields per
 * element). The wide carry is the one carry between chunks (see "float
 * sums in a narrow window" below).
 *
 * Integer outputs are range-checked, and a product can fail (an integer
 * past 2^128, a float bracket whose ends round apart). A failing element
 * becomes a key record * columns + column (the CPU reports the smallest
 * record, then the smallest column): each block finds its smallest in
 * shared memory and leaves why it failed (struct scan_bad: the prefix, or
 * the kind of failure) in bad[col][part]; a global atomicMin keeps the
 * smallest key; a one-thread kernel copies the why that goes with it into
 * the status the host reads, and gpu_scan_status_check words cpu_scan's
 * message from it.
 */
#include <limits.h>
#include <new>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
#include "exact.cuh"
#include "prod.cuh"
#include "scan.h"

/* 256 threads of 8 records: a tile of 2048 records keeps the carry kernel's
 * serial loop short (a 64 MiB chunk of f32 is 8192 tiles, 32 block scans)
 * while a thread's items stay in registers. */
#define SCAN_THREADS 256
#define SCAN_ITEMS 8
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)
#define SCAN_WARPS (SCAN_THREADS / 32)
/* The most blocks per SM the tile kernels get (as many as fit, up to this:
 * each block holds a part of a column). */
#define SCAN_MAX_BLOCKS_PER_SM 8
/* The most tiles in a part: 2^27 records, so that a float sum's part stays
 * within exact.cuh's bounds (scan_xtotals_kernel). */
#define SCAN_MAX_TPP (1u << 16)
/* Columns are scanned in one launch each phase; more run on the CPU. */
#define SCAN_MAX_COLUMNS 16

/* Unroll the loops over limbs on the device, so that a value's limbs stay
 * in registers (the host check compiles the same code without it). */
#ifdef __CUDA_ARCH__
#define SCAN_UNROLL _Pragma("unroll")
#else
#define SCAN_UNROLL
#endif

#define SCAN_SIGN (1ull << 63)
#define SCAN_NONE (~0ull)

typedef unsigned long long u64;
typedef unsigned __int128 u128;

/* The half types, as raw bits. */
struct scan_f16 { unsigned short v; };
struct scan_bf16 { unsigned short v; };

template <typename T> struct scan_is_float : std::false_type {};
template <> struct scan_is_float<scan_f16> : std::true_type {};
template <> struct scan_is_float<scan_bf16> : std::true_type {};
template <> struct scan_is_float<float> : std::true_type {};
template <> struct scan_is_float<double> : std::true_type {};

/* ---- output formats and rounding ----------------------------------------- */

struct scan_fmt {
	int p;			/* significand bits, hidden bit included */
	int emin, emax;		/* emax is also the bias */
	int width;
	u64 inf, nan;		/* +inf; the NaN the CPU writes (quiet, +) */
};

/* Indexed by enum xfmt (F16, BF16, F32, F64). */
static const struct scan_fmt scan_fmts[] = {
	{ 11, -14, 15, 16, 0x7c00, 0x7e00 },
	{ 8, -126, 127, 16, 0x7f80, 0x7fc0 },
	{ 24, -126, 127, 32, 0x7f800000, 0x7fc00000 },
	{ 53, -1022, 1023, 64, 0x7ff0000000000000ull, 0x7ff8000000000000ull },
};

/* What the kernels need to know of the job, fixed at open. */
struct scan_cfg {
	int op;			/* OP_SUM, OP_MIN ... OP_XOR */
	bool excl;
	bool can_fail;		/* an integer scan into an integer type, or a
				 * product (overflow, a bracket that cannot
				 * round) */
	bool ofloat, osigned;
	unsigned osize;		/* bytes of an output element */
	struct scan_fmt fmt;	/* the output's, when ofloat */
	u64 ident;		/* word ops: the empty prefix's word */
	int w;			/* narrow sums: the chunk's window lsb */
};

static __host__ __device__ inline int scan_clz128(u128 m)
{
	u64 hi = (u64)(m >> 64);

	return hi ? exact_clz64(hi) : 64 + exact_clz64((u64)m);
}

/* (m + d) >> sh rounded to nearest even, where 0 <= d < 1 is nonzero iff
 * sticky; sh >= 1. */
static __host__ __device__ inline u128 scan_shr_round(u128 m, long sh,
						      bool sticky)
{
	u128 q, rem, half;

	if (sh > 128)
		return 0;
	if (sh == 128)
		return m > (u128)1 << 127 || (m == (u128)1 << 127 && sticky);
	q = m >> sh;
	rem = m & (((u128)1 << sh) - 1);
	half = (u128)1 << (sh - 1);
	return q + (rem > half || (rem == half && (sticky || (q & 1))));
}

/*
 * Round (neg ? -1 : 1) * (m + d) * 2^e once, to nearest even, into f, with
 * d as above; m == 0 gives a zero of the given sign. Callers with sticky
 * set pass a full 128-bit m, so d only ever lies below the rounding bit.
 * The same steps as cpu_reduce.c's round_u128, with the sticky bit added.
 */
static __host__ __device__ inline u64 scan_round(u128 m, bool sticky, long e,
						 bool neg, const struct scan_fmt &f)
{
	u64 sign = (u64)neg << (f.width - 1);
	long top, q;
	u128 mant;

	if (m == 0)
		return sign;
	top = e + 127 - scan_clz128(m);	/* value in [2^top, 2^(top+1)) */
	if (top > f.emax + 1)
		return sign | f.inf;
	q = top - (f.p - 1);		/* weight of the last kept bit */
	if (q < f.emin - (f.p - 1))
		q = f.emin - (f.p - 1);
	mant = q > e ? scan_shr_round(m, q - e, sticky) : m << (e - q);
	if (mant >> f.p) {		/* rounded up into the next binade */
		mant >>= 1;
		q++;
	}
	if (mant >> (f.p - 1) == 0)	/* subnormal or zero */
		return sign | (u64)mant;
	if (q + f.p - 1 > f.emax)
		return sign | f.inf;
	return sign | (u64)(q + f.p - 1 + f.emax) << (f.p - 1) |
	       ((u64)mant & ((1ull << (f.p - 1)) - 1));
}

/* m rounded to nearest even as an f32 and an f64 (bits). The hardware's
 * conversions on the device; the host's, also correctly rounded, in the
 * host check. */
static __host__ __device__ inline unsigned scan_u64_f32(u64 m)
{
#ifdef __CUDA_ARCH__
	return __float_as_uint(__ull2float_rn(m));
#else
	float v = (float)m;
	unsigned b;

	memcpy(&b, &v, sizeof(b));
	return b;
#endif
}

static __host__ __device__ inline u64 scan_u64_f64(u64 m)
{
#ifdef __CUDA_ARCH__
	return (u64)__double_as_longlong(__ull2double_rn(m));
#else
	return exact_bits_f64((double)m);
#endif
}

/*
 * scan_round, faster where the result is a normal f32 or f64 (nearly
 * always): the top 64 bits of m with the rest folded into a sticky lsb
 * convert with one hardware rounding (the sticky bit lies far below the
 * rounding bit, so that rounding is the correct one), and scaling by a
 * power of two is then exact. Subnormal, overflowing and half-precision
 * results take scan_round.
 */
/* (neg ? -m : m) * 2^e (m != 0) rounded by the hardware into *bits, for a
 * normal f32 or f64 result; false for any other. */
static __host__ __device__ inline bool scan_round_hw(u64 m, long e, bool neg,
						     const struct scan_fmt &f,
						     u64 *bits)
{
	if (f.width == 32) {
		u64 b = scan_u64_f32(m);
		long be = (long)(b >> 23) + e;

		*bits = (u64)neg << 31 | ((b + ((u64)e << 23)) & 0x7fffffffull);
		return be >= 1 && be <= 254;
	}
	if (f.width == 64) {
		u64 b = scan_u64_f64(m);
		long be = (long)(b >> 52) + e;

		*bits = (u64)neg << 63 | ((b + ((u64)e << 52)) & ~SCAN_SIGN);
		return be >= 1 && be <= 2046;
	}
	return false;
}

static __host__ __device__ inline u64 scan_round_fast(u128 m, bool sticky,
						      long e, bool neg,
						      const struct scan_fmt &f)
{
	u64 bits;

	if (m != 0) {
		int z = scan_clz128(m);
		u128 t = m << z;		/* top bit at 127 */
		u64 m64 = (u64)(t >> 64) | (u64)((u64)t != 0 || sticky);

		/* value ~ m64 * 2^(e + 64 - z) */
		if (scan_round_hw(m64, e + 64 - z, neg, f, &bits))
			return bits;
	}
	return scan_round(m, sticky, e, neg, f);
}

/* A double (the value of a min/max prefix) into f: exactly for f64, one
 * correct rounding for f32. */
static __host__ __device__ inline u64 scan_round_f64(double v,
						     const struct scan_fmt &f)
{
	u64 u = exact_bits_f64(v), m = u & 0xfffffffffffffull;

	if (f.width == 64)
		return v != v ? f.nan : u;
	if (f.width == 32 && v == v) {
#ifdef __CUDA_ARCH__
		return __float_as_uint(__double2float_rn(v));
#else
		float x = (float)v;
		unsigned b;

		memcpy(&b, &x, sizeof(b));
		return b;
#endif
	}
	unsigned be = (unsigned)(u >> 52) & 0x7ff;

	if (be == 0x7ff)
		return m ? f.nan : (u >> 63) << (f.width - 1) | f.inf;
	m |= (u64)(be != 0) << 52;
	return scan_round(m, false, (long)(be + (be == 0)) - 1075, u >> 63, f);
}

/* Why an output cannot be written (the host builds cpu_scan's message from
 * it): the prefix as an __int128, or as a sign and a 128-bit magnitude (a
 * product's, which can pass 2^127), or no value at all. */
enum scan_bad_kind {
	SCAN_BAD_INT,		/* lo, hi: the prefix overflows the output type */
	SCAN_BAD_MAG,		/* lo, hi, neg: the same for a product */
	SCAN_BAD_WIDE,		/* an integer product passed 2^128 */
	SCAN_BAD_ROUND,		/* a float product cannot be rounded exactly */
};

struct scan_bad {
	u64 lo, hi;
	unsigned neg, kind;
};

/* An exact integer into the output type; false if it does not fit. */
static __host__ __device__ inline bool scan_put_int(__int128 v,
						    const struct scan_cfg &c,
						    u64 *bits)
{
	unsigned nb = 8 * c.osize;
	__int128 lo, hi;

	if (c.ofloat) {
		*bits = scan_round_fast(v < 0 ? -(u128)v : (u128)v, false, 0,
					v < 0, c.fmt);
		return true;
	}
	hi = c.osigned ? ((__int128)1 << (nb - 1)) - 1 : ((__int128)1 << nb) - 1;
	lo = c.osigned ? -hi - 1 : 0;
	*bits = (u64)v;
	return v >= lo && v <= hi;
}

/* v as the why of an output that does not fit. */
static __host__ __device__ __forceinline__ void scan_why_int(__int128 v,
							     struct scan_bad *why)
{
	why->lo = (u64)v;
	why->hi = (u64)((u128)v >> 64);
	why->neg = 0;
	why->kind = SCAN_BAD_INT;
}

/* ---- sums: K-limb fixed point -------------------------------------------- */

template <int K> struct sum_val {
	u64 l[K];		/* two's complement, little-endian limbs */
	unsigned flags;		/* EXACT_NAN | EXACT_PINF | EXACT_NINF */
};

/* a + b, limb by limb with carries. */
template <int K>
static __host__ __device__ __forceinline__ sum_val<K>
sum_add(const sum_val<K> &a, const sum_val<K> &b)
{
	sum_val<K> r;
	u64 c = 0;

SCAN_UNROLL
	for (int j = 0; j < K; j++) {
		u64 s = a.l[j] + b.l[j], t = s + c;

		c = (u64)(s < a.l[j]) | (u64)(t < s);
		r.l[j] = t;
	}
	r.flags = a.flags | b.flags;
	return r;
}

/* (neg ? -mag : mag) * 2^s as K limbs; mag < 2^64, s / 64 + 1 < K. The
 * register array is indexed only by unrolled constants: selects, no local
 * memory. */
template <int K>
static __host__ __device__ __forceinline__ void sum_place(sum_val<K> *v, u64 mag,
							  int s, bool neg)
{
	int k = s / 64, b = s % 64;
	u64 lo = mag << b, hi = b ? mag >> (64 - b) : 0, c = neg;

SCAN_UNROLL
	for (int j = 0; j < K; j++) {
		u64 w = j == k ? lo : j == k + 1 ? hi : 0;

		w = (neg ? ~w : w) + c;	/* two's complement: ~x + 1 */
		c = c && w == 0;
		v->l[j] = w;
	}
}

/*
 * Round a sum into f: flags first (NaN, or both infinities, is NaN), then
 * the magnitude's top 128 bits and a sticky bit for the rest, as
 * xsum_round does. An exact zero is +0.
 */
template <int K>
static __host__ __device__ inline u64 sum_round(const sum_val<K> &v, int lsb,
						const struct scan_fmt &f)
{
	u64 m[K], mh = 0, a = 0, b = 0, c2 = 0, cy;
	bool neg = v.l[K - 1] >> 63, sticky = false;
	int h = -1, top, pos, k, s;

	if ((v.flags & EXACT_NAN) ||
	    (v.flags & (EXACT_PINF | EXACT_NINF)) == (EXACT_PINF | EXACT_NINF))
		return f.nan;
	if (v.flags)
		return f.inf | (u64)(v.flags == EXACT_NINF) << (f.width - 1);
	cy = neg;
SCAN_UNROLL
	for (int j = 0; j < K; j++) {
		m[j] = (neg ? ~v.l[j] : v.l[j]) + cy;
		cy = cy && m[j] == 0;
		if (m[j]) {
			h = j;
			mh = m[j];
		}
	}
	if (h < 0)
		return 0;
	top = 64 * h + 63 - exact_clz64(mh);
	pos = top > 127 ? top - 127 : 0;
	k = pos / 64;
	s = pos % 64;
SCAN_UNROLL
	for (int j = 0; j < K; j++) {
		a = j == k ? m[j] : a;
		b = j == k + 1 ? m[j] : b;
		c2 = j == k + 2 ? m[j] : c2;
		sticky |= j < k && m[j] != 0;
	}
	if (s)
		sticky |= (a << (64 - s)) != 0;
	u64 qlo = s ? a >> s | b << (64 - s) : a;
	u64 qhi = s ? b >> s | c2 << (64 - s) : b;

	return scan_round_fast((u128)qhi << 64 | qlo, sticky, (long)pos + lsb,
			       neg, f);
}

/* The exact value of a float element: magnitude, exponent, sign, flags. */
template <typename T>
static __host__ __device__ __forceinline__ struct exact_term scan_term(T x)
{
	if constexpr (std::is_same<T, scan_f16>::value)
		return exact_f16(x.v);
	else if constexpr (std::is_same<T, scan_bf16>::value)
		return exact_bf16(x.v);
	else if constexpr (std::is_same<T, float>::value)
		return exact_f32(x);
	else
		return exact_f64(x);
}

/* Sums of element type T in K limbs with lsb 2^L. */
template <typename T, int K, int L> struct scan_sum {
	typedef T elem;
	typedef sum_val<K> V;
	enum { WINDOW = 0 };	/* runs when no narrow window is chosen */

	static __host__ __device__ __forceinline__ V ident(const scan_cfg &)
	{
		V v;

SCAN_UNROLL
		for (int j = 0; j < K; j++)
			v.l[j] = 0;
		v.flags = 0;
		return v;
	}

	static __host__ __device__ __forceinline__ V
	add(const V &a, const V &b, const scan_cfg &)
	{
		return sum_add<K>(a, b);
	}

	static __host__ __device__ __forceinline__ V of(T x, const scan_cfg &)
	{
		V v;

		if constexpr (scan_is_float<T>::value) {
			struct exact_term t = scan_term(x);
			bool neg = t.m < 0;

			sum_place<K>(&v, (u64)(neg ? -t.m : t.m), t.e - L, neg);
			v.flags = t.flags;
		} else {
			v.l[0] = (u64)x;
			v.l[1] = std::is_signed<T>::value && x < 0 ? ~0ull : 0;
SCAN_UNROLL
			for (int j = 2; j < K; j++)
				v.l[j] = v.l[1];
			v.flags = 0;
		}
		return v;
	}

	/* The output bits of prefix v; false (and *why the prefix) if an
	 * integer output cannot hold it. */
	static __host__ __device__ __forceinline__ bool
	out(const V &v, const scan_cfg &c, u64 *bits, struct scan_bad *why)
	{
		if constexpr (scan_is_float<T>::value) {
			*bits = sum_round<K>(v, L, c.fmt);
			return true;
		} else {
			__int128 p = (__int128)((u128)v.l[1] << 64 | v.l[0]);

			scan_why_int(p, why);
			return scan_put_int(p, c, bits);
		}
	}
};

/* ---- min, max, and, or, xor: one word ------------------------------------ */

struct word_val {
	u64 w;			/* min/max: key; and/or/xor: bits */
	unsigned nan;		/* floats: a NaN was seen */
};

static __host__ __device__ inline u64 scan_key_f64(double v)
{
	u64 u = exact_bits_f64(v);

	return u >> 63 ? ~u : u | SCAN_SIGN;
}

static __host__ __device__ inline double scan_f64_of_bits(u64 u)
{
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

static __host__ __device__ inline double scan_f64_of_key(u64 k)
{
	u64 u = k >> 63 ? k & ~SCAN_SIGN : ~k;
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

template <typename T>
static __host__ __device__ __forceinline__ double scan_to_f64(T x)
{
	if constexpr (std::is_same<T, scan_f16>::value)
		return exact_f16_to_f32(x.v);
	else if constexpr (std::is_same<T, scan_bf16>::value)
		return exact_bf16_to_f32(x.v);
	else
		return x;
}

/* min, max, and, or or xor (OP, fixed at compile time: the add is then
 * a compare and select or one logic op) over element type T. */
template <typename T, int OP> struct scan_word {
	typedef T elem;
	typedef word_val V;
	enum { WINDOW = 0 };
	/* signed integers compare as their bits with the sign flipped */
	static const bool FLIP = std::is_signed<T>::value &&
				 !scan_is_float<T>::value &&
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

		if constexpr (scan_is_float<T>::value) {
			double d = scan_to_f64(x);

			v.nan = d != d;	/* the word stays the identity */
			v.w = v.nan ? c.ident : scan_key_f64(d);
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
		if constexpr (scan_is_float<T>::value) {
			*bits = v.nan ? c.fmt.nan
				      : scan_round_f64(scan_f64_of_key(v.w), c.fmt);
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
	if constexpr (!scan_is_float<T>::value) {
		if (op == OP_AND)
			return f(scan_word<T, OP_AND>());
		if (op == OP_OR)
			return f(scan_word<T, OP_OR>());
		if (op == OP_XOR)
			return f(scan_word<T, OP_XOR>());
	}
	return f(scan_word<T, OP_MAX>());
}

/* ---- float sums in a narrow window ---------------------------------------- */

/*
 * The wide sums above cost K limbs per add (f64: 34) and a K-limb rounding
 * per output. Real data spans few binades, so each chunk first finds the
 * lowest set bit and the highest top bit of its finite nonzero values
 * (scan_wbits, a reduction), and scan_window_pick picks a window of N = 1, 2
 * or 3 limbs whose lsb w is the lowest bit of the chunk and of the carry, if
 * the carry plus any prefix of the chunk fits in it: then every value of
 * the chunk is an integer multiple of 2^w below 2^(w + 64N - 1) in
 * magnitude, and the narrow kernels give the same exact values, so the
 * same rounded bits. The wide carry stays the one canonical carry between
 * chunks.
 *
 * One kernel (scan_xtotals_kernel) reads the chunk once for both: each
 * part's exact total, as exact.cuh's reduction keeps it (a window in
 * registers, slots in shared memory), and its lowest and top bits. Then
 * one block (scan_xcarry_kernel) picks the window (scan_window_pick),
 * turns the parts' totals into wide values (scan_xwide), scans them from
 * the wide carries, advances the carries and writes each part's prefix
 * narrowed to the window for the chosen variant's out kernel.
 */

/* The chunk's bits and its choice of window, one per handle. */
struct scan_win {
	int lo, nhi;		/* lowest bit, minus the highest top bit */
	int w, mode;		/* window lsb; 0 (wide), 1, 2 or 3 limbs,
				 * 4 (one limb, scan_hsum) */
};

/* lo and nhi start here (a byte-wise memset of 0x7f): "no bit seen". */
#define SCAN_WIN_NONE 0x7f7f7f7f

static __host__ __device__ inline int scan_ctz64(u64 x)
{
#ifdef __CUDA_ARCH__
	return __ffsll((long long)x) - 1;
#else
	return __builtin_ctzll(x);
#endif
}

/* A float type's bits and format: U holds the bits (32 bits for the types
 * up to 4 bytes), W of them, FB fraction bits; a finite value is
 * m * 2^(max(be, 1) - BIAS_P) for exponent field be and significand m. */
template <typename T> struct scan_ffmt;
template <> struct scan_ffmt<float> {
	typedef unsigned U;
	enum { W = 32, FB = 23, BIAS_P = 150 };
	static __host__ __device__ __forceinline__ U bits(float x)
	{
		return exact_bits_f32(x);
	}
};
template <> struct scan_ffmt<double> {
	typedef u64 U;
	enum { W = 64, FB = 52, BIAS_P = 1075 };
	static __host__ __device__ __forceinline__ U bits(double x)
	{
		return exact_bits_f64(x);
	}
};
template <> struct scan_ffmt<scan_bf16> {
	typedef unsigned U;
	enum { W = 16, FB = 7, BIAS_P = 134 };
	static __host__ __device__ __forceinline__ U bits(scan_bf16 x)
	{
		return x.v;
	}
};
template <> struct scan_ffmt<scan_f16> {
	typedef unsigned U;
	enum { W = 16, FB = 10, BIAS_P = 25 };
	static __host__ __device__ __forceinline__ U bits(scan_f16 x)
	{
		return x.v;
	}
};

/* A float element's fields: its value is (*neg ? -*m : *m) * 2^*e with
 * *m < 2^53 (0 for a zero); the flags of an infinity or a NaN (then *m is
 * meaningless), 0 for a finite value. No 128-bit term, no branch. */
template <typename T>
static __host__ __device__ __forceinline__ unsigned scan_fields(T x, bool *neg,
								u64 *m, int *e)
{
	typedef scan_ffmt<T> F;
	typedef typename F::U U;
	const U abs = ((U)1 << (F::W - 1)) - 1, frac = ((U)1 << F::FB) - 1;
	const U inf = abs & ~frac;
	U u = F::bits(x), a = u & abs;
	unsigned be = (unsigned)(a >> F::FB);

	*neg = (u >> (F::W - 1)) & 1;
	*m = (u64)((a & frac) | (U)(be != 0) << F::FB);
	*e = (int)(be + (be == 0)) - F::BIAS_P;
	/* EXACT_NAN 1, EXACT_PINF 2, EXACT_NINF 4 */
	return (unsigned)(a > inf) | (unsigned)(a == inf) << (1 + *neg);
}

/* Trailing and leading zeros of a 32-bit x != 0. */
static __host__ __device__ inline int scan_ctz32(unsigned x)
{
#ifdef __CUDA_ARCH__
	return __ffs((int)x) - 1;
#else
	return __builtin_ctz(x);
#endif
}

static __host__ __device__ inline int scan_clz32(unsigned x)
{
#ifdef __CUDA_ARCH__
	return __clz((int)x);
#else
	return __builtin_clz(x);
#endif
}

/*
 * The lowest set bit and the top bit of a run of float elements (the
 * window's bits), with no bit count per element: for finite nonzero |x|
 * of bits a, clearing a's lowest set bit leaves a value of the same
 * binade, and the difference is exact: the value of x's lowest bit (|x|
 * itself when the fraction is 0). Positive floats order as their bits, so
 * an integer min of those values' bits and an integer max of the a's
 * suffice; scan_wbits_done takes the two bit positions once. bf16 works
 * as f32 (its bits shifted up: the same value); f16 has no window.
 */
template <typename T> struct scan_wbits {
	typedef typename std::conditional<sizeof(T) == 8, u64, unsigned>::type U;
	typedef typename std::conditional<sizeof(T) == 8, double, float>::type F;
	U low, top;	/* smallest lowest-bit value, largest |x|, as bits */
};

template <typename T>
static __host__ __device__ __forceinline__ void scan_wbits_init(scan_wbits<T> *s)
{
	s->low = ~(typename scan_wbits<T>::U)0;
	s->top = 0;
}

template <typename T>
static __host__ __device__ __forceinline__ void scan_wbits_add(scan_wbits<T> *s,
							       T x)
{
	typedef typename scan_wbits<T>::U U;
	typedef scan_ffmt<typename scan_wbits<T>::F> G;
	const U abs = ((U)1 << (G::W - 1)) - 1, frac = ((U)1 << G::FB) - 1;
	const U inf = abs & ~frac;
	U a, c, low;

	if constexpr (std::is_same<T, scan_bf16>::value)
		a = ((U)x.v << 16) & abs;
	else
		a = scan_ffmt<T>::bits(x) & abs;
	c = a & (a - 1);
	if constexpr (sizeof(T) == 8)
		low = exact_bits_f64(scan_f64_of_bits(a) - scan_f64_of_bits(c));
	else
		low = exact_bits_f32(exact_f32_from_bits(a) - exact_f32_from_bits(c));
	low = a & frac ? low : a;
	if (a - 1 < inf - 1) {	/* finite, nonzero: selects, not a branch */
		s->low = low < s->low ? low : s->low;
		s->top = a > s->top ? a : s->top;
	}
}

/* The run's lowest bit and minus its top bit, folded into lo and nhi. */
template <typename T>
static __host__ __device__ __forceinline__ void
scan_wbits_done(const scan_wbits<T> *s, int *lo, int *nhi)
{
	typedef typename scan_wbits<T>::U U;
	typedef scan_ffmt<typename scan_wbits<T>::F> G;
	const U frac = ((U)1 << G::FB) - 1;
	int l, h;
	unsigned bl, bh;

	if (s->top == 0)
		return;		/* zeros and specials only */
	bl = (unsigned)(s->low >> G::FB);	/* a power of two */
	bh = (unsigned)(s->top >> G::FB);
	if constexpr (sizeof(T) == 8) {
		l = bl ? (int)bl - (G::BIAS_P - G::FB) :
			 1 - G::BIAS_P + scan_ctz64(s->low);
		h = bh ? (int)bh - (G::BIAS_P - G::FB) :
			 1 - G::BIAS_P + 63 - exact_clz64(s->top & frac);
	} else {
		l = bl ? (int)bl - (G::BIAS_P - G::FB) :
			 1 - G::BIAS_P + scan_ctz32(s->low);
		h = bh ? (int)bh - (G::BIAS_P - G::FB) :
			 1 - G::BIAS_P + 31 - scan_clz32(s->top & frac);
	}
	*lo = l < *lo ? l : *lo;
	*nhi = -h < *nhi ? -h : *nhi;
}

/* Bits [d, d + 64N) of v (d >= 0), as N limbs: exact when v has no bit
 * below d and fits the N limbs' range. */
template <int K, int N>
static __host__ __device__ inline sum_val<N> sum_narrow(const sum_val<K> &v,
							int d)
{
	sum_val<N> r;
	u64 sign = v.l[K - 1] >> 63 ? ~0ull : 0;
	int q = d / 64, s = d % 64;

	for (int j = 0; j < N; j++) {
		u64 a = q + j < K ? v.l[q + j] : sign;
		u64 b = q + j + 1 < K ? v.l[q + j + 1] : sign;

		r.l[j] = s ? a >> s | b << (64 - s) : a;
	}
	r.flags = v.flags;
	return r;
}

/* n * 2^d (d >= 0) as K limbs, n sign-extended. */
template <int N, int K>
static __host__ __device__ inline sum_val<K> sum_widen(const sum_val<N> &n,
						       int d)
{
	sum_val<K> r;
	u64 sign = n.l[N - 1] >> 63 ? ~0ull : 0;
	int q = d / 64, s = d % 64;

	for (int j = 0; j < K; j++) {
		int i = j - q;
		u64 a = i < 0 ? 0 : i < N ? n.l[i] : sign;
		u64 b = i - 1 < 0 ? 0 : i - 1 < N ? n.l[i - 1] : sign;

		r.l[j] = s ? a << s | b >> (64 - s) : a;
	}
	r.flags = n.flags;
	return r;
}

/* Lowest set bit and top bit of |v| (limb positions); false if v is 0. */
template <int K>
static __host__ __device__ inline bool sum_bits(const sum_val<K> &v, int *lo,
						int *top)
{
	bool neg = v.l[K - 1] >> 63;
	u64 cy = neg;
	int l = -1, h = -1;

	for (int j = 0; j < K; j++) {
		u64 m = (neg ? ~v.l[j] : v.l[j]) + cy;

		cy = cy && m == 0;
		if (m && l < 0)
			l = 64 * j + scan_ctz64(m);
		if (m)
			h = 64 * j + 63 - exact_clz64(m);
	}
	*lo = l;
	*top = h;
	return h >= 0;
}

/*
 * The chunk's window, from its lowest bit and minus its top bit (win->lo,
 * win->nhi), the wide carries at its start and nrec (>= 1): every prefix
 * of a column is its carry plus at most nrec values below 2^(hi+1), so
 * below 2^(max(carry top, hi + lg) + 2) with nrec < 2^lg; a window of N
 * limbs at lsb w holds it when that is at most 2^(w + 64N - 1). Sets
 * win->w and win->mode.
 */
template <int K, int L>
static __host__ __device__ inline void scan_window_pick(struct scan_win *win,
							const sum_val<K> *carry,
							unsigned columns,
							size_t nrec)
{
	int lo = win->lo, lg = 64 - exact_clz64(nrec), top, cl, ct, span;

	top = lo == SCAN_WIN_NONE ? INT_MIN / 2 : -win->nhi + lg;
	for (unsigned c = 0; c < columns; c++) {
		if (!sum_bits<K>(carry[c], &cl, &ct))
			continue;
		lo = L + cl < lo ? L + cl : lo;
		top = L + ct > top ? L + ct : top;
	}
	if (lo == SCAN_WIN_NONE) {	/* every value zero: any window */
		lo = L;
		top = L;
	}
	span = top - lo + 3;
	win->w = lo;
	win->mode = span <= 64 ? 1 : span <= 128 ? 2 : span <= 192 ? 3 : 0;
}

/*
 * An exact sum of values of bits >= 2^L (struct exact_acc's slots, slot q
 * weighing 2^(32q + EXACT_EMIN), each a signed 64-bit count) as K limbs at
 * lsb 2^L, for a sum that fits them. The slots below the one that holds
 * bit L are zero (every piece of such a value lies at or above it); from
 * there the slots are carried into 32-bit digits, the unique two's
 * complement form of the sum, which has no bit below L, and the digits
 * are shifted down to L.
 */
template <int K, int L>
static __host__ __device__ inline sum_val<K> scan_xwide(const long long *slot,
							unsigned flags)
{
	const int q0 = (L - EXACT_EMIN) / 32, s = (L - EXACT_EMIN) % 32;
	sum_val<K + 1> b;
	long long c = 0;
	sum_val<K> r;

SCAN_UNROLL
	for (int i = 0; i < 2 * (K + 1); i++) {
		long long v = (q0 + i < EXACT_SLOTS ? slot[q0 + i] : 0) + c;
		u64 d = (u64)v & 0xffffffffull;

		c = v >> 32;	/* arithmetic: a negative sum borrows */
		if (i % 2)
			b.l[i / 2] |= d << 32;
		else
			b.l[i / 2] = d;
	}
	b.flags = flags;
	r = sum_narrow<K + 1, K>(b, s);
	return r;
}

/* Float sums of element type T in N limbs whose lsb is cfg.w. */
template <typename T, int N> struct scan_nsum {
	typedef T elem;
	typedef sum_val<N> V;
	enum { WINDOW = N };

	static __host__ __device__ __forceinline__ V ident(const scan_cfg &)
	{
		V v;

SCAN_UNROLL
		for (int j = 0; j < N; j++)
			v.l[j] = 0;
		v.flags = 0;
		return v;
	}

	static __host__ __device__ __forceinline__ V
	add(const V &a, const V &b, const scan_cfg &)
	{
		return sum_add<N>(a, b);
	}

	/* Every bit of x lies at or above w, so the low bits shifted out
	 * when x's exponent is below w are zeros. */
	static __host__ __device__ __forceinline__ V of(T x, const scan_cfg &c)
	{
		if constexpr (N == 1)
			return of1(x, c.w);
		struct exact_term t = scan_term(x);
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
	sum_round1(const V &v, int w, const struct scan_fmt &f)
	{
		long long x = (long long)v.l[0];
		u64 m = x < 0 ? 0 - (u64)x : (u64)x, bits;

		if (v.flags || x == 0)
			return sum_round<1>(v, w, f);
		if (scan_round_hw(m, w, x < 0, f, &bits))
			return bits;
		return scan_round(m, false, w, x < 0, f);
	}
};

/*
 * The one-limb window again, by the hardware's conversions, for a chunk
 * with no NaN or infinity (in it or in its carry) whose window lsb w
 * suits the formats (scan_hsum_range):
 * - an element is x * 2^-w, an integer below 2^62 (every bit of x lies at
 *   or above w), so the float multiply by the power of two is exact and
 *   the conversion to a 64-bit integer (truncating) is too;
 * - a prefix v (a 64-bit integer, v * 2^w the exact value) is rounded
 *   once to the output format by the conversion of v, and the multiply by
 *   2^w is exact again: |v * 2^w| >= 2^w is normal when it is not zero,
 *   and past the largest finite value round-to-nearest gives the
 *   infinity that correct rounding gives. 0 is +0, as sum_round makes it.
 * The same integers and the same bits as scan_nsum<T, 1>, with no field
 * extraction or shifts per element (the host check compares the two).
 */
struct hsum_val {
	long long v;
};

/* 2^k as a float or a double (a normal power of two). */
template <typename F>
static __host__ __device__ __forceinline__ F scan_pow2(int k)
{
	if constexpr (sizeof(F) == 4)
		return exact_f32_from_bits((unsigned)(127 + k) << 23);
	else
		return scan_f64_of_bits((u64)(1023 + k) << 52);
}

/* The window lsbs w for which element type T and output type O (float or
 * double) take scan_hsum: 2^w and 2^-w normal in T's float type, 2^w in
 * O. With 2^w normal in T the elements are too, so nothing here leans on
 * subnormal arithmetic (a build that flushes them would still be right). */
template <typename T, typename O>
static void scan_hsum_range(int *lo, int *hi)
{
	int tlo = sizeof(T) == 8 ? -1022 : -126, thi = sizeof(T) == 8 ? 1023 : 127;
	int olo = sizeof(O) == 8 ? -1022 : -126, ohi = sizeof(O) == 8 ? 1023 : 127;

	*lo = tlo > olo ? tlo : olo;		/* -thi < tlo */
	*hi = -tlo < ohi ? -tlo : ohi;		/* -tlo < thi */
}

/* A one-limb window becomes scan_hsum's (mode 4) when neither the chunk
 * nor the carry has a NaN or an infinity (flags, their OR) and w lies in
 * [hlo, hhi], scan_hsum_range's for the job (hlo > hhi: no such variant). */
static __host__ __device__ inline void scan_hsum_pick(struct scan_win *win,
						      unsigned flags, int hlo,
						      int hhi)
{
	if (win->mode == 1 && !flags && win->w >= hlo && win->w <= hhi)
		win->mode = 4;
}

/* x as a float or a double (bf16 widens exactly to f32). */
template <typename T>
static __host__ __device__ __forceinline__ auto scan_hval(T x)
{
	if constexpr (std::is_same<T, scan_bf16>::value)
		return exact_bf16_to_f32(x.v);
	else
		return x;
}

template <typename T, typename O> struct scan_hsum {
	typedef T elem;
	typedef hsum_val V;
	enum { WINDOW = 4 };
	typedef decltype(scan_hval(T())) F;

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
		F p = scan_hval(x) * scan_pow2<F>(-c.w);
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

/* ---- products: prod.cuh's bracket and magnitude -------------------------- */

/*
 * A prefix product is prod.cuh's value: a float bracket (struct
 * red_fprod) or an integer magnitude below 2^128 (struct red_iprod), with
 * flags for NaN, zero, inf, the sign and overflow; the all-zero value is
 * the empty product, 1. The kernels group the factors otherwise than
 * cpu_scan's one pass, so a bracket differs from the CPU's, but it holds
 * the same exact product: where both round (the ends agree) they give
 * its correct rounding, the same bits. An integer product is exact in any
 * grouping.
 */

/* The sign bit of a float element (zeros and NaNs have one too). */
template <typename T>
static __host__ __device__ __forceinline__ bool scan_signbit(T x)
{
	if constexpr (std::is_same<T, scan_f16>::value ||
		      std::is_same<T, scan_bf16>::value)
		return x.v >> 15;
	else if constexpr (std::is_same<T, float>::value)
		return exact_bits_f32(x) >> 31;
	else
		return exact_bits_f64(x) >> 63;
}

/* Whether a bracket is one exact factor with a single nonzero limb, as
 * scan_fprod::of makes them. */
static __host__ __device__ __forceinline__ bool scan_fp_single(const red_fprod &b)
{
	return b.hi[0] == 0 && b.lo[0] == 0 && b.lo[1] == b.hi[1] && b.hi[1];
}

/* Products of float type T. */
template <typename T> struct scan_fprod {
	typedef T elem;
	typedef red_fprod V;
	enum { WINDOW = 0 };

	static __host__ __device__ __forceinline__ V ident(const scan_cfg &)
	{
		return V{};
	}

	/* a * b. A single factor b (every element) takes the 128x64-bit
	 * step, which rounds exactly as the full merge would: half the
	 * multiplies. */
	static __host__ __device__ __forceinline__ V
	add(const V &a, const V &b, const scan_cfg &)
	{
		V r = a;

		if (r.hi[1] && scan_fp_single(b)) {
			r.flags = red_pflags(r.flags, b.flags);
			red_fp_mul64(&r, b.hi[1], b.exp + 64);
		} else {
			red_p_merge(&r, &b);
		}
		return r;
	}

	/* x as a bracket of one exact limb (hi[1], top bit set), or as a
	 * flag; every sign flips RED_PNEG, as fprod_mul_f64 does. */
	static __host__ __device__ __forceinline__ V of(T x, const scan_cfg &)
	{
		struct exact_term t = scan_term(x);
		V v = {};

		v.flags = scan_signbit(x) ? RED_PNEG : 0;
		if (t.flags) {
			v.flags |= t.flags & EXACT_NAN ? RED_PNAN : RED_PINF;
		} else if (t.m == 0) {
			v.flags |= RED_PZERO;
		} else {
			u64 m = (u64)(t.m < 0 ? -t.m : t.m);
			int z = exact_clz64(m);

			v.lo[1] = v.hi[1] = m << z;
			v.exp = (long long)t.e - z - 64;
		}
		return v;
	}

	/* fprod_round: NaN (or 0 * inf), a signed inf or zero, else both
	 * ends rounded, which must agree. */
	static __host__ __device__ __forceinline__ bool
	out(const V &v, const scan_cfg &c, u64 *bits, struct scan_bad *why)
	{
		bool neg = v.flags & RED_PNEG;
		u128 lo = (u128)1 << 127, hi = lo;	/* the empty product */
		long e = -127;
		u64 a, b;

		why->lo = why->hi = 0;
		why->neg = 0;
		why->kind = SCAN_BAD_ROUND;
		if ((v.flags & RED_PNAN) ||
		    (v.flags & (RED_PZERO | RED_PINF)) == (RED_PZERO | RED_PINF)) {
			*bits = c.fmt.nan;
			return true;
		}
		if (v.flags & (RED_PZERO | RED_PINF)) {
			*bits = (u64)neg << (c.fmt.width - 1) |
				(v.flags & RED_PINF ? c.fmt.inf : 0);
			return true;
		}
		if (v.hi[1]) {
			lo = (u128)v.lo[1] << 64 | v.lo[0];
			hi = (u128)v.hi[1] << 64 | v.hi[0];
			e = (long)v.exp;
		}
		a = scan_round_fast(lo, false, e, neg, c.fmt);
		b = hi == lo ? a : scan_round_fast(hi, false, e, neg, c.fmt);
		*bits = a;
		return a == b;
	}
};

/* Products of integer type T. */
template <typename T> struct scan_iprod {
	typedef T elem;
	typedef red_iprod V;
	enum { WINDOW = 0 };

	static __host__ __device__ __forceinline__ V ident(const scan_cfg &)
	{
		return V{};
	}

	/* a * b; a factor below 2^64 (every element) takes the 128x64-bit
	 * step, with the same overflow test as the full merge. */
	static __host__ __device__ __forceinline__ V
	add(const V &a, const V &b, const scan_cfg &)
	{
		V r = a;

		if ((r.mag[0] | r.mag[1]) && b.mag[0] && !b.mag[1]) {
			r.flags = red_pflags(r.flags, b.flags);
			red_ip_mul64(&r, b.mag[0]);
		} else {
			red_p_merge(&r, &b);
		}
		return r;
	}

	/* |x|, or a zero flag (iprod_mul: a zero flips no sign). */
	static __host__ __device__ __forceinline__ V of(T x, const scan_cfg &)
	{
		u64 m = (u64)x;
		bool neg = false;

		if constexpr (std::is_signed<T>::value) {
			neg = x < 0;
			m = neg ? 0 - (u64)(long long)x : (u64)(long long)x;
		}
		V v = { { m, 0 }, (neg ? RED_PNEG : 0) | (m ? 0 : RED_PZERO) };

		return v;
	}

	/* As cpu_scan's icur and put_int: a zero wins, then overflow past
	 * 2^128 fails, then the exact value must fit the output type. */
	static __host__ __device__ __forceinline__ bool
	out(const V &v, const scan_cfg &c, u64 *bits, struct scan_bad *why)
	{
		bool zero = v.flags & RED_PZERO;
		bool neg = (v.flags & RED_PNEG) && !zero;
		u128 mag = (u128)v.mag[1] << 64 | v.mag[0];
		unsigned nb = 8 * c.osize;

		if (zero)
			mag = 0;
		else if (mag == 0)
			mag = 1;		/* the empty product */
		why->lo = (u64)mag;
		why->hi = (u64)(mag >> 64);
		why->neg = neg;
		why->kind = SCAN_BAD_MAG;
		*bits = (u64)(neg ? -mag : mag);
		if (!zero && (v.flags & RED_POVER)) {
			why->kind = SCAN_BAD_WIDE;
			return false;
		}
		if (c.ofloat) {
			*bits = scan_round_fast(mag, false, 0, neg, c.fmt);
			return true;
		}
		if (c.osigned)
			return mag <= ((u128)1 << (nb - 1)) - !neg;
		return !neg && mag <= ((u128)1 << nb) - 1;
	}
};

/* The word of the empty prefix for op over type t (host, at open): what
 * cpu_reduce.c starts from, as a key or bits. */
static u64 scan_word_ident(enum gs_type t, enum gs_op op)
{
	unsigned nb = 8 * (unsigned)type_size(t);
	u64 umax = nb == 64 ? ~0ull : (1ull << nb) - 1;

	if (type_is_float(t))
		return op == OP_MIN ? scan_key_f64(__builtin_inf())
				    : scan_key_f64(-__builtin_inf());
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

/* ---- device: block scan and the three kernels ---------------------------- */

template <int K>
static __device__ __forceinline__ sum_val<K> scan_shfl_up(const sum_val<K> &v,
							  unsigned d)
{
	sum_val<K> r;

SCAN_UNROLL
	for (int j = 0; j < K; j++)
		r.l[j] = __shfl_up_sync(0xffffffffu, v.l[j], d);
	r.flags = __shfl_up_sync(0xffffffffu, v.flags, d);
	return r;
}

static __device__ __forceinline__ hsum_val scan_shfl_up(const hsum_val &v,
							unsigned d)
{
	return hsum_val{__shfl_up_sync(0xffffffffu, v.v, d)};
}

static __device__ __forceinline__ word_val scan_shfl_up(const word_val &v,
							unsigned d)
{
	word_val r;

	r.w = __shfl_up_sync(0xffffffffu, v.w, d);
	r.nan = __shfl_up_sync(0xffffffffu, v.nan, d);
	return r;
}

static __device__ __forceinline__ red_fprod scan_shfl_up(const red_fprod &v,
							 unsigned d)
{
	red_fprod r;

SCAN_UNROLL
	for (int j = 0; j < 2; j++) {
		r.lo[j] = __shfl_up_sync(0xffffffffu, v.lo[j], d);
		r.hi[j] = __shfl_up_sync(0xffffffffu, v.hi[j], d);
	}
	r.exp = __shfl_up_sync(0xffffffffu, v.exp, d);
	r.flags = __shfl_up_sync(0xffffffffu, v.flags, d);
	return r;
}

static __device__ __forceinline__ red_iprod scan_shfl_up(const red_iprod &v,
							 unsigned d)
{
	red_iprod r;

	r.mag[0] = __shfl_up_sync(0xffffffffu, v.mag[0], d);
	r.mag[1] = __shfl_up_sync(0xffffffffu, v.mag[1], d);
	r.flags = __shfl_up_sync(0xffffffffu, v.flags, d);
	return r;
}

/* Shared values a block scan needs: the warps' totals, their exclusive
 * prefixes and the block's total. */
#define SCAN_SHARED (2 * SCAN_WARPS + 1)

/* Exclusive scan of one value per thread across the block; *total gets
 * the block's total. Every thread must call it; sh holds SCAN_SHARED
 * values. Each warp scans its lanes (shuffles), warp 0 scans the warps'
 * totals the same way, and every thread adds its warp's prefix. Back to
 * back calls need no barrier between them: a call writes the totals
 * before its first barrier and the prefixes between its two, and every
 * thread reads the prefixes after the second. */
template <class Op>
static __device__ __forceinline__ typename Op::V
block_scan(typename Op::V in, typename Op::V *sh, typename Op::V *total,
	   const scan_cfg &c)
{
	typedef typename Op::V V;
	unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	V inc = in, ex, wp;

SCAN_UNROLL
	for (unsigned d = 1; d < 32; d <<= 1) {
		V o = scan_shfl_up(inc, d);

		if (lane >= d)
			inc = Op::add(o, inc, c);
	}
	if (lane == 31)
		sh[warp] = inc;
	ex = scan_shfl_up(inc, 1);
	__syncthreads();
	if (warp == 0) {
		V v = lane < SCAN_WARPS ? sh[lane] : Op::ident(c), e;

SCAN_UNROLL
		for (unsigned d = 1; d < SCAN_WARPS; d <<= 1) {
			V o = scan_shfl_up(v, d);

			if (lane >= d)
				v = Op::add(o, v, c);
		}
		e = scan_shfl_up(v, 1);
		if (lane < SCAN_WARPS)
			sh[SCAN_WARPS + lane] = lane ? e : Op::ident(c);
		if (lane == SCAN_WARPS - 1)
			sh[2 * SCAN_WARPS] = v;
	}
	__syncthreads();
	wp = sh[SCAN_WARPS + warp];
	*total = sh[2 * SCAN_WARPS];
	return lane ? Op::add(wp, ex, c) : wp;
}

/*
 * How the tile kernels cut a chunk: each column's tiles into parts of tpp
 * consecutive tiles, one block per (column, part), parts * columns blocks
 * in all. The totals kernel reduces a part, the carry kernel scans the
 * parts' totals, the out kernel walks a part's tiles in order carrying the
 * prefix from tile to tile, so the serial chain per column is only as long
 * as its parts.
 */
struct scan_split {
	size_t tpp;		/* tiles per part */
	unsigned parts;		/* parts per column */
};

/* ntiles (>= 1) tiles of each of `columns` columns, for at most `blocks`
 * blocks. */
static __host__ __device__ inline struct scan_split
scan_split_of(size_t ntiles, unsigned columns, unsigned blocks)
{
	unsigned per_col = blocks / columns ? blocks / columns : 1;
	struct scan_split p;

	p.tpp = (ntiles + per_col - 1) / per_col;
	p.tpp = p.tpp > SCAN_MAX_TPP ? SCAN_MAX_TPP : p.tpp;
	p.parts = (unsigned)((ntiles + p.tpp - 1) / p.tpp);
	return p;
}

template <class Op> struct scan_args {
	const typename Op::elem *in;
	void *out;
	size_t nrec, ntiles;
	struct scan_split sp;
	unsigned columns;
	scan_cfg cfg;
	typename Op::V *carry;		/* [columns] */
	typename Op::V *partv;		/* [columns][parts]: totals, then
					 * exclusive prefixes */
	struct scan_bad *bad;		/* [columns][parts] */
	struct scan_status *st;
	const struct scan_win *win;	/* float sums with a window, or NULL */
};

/* The job's cfg for this launch into *c; true if the chunk's mode is not
 * this variant's (the kernel then does nothing). */
template <class Op>
static __device__ __forceinline__ bool scan_off(const scan_args<Op> &a,
						scan_cfg *c)
{
	*c = a.cfg;
	if (!a.win)
		return false;
	if (a.win->mode != (int)Op::WINDOW)
		return true;
	c->w = a.win->w;
	return false;
}

/* The status the host reads; key SCAN_NONE when every output could be
 * written. */
struct scan_status {
	u64 key;			/* record * columns + column */
	u64 rec;
	struct scan_bad why;		/* of that output */
	unsigned col, pad;
};

/* A thread's SCAN_ITEMS consecutive elements as whole vectors (16 bytes,
 * or 8 for bytes): a tile starts SCAN_TILE elements into a buffer from
 * cudaMalloc, so each thread's run is aligned to its own size. Element
 * loads strided by SCAN_ITEMS touched 8 times the cache lines per load. */
template <typename T> union scan_vec {
	T x[SCAN_ITEMS];
	uint4 v[(sizeof(T) * SCAN_ITEMS + 15) / 16];
	u64 w;
};

/* One column, every item of this thread in the chunk, and buffers as
 * aligned as cudaMalloc's: vectors. */
template <class Op>
static __device__ __forceinline__ bool scan_vec_ok(const scan_args<Op> &a,
						   size_t r0)
{
	return a.columns == 1 && r0 + SCAN_ITEMS <= a.nrec &&
	       ((size_t)a.in | (size_t)a.out) % 16 == 0;
}

template <typename T>
static __device__ __forceinline__ void scan_vload(const T *p, T *x)
{
	scan_vec<T> u;

	if constexpr (sizeof(T) * SCAN_ITEMS >= 16) {
SCAN_UNROLL
		for (unsigned i = 0; i < sizeof(u.v) / 16; i++)
			u.v[i] = ((const uint4 *)p)[i];
	} else {
		u.w = *(const u64 *)p;
	}
SCAN_UNROLL
	for (int j = 0; j < SCAN_ITEMS; j++)
		x[j] = u.x[j];
}

/* The low bytes of bits[] as SCAN_ITEMS values of U at p, as vectors. */
template <typename U>
static __device__ __forceinline__ void scan_vstore(void *p, const u64 *bits)
{
	scan_vec<U> u;

SCAN_UNROLL
	for (int j = 0; j < SCAN_ITEMS; j++)
		u.x[j] = (U)bits[j];
	if constexpr (sizeof(U) * SCAN_ITEMS >= 16) {
SCAN_UNROLL
		for (unsigned i = 0; i < sizeof(u.v) / 16; i++)
			((uint4 *)p)[i] = u.v[i];
	} else {
		*(u64 *)p = u.w;
	}
}

/* This thread's records from r0 of column col into x[] (those before
 * nrec; the rest of x[] is left as it is). */
template <class Op>
static __device__ __forceinline__ void scan_fetch(const scan_args<Op> &a,
						  unsigned col, size_t r0,
						  typename Op::elem *x)
{
	if (scan_vec_ok(a, r0)) {
		scan_vload(a.in + r0, x);
		return;
	}
SCAN_UNROLL
	for (int j = 0; j < SCAN_ITEMS; j++) {
		size_t r = r0 + j;

		if (r < a.nrec)
			x[j] = a.in[r * a.columns + col];
	}
}

/* The records of x[] (from r0, those before nrec) added to t in order;
 * FULL: all SCAN_ITEMS of them are records (no tests). With e, each
 * record's value goes into e[] too (for scan_outs). */
template <bool FULL, class Op>
static __device__ __forceinline__ typename Op::V
scan_fold(const scan_args<Op> &a, const scan_cfg &c, size_t r0,
	  const typename Op::elem *x, typename Op::V t,
	  typename Op::V *e = NULL)
{
SCAN_UNROLL
	for (int j = 0; j < SCAN_ITEMS; j++)
		if (FULL || r0 + j < a.nrec) {
			typename Op::V v = Op::of(x[j], c);

			if (e)
				e[j] = v;
			t = Op::add(t, v, c);
		}
	return t;
}

/* scan_fold for a thread's records from r0: unrolled without tests where
 * they are whole vectors (all but a chunk's last tile, one column). */
template <class Op>
static __device__ __forceinline__ typename Op::V
scan_fold_any(const scan_args<Op> &a, const scan_cfg &c, size_t r0,
	      const typename Op::elem *x, typename Op::V t,
	      typename Op::V *e = NULL)
{
	if (scan_vec_ok(a, r0))
		return scan_fold<true>(a, c, r0, x, t, e);
	return scan_fold<false>(a, c, r0, x, t, e);
}

/* This block's column and its part's tiles [*t, *end). */
template <class Op>
static __device__ __forceinline__ unsigned scan_part(const scan_args<Op> &a,
						     size_t *t, size_t *end)
{
	size_t first = (size_t)(blockIdx.x % a.sp.parts) * a.sp.tpp;

	*t = first;
	*end = first + a.sp.tpp < a.ntiles ? first + a.sp.tpp : a.ntiles;
	return blockIdx.x / a.sp.parts;
}

/* Phase 1: every part's total (each thread's records of every tile of
 * the part, tile by tile, then the block's total). The next tile's
 * records are loaded while this one's are added. */
template <class Op>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_totals_kernel(const scan_args<Op> a)
{
	typedef typename Op::V V;
	__shared__ V sh[SCAN_SHARED];
	typename Op::elem x[SCAN_ITEMS], nx[SCAN_ITEMS];
	size_t t, end, r0;
	unsigned col;
	scan_cfg c;
	V sum, tot;

	if (scan_off(a, &c))
		return;
	col = scan_part(a, &t, &end);
	r0 = t * SCAN_TILE + (size_t)threadIdx.x * SCAN_ITEMS;
	sum = Op::ident(c);
	scan_fetch(a, col, r0, x);
	for (; t < end; t++, r0 += SCAN_TILE) {
		if (t + 1 < end)
			scan_fetch(a, col, r0 + SCAN_TILE, nx);
		sum = Op::add(sum, scan_fold_any(a, c, r0, x, Op::ident(c)), c);
SCAN_UNROLL
		for (int j = 0; j < SCAN_ITEMS; j++)
			x[j] = nx[j];
	}
	block_scan<Op>(sum, sh, &tot, c);
	if (threadIdx.x == 0)
		a.partv[blockIdx.x] = tot;
}

/* Phase 2: block `col` turns its column's part totals into exclusive
 * prefixes from the carry, and advances the carry. */
template <class Op>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_carry_kernel(const scan_args<Op> a)
{
	typedef typename Op::V V;
	__shared__ V sh[SCAN_SHARED];
	unsigned col = blockIdx.x;
	V carry, *pv = a.partv + (size_t)col * a.sp.parts;
	scan_cfg c;

	if (scan_off(a, &c))
		return;
	carry = a.carry[col];
	for (unsigned p0 = 0; p0 < a.sp.parts; p0 += SCAN_THREADS) {
		unsigned i = p0 + threadIdx.x;
		V v = i < a.sp.parts ? pv[i] : Op::ident(c), tot, ex;

		ex = block_scan<Op>(v, sh, &tot, c);
		if (i < a.sp.parts)
			pv[i] = Op::add(carry, ex, c);
		carry = Op::add(carry, tot, c);
	}
	if (threadIdx.x == 0)
		a.carry[col] = carry;
}

static __device__ __forceinline__ void scan_store(void *out, size_t i,
						  unsigned size, u64 bits)
{
	switch (size) {
	case 1: ((unsigned char *)out)[i] = (unsigned char)bits; break;
	case 2: ((unsigned short *)out)[i] = (unsigned short)bits; break;
	case 4: ((unsigned *)out)[i] = (unsigned)bits; break;
	default: ((u64 *)out)[i] = bits; break;
	}
}

/* A tile's smallest failing key: its why goes to bad[blockIdx.x] (the
 * part's), the key into the status. Every thread calls this (uniform per
 * block); true if the tile had a failing output. */
template <class Op>
static __device__ __forceinline__ bool scan_fail(const scan_args<Op> &a,
						 u64 key, const struct scan_bad &why)
{
	__shared__ u64 least;
	bool any;

	if (threadIdx.x == 0)
		least = SCAN_NONE;
	__syncthreads();
	if (key != SCAN_NONE)
		atomicMin(&least, key);
	__syncthreads();
	any = least != SCAN_NONE;
	if (key != SCAN_NONE && key == least) {
		a.bad[blockIdx.x] = why;
		atomicMin(&a.st->key, key);
	}
	__syncthreads();	/* least is reset by the next tile */
	return any;
}

/* The out kernel keeps each record's value from the scan of its tile to
 * its output where values are small (not the wide sums' K limbs). */
template <class Op> struct scan_keep {
	static const bool value = sizeof(typename Op::V) <= 16;
};

/* The outputs of a thread's records of a tile from run, the prefix
 * before them; the first failing key and why into *key, *fail. VEC: all
 * SCAN_ITEMS are records of one column, stored as vectors. The records'
 * values are e[] where the out kernel keeps them, of(x[]) otherwise. */
template <bool VEC, class Op>
static __device__ __forceinline__ void scan_outs(const scan_args<Op> &a,
						 const scan_cfg &c, unsigned col,
						 size_t r0,
						 const typename Op::elem *x,
						 const typename Op::V *e,
						 typename Op::V run, u64 *key,
						 struct scan_bad *fail)
{
	u64 bits[SCAN_ITEMS];
	struct scan_bad why;

SCAN_UNROLL
	for (int j = 0; j < SCAN_ITEMS; j++) {
		size_t r = r0 + j;
		typename Op::V v;

		if (!VEC && r >= a.nrec)
			break;
		if constexpr (scan_keep<Op>::value)
			v = e[j];
		else
			v = Op::of(x[j], c);
		if (!c.excl)
			run = Op::add(run, v, c);
		/* a failing output's bits are stored too: the writer keeps
		 * only the records before it */
		if (!Op::out(run, c, &bits[j], &why) && *key == SCAN_NONE) {
			*key = (u64)r * a.columns + col;
			*fail = why;
		}
		if (!VEC)
			scan_store(a.out, r * a.columns + col, c.osize, bits[j]);
		if (c.excl)
			run = Op::add(run, v, c);
	}
	if (VEC) {
		void *p = (char *)a.out + r0 * c.osize;

		switch (c.osize) {
		case 1: scan_vstore<unsigned char>(p, bits); break;
		case 2: scan_vstore<unsigned short>(p, bits); break;
		case 4: scan_vstore<unsigned>(p, bits); break;
		default: scan_vstore<u64>(p, bits); break;
		}
	}
}

/* Phase 3: every output of a part, tile by tile from the part's prefix
 * (the next tile's records load meanwhile). A column's keys grow with the
 * record, so the part's first failing tile holds its smallest key: later
 * tiles record none. */
template <class Op>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_out_kernel(const scan_args<Op> a)
{
	typedef typename Op::V V;
	__shared__ V sh[SCAN_SHARED];
	typename Op::elem x[SCAN_ITEMS], nx[SCAN_ITEMS];
	V e[scan_keep<Op>::value ? SCAN_ITEMS : 1];
	V *ep = scan_keep<Op>::value ? e : NULL;
	size_t t, end, r0;
	unsigned col;
	bool failed = false;
	scan_cfg c;
	V pre;

	if (scan_off(a, &c))
		return;
	col = scan_part(a, &t, &end);
	r0 = t * SCAN_TILE + (size_t)threadIdx.x * SCAN_ITEMS;
	pre = a.partv[blockIdx.x];
	scan_fetch(a, col, r0, x);
	for (; t < end; t++, r0 += SCAN_TILE) {
		V tot, run;
		u64 key = SCAN_NONE;
		struct scan_bad fail = {};
		bool vec = scan_vec_ok(a, r0);

		if (t + 1 < end)
			scan_fetch(a, col, r0 + SCAN_TILE, nx);
		run = vec ? scan_fold<true>(a, c, r0, x, Op::ident(c), ep)
			  : scan_fold<false>(a, c, r0, x, Op::ident(c), ep);
		run = block_scan<Op>(run, sh, &tot, c);
		run = Op::add(pre, run, c);
		pre = Op::add(pre, tot, c);
		if (vec)
			scan_outs<true>(a, c, col, r0, x, e, run, &key, &fail);
		else
			scan_outs<false>(a, c, col, r0, x, e, run, &key, &fail);
		if (c.can_fail && !failed)
			failed = scan_fail(a, key, fail);
SCAN_UNROLL
		for (int j = 0; j < SCAN_ITEMS; j++)
			x[j] = nx[j];
	}
}

/* After phase 3: the failing record, column and why, for the host. */
static __global__ void scan_status_kernel(struct scan_status *st,
					  const struct scan_bad *bad,
					  unsigned columns, struct scan_split sp)
{
	u64 rec;

	if (st->key == SCAN_NONE)
		return;
	rec = st->key / columns;
	st->rec = rec;
	st->col = (unsigned)(st->key % columns);
	st->why = bad[(size_t)st->col * sp.parts + rec / SCAN_TILE / sp.tpp];
}

/* A part's exact total and bits, from scan_xtotals_kernel. */
struct scan_xpart {
	long long slot[EXACT_SLOTS];	/* exact.cuh's: slot q weighs
					 * 2^(32q + EXACT_EMIN) */
	unsigned flags;			/* EXACT_NAN | EXACT_PINF | EXACT_NINF */
	int lo, nhi;			/* as struct scan_win's */
};

/* The exact.cuh form of an element: f32 bits (bf16 widens exactly), or
 * f64 bits. */
static __device__ __forceinline__ unsigned scan_xbits(float x)
{
	return __float_as_uint(x);
}

static __device__ __forceinline__ unsigned scan_xbits(scan_bf16 x)
{
	return (unsigned)x.v << 16;
}

static __device__ __forceinline__ u64 scan_xbits(double x)
{
	return (u64)__double_as_longlong(x);
}

/* One element into a window and thread accumulator. */
static __device__ __forceinline__ void scan_xadd(struct exact_w32 *w,
						 struct exact_thr *t, unsigned u,
						 long long *slot)
{
	exact_w32_add(w, t, u, slot);
}

static __device__ __forceinline__ void scan_xadd(struct exact_w64 *w,
						 struct exact_thr *t, u64 u,
						 long long *slot)
{
	exact_w64_add(w, t, u, slot);
}

/* A thread's records of a full tile (whole vectors) into w: eight f32
 * (bf16 widened) or four and four f64, through the windows' branch-free
 * paths. */
static __device__ __forceinline__ void scan_xadd8(struct exact_w32 *w,
						  struct exact_thr *t,
						  const float *x, long long *slot)
{
	uint4 a = make_uint4(__float_as_uint(x[0]), __float_as_uint(x[1]),
			     __float_as_uint(x[2]), __float_as_uint(x[3]));
	uint4 c = make_uint4(__float_as_uint(x[4]), __float_as_uint(x[5]),
			     __float_as_uint(x[6]), __float_as_uint(x[7]));

	exact_w32_add8(w, t, a, c, slot);
}

static __device__ __forceinline__ void scan_xadd8(struct exact_w32 *w,
						  struct exact_thr *t,
						  const scan_bf16 *x,
						  long long *slot)
{
	uint4 a = make_uint4(scan_xbits(x[0]), scan_xbits(x[1]),
			     scan_xbits(x[2]), scan_xbits(x[3]));
	uint4 c = make_uint4(scan_xbits(x[4]), scan_xbits(x[5]),
			     scan_xbits(x[6]), scan_xbits(x[7]));

	exact_w32_add8(w, t, a, c, slot);
}

static __device__ __forceinline__ void scan_xadd8(struct exact_w64 *w,
						  struct exact_thr *t,
						  const double *x, long long *slot)
{
	ulonglong2 v[4];

SCAN_UNROLL
	for (int i = 0; i < 4; i++)
		v[i] = make_ulonglong2(scan_xbits(x[2 * i]), scan_xbits(x[2 * i + 1]));
	exact_w64_add4(w, t, v[0], v[1], slot);
	exact_w64_add4(w, t, v[2], v[3], slot);
}

static __device__ __forceinline__ void scan_xfold(struct exact_w32 *w,
						  struct exact_thr *t,
						  long long *slot)
{
	exact_w32_fold(w, t, slot);
}

static __device__ __forceinline__ void scan_xfold(struct exact_w64 *w,
						  struct exact_thr *t,
						  long long *slot)
{
	exact_w64_fold(w, t, slot);
}

/* Window phase 1: each part's exact total and lowest and top bits, in one
 * read of the chunk (the split is the out kernel's). a: only in, nrec,
 * ntiles, sp and columns are used. A window holds at most 2^21 f64 terms
 * between folds and a block's slots 2^28 (EXACT_WIN_TERMS,
 * EXACT_BLOCK_TERMS): scan_split_of keeps a part under SCAN_MAX_TPP tiles,
 * so a thread has at most 2^19 records and a block 2^27, and one fold at
 * the end does. */
static_assert((size_t)SCAN_MAX_TPP * SCAN_ITEMS <= EXACT_WIN_TERMS,
	      "a thread's records of a part overflow an f64 window");
static_assert((unsigned long long)SCAN_MAX_TPP * SCAN_TILE <= EXACT_BLOCK_TERMS,
	      "a part's records overflow a block's exact slots");
template <typename T, class Op>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_xtotals_kernel(const scan_args<Op> a, struct scan_xpart *xp)
{
	typedef typename std::conditional<sizeof(T) == 8, struct exact_w64,
					  struct exact_w32>::type W;
	__shared__ long long slot[EXACT_SLOTS];
	__shared__ int sl[SCAN_WARPS], sn[SCAN_WARPS];
	__shared__ unsigned sf;
	T x[SCAN_ITEMS], nx[SCAN_ITEMS];
	int lo = SCAN_WIN_NONE, nhi = SCAN_WIN_NONE;
	unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, col;
	size_t t, end, r0;
	struct exact_thr th;
	scan_wbits<T> wb;
	W w;

	exact_block_zero(slot, EXACT_SLOTS);
	if (threadIdx.x == 0)
		sf = 0;
	__syncthreads();
	exact_thr_init(&th, EXACT_EMIN);
	w.acc = 0;
	w.b = 1;
	scan_wbits_init(&wb);
	col = scan_part(a, &t, &end);
	r0 = t * SCAN_TILE + (size_t)threadIdx.x * SCAN_ITEMS;
	scan_fetch(a, col, r0, x);
	for (; t < end; t++, r0 += SCAN_TILE) {
		if (t + 1 < end)	/* the next tile loads meanwhile */
			scan_fetch(a, col, r0 + SCAN_TILE, nx);
		if (scan_vec_ok(a, r0)) {
			scan_xadd8(&w, &th, x, slot);
SCAN_UNROLL
			for (int j = 0; j < SCAN_ITEMS; j++)
				scan_wbits_add(&wb, x[j]);
		} else {
			for (int j = 0; j < SCAN_ITEMS && r0 + j < a.nrec; j++) {
				scan_xadd(&w, &th, scan_xbits(x[j]), slot);
				scan_wbits_add(&wb, x[j]);
			}
		}
SCAN_UNROLL
		for (int j = 0; j < SCAN_ITEMS; j++)
			x[j] = nx[j];
	}
	scan_wbits_done(&wb, &lo, &nhi);
	scan_xfold(&w, &th, slot);
	exact_thr_flush(&th, slot);
	if (th.flags)
		atomicOr(&sf, th.flags);
SCAN_UNROLL
	for (unsigned d = 16; d; d >>= 1) {
		int o = __shfl_xor_sync(0xffffffffu, lo, d);
		int p = __shfl_xor_sync(0xffffffffu, nhi, d);

		lo = o < lo ? o : lo;
		nhi = p < nhi ? p : nhi;
	}
	if (lane == 0) {
		sl[warp] = lo;
		sn[warp] = nhi;
	}
	__syncthreads();
	for (unsigned i = threadIdx.x; i < EXACT_SLOTS; i += SCAN_THREADS)
		xp[blockIdx.x].slot[i] = slot[i];
	if (threadIdx.x == 0) {
		for (unsigned i = 1; i < SCAN_WARPS; i++) {
			lo = sl[i] < lo ? sl[i] : lo;
			nhi = sn[i] < nhi ? sn[i] : nhi;
		}
		xp[blockIdx.x].flags = sf;
		xp[blockIdx.x].lo = lo;
		xp[blockIdx.x].nhi = nhi;
	}
}

/* Window phase 2 (one block): the chunk's window from every part's bits
 * and the wide carries; then per column the parts' totals as wide values,
 * scanned from the carry: each part's prefix, narrowed to the window, into
 * partv (as the chosen variant's values), and the carry advanced. */
template <typename T, int K, int L>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_xcarry_kernel(const struct scan_xpart *xp, sum_val<K> *carry,
		   struct scan_win *win, void *partv, unsigned columns,
		   struct scan_split sp, size_t nrec, int hlo, int hhi)
{
	typedef scan_sum<T, K, L> Op;
	typedef sum_val<K> V;
	__shared__ V sh[SCAN_SHARED];
	__shared__ int sl[SCAN_WARPS], sn[SCAN_WARPS];
	__shared__ unsigned sf[SCAN_WARPS];
	__shared__ struct scan_win pick;
	unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	unsigned n = sp.parts * columns, fl = 0;
	int lo = SCAN_WIN_NONE, nhi = SCAN_WIN_NONE, d;
	scan_cfg c;

	memset(&c, 0, sizeof(c));	/* sums' add and ident need none */
	for (unsigned i = threadIdx.x; i < n; i += SCAN_THREADS) {
		lo = xp[i].lo < lo ? xp[i].lo : lo;
		nhi = xp[i].nhi < nhi ? xp[i].nhi : nhi;
		fl |= xp[i].flags;
	}
SCAN_UNROLL
	for (unsigned s = 16; s; s >>= 1) {
		int o = __shfl_xor_sync(0xffffffffu, lo, s);
		int p = __shfl_xor_sync(0xffffffffu, nhi, s);

		lo = o < lo ? o : lo;
		nhi = p < nhi ? p : nhi;
		fl |= __shfl_xor_sync(0xffffffffu, fl, s);
	}
	if (lane == 0) {
		sl[warp] = lo;
		sn[warp] = nhi;
		sf[warp] = fl;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		for (unsigned i = 1; i < SCAN_WARPS; i++) {
			lo = sl[i] < lo ? sl[i] : lo;
			nhi = sn[i] < nhi ? sn[i] : nhi;
			fl |= sf[i];
		}
		pick.lo = lo;
		pick.nhi = nhi;
		scan_window_pick<K, L>(&pick, carry, columns, nrec);
		for (unsigned col = 0; col < columns; col++)
			fl |= carry[col].flags;
		scan_hsum_pick(&pick, fl, hlo, hhi);
		*win = pick;
	}
	__syncthreads();
	d = pick.w - L;
	for (unsigned col = 0; col < columns; col++) {
		V cy = carry[col];

		for (unsigned p0 = 0; p0 < sp.parts; p0 += SCAN_THREADS) {
			unsigned p = p0 + threadIdx.x;
			size_t i = (size_t)col * sp.parts + p;
			V v = p < sp.parts ? scan_xwide<K, L>(xp[i].slot, xp[i].flags)
					   : Op::ident(c), tot, pre;

			pre = Op::add(cy, block_scan<Op>(v, sh, &tot, c), c);
			cy = Op::add(cy, tot, c);
			if (p >= sp.parts)
				continue;
			switch (pick.mode) {
			case 1: ((sum_val<1> *)partv)[i] = sum_narrow<K, 1>(pre, d); break;
			case 2: ((sum_val<2> *)partv)[i] = sum_narrow<K, 2>(pre, d); break;
			case 3: ((sum_val<3> *)partv)[i] = sum_narrow<K, 3>(pre, d); break;
			case 4: ((hsum_val *)partv)[i].v =
					(long long)sum_narrow<K, 1>(pre, d).l[0];
				break;
			default: ((V *)partv)[i] = pre; break;
			}
		}
		if (threadIdx.x == 0)
			carry[col] = cy;
	}
}

/* ---- host: the handle and the launchers ---------------------------------- */

struct gpu_scan {
	struct gs_job job;
	scan_cfg cfg;
	size_t max_records;
	unsigned nsm;
	unsigned max_parts;		/* partv's, bad's, xpart's entries */
	size_t vsize;			/* bytes of one prefix value */
	void *carry, *partv;
	struct scan_bad *bad;
	struct scan_status *st;
	struct scan_win *win;		/* float sums of f32, bf16, f64: */
	struct scan_xpart *xpart;	/* their parts' exact totals */
	bool xsum;			/* such a sum: run is scan_run_win */
	cudaError_t (*run)(struct gpu_scan *g, const void *in, void *out,
			   size_t nrec, cudaStream_t s);
	cudaError_t (*load)(void);	/* loads run's kernels */
	void (*ident)(const scan_cfg &c, void *dst, unsigned n);
};

template <class Op>
static void scan_ident_host(const scan_cfg &c, void *dst, unsigned n)
{
	typename Op::V *v = (typename Op::V *)dst;

	for (unsigned i = 0; i < n; i++)
		v[i] = Op::ident(c);
}

/* Resident blocks per SM of kernel KERN (SCAN_THREADS threads a block),
 * at most SCAN_MAX_BLOCKS_PER_SM. */
template <auto KERN>
static unsigned scan_fit(void)
{
	static int occ;		/* the same for every device of one kind */

	if (occ == 0 && (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
				 &occ, KERN, SCAN_THREADS, 0) != cudaSuccess ||
			 occ < 1)) {
		cudaGetLastError();
		occ = 1;
	}
	return occ < SCAN_MAX_BLOCKS_PER_SM ? (unsigned)occ : SCAN_MAX_BLOCKS_PER_SM;
}

/*
 * Load kernels KERNS now. CUDA loads a kernel at its first launch (lazy
 * loading, the default), and in a scan's first chunk those loads held the
 * pipeline up: on the H100, gpustat -v showed some 40 ms more of submit
 * and of the reader waiting for buffers than with CUDA_MODULE_LOADING=EAGER.
 * gpu_scan_open loads them instead, before any copy is under way.
 * (Querying a kernel's attributes loads it.)
 */
template <auto... KERNS>
static cudaError_t scan_load(void)
{
	cudaFuncAttributes at;
	cudaError_t e = cudaSuccess;

	((e = e != cudaSuccess ? e : cudaFuncGetAttributes(&at, KERNS)), ...);
	return e;
}

/* Blocks per SM the tile kernels of variant Op are given: as many of its
 * out kernel (the slowest phase) as fit at once. */
template <class Op>
static unsigned scan_occupancy(void)
{
	return scan_fit<scan_out_kernel<Op>>();
}

/* The arguments of variant Op's kernels for a chunk, cut as sp. */
template <class Op>
static scan_args<Op> scan_args_of(struct gpu_scan *g, const void *in,
				  void *out, size_t nrec, struct scan_split sp,
				  const struct scan_win *win)
{
	scan_args<Op> a;

	a.in = (const typename Op::elem *)in;
	a.out = out;
	a.nrec = nrec;
	a.ntiles = (nrec + SCAN_TILE - 1) / SCAN_TILE;
	a.columns = g->job.columns;
	a.sp = sp;
	a.cfg = g->cfg;
	a.carry = (typename Op::V *)g->carry;
	a.win = win;
	a.partv = (typename Op::V *)g->partv;
	a.bad = g->bad;
	a.st = g->st;
	return a;
}

/* How a chunk of nrec records is cut for bps blocks per SM. */
static struct scan_split scan_split_at(struct gpu_scan *g, size_t nrec,
				       unsigned bps)
{
	unsigned blocks = g->nsm * bps;

	return scan_split_of((nrec + SCAN_TILE - 1) / SCAN_TILE, g->job.columns,
			     blocks < g->max_parts ? blocks : g->max_parts);
}

/* The three phases of Op, from the carry. */
template <class Op>
static cudaError_t scan_run(struct gpu_scan *g, const void *in, void *out,
			    size_t nrec, cudaStream_t s)
{
	scan_args<Op> a = scan_args_of<Op>(g, in, out, nrec,
					   scan_split_at(g, nrec, scan_occupancy<Op>()),
					   NULL);
	unsigned blocks = a.sp.parts * a.columns;

	scan_totals_kernel<Op><<<blocks, SCAN_THREADS, 0, s>>>(a);
	CUDA_LAUNCHED();
	scan_carry_kernel<Op><<<a.columns, SCAN_THREADS, 0, s>>>(a);
	CUDA_LAUNCHED();
	scan_out_kernel<Op><<<blocks, SCAN_THREADS, 0, s>>>(a);
	CUDA_LAUNCHED();
	if (a.cfg.can_fail) {
		scan_status_kernel<<<1, 1, 0, s>>>(a.st, a.bad, a.columns, a.sp);
		CUDA_LAUNCHED();
	}
	return cudaSuccess;
}

/* Variant Op's out kernel, which works only if the chunk's window is its. */
template <class Op>
static cudaError_t scan_run_out(struct gpu_scan *g, const void *in, void *out,
				size_t nrec, struct scan_split sp, cudaStream_t s)
{
	scan_args<Op> a = scan_args_of<Op>(g, in, out, nrec, sp, g->win);

	scan_out_kernel<Op><<<sp.parts * a.columns, SCAN_THREADS, 0, s>>>(a);
	CUDA_LAUNCHED();
	return cudaSuccess;
}

/*
 * A float sum: the parts' exact totals and bits in one read, then the
 * window, the parts' prefixes and the new carry in one block, all on the
 * device; then every variant's out kernel is launched (the wide one, one
 * to three limbs, and scan_hsum for an output of O, float or double; void:
 * none) and only the chosen one works (no host round trip). Every kernel
 * cuts the chunk alike.
 */
template <typename T, int K, int L, typename O>
static cudaError_t scan_run_win(struct gpu_scan *g, const void *in, void *out,
				size_t nrec, cudaStream_t s)
{
	typedef scan_nsum<T, 1> N1;
	unsigned bps = scan_occupancy<N1>();
	int hlo = 1, hhi = 0;

	/* where scan_hsum may run, cut for it and the totals kernel (both
	 * fit more blocks per SM than the other out kernels, which then take
	 * more rounds) */
	if constexpr (!std::is_void<O>::value) {
		scan_hsum_range<T, O>(&hlo, &hhi);
		unsigned ho = scan_occupancy<scan_hsum<T, O>>();
		unsigned xo = scan_fit<scan_xtotals_kernel<T, N1>>();

		bps = ho < xo ? ho : xo;
	}
	struct scan_split sp = scan_split_at(g, nrec, bps);
	scan_args<N1> a = scan_args_of<N1>(g, in, out, nrec, sp, NULL);
	unsigned blocks = sp.parts * a.columns;

	scan_xtotals_kernel<T, N1><<<blocks, SCAN_THREADS, 0, s>>>(a, g->xpart);
	CUDA_LAUNCHED();
	scan_xcarry_kernel<T, K, L><<<1, SCAN_THREADS, 0, s>>>(
		g->xpart, (sum_val<K> *)g->carry, g->win, g->partv, a.columns,
		sp, nrec, hlo, hhi);
	CUDA_LAUNCHED();
	CUDA_RET((scan_run_out<scan_sum<T, K, L>>(g, in, out, nrec, sp, s)));
	CUDA_RET((scan_run_out<N1>(g, in, out, nrec, sp, s)));
	CUDA_RET((scan_run_out<scan_nsum<T, 2>>(g, in, out, nrec, sp, s)));
	CUDA_RET((scan_run_out<scan_nsum<T, 3>>(g, in, out, nrec, sp, s)));
	if constexpr (!std::is_void<O>::value)
		CUDA_RET((scan_run_out<scan_hsum<T, O>>(g, in, out, nrec, sp, s)));
	return cudaSuccess;
}

/* scan_run_win's kernels (scan_load). */
template <typename T, int K, int L, typename O>
static cudaError_t scan_load_win(void)
{
	typedef scan_nsum<T, 1> N1;

	CUDA_RET((scan_load<scan_xtotals_kernel<T, N1>, scan_xcarry_kernel<T, K, L>,
			    scan_out_kernel<scan_sum<T, K, L>>, scan_out_kernel<N1>,
			    scan_out_kernel<scan_nsum<T, 2>>,
			    scan_out_kernel<scan_nsum<T, 3>>>()));
	if constexpr (!std::is_void<O>::value)
		CUDA_RET((scan_load<scan_out_kernel<scan_hsum<T, O>>>()));
	return cudaSuccess;
}

template <class Op>
static void scan_bind(struct gpu_scan *g)
{
	g->run = scan_run<Op>;
	g->load = scan_load<scan_totals_kernel<Op>, scan_carry_kernel<Op>,
			    scan_out_kernel<Op>, scan_status_kernel>;
	g->ident = scan_ident_host<Op>;
	g->vsize = sizeof(typename Op::V);
}

/* The monoid of the job's op over element type T. */
template <typename T, int K, int L>
static void scan_bind_type(struct gpu_scan *g)
{
	if (g->job.op == OP_PROD) {
		if constexpr (scan_is_float<T>::value)
			scan_bind<scan_fprod<T>>(g);
		else
			scan_bind<scan_iprod<T>>(g);
		return;
	}
	if (g->job.op != OP_SUM) {
		scan_word_op<T>(g->job.op, [g](auto w) {
			scan_bind<decltype(w)>(g);
		});
		return;
	}
	scan_bind<scan_sum<T, K, L>>(g);
	/* f16 and the integers are 2 limbs already; f32 and f64 outputs
	 * also have scan_hsum */
	if constexpr (K > 2) {
		g->run = g->cfg.fmt.width == 32 ? scan_run_win<T, K, L, float>
		       : g->cfg.fmt.width == 64 ? scan_run_win<T, K, L, double>
		       : scan_run_win<T, K, L, void>;
		g->load = g->cfg.fmt.width == 32 ? scan_load_win<T, K, L, float>
			: g->cfg.fmt.width == 64 ? scan_load_win<T, K, L, double>
			: scan_load_win<T, K, L, void>;
		g->xsum = true;
	}
}

static bool scan_bind_job(struct gpu_scan *g)
{
	switch (g->job.dtype.type) {
	case GS_U8: scan_bind_type<unsigned char, 2, 0>(g); break;
	case GS_I8: scan_bind_type<signed char, 2, 0>(g); break;
	case GS_U16: scan_bind_type<unsigned short, 2, 0>(g); break;
	case GS_I16: scan_bind_type<short, 2, 0>(g); break;
	case GS_U32: scan_bind_type<unsigned, 2, 0>(g); break;
	case GS_I32: scan_bind_type<int, 2, 0>(g); break;
	case GS_U64: scan_bind_type<unsigned long long, 2, 0>(g); break;
	case GS_I64: scan_bind_type<long long, 2, 0>(g); break;
	case GS_F16: scan_bind_type<scan_f16, 2, -24>(g); break;
	case GS_BF16: scan_bind_type<scan_bf16, 6, -149>(g); break;
	case GS_F32: scan_bind_type<float, 6, -149>(g); break;
	case GS_F64: scan_bind_type<double, 34, -1074>(g); break;
	default: return false;
	}
	return true;
}

static enum xfmt scan_xfmt(enum gs_type t)
{
	switch (t) {
	case GS_F16: return XF_F16;
	case GS_BF16: return XF_BF16;
	case GS_F32: return XF_F32;
	default: return XF_F64;
	}
}

static scan_cfg scan_cfg_of(const struct gs_job *job)
{
	scan_cfg c;
	enum gs_type ot = job->out_type;

	memset(&c, 0, sizeof(c));
	c.op = job->op;
	c.excl = job->exclusive;
	c.ofloat = type_is_float(ot);
	c.osigned = type_is_signed(ot);
	c.osize = (unsigned)type_size(ot);
	/* integers that may not fit; products past 2^128 or not roundable */
	c.can_fail = (!type_is_float(job->dtype.type) && !c.ofloat) ||
		     job->op == OP_PROD;
	c.fmt = scan_fmts[c.ofloat ? scan_xfmt(ot) : XF_F64];
	if (job->op >= OP_MIN)
		c.ident = scan_word_ident(job->dtype.type, job->op);
	return c;
}

/* ---- the API (scan.h) ----------------------------------------------------- */

static const char *const scan_op_names[] = {
	"sum", "prod", "min", "max", "and", "or", "xor",
};

bool gpu_scan_supports(const struct gs_job *job, const char **why)
{
	bool flt = type_is_float(job->dtype.type);

	if (job->cmd != CMD_SCAN) {
		*why = "not a scan";
		return false;
	}
	if (flt && (job->op >= OP_AND || !type_is_float(job->out_type))) {
		*why = "a float scan needs a sum/prod/min/max op and a float output";
		return false;
	}
	if (job->columns < 1 || job->columns > SCAN_MAX_COLUMNS) {
		*why = "scans of more than 16 columns run on the CPU";
		return false;
	}
	return true;
}

void gpu_scan_close(struct gpu_scan *g)
{
	if (!g)
		return;
	cudaFree(g->carry);
	cudaFree(g->partv);
	cudaFree(g->bad);
	cudaFree(g->st);
	cudaFree(g->win);
	cudaFree(g->xpart);
	delete g;
}

static cudaError_t scan_alloc(struct gpu_scan *g)
{
	unsigned c = g->job.columns;
	void *host;
	cudaError_t e;

	CUDA_RET(cudaMalloc(&g->carry, c * g->vsize));
	CUDA_RET(cudaMalloc(&g->partv, g->max_parts * g->vsize));
	CUDA_RET(cudaMalloc((void **)&g->bad, g->max_parts * sizeof(struct scan_bad)));
	CUDA_RET(cudaMalloc((void **)&g->st, sizeof(struct scan_status)));
	CUDA_RET(cudaMemset(g->st, 0xff, sizeof(struct scan_status)));
	CUDA_RET(cudaMalloc((void **)&g->win, sizeof(struct scan_win)));
	CUDA_RET(cudaMemset(g->win, 0, sizeof(struct scan_win)));
	if (g->xsum)
		CUDA_RET(cudaMalloc((void **)&g->xpart,
				    g->max_parts * sizeof(struct scan_xpart)));
	host = malloc(c * g->vsize);
	if (!host)
		return cudaErrorMemoryAllocation;
	g->ident(g->cfg, host, c);
	e = cudaMemcpy(g->carry, host, c * g->vsize, cudaMemcpyHostToDevice);
	free(host);
	CUDA_RET(e);
	/* the backend's streams are non-blocking: they do not wait for work
	 * on the default stream, so it must be done before the first launch */
	return cudaStreamSynchronize(0);
}

cudaError_t gpu_scan_open(const struct gs_job *job, size_t max_records,
			  int nsm, struct gpu_scan **out)
{
	struct gpu_scan *g = new (std::nothrow) gpu_scan();
	const char *why;
	cudaError_t e;
	size_t tiles;

	*out = NULL;
	if (!g)
		return cudaErrorMemoryAllocation;
	g->job = *job;
	g->cfg = scan_cfg_of(job);
	g->max_records = max_records;
	g->nsm = (unsigned)(nsm > 0 ? nsm : 1);
	/* a split gives each column at least one block, and more parts
	 * than blocks where a part would pass SCAN_MAX_TPP tiles */
	tiles = (max_records + SCAN_TILE - 1) / SCAN_TILE;
	g->max_parts = g->nsm * SCAN_MAX_BLOCKS_PER_SM + SCAN_MAX_COLUMNS +
		       job->columns * ((tiles + SCAN_MAX_TPP - 1) / SCAN_MAX_TPP);
	if (!gpu_scan_supports(job, &why) || !scan_bind_job(g)) {
		delete g;
		return cudaErrorInvalidValue;
	}
	e = scan_alloc(g);
	if (e == cudaSuccess)
		e = g->load();
	if (e != cudaSuccess) {
		cudaGetLastError();	/* a failed malloc must not taint a launch check */
		gpu_scan_close(g);
		return e;
	}
	*out = g;
	return cudaSuccess;
}

cudaError_t gpu_scan_launch(struct gpu_scan *g, const void *d_in, void *d_out,
			    size_t nrec, cudaStream_t s)
{
	if (nrec > g->max_records)
		return cudaErrorInvalidValue;
	CUDA_RET(cudaMemsetAsync(g->st, 0xff, sizeof(struct scan_status), s));
	if (nrec == 0)
		return cudaSuccess;
	return g->run(g, d_in, d_out, nrec, s);
}

size_t gpu_scan_status_bytes(void)
{
	return sizeof(struct scan_status);
}

cudaError_t gpu_scan_status_copy(struct gpu_scan *g, void *host_pinned_dst,
				 cudaStream_t s)
{
	return cudaMemcpyAsync(host_pinned_dst, g->st, sizeof(struct scan_status),
			       cudaMemcpyDeviceToHost, s);
}

/* Decimal digits of (neg ? -m : m) into buf (>= 41 bytes). */
static void scan_u128_dec(u128 m, bool neg, char *buf)
{
	char tmp[40];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + (int)(m % 10));
		m /= 10;
	} while (m);
	if (neg)
		*buf++ = '-';
	while (n)
		*buf++ = tmp[--n];
	*buf = 0;
}

/* cpu_scan's messages, word for word. */
int gpu_scan_status_check(const struct gs_job *job, const void *hstatus,
			  uint64_t first_rec, size_t *bad, struct gs_err *err)
{
	const struct scan_status *st = (const struct scan_status *)hstatus;
	const struct scan_bad *w = &st->why;
	unsigned long long elem = first_rec + st->rec;
	u128 v = (u128)w->hi << 64 | w->lo;
	bool neg = w->neg;
	char dec[48];

	if (st->key == SCAN_NONE)
		return 0;
	*bad = (size_t)st->rec;
	switch (w->kind) {
	case SCAN_BAD_WIDE:
		return gs_fail(err, GS_ERUNTIME, "scan",
			       "element %llu column %u: prefix prod overflows 128 bits",
			       elem, st->col);
	case SCAN_BAD_ROUND:
		return gs_fail(err, GS_ERUNTIME, "scan",
			       "element %llu column %u: prefix product cannot be rounded exactly",
			       elem, st->col);
	case SCAN_BAD_INT:	/* two's complement: as sign and magnitude */
		neg = (__int128)v < 0;
		v = neg ? -v : v;
		break;
	default:
		break;
	}
	scan_u128_dec(v, neg, dec);
	return gs_fail(err, GS_ERUNTIME, "scan",
		       "element %llu column %u: prefix %s %s overflows %s (try --out-type)",
		       elem, st->col, scan_op_names[job->op], dec,
		       type_name(job->out_type));
}

/* ---- seeding the carry from the CPU's state -------------------------------- */

/*
 * --backend auto scans the first chunks on the CPU while the GPU starts,
 * then hands the rest to the GPU: the CPU's state (a struct red_col per
 * column, the exact reduction of every earlier record) becomes the carry,
 * exactly, before the first launch.
 * - sums: the xsum's bits from 2^L up, as the K limbs (the xsum's lsb
 *   weighs 2^-XSUM_FRAC, the carry's 2^L), and its NaN/inf flags as
 *   EXACT_*. Exact iff widening the limbs back gives every limb of the
 *   xsum: no bit below 2^L (none, for sums of the input type) and no value
 *   past the K limbs (none below 2^63 elements). Each chunk's window and
 *   its parts' narrow prefixes start from this carry.
 * - min/max: the key of the value and the NaN flag, as scan_word's of()
 *   makes them; the identity while no element has been seen (count 0).
 * - and/or/xor: the bits as they are (both sides sign-extend them).
 * prod is not seeded: the GPU's brackets group the factors otherwise, so
 * a split that depends on when the GPU started would decide which
 * near-ties stop (src/backend.c keeps prod scans on the CPU in auto).
 */

/* Sums: columns values of sum_val<K>, lsb 2^L, into dst. */
template <int K, int L>
static bool scan_seed_sum(const struct red_col *st, unsigned columns,
			  void *dst, size_t vsize)
{
	const int d = L + XSUM_FRAC;	/* the carry's lsb, as an xsum bit */
	sum_val<K> *v = (sum_val<K> *)dst;

	if (vsize != sizeof(sum_val<K>))
		return false;
	for (unsigned c = 0; c < columns; c++) {
		const struct xsum *x = &st[c].u.sum;
		sum_val<XSUM_LIMBS> w, back;

		memcpy(w.l, x->limb, sizeof(w.l));
		w.flags = (x->nan ? EXACT_NAN : 0) | (x->pinf ? EXACT_PINF : 0) |
			  (x->ninf ? EXACT_NINF : 0);
		v[c] = sum_narrow<XSUM_LIMBS, K>(w, d);
		back = sum_widen<K, XSUM_LIMBS>(v[c], d);
		if (memcmp(back.l, w.l, sizeof(w.l)))
			return false;
	}
	return true;
}

/* min, max, and, or, xor: columns word_vals into dst. */
static bool scan_seed_word(const struct gs_job *job, const struct red_col *st,
			   void *dst, size_t vsize)
{
	enum gs_type t = job->dtype.type;
	word_val *v = (word_val *)dst;

	if (vsize != sizeof(word_val))
		return false;
	for (unsigned c = 0; c < job->columns; c++) {
		const struct red_col *s = &st[c];

		v[c].w = scan_word_ident(t, job->op);
		v[c].nan = 0;
		if (job->op >= OP_AND)
			v[c].w = s->u.bits;
		else if (type_is_float(t))
			v[c].nan = s->u.mm.nan;
		if (job->op >= OP_AND || s->count == 0)
			continue;
		if (type_is_float(t))
			v[c].w = scan_key_f64(s->u.mm.v.f);
		else if (type_is_signed(t))
			v[c].w = (u64)s->u.mm.v.i ^ SCAN_SIGN;
		else
			v[c].w = s->u.mm.v.u;
	}
	return true;
}

/* The CPU's state as the carry of job's scan: job->columns values of
 * vsize bytes (gpu_scan's) into dst. False for prod, or where a value has
 * no exact carry. K and L as scan_bind_job gives them. */
static bool scan_seed_host(const struct gs_job *job, const struct red_col *st,
			   void *dst, size_t vsize)
{
	unsigned n = job->columns;

	if (job->op == OP_PROD)
		return false;
	if (job->op != OP_SUM)
		return scan_seed_word(job, st, dst, vsize);
	switch (job->dtype.type) {
	case GS_F16: return scan_seed_sum<2, -24>(st, n, dst, vsize);
	case GS_BF16:
	case GS_F32: return scan_seed_sum<6, -149>(st, n, dst, vsize);
	case GS_F64: return scan_seed_sum<34, -1074>(st, n, dst, vsize);
	default: return scan_seed_sum<2, 0>(st, n, dst, vsize);
	}
}

cudaError_t gpu_scan_seed(struct gpu_scan *g, const struct red_col *state)
{
	size_t bytes = g->job.columns * g->vsize;
	void *host = malloc(bytes);
	cudaError_t e;

	if (!host)
		return cudaErrorMemoryAllocation;
	if (!scan_seed_host(&g->job, state, host, g->vsize)) {
		free(host);
		return cudaErrorInvalidValue;
	}
	e = cudaMemcpy(g->carry, host, bytes, cudaMemcpyHostToDevice);
	free(host);
	CUDA_RET(e);
	/* as in scan_alloc: the backend's non-blocking streams do not wait
	 * for the default stream */
	return cudaStreamSynchronize(0);
}
