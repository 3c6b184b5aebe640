/*
 * unit_ksum.c - the compact exact sum against struct xsum (itself checked
 * against Python's fractions in unit_xsum.c): every set of terms, added in
 * order and in three parts merged in both groupings, must give xsum's limbs
 * and flags, and the same roundings into every format. The sets are made to
 * take each path: terms of one scale (compact throughout), exponents far
 * apart and sums that pass 2^126 (widened keys), cancellation to zero, -0,
 * NaN and the infinities, integers at their extremes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "ksum.h"

#define MAXN 4000

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double dbl(uint64_t u)
{
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

/* A double of kind k: 0 one scale, 1 any exponent, 2 huge, 3 tiny and
 * subnormal, 4 special (NaN, inf, zeros), 5 integer-valued. */
static double term(int k)
{
	uint64_t s = rnd() & 1ull << 63, f = rnd() & 0xfffffffffffffull;

	switch (k) {
	case 0:
		return dbl(s | (uint64_t)(1023 + (int)(rnd() % 8)) << 52 | f);
	case 1:
		return dbl(s | (rnd() % 2047) << 52 | f);
	case 2:
		return dbl(s | (uint64_t)(2000 + rnd() % 47) << 52 | f);
	case 3:
		return dbl(s | (rnd() % 3) << 52 | f);
	case 4:
		switch (rnd() % 5) {
		case 0: return NAN;
		case 1: return INFINITY;
		case 2: return -INFINITY;
		case 3: return -0.0;
		default: return 0.0;
		}
	default:
		return (double)(int64_t)(rnd() % 2000001) - 1e6;
	}
}

static struct { double v[MAXN]; int n; } set;

/* A set: n terms of kinds chosen by mask (bit k: kind k allowed). */
static void make(int n, unsigned mask)
{
	set.n = n;
	for (int i = 0; i < n; i++) {
		int k;

		do
			k = (int)(rnd() % 6);
		while (!(mask >> k & 1));
		set.v[i] = term(k);
	}
}

static void xref(struct xsum *x, int from, int to)
{
	bool any = false, notnegz = false;

	xsum_init(x);
	for (int i = from; i < to; i++) {
		xsum_add_f64(x, set.v[i]);
		any = true;
		notnegz |= !(set.v[i] == 0 && signbit(set.v[i]));
	}
	x->negzero = any && !notnegz;
}

static void kadd(struct ksum *k, int from, int to)
{
	ksum_init(k);
	for (int i = from; i < to; i++)
		ksum_add_f64(k, set.v[i]);
}

static bool same(const struct ksum *k, const struct xsum *x)
{
	struct xsum y;

	ksum_to_xsum(k, &y);
	if (memcmp(y.limb, x->limb, sizeof(y.limb)) || y.nan != x->nan ||
	    y.pinf != x->pinf || y.ninf != x->ninf)
		return false;
	for (enum xfmt f = XF_F16; f <= XF_F64; f++)
		if (ksum_round(k, f) != xsum_round(x, f))
			return false;
	return true;
}

static void check_set(const char *what)
{
	struct xsum x;
	struct ksum k, a, b, c, ab;
	int n = set.n, i = (int)(rnd() % (n + 1)), j = (int)(rnd() % (n + 1));

	if (i > j) {
		int t = i;

		i = j;
		j = t;
	}
	xref(&x, 0, n);
	kadd(&k, 0, n);
	CHECKF(same(&k, &x), "%s, %d terms in order", what, n);
	kadd(&a, 0, i);
	kadd(&b, i, j);
	kadd(&c, j, n);
	ksum_init(&ab);			/* (a + b) + c */
	ksum_merge(&ab, &a);
	ksum_merge(&ab, &b);
	ksum_merge(&ab, &c);
	CHECKF(same(&ab, &x), "%s, (a+b)+c cut at %d, %d", what, i, j);
	ksum_merge(&b, &c);		/* a + (b + c) */
	ksum_merge(&a, &b);
	CHECKF(same(&a, &x), "%s, a+(b+c) cut at %d, %d", what, i, j);
	ksum_free(&k);
	ksum_free(&a);
	ksum_free(&b);
	ksum_free(&c);
	ksum_free(&ab);
}

static void check_ints(void)
{
	static const int64_t iv[] = { INT64_MIN, INT64_MAX, -1, 1, 0,
				      INT64_MIN + 1 };
	struct ksum k;
	struct xsum x;

	for (int r = 0; r < 200; r++) {
		ksum_init(&k);
		xsum_init(&x);
		for (int i = 0; i < 300; i++) {
			int64_t v = rnd() % 3 ? iv[rnd() % 6] : (int64_t)rnd();
			uint64_t u = UINT64_MAX - rnd() % 3;

			ksum_add_i64(&k, v);
			xsum_add_i64(&x, v);
			if (rnd() % 4 == 0) {
				ksum_add_u64(&k, u);
				xsum_add_u64(&x, u);
			}
		}
		CHECK(same(&k, &x));
		ksum_free(&k);
	}
	/* a deterministic run: equal terms by both */
	ksum_init(&k);
	xsum_init(&x);
	for (int i = 0; i < 5000; i++) {
		int64_t v = iv[i % 6];

		ksum_add_i64(&k, v);
		xsum_add_i64(&x, v);
		ksum_add_u64(&k, UINT64_MAX);
		xsum_add_u64(&x, UINT64_MAX);
	}
	CHECK(same(&k, &x));
	CHECK(!k.wide);			/* 2^77 and below: no widening */
	ksum_free(&k);
}

