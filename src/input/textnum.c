/*
 * textnum.c - decimal fields to element values (see textnum.h).
 *
 * Floats take these roads, the first that applies:
 *
 *  1. Clinger's fast path: at most 19 significant digits w, w <= 2^53
 *     (2^24 for f32) and |exponent| <= 22 (10): w and 10^|e| are exact in
 *     the type, so one IEEE multiply or divide rounds the exact value once.
 *  1b. Up to 19 digits and |exponent| <= 19 (what repr() and %.17g
 *     write): the product or quotient in 128-bit integers, rounded once
 *     to a double (exact128_f64).
 *  2. Otherwise glibc's strtod, which is correctly rounded, on the digits
 *     rewritten (at most DIGITS_MAX of them, and a sticky 1 for those
 *     dropped: no double's rounding boundary needs more than 767
 *     significant digits, so the rounding is the same).
 *  3. For f16, bf16 and f32 (but f32's own fast path), the double of
 *     roads 1 to 2 is rounded once more, to the type. That is the same as
 *     rounding the exact decimal, except where the double lies exactly
 *     halfway between two values of the type: every such halfway point is
 *     a double, so a decimal on either side of it, within half a double's
 *     ulp, became that double. There the decimal is compared exactly with
 *     the halfway point (by fma's exact product after road 1, else with big
 *     integers) and rounded up, down, or to even on a tie.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "textnum.h"

/* Significant digits handed to strtod or the exact comparison; more are
 * represented by a sticky nonzero digit. */
#define DIGITS_MAX 780
/* Exponents saturate here: 10^(+-10^9) is inf or 0 in every type. */
#define EXP_MAX 1000000000

/* A field read as a decimal: w * 10^e10 when !more, else w holds its first
 * 19 significant digits and more says nonzero ones were dropped. */
struct decimal {
	bool neg;
	int special;		/* 0: finite, 1: inf, 2: nan */
	uint64_t w;
	int ndig;		/* significant digits in w */
	bool more;
	int64_t e10;
	const char *mant, *mant_end;	/* the digits and '.', for road 2 */
	int64_t exp;		/* the written exponent */
};

