/*
 * xsum.h - exact accumulation of reals and their correct rounding.
 *
 * A struct xsum holds a sum of binary floating-point values (and of exact
 * products of two doubles) with no rounding at all: a two's complement
 * fixed-point integer whose least significant bit weighs 2^-XSUM_FRAC, plus
 * flags for NaN and the two infinities. 2^-2176 lies below the smallest
 * product of two doubles (2^-2148) and the integer part has room for 2^64
 * products of the largest doubles, so adding never rounds or overflows.
 *
 * Merging two xsums is an exact integer addition, so chunks, threads, streams
 * and GPUs may combine their partial sums in any grouping and get the same
 * bits. Rounding happens once, at the end (xsum_round and the rational
 * helpers), to nearest with ties to even.
 *
 * A value enters as xsum_core.h's exact term, the device's sums leave
 * their slots through it too (xsum_add_slots): the decomposition is one
 * copy for host and device.
 *
 * Adding one value at a time to an xsum is slow (a carry ripples through 68
 * limbs); hot loops gather into exponent-indexed bins (struct xbins) and
 * flush those into an xsum every so often.
 */
#ifndef XSUM_H
#define XSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "ieee.h"
#include "xsum_core.h"

#define XSUM_LIMBS 68
#define XSUM_FRAC 2176		/* 34 limbs of fraction */

struct xsum {
	uint64_t limb[XSUM_LIMBS];	/* little-endian limbs, two's complement */
	bool nan, pinf, ninf;
	/* An exact zero rounds to -0: every term was -0, as IEEE addition
	 * gives. The adders cannot see it (an exact sum has no sign of zero):
	 * a kernel notes it from its terms (xsum_note_negzero) and merges keep
	 * it (xsum_merge_negzero). */
	bool negzero;
};

void xsum_init(struct xsum *x);
/* x += m * 2^e for a signed 128-bit m; e >= -XSUM_FRAC. */
void xsum_add_i128(struct xsum *x, __int128 m, int e);
/* x += (neg ? -m : m) * 2^e for an unsigned 128-bit m. */
void xsum_add_u128(struct xsum *x, unsigned __int128 m, int e, bool neg);
void xsum_add_f64(struct xsum *x, double v);		/* NaN/inf set flags */
/* x += t (xsum_core.h's term: its flags, or m * 2^e). */
void xsum_add_term(struct xsum *x, struct exact_term t);
/* x += a sum in xsum_core.h's slot form (a device's, copied), exactly. */
void xsum_add_slots(struct xsum *x, const struct exact_acc *a);
void xsum_add_i64(struct xsum *x, int64_t v);
void xsum_add_u64(struct xsum *x, uint64_t v);
/* x += a*b exactly (the product is never rounded). */
void xsum_add_prod_f64(struct xsum *x, double a, double b);
void xsum_merge(struct xsum *x, const struct xsum *y);	/* x += y */
/* negzero of x + y, where x sums nx terms and y ny: -0 + -0 is -0, and a
 * sum of no terms takes the other's sign. Call beside xsum_merge. */
static inline void xsum_merge_negzero(struct xsum *x, uint64_t nx,
				      const struct xsum *y, uint64_t ny)
{
	if (ny)
		x->negzero = nx ? x->negzero && y->negzero : y->negzero;
}
/* negzero of x, a sum of before terms, after n more whose leading run of
 * -0 covers all of them or not (all): a sum of -0 terms only is -0. */
static inline void xsum_note_negzero(struct xsum *x, uint64_t before,
				     uint64_t n, bool all)
{
	if (n)
		x->negzero = (before == 0 || x->negzero) && all;
}
/* The leading run of -0 terms in a column: how many of its n elements of
 * format f (stride bytes apart from p; little-endian, or big) are -0
 * before the first that is not; a NaN does not end it where skip_nan
 * (stats leave NaNs out of their sums). It stops there, so a kernel pays
 * for it only while its sum may still be -0. */
size_t xsum_negzero_run(const void *p, size_t n, size_t stride, enum xfmt f,
			bool big, bool skip_nan);
/* The sign of a scan's zero outputs: n outputs of one column (format f,
 * little-endian, stride bytes apart from out) after a prefix of -0 terms
 * only (lead) or of none, the first run of their inputs -0: those whose
 * prefix holds -0 terms only are zeros, made -0. */
void xsum_scan_negzero(void *out, size_t n, size_t stride, enum xfmt f,
		       bool exclusive, bool lead, size_t run);
void xsum_neg(struct xsum *x);				/* x = -x */
bool xsum_is_zero(const struct xsum *x);		/* finite and 0 */
int xsum_sign(const struct xsum *x);			/* -1, 0, 1 of the finite part */

/* Round x once, to nearest even, into the given format (enum xfmt, the
 * rounding core is ieee.h's); returns the bit
 * pattern (in the low bits). NaN when x->nan or both infinities are set,
 * +-inf when one infinity is set; overflow gives +-inf as IEEE says. An exact
 * zero is +0, or -0 with x->negzero. */
uint64_t xsum_round(const struct xsum *x, enum xfmt f);
double xsum_to_f64(const struct xsum *x);

