/*
 * kstats.c - statistics from compact sums (kstats.h).
 *
 * The arithmetic is xsum.c's (xsum_var) on fixed arrays of KL limbs: the
 * numerator N = n * S2 - S1^2 with S1 = a1 * 2^b1, S2 = a2 * 2^b2 is
 * n * a2 * 2^(b2 - m) - a1^2 * 2^(2 b1 - m), times 2^m for the lower
 * (even) of the two exponents, and each quotient is taken to 128 bits
 * with a sticky bit, then rounded once by ieee_round.
 */
#include <math.h>
#include <string.h>
#include "ieee.h"
#include "kstats.h"
#include "xsum.h"

#define KL 9			/* limbs: N below 2^KMAX, scaled by ratio() */
#define KMAX 500		/* bits of the terms of N at most */

static unsigned __int128 mag(__int128 a)
{
	return a < 0 ? -(unsigned __int128)a : (unsigned __int128)a;
}

static bool special(const struct ksum *k)
{
	return k->wide || (k->flags & (KS_NAN | KS_PINF | KS_NINF));
}

static double from_bits(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* The index of the top set bit of l[0..KL), or -1. */
static int top(const uint64_t *l)
{
	for (int i = KL; i-- > 0;)
		if (l[i])
			return i * 64 + 63 - __builtin_clzll(l[i]);
	return -1;
}

/* l <<= s (the caller keeps it within KL limbs). */
static void shl(uint64_t *l, unsigned s)
{
	unsigned k = s / 64, b = s % 64;

	for (int i = KL; i-- > 0;) {
		uint64_t hi = i - (int)k >= 0 ? l[i - k] : 0;
		uint64_t lo = i - (int)k - 1 >= 0 ? l[i - k - 1] : 0;

		l[i] = b ? hi << b | lo >> (64 - b) : hi;
	}
}

/* l /= d; the remainder. */
static uint64_t divmod(uint64_t *l, uint64_t d)
{
	unsigned __int128 r = 0;

	for (int i = KL; i-- > 0;) {
		r = r << 64 | l[i];
		l[i] = (uint64_t)(r / d);
		r %= d;
	}
	return (uint64_t)r;
}

/* 64 bits of l from bit pos >= 0 on. */
static uint64_t bits64(const uint64_t *l, int pos)
{
	int k = pos / 64, s = pos % 64;
	uint64_t a = k < KL ? l[k] : 0, b = k + 1 < KL ? l[k + 1] : 0;

	return s ? a >> s | b << (64 - s) : a;
}

static bool any_below(const uint64_t *l, int pos)
{
	int k;

	for (k = 0; k < pos / 64; k++)
		if (l[k])
			return true;
	return pos % 64 && (l[k] & ((1ull << (pos % 64)) - 1));
}

/* a / (d1 * d2) as (q + d) * 2^*e (ieee_round's form), a destroyed, *e on
 * entry the exponent of a's unit; as xsum.c's ratio: a scaled to 256 bits
 * at least, so q keeps 128, every shift even where even is set. */
static unsigned __int128 ratio(uint64_t *a, uint64_t d1, uint64_t d2,
			       bool even, bool *sticky, long *e)
{
	int bits = top(a) + 1, shift;

	if (bits < 256) {
		unsigned s = (unsigned)(256 - bits + (even && (bits & 1)));

		shl(a, s);
		*e -= s;
	}
	*sticky = divmod(a, d1) != 0;
	if (d2 > 1)
		*sticky |= divmod(a, d2) != 0;
	bits = top(a) + 1;
	shift = bits - 128;
	if (even)
		shift += shift & 1;
	*sticky |= any_below(a, shift);
	*e += shift;
	return (unsigned __int128)bits64(a, shift + 64) << 64 |
	       bits64(a, shift);
}

static double round_f64(unsigned __int128 q, bool sticky, long e, bool neg)
{
	struct ieee_fmt f = ieee_fmt_of(XF_F64);

	return from_bits(ieee_round(q, sticky, e, neg, &f));
}

static double mean_of(const struct ksum *s1, uint64_t n)
{
	uint64_t a[KL] = { 0 };
	unsigned __int128 q;
	bool sticky;
	long e = s1->base;

	if (!s1->acc)	/* -0 where every term was -0, as -0 / n */
		return (s1->flags & (KS_TERM | KS_NOTNEGZ)) == KS_TERM ? -0.0
									: 0.0;
	a[0] = (uint64_t)mag(s1->acc);
	a[1] = (uint64_t)(mag(s1->acc) >> 64);
	q = ratio(a, n, 1, false, &sticky, &e);
	return round_f64(q, sticky, e, s1->acc < 0);
}

/* var = N / (d1 * d2) * 2^e and its root, each rounded once. */
static void var_root(const uint64_t *num, uint64_t d1, uint64_t d2, long e,
		     double *var, double *root)
{
	uint64_t a[KL];
	unsigned __int128 q;
	uint64_t r;
	bool sticky, exact;

	memcpy(a, num, sizeof(a));
	q = ratio(a, d1, d2, true, &sticky, &e);
	*var = round_f64(q, sticky, e, false);
	r = xsum_isqrt128(q, &exact);
	*root = round_f64(r, sticky || !exact, e / 2, false);
}

/* n * a2 into t1 and a1^2 into t2, unshifted. */
static void terms(unsigned __int128 a1, unsigned __int128 a2, uint64_t n,
		  uint64_t *t1, uint64_t *t2)
{
	uint64_t x[2] = { (uint64_t)a1, (uint64_t)(a1 >> 64) };
	unsigned __int128 c;

	c = (unsigned __int128)(uint64_t)a2 * n;
	t1[0] = (uint64_t)c;
	c = (c >> 64) + (unsigned __int128)(uint64_t)(a2 >> 64) * n;
	t1[1] = (uint64_t)c;
	t1[2] = (uint64_t)(c >> 64);
	for (int i = 0; i < 2; i++) {
		c = 0;
		for (int j = 0; j < 2; j++) {
			c += (unsigned __int128)x[i] * x[j] + t2[i + j];
			t2[i + j] = (uint64_t)c;
			c >>= 64;
		}
		t2[i + 2] = (uint64_t)c;
	}
}

/* a -= b, for a >= b. */
static void sub(uint64_t *a, const uint64_t *b)
{
	bool c = false;

	for (int i = 0; i < KL; i++) {
		uint64_t r = a[i] - b[i] - c;

		c = a[i] < b[i] || (a[i] == b[i] && c);
		a[i] = r;
	}
}

static int cmp(const uint64_t *a, const uint64_t *b)
{
	for (int i = KL; i-- > 0;)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

bool ksum_stats(const struct ksum *s1, const struct ksum *s2, uint64_t n,
		double *mean, double *pvar, double *svar, double *pstdev,
		double *sstdev)
{
	uint64_t t1[KL] = { 0 }, t2[KL] = { 0 };
	long e1 = s2->base, e2 = 2l * s1->base, m;

	if (!n || special(s1) || special(s2) || s2->acc < 0)
		return false;
	terms(mag(s1->acc), (unsigned __int128)s2->acc, n, t1, t2);
	/* the lower exponent, made even (the root halves it) */
	m = !s1->acc ? e1 : !s2->acc ? e2 : e1 < e2 ? e1 : e2;
	m -= m & 1;
	if ((s2->acc && top(t1) + (e1 - m) >= KMAX) ||
	    (s1->acc && top(t2) + (e2 - m) >= KMAX))
		return false;
	if (s2->acc)
		shl(t1, (unsigned)(e1 - m));
	if (s1->acc)
		shl(t2, (unsigned)(e2 - m));
	*mean = mean_of(s1, n);
	*pvar = *svar = *pstdev = *sstdev = NAN;
	if (cmp(t1, t2) < 0)
		return true;	/* never, exactly: xsum_var's NaNs */
	sub(t1, t2);
	if (top(t1) < 0) {	/* equal values: +0, as xsum rounds a zero */
		*pvar = *pstdev = 0.0;
		if (n > 1)
			*svar = *sstdev = 0.0;
		return true;
	}
	var_root(t1, n, n, m, pvar, pstdev);
	if (n > 1)
		var_root(t1, n, n - 1, m, svar, sstdev);
	return true;
}

bool ksum_to_dec(const struct ksum *k, char *buf)
{
	unsigned __int128 v = mag(k->acc);
	char tmp[KSUM_DEC_MAX];
	size_t n = 0, len = 0;

	if (special(k) || k->base < 0 ||
	    (v && (k->base >= 128 || ieee_clz128(v) <= k->base)))
		return false;
	v <<= k->base;
	do {
		tmp[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	if (k->acc < 0)
		buf[len++] = '-';
	while (n)
		buf[len++] = tmp[--n];
	buf[len] = '\0';
	return true;
}
