/*
 * qdec.c - P as typed, and the exact index and interpolation on it
 * (qdec.h).
 *
 * Sizes: N < 10^63, and k <= QDEC_TINY + 63 (a smaller P is taken as
 * 10^-QDEC_TINY, which gives the same results: see tiny()), so
 * d * 10^k < 2^2540; an interpolation's numerator is at most that times a
 * 64-bit significand times 2^2098 (the span of the elements' exponents):
 * below 2^4700, inside BN_LIMBS.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ieee.h"
#include "numfmt.h"
#include "qdec.h"

#define QDEC_TINY 700
#define BN_LIMBS 160

/* ---- a natural number in 32-bit limbs ---------------------------------- */

struct bn {
	unsigned n;		/* limbs used; the top one is not 0 */
	uint32_t d[BN_LIMBS];
};

static void bn_trim(struct bn *a)
{
	while (a->n && !a->d[a->n - 1])
		a->n--;
}

static void bn_u128(struct bn *a, unsigned __int128 v)
{
	for (a->n = 0; v; v >>= 32)
		a->d[a->n++] = (uint32_t)v;
}

static void bn_mul_u32(struct bn *a, uint32_t m)
{
	uint64_t c = 0;

	for (unsigned i = 0; i < a->n; i++) {
		c += (uint64_t)a->d[i] * m;
		a->d[i] = (uint32_t)c;
		c >>= 32;
	}
	if (c)
		a->d[a->n++] = (uint32_t)c;
	bn_trim(a);
}

/* r = a * b (r is neither). */
static void bn_mul(struct bn *r, const struct bn *a, const struct bn *b)
{
	r->n = a->n && b->n ? a->n + b->n : 0;
	memset(r->d, 0, r->n * sizeof(*r->d));
	for (unsigned i = 0; i < a->n; i++) {
		uint64_t c = 0;

		for (unsigned j = 0; j < b->n; j++) {
			c += (uint64_t)a->d[i] * b->d[j] + r->d[i + j];
			r->d[i + j] = (uint32_t)c;
			c >>= 32;
		}
		r->d[i + b->n] = (uint32_t)c;
	}
	bn_trim(r);
}

static void bn_shl(struct bn *a, unsigned s)
{
	unsigned w = s / 32, b = s % 32;

	if (!a->n)
		return;
	a->d[a->n] = 0;
	for (unsigned i = a->n + 1; i-- > 0; )
		a->d[i + w] = (b ? a->d[i] << b : a->d[i]) |
			      (b && i ? a->d[i - 1] >> (32 - b) : 0);
	memset(a->d, 0, w * sizeof(*a->d));
	a->n += w + 1;
	bn_trim(a);
}

static int bn_cmp(const struct bn *a, const struct bn *b)
{
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (unsigned i = a->n; i-- > 0; )
		if (a->d[i] != b->d[i])
			return a->d[i] < b->d[i] ? -1 : 1;
	return 0;
}

static void bn_add(struct bn *a, const struct bn *b)
{
	uint64_t c = 0;
	unsigned n = a->n > b->n ? a->n : b->n;

	for (unsigned i = 0; i < n; i++) {
		c += (uint64_t)(i < a->n ? a->d[i] : 0) + (i < b->n ? b->d[i] : 0);
		a->d[i] = (uint32_t)c;
		c >>= 32;
	}
	a->n = n;
	if (c)
		a->d[a->n++] = (uint32_t)c;
}

/* a -= b, for a >= b. */
static void bn_sub(struct bn *a, const struct bn *b)
{
	int64_t c = 0;

	for (unsigned i = 0; i < a->n; i++) {
		c += (int64_t)a->d[i] - (i < b->n ? b->d[i] : 0);
		a->d[i] = (uint32_t)c;
		c = c < 0 ? -1 : 0;
	}
	bn_trim(a);
}

/* a /= m; returns the remainder. */
static uint32_t bn_divmod(struct bn *a, uint32_t m)
{
	uint64_t r = 0;

	for (unsigned i = a->n; i-- > 0; ) {
		r = r << 32 | a->d[i];
		a->d[i] = (uint32_t)(r / m);
		r %= m;
	}
	bn_trim(a);
	return (uint32_t)r;
}

static unsigned bn_bits(const struct bn *a)
{
	return a->n ? 32 * a->n - (unsigned)__builtin_clz(a->d[a->n - 1]) : 0;
}

static uint32_t bn_word(const struct bn *a, unsigned i)
{
	return i < a->n ? a->d[i] : 0;
}

/* 64 bits of a from bit pos up. */
static uint64_t bn_bits64(const struct bn *a, unsigned pos)
{
	unsigned w = pos / 32, b = pos % 32;
	unsigned __int128 v = (unsigned __int128)bn_word(a, w + 2) << 64 |
			      (uint64_t)bn_word(a, w + 1) << 32 |
			      bn_word(a, w);

	return (uint64_t)(v >> b);
}

static bool bn_any_below(const struct bn *a, unsigned pos)
{
	for (unsigned i = 0; i < pos / 32 && i < a->n; i++)
		if (a->d[i])
			return true;
	return pos % 32 && (bn_word(a, pos / 32) & ((1u << (pos % 32)) - 1));
}

