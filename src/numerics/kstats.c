/*
 * kstats.c - statistics from compact sums (kstats.h).
 *
 * The numerator N = n * S2 - S1^2 with S1 = a1 * 2^b1, S2 = a2 * 2^b2 is
 * n * a2 * 2^(b2 - m) - a1^2 * 2^(2 b1 - m), times 2^m for the lower
 * (even) of the two exponents: its terms are made here, the shifts,
 * divisions and their one rounding each are xsum.c's (xsum_limbs_var,
 * xsum_limbs_mean), xsum_var's own.
 */
#include "ieee.h"
#include "kstats.h"
#include "xsum.h"

#define KL 4			/* limbs of n * a2 and a1^2 */
#define KMAX 500		/* bits of the terms of N at most */

static unsigned __int128 mag(__int128 a)
{
	return a < 0 ? -(unsigned __int128)a : (unsigned __int128)a;
}

static bool special(const struct ksum *k)
{
	return k->wide || (k->flags & (KS_NAN | KS_PINF | KS_NINF));
}

/* The index of the top set bit of l[0..KL), or -1. */
static int top(const uint64_t *l)
{
	for (int i = KL; i-- > 0;)
		if (l[i])
			return i * 64 + 63 - ieee_clz64(l[i]);
	return -1;
}

static double mean_of(const struct ksum *s1, uint64_t n)
{
	uint64_t a[2];

	if (!s1->acc)	/* -0 where every term was -0, as -0 / n */
		return (s1->flags & (KS_TERM | KS_NOTNEGZ)) == KS_TERM ? -0.0
									: 0.0;
	a[0] = (uint64_t)mag(s1->acc);
	a[1] = (uint64_t)(mag(s1->acc) >> 64);
	return xsum_limbs_mean(a, 2, n, s1->base, s1->acc < 0);
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
	*mean = mean_of(s1, n);
	xsum_limbs_var(t1, s2->acc ? (unsigned)(e1 - m) : 0, t2,
		       s1->acc ? (unsigned)(e2 - m) : 0, KL, n, m, pvar, svar,
		       pstdev, sstdev);
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