/* Sums past 2^126 widen; so do terms 2^1000 apart. */
static void check_widen(void)
{
	struct ksum k;
	struct xsum x;

	set.n = 0;
	set.v[set.n++] = 1.0;
	for (int i = 0; i < 40; i++)
		set.v[set.n++] = ldexp(9007199254740991.0, 70);
	kadd(&k, 0, set.n);
	CHECK(k.wide != NULL);
	xref(&x, 0, set.n);
	CHECK(same(&k, &x));
	ksum_free(&k);
	set.n = 0;
	set.v[set.n++] = 1e300;
	set.v[set.n++] = 1e-300;
	set.v[set.n++] = -1e300;
	kadd(&k, 0, set.n);
	CHECK(k.wide != NULL);
	xref(&x, 0, set.n);
	CHECK(same(&k, &x));
	CHECK(ksum_round(&k, XF_F64) == 0x01a56e1fc2f8f359ull);	/* 1e-300 */
	ksum_free(&k);
	set.n = 0;			/* one scale stays compact */
	for (int i = 0; i < 1000; i++)
		set.v[set.n++] = term(0);
	kadd(&k, 0, set.n);
	CHECK(k.wide == NULL);
	ksum_free(&k);
}

static void check_zero_signs(void)
{
	struct ksum k;

	ksum_init(&k);
	CHECK(ksum_round(&k, XF_F32) == 0);		/* no terms: +0 */
	ksum_add_f64(&k, -0.0);
	CHECK(ksum_round(&k, XF_F32) == 0x80000000u);	/* -0 alone: -0 */
	ksum_add_f64(&k, 1.5);
	ksum_add_f64(&k, -1.5);
	CHECK(ksum_round(&k, XF_F32) == 0);		/* x - x: +0 */
	ksum_init(&k);
	ksum_add_f64(&k, INFINITY);
	ksum_add_f64(&k, -INFINITY);
	CHECK(ksum_round(&k, XF_F64) == 0x7ff8000000000000ull);
}

/* ksum_add_u128: squares of doubles' significands and of 64-bit integers
 * (what a group-by's sum of squares adds), against xsum_add_u128 and
 * xsum_add_prod_f64, compact and widened, and merged in parts. */
static void check_u128(void)
{
	for (int r = 0; r < 200; r++) {
		struct ksum k, a, b;
		struct xsum x, y, z;
		int n = 1 + (int)(rnd() % 300);

		ksum_init(&k);
		ksum_init(&a);
		ksum_init(&b);
		xsum_init(&x);
		xsum_init(&z);
		for (int i = 0; i < n; i++) {
			unsigned __int128 m;
			int e;
			bool neg = r % 3 == 0 && rnd() % 2;

			if (r % 2) {	/* a double's square */
				double v = term(r % 4 == 1 ? 1 : 3);
				uint64_t u, f;
				unsigned be;

				memcpy(&u, &v, sizeof(u));
				be = (unsigned)(u >> 52) & 0x7ff;
				if (be == 0x7ff)
					continue;
				f = (u & 0xfffffffffffffull) |
				    (uint64_t)(be != 0) << 52;
				m = (unsigned __int128)f * f;
				e = 2 * ((int)(be + (be == 0)) - 1075);
				xsum_add_prod_f64(&z, neg ? -v : v, v);
			} else {	/* an integer's, up to 2^128 - 2^65 + 1 */
				uint64_t v = r % 4 == 2 ? rnd() : rnd() >> 40;

				m = (unsigned __int128)v * v;
				e = 0;
				xsum_add_u128(&z, m, 0, neg);
			}
			xsum_add_u128(&x, m, e, neg);
			CHECK(ksum_add_u128(&k, m, e, neg));
			CHECK(ksum_add_u128(i % 2 ? &a : &b, m, e, neg));
		}
		CHECK(ksum_merge(&a, &b));
		ksum_to_xsum(&k, &y);
		CHECK(memcmp(y.limb, x.limb, sizeof(x.limb)) == 0);
		CHECK(memcmp(y.limb, z.limb, sizeof(z.limb)) == 0);
		ksum_to_xsum(&a, &y);
		CHECK(memcmp(y.limb, x.limb, sizeof(x.limb)) == 0);
		CHECK(ksum_round(&k, XF_F64) == xsum_round(&x, XF_F64));
		ksum_free(&k);
		ksum_free(&a);
		ksum_free(&b);
	}
}

int main(void)
{
	static const struct { unsigned mask; const char *what; } kinds[] = {
		{ 1, "one scale" }, { 2, "any exponent" }, { 4 | 1, "huge" },
		{ 8, "tiny" }, { 16 | 1, "specials" }, { 32, "integers" },
		{ 63, "everything" }, { 8 | 32, "tiny and integers" },
	};

	for (int r = 0; r < 60; r++)
		for (size_t t = 0; t < sizeof(kinds) / sizeof(kinds[0]); t++) {
			make(1 + (int)(rnd() % (r < 30 ? 20 : MAXN)),
			     kinds[t].mask);
			check_set(kinds[t].what);
		}
	/* cancellation: a set and its negation, shuffled together */
	for (int r = 0; r < 40; r++) {
		make(1 + (int)(rnd() % (MAXN / 2)), r % 2 ? 1 : 2 | 8);
		for (int i = 0; i < set.n; i++)
			set.v[set.n + i] = -set.v[i];
		set.n *= 2;
		for (int i = set.n - 1; i > 0; i--) {
			int j = (int)(rnd() % (i + 1));
			double t = set.v[i];

			set.v[i] = set.v[j];
			set.v[j] = t;
		}
		check_set("cancelling");
	}
	check_ints();
	check_widen();
	check_zero_signs();
	check_u128();
	UNIT_END();
}
