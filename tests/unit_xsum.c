/*
 * unit_xsum.c - the exact accumulator against vectors computed with Python's
 * fractions (tests/xsum_vectors.h, made by tests/gen_xsum_vectors.py).
 *
 * Every case is accumulated several ways (in order, reversed, through
 * xbins, in three parts merged in two groupings) and each way must give the
 * same limbs and the expected roundings, decimal and sign.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "xsum.h"
#include "xsum_vectors.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static double dbl(uint64_t u)
{
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

static uint64_t bits(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

static void add_item(struct xsum *x, struct xbins *b, const struct xv_item *it)
{
	switch (it->op) {
	case 'd':
		if (b)
			xbins_add_f64(b, dbl(it->a));
		else
			xsum_add_f64(x, dbl(it->a));
		break;
	case 'p':
		if (b)
			xbins_add_prod_f64(b, dbl(it->a), dbl(it->b));
		else
			xsum_add_prod_f64(x, dbl(it->a), dbl(it->b));
		break;
	case 'i':
		xsum_add_i64(x, (int64_t)it->a);
		break;
	default:
		xsum_add_u64(x, it->a);
	}
}

/* Items off..off+n with index % step == part, in order or reversed. */
static void accumulate(struct xsum *x, struct xbins *b, const struct xv_case *c,
		       unsigned step, unsigned part, bool reverse)
{
	unsigned i;

	xsum_init(x);
	if (b)
		xbins_init(b);
	for (i = 0; i < c->n; i++) {
		unsigned k = reverse ? c->n - 1 - i : i;

		if (k % step == part)
			add_item(x, b, &xv_items[c->off + k]);
	}
	if (b)
		xbins_flush(b, x);
}

static bool same(const struct xsum *a, const struct xsum *b)
{
	return !memcmp(a->limb, b->limb, sizeof(a->limb)) && a->nan == b->nan &&
	       a->pinf == b->pinf && a->ninf == b->ninf;
}

static void check_result(const struct xv_case *c, const struct xsum *x)
{
	char dec[XSUM_DEC_MAX];
	bool isint = xsum_to_dec(x, dec);
	int64_t i64;
	uint64_t u64;

	CHECKF(xsum_round(x, XF_F64) == c->f64, "%s: f64 %016llx", c->name,
	       (unsigned long long)xsum_round(x, XF_F64));
	CHECKF(bits(xsum_to_f64(x)) == c->f64, "%s: to_f64", c->name);
	CHECKF(xsum_round(x, XF_F32) == c->f32, "%s: f32 %08llx", c->name,
	       (unsigned long long)xsum_round(x, XF_F32));
	CHECKF(xsum_round(x, XF_F16) == c->f16, "%s: f16 %04llx", c->name,
	       (unsigned long long)xsum_round(x, XF_F16));
	CHECKF(xsum_round(x, XF_BF16) == c->bf16, "%s: bf16 %04llx", c->name,
	       (unsigned long long)xsum_round(x, XF_BF16));
	CHECKF(isint == (c->dec != NULL) && (!isint || !strcmp(dec, c->dec)),
	       "%s: dec %s", c->name, isint ? dec : "(none)");
	CHECKF(xsum_sign(x) == c->sign, "%s: sign %d", c->name, xsum_sign(x));
	if (c->dec) {
		char *end;
		errno = 0;
		long long v = strtoll(c->dec, &end, 10);
		bool fits = !errno;

		CHECKF(xsum_to_i64(x, &i64) == fits && (!fits || i64 == v),
		       "%s: to_i64", c->name);
		errno = 0;
		unsigned long long u = strtoull(c->dec, &end, 10);
		fits = !errno && c->dec[0] != '-';
		CHECKF(xsum_to_u64(x, &u64) == fits && (!fits || u64 == u),
		       "%s: to_u64", c->name);
	} else {
		CHECK(!xsum_to_i64(x, &i64) && !xsum_to_u64(x, &u64));
	}
}

