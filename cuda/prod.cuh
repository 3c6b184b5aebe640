/*
 * prod.cuh - exact products on the GPU, as numerics/xprod.c keeps them
 * (struct fprod, struct iprod in xprod.h), for reduce_kernels.cu (through
 * red_prod.cuh) and the scan (cuda/scan/scan_prod.cuh); __host__
 * __device__, so the host checks replay them.
 *
 * - floats: a bracket [lo, hi] * 2^exp of the exact product with 128-bit
 *   ends, lo rounded down and hi up after every step, as struct red_fprod.
 *   Every step rounds the way xprod.c's fprod_mul_bracket does, so a
 *   product of the same factors in the same grouping is the CPU's bracket
 *   bit for bit; another grouping gives another (valid) bracket.
 * - integers: the exact magnitude of the nonzero factors while it stays
 *   below 2^128, as struct red_iprod (exact in any grouping).
 * NaN, zero, inf, overflow and the sign are flags. An all-zero value is
 * the empty product, so a zeroed accumulator is one. Elements of the
 * kernels' types (dtype.cuh) enter in groups (red_fold, red_ifold).
 */
#ifndef PROD_CUH
#define PROD_CUH

#include "exact.cuh"

#define RED_PNAN 1ull		/* a NaN factor */
#define RED_PZERO 2ull		/* a zero factor */
#define RED_PINF 4ull		/* an infinite factor */
#define RED_PNEG 8ull		/* the sign: XOR of the factors' signs */
#define RED_POVER 16ull		/* integers: |product| passed 2^128 */

/* A bracketed float product, as struct fprod (xprod.h) with 64-bit
 * limbs ([0] low): value in [lo, hi] * 2^exp, hi[1]'s top bit set. All
 * zero (hi == 0) is the empty product, so a zeroed accumulator is one. */
struct red_fprod {
	unsigned long long lo[2], hi[2];
	long long exp;
	unsigned long long flags;	/* RED_PNAN | RED_PZERO | RED_PINF | RED_PNEG */
};

/* An integer product, as struct iprod: the magnitude of the nonzero
 * factors while under 2^128. mag == 0 is the empty product (zeroed). */
struct red_iprod {
	unsigned long long mag[2];
	unsigned long long flags;	/* RED_PZERO | RED_PNEG | RED_POVER */
};

/* Flags of a product of two parts: the sign XORs, the rest ORs. */
static __host__ __device__ inline unsigned long long
red_pflags(unsigned long long a, unsigned long long b)
{
	return ((a | b) & ~RED_PNEG) | ((a ^ b) & RED_PNEG);
}

static __host__ __device__ inline unsigned long long
red_mulhi(unsigned long long a, unsigned long long b)
{
#ifdef __CUDA_ARCH__
	return __umul64hi(a, b);
#else
	return (unsigned long long)((unsigned __int128)a * b >> 64);
#endif
}

/* r[0 .. 3) = a * m. */
static __host__ __device__ inline void
red_mul_128x64(const unsigned long long a[2], unsigned long long m,
	       unsigned long long r[3])
{
	unsigned long long l1 = a[1] * m;

	r[0] = a[0] * m;
	r[1] = red_mulhi(a[0], m) + l1;
	r[2] = red_mulhi(a[1], m) + (r[1] < l1);
}

/* r[0 .. 4) = a * b. */
static __host__ __device__ inline void
red_mul_128x128(const unsigned long long a[2], const unsigned long long b[2],
		unsigned long long r[4])
{
	unsigned long long x[3], y[3], s;
	unsigned c;

	red_mul_128x64(a, b[0], x);
	red_mul_128x64(a, b[1], y);
	r[0] = x[0];
	r[1] = x[1] + y[0];
	c = r[1] < y[0];
	s = x[2] + y[1];
	r[3] = y[2] + (s < y[1]);
	r[2] = s + c;
	r[3] += r[2] < c;
}

/* The empty bracket's value 1 as a bracket: 2^127 * 2^-127, exact. */
static __host__ __device__ inline void red_fp_one(struct red_fprod *p)
{
	p->lo[0] = p->hi[0] = 0;
	p->lo[1] = p->hi[1] = 1ull << 63;
	p->exp = -127;
	p->flags = 0;
}

/*
 * New ends of a bracket from the top three limbs of the products hi * x
 * (h2 >= 2^62) and lo * x: both shifted left by s (1 when h2's top bit is
 * clear) and cut to 128 bits; hi rounded up when `up` (bits were cut), lo
 * down. Returns 1 when hi rounded up past 2^128 (it is then 2^127, and lo
 * one more bit down), else 0: the exponent's extra step. This is
 * xprod.c's fprod_mul_bracket rounding, step for step.
 */
static __host__ __device__ inline int
red_fp_set(struct red_fprod *p, unsigned long long h2, unsigned long long h1,
	   unsigned long long h0, unsigned long long l2, unsigned long long l1,
	   unsigned long long l0, int s, bool up)
{
	p->hi[1] = s ? h2 << 1 | h1 >> 63 : h2;
	p->hi[0] = s ? h1 << 1 | h0 >> 63 : h1;
	p->lo[1] = s ? l2 << 1 | l1 >> 63 : l2;
	p->lo[0] = s ? l1 << 1 | l0 >> 63 : l1;
	if (!up || ++p->hi[0] != 0 || ++p->hi[1] != 0)
		return 0;
	p->hi[1] = 1ull << 63;
	p->lo[0] = p->lo[0] >> 1 | p->lo[1] << 63;
	p->lo[1] >>= 1;
	return 1;
}