/* The exact value as an integer, when it is one (and finite): decimal digits
 * with a leading '-' if negative, into buf (size >= XSUM_DEC_MAX). Returns
 * false if x is not an integer or not finite. */
#define XSUM_DEC_MAX 700
bool xsum_to_dec(const struct xsum *x, char *buf);
/* The exact value fits int64 / uint64: store it and return true. */
bool xsum_to_i64(const struct xsum *x, int64_t *out);
bool xsum_to_u64(const struct xsum *x, uint64_t *out);

/* Correctly rounded statistics of n values with exact sum s1 and exact sum
 * of squares s2 (n >= 1; flags of s1/s2 are the caller's business):
 *   mean  = s1/n (-0 when s1 is a zero with negzero, as -0/n is)
 *   pvar  = (n*s2 - s1^2) / n^2          svar = (n*s2 - s1^2) / (n*(n-1))
 *   pstdev = sqrt(pvar), sstdev = sqrt(svar)  (rounded once from the exact root)
 * svar/sstdev with n == 1 give NaN (numpy's ddof=1 on one value). */
double xsum_mean(const struct xsum *s1, uint64_t n);
/* floor(sqrt(v)), and whether it is exact: the deviations' square
 * root. */
uint64_t xsum_isqrt128(unsigned __int128 v, bool *exact);
void xsum_var(const struct xsum *s1, const struct xsum *s2, uint64_t n,
	      double *pvar, double *svar, double *pstdev, double *sstdev);
/* The same from integers held as nl little-endian limbs (kstats.c's
 * compact sums): l / d * 2^e rounded once, negated if neg; and from
 * N = a * 2^sa - b * 2^sb in units of 2^e (e even, as the root halves
 * it), NaN where N < 0. */
double xsum_limbs_mean(const uint64_t *l, unsigned nl, uint64_t d, long e,
		       bool neg);
void xsum_limbs_var(const uint64_t *a, unsigned sa, const uint64_t *b,
		    unsigned sb, unsigned nl, uint64_t n, long e, double *pvar,
		    double *svar, double *pstdev, double *sstdev);

/* ---- fast bins ----------------------------------------------------------
 * Hot-loop helpers: exact sums gathered by exponent into 128-bit bins. A bin
 * receives at most XBINS_FLUSH_EVERY values between flushes without any
 * chance of overflow, whatever the values. Callers add with the inline
 * functions below and call xbins_flush() at least every XBINS_FLUSH_EVERY
 * additions (and at the end).
 */
#define XBINS_N 4200		/* covers exponents of products of doubles */
#define XBINS_FLUSH_EVERY (1u << 20)

struct xbins {
	__int128 bin[XBINS_N];	/* bin[i] weighs 2^(i - XBINS_BIAS) */
	uint64_t special;	/* NaN/inf operands since the last flush */
	unsigned flags;		/* EXACT_* of those */
};
#define XBINS_BIAS 2200

void xbins_init(struct xbins *b);
/* Move everything into x and clear b. */
void xbins_flush(struct xbins *b, struct xsum *x);
/* Slow path of the adders below: an operand is NaN or infinite. */
void xbins_add_special(struct xbins *b, double a, double b2, bool prod);

/*
 * A finite double is m * 2^(e - 1075) with m = frac | 2^52 (normal, e >= 1)
 * or m = frac, e taken as 1 (subnormal), so its bin is e + XBINS_BIAS - 1075
 * and one 128-bit add of +-m is all the work.
 */
static inline void xbins_add_f64(struct xbins *b, double v)
{
	uint64_t u = exact_bits_f64(v);
	uint32_t e = (u >> 52) & 0x7ff, i;
	int64_t m, s;

	if (__builtin_expect(e == 0x7ff, 0)) {
		xbins_add_special(b, v, 1.0, false);
		return;
	}
	m = (int64_t)((u & 0xfffffffffffffull) | (uint64_t)(e != 0) << 52);
	s = (int64_t)u >> 63;
	i = e + (e == 0) + (XBINS_BIAS - 1075);
	b->bin[i] += (m ^ s) - s;
}

/* The same for a * b2: the 106-bit product of the mantissas, in the bin of
 * the sum of the exponents (>= 52, <= 4142 for finite doubles). */
static inline void xbins_add_prod_f64(struct xbins *b, double a, double b2)
{
	uint64_t u = exact_bits_f64(a), w = exact_bits_f64(b2);
	uint32_t ea = (u >> 52) & 0x7ff, eb = (w >> 52) & 0x7ff, i;
	uint64_t ma, mb;
	__int128 p, s;

	if (__builtin_expect(ea == 0x7ff || eb == 0x7ff, 0)) {
		xbins_add_special(b, a, b2, true);
		return;
	}
	ma = (u & 0xfffffffffffffull) | (uint64_t)(ea != 0) << 52;
	mb = (w & 0xfffffffffffffull) | (uint64_t)(eb != 0) << 52;
	p = (__int128)((unsigned __int128)ma * mb);
	s = (__int128)((int64_t)(u ^ w) >> 63);
	i = ea + (ea == 0) + eb + (eb == 0) + (XBINS_BIAS - 2150);
	b->bin[i] += (p ^ s) - s;
}

#endif