static void bn_pow10(struct bn *a, unsigned k)
{
	bn_u128(a, 1);
	for (; k >= 9; k -= 9)
		bn_mul_u32(a, 1000000000u);
	for (; k; k--)
		bn_mul_u32(a, 10);
}

/* a /= 10^k (floor). */
static void bn_div_pow10(struct bn *a, unsigned k)
{
	for (; k >= 9; k -= 9)
		bn_divmod(a, 1000000000u);
	for (; k; k--)
		bn_divmod(a, 10);
}

/* ---- P as typed ---------------------------------------------------------- */

static void set_n(struct qdec *q, const char *dig, int nd)
{
	struct bn a = { 0 }, digit;

	for (int i = 0; i < nd; i++) {
		bn_mul_u32(&a, 10);
		bn_u128(&digit, (unsigned)(dig[i] - '0'));
		bn_add(&a, &digit);
	}
	memcpy(q->n, a.d, a.n * sizeof(*a.d));
	q->nn = a.n;
}

/*
 * A P below 10^-QDEC_TINY acts as 10^-QDEC_TINY does: P * c1 / d then
 * lies below 2^-2250 (c1 < 2^68), so v keeps its floor, a nonzero
 * fraction that is below 1/2 when the rest of it is 0; and the
 * interpolation x_lo + (r/d + P c1 / d) * dx, with |dx| < 2^1025, moves
 * by less than 2^-1200 from x_lo + (r/d) dx, a multiple of 2^-1077 / 3
 * that is either a rounding boundary (where only the sign of the move
 * decides, the same for both P) or at least 2^-1079 from one.
 */
static void tiny(struct qdec *q)
{
	set_n(q, "1", 1);
	q->k = QDEC_TINY;
}

/* N (digits dig[0..nd), no leading or trailing zeros) / 10^k as text:
 * "0.00ddd" with up to 20 zeros after the point, else "d.ddde-X". */
static void canonical(char *t, const char *dig, int nd, long k)
{
	if (!nd || k == 0) {
		snprintf(t, QDEC_TEXT, "%.*s", nd ? nd : 1, nd ? dig : "0");
	} else if (k - nd <= 20) {
		int z = (int)(k - nd);

		snprintf(t, QDEC_TEXT, "0.%.*s%.*s", z, "00000000000000000000",
			 nd, dig);
	} else {
		snprintf(t, QDEC_TEXT, "%c%s%.*se-%ld", dig[0], nd > 1 ? "." : "",
			 nd - 1, dig + 1, k - nd + 1);
	}
}

/* s's digits (leading and trailing zeros dropped) and k: the value is
 * dig / 10^k. -1: not a decimal, or longer than QDEC_DIGITS digits. */
static int scan(const char *s, char *dig, int *nd, long *k)
{
	bool seen = false, point = false, neg = false;
	long frac = 0, ex = 0;

	*nd = 0;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (;; s++) {
		if (*s >= '0' && *s <= '9') {
			seen = true;
			frac += point;
			if (!*nd && *s == '0')
				continue;
			if (*nd == QDEC_DIGITS)
				return -1;
			dig[(*nd)++] = *s;
		} else if (*s == '.' && !point) {
			point = true;
		} else {
			break;
		}
	}
	if (!seen)
		return -1;
	if (*s == 'e' || *s == 'E') {
		bool eneg = false;

		s++;
		if (*s == '+' || *s == '-')
			eneg = *s++ == '-';
		if (!(*s >= '0' && *s <= '9'))
			return -1;
		for (; *s >= '0' && *s <= '9'; s++)
			if (ex < 100000000)
				ex = ex * 10 + (*s - '0');
		ex = eneg ? -ex : ex;
	}
	if (*s)
		return -1;
	*k = frac - ex;
	while (*nd && dig[*nd - 1] == '0') {
		(*nd)--;
		(*k)--;
	}
	if (!*nd)
		*k = 0;
	return neg && *nd ? -1 : 0;
}

int qdec_parse(const char *s, struct qdec *q)
{
	char dig[QDEC_DIGITS], d2[QDEC_DIGITS], shortest[FMT_DOUBLE_MAX];
	int nd, n2;
	long k, k2;

	memset(q, 0, sizeof(*q));
	if (scan(s, dig, &nd, &k) < 0)
		return -1;
	if (k < nd && !(nd == 1 && dig[0] == '1' && k == 0))
		return -1;		/* above 1 */
	fmt_double(shortest, sizeof(shortest), strtod(s, NULL));
	if (scan(shortest, d2, &n2, &k2) == 0 && n2 == nd && k2 == k &&
	    memcmp(d2, dig, (size_t)nd) == 0)
		snprintf(q->text, sizeof(q->text), "%s", shortest);
	else
		canonical(q->text, dig, nd, k);
	if (k - nd >= QDEC_TINY) {
		tiny(q);
	} else {
		set_n(q, dig, nd);
		q->k = (unsigned)k;
	}
	return 0;
}