static void check_neg(const struct xv_case *c, const struct xsum *x)
{
	struct xsum y = *x;
	uint64_t want = c->f64 ^ (1ull << 63);

	xsum_neg(&y);
	if (isnan(dbl(c->f64)))
		want = c->f64;
	else if (c->sign == 0 && !(c->f64 << 1))
		want = 0;	/* exact zero is +0 both ways */
	CHECKF(xsum_round(&y, XF_F64) == want, "%s: neg", c->name);
	xsum_neg(&y);
	CHECKF(same(&y, x), "%s: neg twice", c->name);
}

static void test_cases(void)
{
	static struct xbins b;
	struct xsum x, y, p[3], m1, m2;
	unsigned i, j;

	for (i = 0; i < NELEM(xv_cases); i++) {
		const struct xv_case *c = &xv_cases[i];

		accumulate(&x, NULL, c, 1, 0, false);
		check_result(c, &x);
		check_neg(c, &x);
		accumulate(&y, NULL, c, 1, 0, true);
		CHECKF(same(&x, &y), "%s: reversed", c->name);
		accumulate(&y, &b, c, 1, 0, false);
		CHECKF(same(&x, &y), "%s: xbins", c->name);
		for (j = 0; j < 3; j++)
			accumulate(&p[j], j == 1 ? &b : NULL, c, 3, j, j == 2);
		m1 = p[0];
		xsum_merge(&m1, &p[1]);
		xsum_merge(&m1, &p[2]);
		m2 = p[2];
		xsum_merge(&p[1], &p[0]);
		xsum_merge(&m2, &p[1]);
		CHECKF(same(&x, &m1) && same(&x, &m2), "%s: merge", c->name);
	}
}

static void test_stats(void)
{
	unsigned i, j;

	for (i = 0; i < NELEM(xv_stats); i++) {
		const struct xv_stat *c = &xv_stats[i];
		const uint64_t *want[] = { &c->pvar, &c->svar, &c->pstdev, &c->sstdev };
		const char *what[] = { "pvar", "svar", "pstdev", "sstdev" };
		struct xsum s1, s2;
		double got[4];

		xsum_init(&s1);
		xsum_init(&s2);
		for (j = 0; j < c->n; j++) {
			double v = dbl(xv_stat_vals[c->off + j]);

			xsum_add_f64(&s1, v);
			xsum_add_prod_f64(&s2, v, v);
		}
		CHECKF(bits(xsum_mean(&s1, c->n)) == c->mean, "%s: mean %.17g",
		       c->name, xsum_mean(&s1, c->n));
		xsum_var(&s1, &s2, c->n, &got[0], &got[1], &got[2], &got[3]);
		for (j = 0; j < 4; j++)
			CHECKF(isnan(dbl(*want[j])) ? isnan(got[j]) : bits(got[j]) == *want[j],
			       "%s: %s %.17g", c->name, what[j], got[j]);
	}
}

static void test_roots(void)
{
	unsigned i, j;

	for (i = 0; i < NELEM(xv_roots); i++) {
		const struct xv_root *c = &xv_roots[i];
		const uint64_t want[] = { c->pvar, c->svar, c->pstdev, c->sstdev };
		struct xsum s1, s2;
		double got[4];

		xsum_init(&s1);
		xsum_init(&s2);
		for (j = 0; j < c->cnt; j++)
			xsum_add_f64(&s2, dbl(xv_root_vals[c->off + j]));
		xsum_var(&s1, &s2, c->n, &got[0], &got[1], &got[2], &got[3]);
		for (j = 0; j < 4; j++)
			CHECKF(isnan(dbl(want[j])) ? isnan(got[j]) : bits(got[j]) == want[j],
			       "%s: [%u] %.17g", c->name, j, got[j]);
	}
}

/* floor(sqrt(v)) a bit pair at a time: the reference for xsum_isqrt128. */
static uint64_t isqrt_digits(unsigned __int128 v, bool *exact)
{
	unsigned __int128 r = 0, bit = (unsigned __int128)1 << 126;

	while (bit > v)
		bit >>= 2;
	for (; bit; bit >>= 2) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	*exact = v == 0;
	return (uint64_t)r;
}

/* Roots of the edges (0, 1, the top of 128 bits, (2^64 - 1)^2 and its
 * neighbours), of squares and their neighbours at every size, and of
 * random values at every size: each the reference's, exactness too. */
