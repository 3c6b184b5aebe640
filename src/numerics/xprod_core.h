/*
 * xprod_core.h - the exact product, once for the host (C11) and the device
 * (CUDA C++): the CPU kernels (xprod.c), the reduce kernels (cuda/prod.cuh,
 * cuda/red_prod.cuh) and the scan (cuda/scan/scan_prod.cuh) all step and
 * merge with these functions, GS_HD as in ieee.h, so a product of the same
 * factors in the same grouping is the same bracket on either side.
 *
 * - struct fprod: a product of floats as a bracket [lo, hi] * 2^exp of the
 *   exact product, 128-bit ends in 64-bit limbs ([0] low), hi's top bit
 *   set; after every step lo is rounded down and hi up to 128 bits, so a
 *   product of a few exact factors stays exact and the bracket says when it
 *   rounds (both ends round alike: fprod_round_fmt).
 * - struct iprod: a product of integers, its magnitude while under 2^128;
 *   past that PROD_OVER, and mag keeps the low 128 bits of the product that
 *   passed (what __builtin_mul_overflow leaves), then stays.
 * NaN, a zero or infinite factor, the sign (XOR of the factors' signs) and
 * overflow are flags. The all-zero value (hi or mag 0) is the empty
 * product, 1, so a zeroed accumulator is one; the CPU starts from 1 as a
 * bracket instead (fprod_one; mag 1), which merges to the same bits.
 * An element becomes a factor (prod_factor, iprod_factor_flags) and a
 * bracket is rounded (fprod_round_fmt) here too, so neither side has its
 * own form of those.
 */
#ifndef XPROD_CORE_H
#define XPROD_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include "ieee.h"		/* GS_HD */

#define PROD_NAN 1u		/* a NaN factor */
#define PROD_ZERO 2u		/* a zero factor */
#define PROD_INF 4u		/* an infinite factor */
#define PROD_NEG 8u		/* the sign: XOR of the factors' signs */
#define PROD_OVER 16u		/* integers: |product| passed 2^128 */

struct fprod {
	uint64_t lo[2], hi[2];	/* value in [lo, hi] * 2^exp */
	int64_t exp;
	uint64_t flags;		/* PROD_NAN | PROD_ZERO | PROD_INF | PROD_NEG */
};

struct iprod {
	uint64_t mag[2];	/* |product| of the nonzero factors */
	uint64_t flags;		/* PROD_ZERO | PROD_NEG | PROD_OVER */
};

/* Flags of a product of two parts: the sign XORs, the rest ORs. */
GS_HD uint64_t prod_flags(uint64_t a, uint64_t b)
{
	return ((a | b) & ~(uint64_t)PROD_NEG) | ((a ^ b) & PROD_NEG);
}

GS_HD uint64_t prod_mulhi(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
	return __umul64hi(a, b);
#else
	return (uint64_t)((unsigned __int128)a * b >> 64);
#endif
}

/* r[0 .. 3) = a * m. */
GS_HD void prod_mul_128x64(const uint64_t a[2], uint64_t m, uint64_t r[3])
{
	uint64_t l1 = a[1] * m;

	r[0] = a[0] * m;
	r[1] = prod_mulhi(a[0], m) + l1;
	r[2] = prod_mulhi(a[1], m) + (r[1] < l1);
}

/* r[0 .. 4) = a * b. */
GS_HD void prod_mul_128x128(const uint64_t a[2], const uint64_t b[2],
			    uint64_t r[4])
{
	uint64_t x[3], y[3], s;
	unsigned c;

	prod_mul_128x64(a, b[0], x);
	prod_mul_128x64(a, b[1], y);
	r[0] = x[0];
	r[1] = x[1] + y[0];
	c = r[1] < y[0];
	s = x[2] + y[1];
	r[3] = y[2] + (s < y[1]);
	r[2] = s + c;
	r[3] += r[2] < c;
}

/* 1 as a bracket: 2^127 * 2^-127, exact; flags cleared. */
GS_HD void fprod_one(struct fprod *p)
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
 * one more bit down), else 0: the exponent's extra step.
 */
GS_HD int fprod_set(struct fprod *p, uint64_t h2, uint64_t h1, uint64_t h0,
		    uint64_t l2, uint64_t l1, uint64_t l0, int s, bool up)
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

/* p *= m * 2^e for a bracket p (not the empty product) and m != 0: an
 * exact factor, or a few multiplied exactly in 64 bits. The same bracket as
 * fprod_merge with m * 2^e as a bracket of one limb, in half the
 * multiplies. */
GS_HD void fprod_mul64(struct fprod *p, uint64_t m, int64_t e)
{
	uint64_t h[3], l[3];
	int z = ieee_clz128(m) - 64, s, c;
	bool up;

	m <<= z;		/* top bit set: the product has 191 or 192 bits */
	prod_mul_128x64(p->hi, m, h);
	prod_mul_128x64(p->lo, m, l);
	s = !(h[2] >> 63);
	up = (s ? h[0] << 1 : h[0]) != 0;
	c = fprod_set(p, h[2], h[1], h[0], l[2], l[1], l[0], s, up);
	p->exp += e - z + 64 - s + c;
}