/* p *= m * 2^e, m != 0 (a thread's factors, exact in 64 bits). */
static __host__ __device__ inline void red_fp_mul64(struct red_fprod *p,
						    unsigned long long m,
						    long long e)
{
	unsigned long long h[3], l[3];
	int z = exact_clz64(m), s, c;
	bool up;

	m <<= z;		/* top bit set: the product has 191 or 192 bits */
	red_mul_128x64(p->hi, m, h);
	red_mul_128x64(p->lo, m, l);
	s = !(h[2] >> 63);
	up = (s ? h[0] << 1 : h[0]) != 0;
	c = red_fp_set(p, h[2], h[1], h[0], l[2], l[1], l[0], s, up);
	p->exp += e - z + 64 - s + c;
}

/* p *= q, brackets or empty products; the flags combine. */
static __host__ __device__ inline void red_p_merge(struct red_fprod *p,
						   const struct red_fprod *q)
{
	unsigned long long h[4], l[4];
	int s, c;
	bool up;

	p->flags = red_pflags(p->flags, q->flags);
	if (q->hi[1] == 0)
		return;
	if (p->hi[1] == 0) {
		p->lo[0] = q->lo[0];
		p->lo[1] = q->lo[1];
		p->hi[0] = q->hi[0];
		p->hi[1] = q->hi[1];
		p->exp = q->exp;
		return;
	}
	red_mul_128x128(p->hi, q->hi, h);
	red_mul_128x128(p->lo, q->lo, l);
	s = !(h[3] >> 63);
	up = ((s ? h[1] << 1 : h[1]) | h[0]) != 0;
	c = red_fp_set(p, h[3], h[2], h[1], l[3], l[2], l[1], s, up);
	p->exp += q->exp + 128 - s + c;
}

/* Integers: p's magnitude *= m (a thread's factors, not 0), until it
 * passes 2^128; after that only the flags change, as in iprod_mul. */
static __host__ __device__ inline void red_ip_mul64(struct red_iprod *p,
						    unsigned long long m)
{
	unsigned long long r[3];

	if (p->flags & RED_POVER)
		return;
	red_mul_128x64(p->mag, m, r);
	if (r[2]) {
		p->flags |= RED_POVER;
		return;
	}
	p->mag[0] = r[0];
	p->mag[1] = r[1];
}

static __host__ __device__ inline void red_p_merge(struct red_iprod *p,
						   const struct red_iprod *q)
{
	unsigned long long r[4];

	p->flags = red_pflags(p->flags, q->flags);
	if (q->mag[0] == 0 && q->mag[1] == 0)
		return;
	if (p->mag[0] == 0 && p->mag[1] == 0) {
		p->mag[0] = q->mag[0];
		p->mag[1] = q->mag[1];
		return;
	}
	if (p->flags & RED_POVER)
		return;
	red_mul_128x128(p->mag, q->mag, r);
	if (r[2] | r[3]) {
		p->flags |= RED_POVER;
		return;
	}
	p->mag[0] = r[0];
	p->mag[1] = r[1];
}

/* ---- elements into products ----------------------------------------------
 * A thread multiplies a few elements exactly in 64 bits (m * 2^e and the
 * flags) and only then takes the product into its bracket or magnitude:
 * one 128x64-bit step per group instead of one per element. */

/* The partial product of element type T. */
template <typename T>
using red_prod_t = typename std::conditional<dtype_is_float<T>::value,
		struct red_fprod, struct red_iprod>::type;

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
 * nonzero factors so far; NaN, inf and zero only set flags; every sign
 * flips RED_PNEG (the CPU's fprod_mul_f64 does the same). */
template <typename T>
static __host__ __device__ inline void
red_fold(T x, unsigned long long *m, int *e, unsigned long long *flags)
{
	typedef dtype_fmt<T> F;
	unsigned long long u = exact_elem_bits(x);
	unsigned be = (unsigned)(u >> (F::p - 1)) & F::emax;
	unsigned long long frac = u & ((1ull << (F::p - 1)) - 1);

	*flags ^= (u >> (F::w - 1)) * RED_PNEG;
	if (be == F::emax) {
		*flags |= frac ? RED_PNAN : RED_PINF;
		return;
	}
	if (be == 0 && frac == 0) {
		*flags |= RED_PZERO;
		return;
	}
	*m *= frac | (unsigned long long)(be != 0) << (F::p - 1);
	*e += (int)(be + (be == 0)) - F::bias_p;
}

/* The same for integers (e unused): *m takes |x|, a zero sets RED_PZERO,
 * as iprod_mul does. */
template <typename T>
static __host__ __device__ inline void
red_ifold(T x, unsigned long long *m, unsigned long long *flags)
{
	unsigned long long a = (unsigned long long)x;

	if constexpr (std::is_signed<T>::value) {
		if (x < 0) {
			a = 0 - (unsigned long long)(long long)x;
			*flags ^= RED_PNEG;
		}
	}
	*flags |= a ? 0 : RED_PZERO;
	*m *= a ? a : 1;
}

#endif