/* ---- the index and the interpolation ------------------------------------ */

/* v = (P c1 + c0) / d as floor w and fraction f / den (den = d 10^k);
 * false (nothing set) when v < 0. */
static bool index_of(const struct qdec *q, unsigned __int128 c1, int64_t c0,
		     unsigned d, unsigned __int128 *w, struct bn *f,
		     struct bn *den)
{
	struct bn n, c, t, p10;

	n.n = q->nn;
	memcpy(n.d, q->n, q->nn * sizeof(*n.d));
	bn_u128(&c, c1);
	bn_mul(f, &n, &c);			/* P c1 10^k */
	bn_pow10(&p10, q->k);
	bn_u128(&c, (unsigned __int128)-c0);
	bn_mul(&t, &c, &p10);			/* -c0 10^k */
	if (bn_cmp(f, &t) < 0)
		return false;
	bn_sub(f, &t);				/* d v 10^k */
	*den = p10;
	bn_mul_u32(den, d);
	t = *f;
	bn_divmod(&t, d);
	bn_div_pow10(&t, q->k);
	*w = 0;
	for (unsigned i = t.n; i-- > 0; )
		*w = *w << 32 | t.d[i];
	bn_u128(&c, *w);
	bn_mul(&t, &c, den);
	bn_sub(f, &t);
	return true;
}

void qdec_index(const struct qdec *q, unsigned __int128 c1, int64_t c0,
		unsigned d, struct qindex *v)
{
	struct bn f, den;
	unsigned __int128 w;

	if (!index_of(q, c1, c0, d, &w, &f, &den)) {
		*v = (struct qindex){ .w = -1, .zero = true, .half = -1 };
		return;
	}
	v->w = (__int128)w;
	v->zero = f.n == 0;
	bn_shl(&f, 1);
	v->half = bn_cmp(&f, &den);
}

/* x as (neg ? -1 : 1) * m * 2^e. */
static uint64_t split_value(const struct qvalue *x, int *e, bool *neg)
{
	int ex;

	*e = 0;
	*neg = x->neg;
	if (x->is_int)
		return x->mag;
	*neg = signbit(x->f) != 0;
	if (x->f == 0)
		return 0;
	double fr = frexp(fabs(x->f), &ex);

	*e = ex - 53;
	return (uint64_t)ldexp(fr, 53);
}

/* t = w * m * 2^(e - e0). */
static void term(struct bn *t, const struct bn *w, uint64_t m, int e, int e0)
{
	struct bn mb;

	bn_u128(&mb, m);
	bn_mul(t, w, &mb);
	bn_shl(t, (unsigned)(e - e0));
}

double qdec_lerp(const struct qdec *q, unsigned __int128 c1, int64_t c0,
		 unsigned d, const struct qvalue *lo, const struct qvalue *hi)
{
	struct bn f, den, a, b;
	unsigned __int128 w;
	unsigned k = q ? q->k : 0, bits, need;
	bool nlo, nhi, neg, sticky;
	int elo, ehi, e0;
	uint64_t mlo = split_value(lo, &elo, &nlo);
	uint64_t mhi = split_value(hi, &ehi, &nhi);

	if (!q) {
		bn_u128(&f, 1);
		bn_u128(&den, 2);
		d = 2;
	} else if (!index_of(q, c1, c0, d, &w, &f, &den) || !f.n) {
		return lo->f;
	}
	e0 = !mlo ? ehi : !mhi ? elo : elo < ehi ? elo : ehi;
	a = den;
	bn_sub(&a, &f);
	term(&b, &a, mlo, elo, e0);		/* (den - f) x_lo */
	a = b;
	term(&b, &f, mhi, ehi, e0);		/* f x_hi */
	neg = nlo;
	if (nlo == nhi) {
		bn_add(&a, &b);
	} else if (bn_cmp(&a, &b) >= 0) {
		bn_sub(&a, &b);
	} else {
		bn_sub(&b, &a);
		a = b;
		neg = nhi;
	}
	if (!a.n)
		return 0.0;
	/* a / den * 2^e0, den = d 5^k 2^k: a quotient of at least 66 bits */
	need = 4 + k * 2322 / 1000 + 1 + 66;
	bits = bn_bits(&a);
	if (bits < need) {
		bn_shl(&a, need - bits);
		e0 -= (int)(need - bits);
	}
	sticky = bn_divmod(&a, d) != 0;
	for (unsigned i = k; i >= 13; i -= 13)
		sticky |= bn_divmod(&a, 1220703125u) != 0;	/* 5^13 */
	for (unsigned i = k % 13; i; i--)
		sticky |= bn_divmod(&a, 5) != 0;
	bits = bn_bits(&a) - 64;
	sticky |= bn_any_below(&a, bits);

	struct ieee_fmt fmt = ieee_fmt_of(XF_F64);
	uint64_t u = ieee_round(bn_bits64(&a, bits), sticky,
				(int64_t)e0 - (int64_t)k + bits, neg, &fmt);
	double r;

	memcpy(&r, &u, sizeof(r));
	return r;
}