static void test_isqrt(void)
{
	const unsigned __int128 top = ~(unsigned __int128)0,
				m = UINT64_MAX;
	unsigned __int128 edge[] = { 0, 1, 2, 3, 4, 5, top, top - 1, m * m,
				     m * m - 1, m * m + 1, (unsigned __int128)1 << 126,
				     ((unsigned __int128)1 << 126) - 1 };
	uint64_t s = 88172645463325252ull;
	unsigned bad = 0;

	for (size_t i = 0; i < NELEM(edge) + 1000000; i++) {
		unsigned __int128 v;
		bool e1, e2;

		if (i < NELEM(edge)) {
			v = edge[i];
		} else {
			uint64_t a, b;

			s ^= s << 13, s ^= s >> 7, s ^= s << 17, a = s;
			s ^= s << 13, s ^= s >> 7, s ^= s << 17, b = s;
			v = ((unsigned __int128)a << 64 | b) >> (b % 128);
			if (i % 3 == 0) {	/* a square, or one off it */
				unsigned __int128 r = a >> (b % 64);

				v = r * r + (r ? b % 3 : 1) - 1;
			}
		}
		uint64_t got = xsum_isqrt128(v, &e1), want = isqrt_digits(v, &e2);

		if ((got != want || e1 != e2) && bad++ < 3)
			CHECKF(0, "isqrt of %016llx%016llx: %llu (%d), want %llu (%d)",
			       (unsigned long long)(v >> 64), (unsigned long long)v,
			       (unsigned long long)got, e1, (unsigned long long)want, e2);
	}
	CHECKF(bad == 0, "isqrt: %u wrong", bad);
}

/* A bin takes XBINS_FLUSH_EVERY of the largest products without overflow:
 * compare with the same product merged that many times. */
static void test_bins_full(void)
{
	static struct xbins b;
	const double big = 1.7976931348623157e308, sub = 4.9406564584124654e-324;
	const double a[] = { big, -big, 1.9999999999999998, sub };
	unsigned i, k;

	for (k = 0; k < NELEM(a); k++) {
		struct xsum x, one, want;

		xsum_init(&x);
		xsum_init(&one);
		xsum_init(&want);
		xbins_init(&b);
		xsum_add_prod_f64(&one, a[k], big);
		for (i = 0; i < XBINS_FLUSH_EVERY; i++) {
			xbins_add_prod_f64(&b, a[k], big);
			xsum_merge(&want, &one);
		}
		xbins_flush(&b, &x);
		CHECKF(same(&x, &want), "full bin %u", k);
	}
}

static void test_edges(void)
{
	struct xsum x;
	char dec[XSUM_DEC_MAX];
	int64_t i64;
	unsigned i;

	/* the largest and smallest integers an xsum holds */
	xsum_init(&x);
	for (i = XSUM_FRAC / 64; i < XSUM_LIMBS; i++)
		x.limb[i] = ~0ull;
	x.limb[XSUM_LIMBS - 1] >>= 1;
	CHECK(xsum_to_dec(&x, dec) && strlen(dec) == 655 && !strncmp(dec, "549845", 6));
	xsum_neg(&x);
	xsum_add_i64(&x, -1);
	CHECK(xsum_to_dec(&x, dec) && strlen(dec) == 656 && dec[0] == '-');
	CHECK(xsum_sign(&x) == -1);

	xsum_init(&x);
	xsum_add_i128(&x, (__int128)((unsigned __int128)1 << 127), 0);
	CHECK(xsum_to_dec(&x, dec) && !strcmp(dec, "-170141183460469231731687303715884105728"));
	xsum_add_u128(&x, ~(unsigned __int128)0, 0, false);
	CHECK(xsum_to_dec(&x, dec) && !strcmp(dec, "170141183460469231731687303715884105727"));

	xsum_init(&x);
	xsum_add_i64(&x, INT64_MIN);
	CHECK(xsum_to_i64(&x, &i64) && i64 == INT64_MIN);
	xsum_add_u128(&x, 1, -XSUM_FRAC, false);	/* the lowest bit */
	CHECK(!xsum_to_i64(&x, &i64) && !xsum_to_dec(&x, dec));
	CHECK(xsum_round(&x, XF_F64) == bits(-0x1p63));
	CHECK(!xsum_is_zero(&x));
	xsum_add_u128(&x, 1, -XSUM_FRAC, true);
	xsum_add_u64(&x, 1ull << 63);
	CHECK(xsum_is_zero(&x) && xsum_sign(&x) == 0);
	CHECK(xsum_round(&x, XF_F16) == 0);

	/* one bit at the very bottom rounds to +0 / -0 */
	xsum_init(&x);
	xsum_add_u128(&x, 1, -XSUM_FRAC, false);
	CHECK(xsum_round(&x, XF_F64) == 0 && xsum_sign(&x) == 1);
	xsum_neg(&x);
	CHECK(xsum_round(&x, XF_F64) == 1ull << 63);
	CHECK(xsum_round(&x, XF_F32) == 1u << 31);
	CHECK(xsum_round(&x, XF_F16) == 0x8000);

	/* xbins flags */
	{
		static struct xbins b;

		xsum_init(&x);
		xbins_init(&b);
		xbins_add_f64(&b, INFINITY);
		xbins_add_prod_f64(&b, -2.0, INFINITY);
		CHECK(b.special == 2);
		xbins_flush(&b, &x);
		CHECK(x.pinf && x.ninf && !x.nan && b.special == 0);
		CHECK(xsum_round(&x, XF_F64) == 0x7ff8000000000000ull);
	}
}