static const double pow10_f64[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

static const float pow10_f32[11] = {
	1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f
};

static bool is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

/* Whether s[0..n) is word in any case. */
static bool same_word(const char *s, size_t n, const char *word)
{
	size_t i;

	if (strlen(word) != n)
		return false;
	for (i = 0; i < n; i++)
		if ((s[i] | 0x20) != word[i])
			return false;
	return true;
}

static void add_digit(struct decimal *d, int c)
{
	if (d->w == 0 && c == 0)
		return;
	if (d->ndig < 19) {
		d->w = d->w * 10 + (uint64_t)c;
		d->ndig++;
	} else {
		d->more |= c != 0;
		d->e10++;
	}
}

/* The exponent after 'e': sign and digits, saturating. */
static int scan_exponent(const char *p, const char *end, int64_t *exp)
{
	bool neg = false;
	int64_t x = 0;

	if (p < end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	if (p == end)
		return -1;
	for (; p < end; p++) {
		if (!is_digit(*p))
			return -1;
		if (x < EXP_MAX)
			x = x * 10 + (*p - '0');
	}
	*exp = neg ? -x : x;
	return 0;
}

/* Eight ASCII digits at p as their value into *v, or false when they are
 * not all digits: the bytes are summed pairwise by multiplies (SWAR, the
 * first byte the most significant digit on a little-endian load). */
static bool eight_digits(const char *p, uint64_t *v)
{
	uint64_t x;

	memcpy(&x, p, 8);
	/* each byte 0x30..0x39: high nibble 3, and adding 6 carries nowhere */
	if (((x & 0xf0f0f0f0f0f0f0f0u) |
	     (((x + 0x0606060606060606u) & 0xf0f0f0f0f0f0f0f0u) >> 4)) !=
	    0x3333333333333333u)
		return false;
	x -= 0x3030303030303030u;
	x = x * 10 + (x >> 8);	/* pairs: 10 * d0 + d1 in every even byte */
	x = ((x & 0x000000ff000000ffu) * (100 + (1000000ull << 32)) +
	     ((x >> 16) & 0x000000ff000000ffu) * (1 + (10000ull << 32))) >> 32;
	*v = (uint32_t)x;
	return true;
}

/* The common field: at most 19 digits (leading zeros counted), so w
 * cannot overflow. Returns 1 when it was one, else 0 (scan_decimal then
 * reads it, or refuses it). */
static int scan_short(const char *s, size_t n, struct decimal *d)
{
	const char *p = s, *end = s + n, *q;
	uint64_t w = 0;
	int64_t nd, e10 = 0;

	d->neg = false;
	if (p < end && (*p == '+' || *p == '-'))
		d->neg = *p++ == '-';
	d->mant = p;
	q = p;
	if (end - p >= 8 && eight_digits(p, &w))
		p += 8;
	for (; p < end && is_digit(*p); p++)
		w = w * 10 + (uint64_t)(*p - '0');
	nd = p - q;
	if (p < end && *p == '.') {
		for (q = ++p; p < end && is_digit(*p); p++)
			w = w * 10 + (uint64_t)(*p - '0');
		e10 = -(p - q);
		nd += p - q;
	}
	if (nd == 0 || nd > 19)
		return 0;
	d->mant_end = p;
	d->exp = 0;
	if (p < end && (*p | 0x20) == 'e') {
		if (scan_exponent(p + 1, end, &d->exp) < 0)
			return 0;
	} else if (p != end) {
		return 0;
	}
	d->special = 0;
	d->w = w;
	d->more = false;
	d->e10 = e10 + d->exp;
	return 1;
}

static int scan_decimal(const char *s, size_t n, struct decimal *d)
{
	const char *p = s, *end = s + n;
	bool any = false;

	if (scan_short(s, n, d))
		return 0;
	memset(d, 0, sizeof(*d));
	if (p < end && (*p == '+' || *p == '-'))
		d->neg = *p++ == '-';
	if (p < end && !is_digit(*p) && *p != '.') {
		size_t k = (size_t)(end - p);

		if (same_word(p, k, "inf") || same_word(p, k, "infinity"))
			return d->special = 1, 0;
		if (same_word(p, k, "nan"))
			return d->special = 2, 0;
	}
	d->mant = p;
	for (; p < end && is_digit(*p); p++, any = true)
		add_digit(d, *p - '0');
	if (p < end && *p == '.')
		for (p++; p < end && is_digit(*p); p++, any = true) {
			add_digit(d, *p - '0');
			d->e10--;
		}
	d->mant_end = p;
	if (!any)
		return -1;
	if (p < end && (*p | 0x20) == 'e') {
		if (scan_exponent(p + 1, end, &d->exp) < 0)
			return -1;
		d->e10 += d->exp;
	} else if (p != end) {
		return -1;
	}
	return 0;
}

/* The significant digits of d (at most DIGITS_MAX, then a sticky '1') into
 * buf, and the exponent E with value = digits * 10^E. Returns the count. */
static size_t decimal_digits(const struct decimal *d, char *buf, int64_t *E)
{
	size_t k = 0;
	int64_t dropped = 0, frac = 0;
	bool in_frac = false, sticky = false;
	const char *p;

	for (p = d->mant; p < d->mant_end; p++) {
		if (*p == '.') {
			in_frac = true;
			continue;
		}
		frac += in_frac;
		if (k == 0 && *p == '0')
			continue;
		if (k < DIGITS_MAX)
			buf[k++] = *p;
		else
			dropped++, sticky |= *p != '0';
	}
	*E = d->exp - frac + dropped;
	if (sticky) {
		buf[k++] = '1';
		(*E)--;
	}
	return k;
}

/* Road 2: the double nearest d, by strtod. */
static double decimal_strtod(const struct decimal *d)
{
	char buf[DIGITS_MAX + 40];
	int64_t E;
	size_t k = decimal_digits(d, buf, &E);

	if (k == 0)
		return 0.0;
	snprintf(buf + k, sizeof(buf) - k, "e%lld", (long long)E);
	return strtod(buf, NULL);
}

/* ---- exact comparison with a halfway point ------------------------------ */

/* Big enough for the decimals near a halfway point of f32 and narrower
 * (|x| in [2^-150, 2^129], DIGITS_MAX + 1 digits): about 3,000 bits. */
#define BIG_LIMBS 160

struct big {
	uint32_t w[BIG_LIMBS];
	int n;
	bool over;		/* did not fit (never, by the bound above) */
};

static void big_muladd(struct big *b, uint32_t mul, uint32_t add)
{
	uint64_t carry = add;
	int i;

	for (i = 0; i < b->n; i++) {
		carry += (uint64_t)b->w[i] * mul;
		b->w[i] = (uint32_t)carry;
		carry >>= 32;
	}
	if (carry && b->n < BIG_LIMBS)
		b->w[b->n++] = (uint32_t)carry;
	else if (carry)
		b->over = true;
}

static void big_mul_pow10(struct big *b, int64_t k)
{
	for (; k >= 9; k -= 9)
		big_muladd(b, 1000000000u, 0);
	for (; k > 0; k--)
		big_muladd(b, 10, 0);
}

static void big_shl(struct big *b, int64_t bits)
{
	for (; bits >= 16; bits -= 16)
		big_muladd(b, 1u << 16, 0);
	if (bits > 0)
		big_muladd(b, 1u << bits, 0);
}

static int big_cmp(const struct big *a, const struct big *b)
{
	int i;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (i = a->n - 1; i >= 0; i--)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

/* -1, 0 or 1 as |d| is below, at or above m (a positive double). */
static int decimal_cmp_exact(const struct decimal *d, double m)
{
	static _Thread_local struct big x, y;
	char buf[DIGITS_MAX + 2];
	int64_t E, F;
	int ex;
	size_t k = decimal_digits(d, buf, &E), i;
	uint64_t M = (uint64_t)ldexp(frexp(m, &ex), 53);

	F = ex - 53;
	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	x.n = y.n = 1;
	for (i = 0; i < k; i++)
		big_muladd(&x, 10, (uint32_t)(buf[i] - '0'));
	big_muladd(&y, 1, 0);
	y.w[0] = (uint32_t)M;
	if (M >> 32)
		y.w[y.n++] = (uint32_t)(M >> 32);
	big_mul_pow10(E > 0 ? &x : &y, E > 0 ? E : -E);
	big_shl(F < 0 ? &x : &y, F < 0 ? -F : F);
	if (x.n == 1 && x.w[0] == 0)
		return -1;
	return x.over || y.over ? 0 : big_cmp(&x, &y);
}

/* ---- rounding a double to a narrower float ------------------------------ */

struct fmt {
	int p;			/* precision in bits, the hidden one included */
	int emin, emax;
	int bias;
	int bits;		/* total width */
};

static const struct fmt fmt_f32 = { 24, -126, 127, 127, 32 };
static const struct fmt fmt_f16 = { 11, -14, 15, 15, 16 };
static const struct fmt fmt_bf16 = { 8, -126, 127, 127, 16 };

/* The bits of f nearest the decimal d, whose nearest double is v; cmp says
 * how d compares with v where v is a halfway point of f (see road 3). The
 * double's 53-bit significand m is cut to the bits f keeps (fewer below
 * its normal range) and rounded to nearest, ties to even. */
static uint32_t narrow(const struct fmt *f, const struct decimal *d, double v,
		       int (*cmp)(const struct decimal *, double, void *),
		       void *ctx)
{
	uint32_t sign = d->neg ? 1u << (f->bits - 1) : 0;
	uint64_t b, m, n, rest, half;
	int e, keep, drop;
	bool up;

	memcpy(&b, &v, sizeof(b));
	e = (int)(b >> 52 & 0x7ff) - 1023;
	/* zero, or below f's smallest halfway point: f64-subnormal */
	if (e == -1023)
		return sign;
	if (e > f->emax)	/* inf too */
		return sign | ((1u << (f->bits - f->p)) - 1) << (f->p - 1);
	m = (b & (((uint64_t)1 << 52) - 1)) | (uint64_t)1 << 52;
	keep = e >= f->emin ? f->p : f->p - (f->emin - e);
	if (keep < 0)		/* under half of f's smallest subnormal */
		return sign;
	drop = 53 - keep;
	n = m >> drop;
	rest = m & (((uint64_t)1 << drop) - 1);
	half = (uint64_t)1 << (drop - 1);
	up = rest > half;
	if (rest == half) {
		int c = cmp(d, fabs(v), ctx);

		up = c > 0 || (c == 0 && (n & 1));
	}
	n += up;
	if (e < f->emin)	/* subnormal; n == 2^(p-1) is the least normal */
		return sign | (uint32_t)n;
	/* n holds the hidden bit: a carry out of it raises the exponent,
	 * up to inf's */
	return sign | (((uint32_t)(e + f->bias - 1) << (f->p - 1)) + (uint32_t)n);
}

static uint32_t nan_bits(const struct fmt *f, bool neg)
{
	uint32_t inf = ((1u << (f->bits - f->p)) - 1) << (f->p - 1);

	return (neg ? 1u << (f->bits - 1) : 0) | inf | (1u << (f->p - 2));
}

/* ---- the double nearest a decimal --------------------------------------- */

/* Road 1 when it applies: *v = the nearest double and 1, else 0. */
static int fast_f64(const struct decimal *d, double *v)
{
	if (d->more || d->w > ((uint64_t)1 << 53) || d->e10 < -22 ||
	    d->e10 > 22)
		return 0;
	*v = d->e10 < 0 ? (double)d->w / pow10_f64[-d->e10]
			: (double)d->w * pow10_f64[d->e10];
	return 1;
}

static const uint64_t pow10_u64[20] = {
	1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
	100000000u, 1000000000u, 10000000000u, 100000000000u,
	1000000000000u, 10000000000000u, 100000000000000u,
	1000000000000000u, 10000000000000000u, 100000000000000000u,
	1000000000000000000u, 10000000000000000000u
};

typedef unsigned __int128 u128;

static int bitlen128(u128 x)
{
	uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;

	return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* hi:lo / p for hi < p: the quotient (< 2^64) and the remainder. */
static uint64_t div128(uint64_t hi, uint64_t lo, uint64_t p, uint64_t *rem)
{
#if defined(__x86_64__)
	uint64_t q, r;

	__asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "rm"(p));
	*rem = r;
	return q;
#else
	u128 num = (u128)hi << 64 | lo, q = num / p;

	*rem = (uint64_t)(num - q * p);
	return (uint64_t)q;
#endif
}

/* The double m * 2^e, for m in [2^52, 2^53] and a normal result. */
static double make_double(uint64_t m, int e)
{
	uint64_t b = ((uint64_t)(e + 52 + 1022) << 52) + m;
	double v;

	memcpy(&v, &b, sizeof(v));
	return v;
}

/* Road 1b, for what road 1 leaves of the common fields (16 to 19 digits,
 * |exponent| <= 19): w * 10^e in 128 bits, or w * 2^s / 10^-e with s such
 * that the quotient has 63 or 64 bits, rounded once to 53 bits (ties to
 * even, the division's remainder as a sticky bit). Values lie in [1e-19,
 * 2e38]: nothing is subnormal or overflows. */
static int exact128_f64(const struct decimal *d, double *v)
{
	u128 N, low, half;
	uint64_t m, rem = 0;
	int s = 0, shift;

	if (d->more || d->w == 0 || d->e10 < -19 || d->e10 > 19)
		return 0;
	if (d->e10 >= 0) {
		N = (u128)d->w * pow10_u64[d->e10];
	} else {
		uint64_t p = pow10_u64[-d->e10];
		int lp = 64 - __builtin_clzll(p), lw = 64 - __builtin_clzll(d->w);

		/* w * 2^s has 63 + lp bits, so its high half is below p */
		s = 63 + lp - lw;
		N = (u128)d->w << s;
		N = div128((uint64_t)(N >> 64), (uint64_t)N, p, &rem);
	}
	shift = bitlen128(N) - 53;
	if (shift <= 0) {	/* a product of at most 53 bits: exact */
		*v = (double)(uint64_t)N;
		return 1;
	}
	m = (uint64_t)(N >> shift);
	low = N & (((u128)1 << shift) - 1);
	half = (u128)1 << (shift - 1);
	if (low > half || (low == half && (rem || (m & 1))))
		m++;
	/* m == 2^53 carries into the exponent as it should */
	*v = make_double(m, shift - s);
	return 1;
}

/* The exact comparison after road 1 (fast_f64 applied, m its result):
 * fma gives the error of a product exactly. */
static int cmp_fast(const struct decimal *d, double m, void *ctx)
{
	double w = (double)d->w, p, hi, lo;

	(void)ctx;
	if (d->e10 >= 0) {
		p = pow10_f64[d->e10];
		hi = w * p;	/* == m */
		lo = fma(w, p, -hi);
		return (lo > 0) - (lo < 0);
	}
	/* d = w / p against m: w against m * p = hi + lo; w - hi is exact
	 * (Sterbenz: they are within a factor of 2), and the sign of a
	 * rounded difference is that of the exact one */
	p = pow10_f64[-d->e10];
	hi = m * p;
	lo = fma(m, p, -hi);
	double diff = (w - hi) - lo;

	return (diff > 0) - (diff < 0);
}

static int cmp_big(const struct decimal *d, double m, void *ctx)
{
	(void)ctx;
	return decimal_cmp_exact(d, m);
}

/* The nearest double, and the comparison that goes with how it was found. */
static double nearest_f64(const struct decimal *d,
			  int (**cmp)(const struct decimal *, double, void *))
{
	double v;

	if (fast_f64(d, &v)) {
		*cmp = cmp_fast;
		return v;
	}
	*cmp = cmp_big;
	if (exact128_f64(d, &v))
		return v;
	return decimal_strtod(d);
}

/* ---- the parsers ---------------------------------------------------------- */

static int parse_f64(const char *s, size_t n, void *out)
{
	struct decimal d;
	int (*cmp)(const struct decimal *, double, void *);
	double v;
	uint64_t b;

	if (scan_decimal(s, n, &d) < 0)
		return TEXTNUM_INVALID;
	if (d.special) {
		b = d.special == 1 ? 0x7ff0000000000000u : 0x7ff8000000000000u;
		b |= (uint64_t)d.neg << 63;
		memcpy(out, &b, 8);
		return TEXTNUM_OK;
	}
	v = nearest_f64(&d, &cmp);
	v = d.neg ? -v : v;
	memcpy(out, &v, 8);
	return TEXTNUM_OK;
}

/* f32, f16, bf16: their bits in *bits. */
static int parse_narrow(const struct fmt *f, const char *s, size_t n,
			uint32_t *bits)
{
	struct decimal d;
	int (*cmp)(const struct decimal *, double, void *);
	double v;

	if (scan_decimal(s, n, &d) < 0)
		return TEXTNUM_INVALID;
	if (d.special) {
		*bits = d.special == 2 ? nan_bits(f, d.neg)
				       : nan_bits(f, d.neg) & ~(1u << (f->p - 2));
		return TEXTNUM_OK;
	}
	if (f == &fmt_f32 && !d.more && d.w <= (1u << 24) && d.e10 >= -10 &&
	    d.e10 <= 10) {
		float x = d.e10 < 0 ? (float)d.w / pow10_f32[-d.e10]
				    : (float)d.w * pow10_f32[d.e10];

		x = d.neg ? -x : x;
		memcpy(bits, &x, 4);
		return TEXTNUM_OK;
	}
	v = nearest_f64(&d, &cmp);
	*bits = narrow(f, &d, v, cmp, NULL);
	return TEXTNUM_OK;
}

static int parse_f32(const char *s, size_t n, void *out)
{
	uint32_t b;
	int r = parse_narrow(&fmt_f32, s, n, &b);

	memcpy(out, &b, 4);
	return r;
}

static int parse_half(const struct fmt *f, const char *s, size_t n, void *out)
{
	uint32_t b;
	int r = parse_narrow(f, s, n, &b);
	uint16_t h = (uint16_t)b;

	memcpy(out, &h, 2);
	return r;
}

static int parse_f16(const char *s, size_t n, void *out)
{
	return parse_half(&fmt_f16, s, n, out);
}

static int parse_bf16(const char *s, size_t n, void *out)
{
	return parse_half(&fmt_bf16, s, n, out);
}

/* An optional sign and digits: the magnitude in *u (saturated past
 * UINT64_MAX, *over set), the sign in *neg. */
static int scan_integer(const char *s, size_t n, bool *neg, uint64_t *u,
			bool *over)
{
	const char *p = s, *end = s + n;

	*neg = false;
	*u = 0;
	*over = false;
	if (p < end && (*p == '+' || *p == '-'))
		*neg = *p++ == '-';
	if (p == end)
		return TEXTNUM_INVALID;
	for (; p < end; p++) {
		unsigned c = (unsigned char)*p - '0';

		if (c > 9)
			return TEXTNUM_INVALID;
		if (*u > (UINT64_MAX - c) / 10)
			*over = true;
		else
			*u = *u * 10 + c;
	}
	return TEXTNUM_OK;
}

/* An integer in [lo, hi] (lo = -(neg_max) for signed types), as a uint64
 * or int64 of its bits in *v. */
static int parse_int(const char *s, size_t n, uint64_t neg_max, uint64_t hi,
		     uint64_t *v)
{
	bool neg, over;
	uint64_t u;

	if (scan_integer(s, n, &neg, &u, &over) < 0)
		return TEXTNUM_INVALID;
	if (over || (neg ? u > neg_max : u > hi))
		return TEXTNUM_RANGE;
	*v = neg ? (uint64_t)0 - u : u;
	return TEXTNUM_OK;
}

#define INT_PARSER(name, ctype, negmax, hi)                              \
static int name(const char *s, size_t n, void *out)                      \
{                                                                        \
	uint64_t v;                                                      \
	int r = parse_int(s, n, negmax, hi, &v);                         \
	ctype x = (ctype)v;                                              \
									 \
	memcpy(out, &x, sizeof(x));                                      \
	return r;                                                        \
}

INT_PARSER(parse_u8, uint8_t, 0, UINT8_MAX)
INT_PARSER(parse_bool, uint8_t, 0, 1)
INT_PARSER(parse_i8, int8_t, (uint64_t)INT8_MAX + 1, INT8_MAX)
INT_PARSER(parse_u16, uint16_t, 0, UINT16_MAX)
INT_PARSER(parse_i16, int16_t, (uint64_t)INT16_MAX + 1, INT16_MAX)
INT_PARSER(parse_u32, uint32_t, 0, UINT32_MAX)
INT_PARSER(parse_i32, int32_t, (uint64_t)INT32_MAX + 1, INT32_MAX)
INT_PARSER(parse_u64, uint64_t, 0, UINT64_MAX)
INT_PARSER(parse_i64, int64_t, (uint64_t)INT64_MAX + 1, INT64_MAX)

textnum_fn textnum_parser(enum gs_type t, bool boolean)
{
	static const textnum_fn fns[GS_NTYPES] = {
		[GS_U8] = parse_u8, [GS_I8] = parse_i8, [GS_U16] = parse_u16,
		[GS_I16] = parse_i16, [GS_U32] = parse_u32,
		[GS_I32] = parse_i32, [GS_U64] = parse_u64,
		[GS_I64] = parse_i64, [GS_F16] = parse_f16,
		[GS_BF16] = parse_bf16, [GS_F32] = parse_f32,
		[GS_F64] = parse_f64,
	};

	if (boolean && t == GS_U8)
		return parse_bool;
	return (unsigned)t < GS_NTYPES ? fns[t] : NULL;
}