/* p *= q, brackets or empty products; the flags combine. */
GS_HD void fprod_merge(struct fprod *p, const struct fprod *q)
{
	uint64_t h[4], l[4];
	int s, c;
	bool up;

	p->flags = prod_flags(p->flags, q->flags);
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
	prod_mul_128x128(p->hi, q->hi, h);
	prod_mul_128x128(p->lo, q->lo, l);
	s = !(h[3] >> 63);
	up = ((s ? h[1] << 1 : h[1]) | h[0]) != 0;
	c = fprod_set(p, h[3], h[2], h[1], l[3], l[2], l[1], s, up);
	p->exp += q->exp + 128 - s + c;
}

/* ---- factors and the rounding ------------------------------------------
 * An element becomes a factor here on either side: the CPU's element steps
 * (xprod.c), the reduce kernels' groups (cuda/prod.cuh) and the scan's
 * elements (cuda/scan/scan_prod.cuh). */

/* A float factor of bits u in a format of p significand bits (the hidden
 * one included) and w bits in all: true with m * 2^e (m != 0) where it is
 * finite and nonzero; else NaN, inf or zero goes into *flags. Every sign
 * flips PROD_NEG, a zero's and a NaN's too. */
GS_HD bool prod_factor(uint64_t u, int p, int w, uint64_t *m, int *e,
		       uint64_t *flags)
{
	unsigned emax = (1u << (w - p)) - 1;	/* the exponent field's top */
	unsigned be = (unsigned)(u >> (p - 1)) & emax;
	uint64_t frac = u & ((1ull << (p - 1)) - 1);

	*flags ^= (u >> (w - 1) & 1) * PROD_NEG;
	if (be == emax) {
		*flags |= frac ? PROD_NAN : PROD_INF;
		return false;
	}
	if (be == 0 && frac == 0) {
		*flags |= PROD_ZERO;
		return false;
	}
	*m = frac | (uint64_t)(be != 0) << (p - 1);
	*e = (int)(be + (be == 0)) - (int)(emax >> 1) - (p - 1);
	return true;
}

/* The flags of an integer factor of magnitude a and sign neg, to combine
 * by prod_flags: a zero sets PROD_ZERO and flips no sign. */
GS_HD uint64_t iprod_factor_flags(uint64_t a, bool neg)
{
	return a ? (neg ? PROD_NEG : 0) : PROD_ZERO;
}

/* p rounded once, to nearest even, into f: NaN for a NaN factor or 0 *
 * inf, a signed inf or zero, else both ends of the bracket, which must
 * agree: false where they do not (*bits is then lo's). The all-zero value
 * is the empty product, 1. */
GS_HD bool fprod_round_fmt(const struct fprod *p, const struct ieee_fmt *f,
			   uint64_t *bits)
{
	bool neg = p->flags & PROD_NEG;
	unsigned __int128 lo = (unsigned __int128)1 << 127, hi = lo;
	int64_t e = -127;
	uint64_t a;

	if ((p->flags & PROD_NAN) ||
	    (p->flags & (PROD_ZERO | PROD_INF)) == (PROD_ZERO | PROD_INF)) {
		*bits = f->nan;
		return true;
	}
	if (p->flags & (PROD_ZERO | PROD_INF)) {
		*bits = (uint64_t)neg << (f->width - 1) |
			(p->flags & PROD_INF ? f->inf : 0);
		return true;
	}
	if (p->hi[1]) {
		lo = (unsigned __int128)p->lo[1] << 64 | p->lo[0];
		hi = (unsigned __int128)p->hi[1] << 64 | p->hi[0];
		e = p->exp;
	}
	a = ieee_round_fast(lo, false, e, neg, f);
	*bits = a;
	return hi == lo || ieee_round_fast(hi, false, e, neg, f) == a;
}

/* p's magnitude *= m (not 0), until it passes 2^128; after that only the
 * flags change. */
GS_HD void iprod_mul64(struct iprod *p, uint64_t m)
{
	uint64_t r[3];

	if (p->flags & PROD_OVER)
		return;
	prod_mul_128x64(p->mag, m, r);
	p->mag[0] = r[0];
	p->mag[1] = r[1];
	if (r[2])
		p->flags |= PROD_OVER;
}

/* p *= q, magnitudes or empty products; the flags combine. */
GS_HD void iprod_merge(struct iprod *p, const struct iprod *q)
{
	uint64_t r[4];

	p->flags = prod_flags(p->flags, q->flags);
	if ((p->flags & PROD_OVER) || (q->mag[0] == 0 && q->mag[1] == 0))
		return;
	if (p->mag[0] == 0 && p->mag[1] == 0) {
		p->mag[0] = q->mag[0];
		p->mag[1] = q->mag[1];
		return;
	}
	prod_mul_128x128(p->mag, q->mag, r);
	p->mag[0] = r[0];
	p->mag[1] = r[1];
	if (r[2] | r[3])
		p->flags |= PROD_OVER;
}

#endif