/* ieee.h's sticky bit: m + d for any 0 < d < 1 rounds as m + 1/2, that is
 * (2m + 1) * 2^(e - 1) with no sticky bit, whenever m has p + 2 bits or
 * more (the rounding boundaries then lie on whole units of m); and a
 * value with no fraction rounds alike with or without the bit when the
 * shift drops nothing but zeros. */
static void test_ieee_sticky(void)
{
	static const enum xfmt fmts[] = { XF_F16, XF_BF16, XF_F32, XF_F64 };
	uint64_t r = 0x9e3779b97f4a7c15ull;
	int bad = 0, fast = 0, n = 0;

	for (int i = 0; i < 200000; i++) {
		struct ieee_fmt f = ieee_fmt_of(fmts[i % 4]);
		unsigned __int128 m;
		int bitsm, e;

		r = r * 6364136223846793005ull + 1442695040888963407ull;
		bitsm = f.p + 2 + (int)((r >> 33) % (uint64_t)(127 - f.p - 2));
		m = ((unsigned __int128)r << 64 | (r * 0xff51afd7ed558ccdull)) |
		    (unsigned __int128)1 << 126;
		m >>= 127 - bitsm;	/* bitsm significant bits */
		if (i % 3 == 0)		/* a tie below the kept bits */
			m = m >> (bitsm - f.p) << (bitsm - f.p) |
			    (unsigned __int128)1 << (bitsm - f.p - 1);
		e = (int)((r >> 20) % (uint64_t)(2 * f.emax + 2 * f.p + 2 * 128)) -
		    (f.emax + f.p + 128) - bitsm / 2;
		bad += ieee_round(m, true, e, i & 1, &f) !=
		       ieee_round(2 * m + 1, false, e - 1, i & 1, &f);
		/* the fast path (the host's conversions here, xsum_round's)
		 * rounds alike, with a sticky bit, without, and below 2^64 */
		fast += ieee_round_fast(m, true, e, i & 1, &f) !=
			ieee_round(m, true, e, i & 1, &f);
		fast += ieee_round_fast(m, false, e, i & 1, &f) !=
			ieee_round(m, false, e, i & 1, &f);
		fast += ieee_round_fast(m >> 70, false, e, i & 1, &f) !=
			ieee_round(m >> 70, false, e, i & 1, &f);
		n++;
	}
	CHECKF(bad == 0, "%d of %d sticky roundings differ", bad, n);
	CHECKF(fast == 0, "%d of %d fast roundings differ", fast, 3 * n);
	{
		struct ieee_fmt f = ieee_fmt_of(XF_F64);

		CHECK(ieee_round(0, false, 5, true, &f) == 1ull << 63);
		CHECK(ieee_round(0, false, 5, false, &f) == 0);
	}
}

int main(void)
{
	test_ieee_sticky();
	test_cases();
	test_stats();
	test_roots();
	test_isqrt();
	test_bins_full();
	test_edges();
	UNIT_END();
}
