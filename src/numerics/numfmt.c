/*
 * numfmt.c - numbers as text without printf: doubles in the shortest
 * decimal form that reads back to the same bits, and unsigned integers.
 *
 * Which digits: the fewest significant digits p such that some p-digit
 * decimal reads back to v; of those, the one nearest v, an exact tie going
 * to the even last digit. The layout is Python's repr without a trailing
 * ".0": plain decimals for exponents -4..15 ("100", "0.0001", "1234.5"),
 * scientific otherwise ("1e+16", "1e-05", at least two exponent digits).
 *
 * The fast path (fmt_double_fast). v = c * 2^q with c an integer. Every
 * real in the rounding interval [(c - 1/2) 2^q, (c + 1/2) 2^q] reads back to
 * v; the ends too when c is even, as strtod breaks ties to even; at the
 * bottom of a binade the lower end is (c - 1/4) 2^q, the neighbour below
 * being nearer. With k chosen so that 10^k <= width < 10^(k+1), the interval
 * divided by 10^k holds at least one integer and at most one multiple of 10:
 *  - a multiple of 10 inside has the fewest digits of any decimal inside
 *    (its stripped digits are shorter than those of every other integer
 *    inside, which all lie between the same two multiples of 10);
 *  - else every integer inside has the same number of digits, and the
 *    answer is floor(v / 10^k) or the next integer, whichever is inside and
 *    nearer to v.
 * The ends and v divided by 10^k are (4c + {-2 or -1, 0, 2}) 2^(q-2) 10^-k:
 * a 55-bit integer times 10^-k rounded up to 128 bits, taken as 64.64 fixed
 * point. That is below the truth by less than 2^-64 and above it by less
 * than 2^-70, so a fraction other than 0 (and for v other than 1/2) decides
 * every comparison. A fraction of exactly 0 or 1/2 is checked exactly by
 * divisibility (the value is x 5^j / 2^m or x 2^m / 5^j); one that is that
 * close without being exact, which no double tested has shown (see
 * tests/unit_numfmt.c), goes to the slow path.
 *
 * The slow path (fmt_double_slow) is the formatter this file had before,
 * kept as the reference: try "%.{p-1}e" for p = 1, 2, ... and keep the first
 * that strtod reads back to the same bits (glibc's printf and strtod are
 * correctly rounded). When the nearest p digits miss, the other neighbour may
 * still hit: 2^-24 is 5.9604644775390625e-08, and printf's tie goes to ...062,
 * which reads back lower, while ...063 reads back exact. So each p also tries
 * the p-digit strings rounded up and down (glibc's printf honours the
 * rounding mode). It costs some 50 us a number; the fast path some 0.1 us.
 */
#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "numfmt.h"

__extension__ typedef unsigned __int128 u128;

/* 10^n ~ (hi:lo) 2^e, rounded up to 128 bits (hi's top bit set), for n from
 * POW_MIN to POW_MAX: every -k a double needs (k from -324 to 292). */
#define POW_MIN (-292)
#define POW_MAX 324

struct pow10 {
	uint64_t hi, lo;
	int e;
};

static struct pow10 pow10_tab[POW_MAX - POW_MIN + 1];
static pthread_once_t pow10_once = PTHREAD_ONCE_INIT;

/* A small unsigned bignum, 32-bit limbs, least significant first: 2^1120
 * (the start of the negative powers) is the largest value it holds. */
#define BIG_LIMBS 36

struct big {
	uint32_t l[BIG_LIMBS];
	int n;
};

static void big_mul10(struct big *b)
{
	uint64_t carry = 0;

	for (int i = 0; i < b->n; i++) {
		uint64_t t = (uint64_t)b->l[i] * 10 + carry;

		b->l[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry)
		b->l[b->n++] = (uint32_t)carry;
}

static void big_div10(struct big *b)
{
	uint64_t rem = 0;

	for (int i = b->n - 1; i >= 0; i--) {
		uint64_t t = rem << 32 | b->l[i];

		b->l[i] = (uint32_t)(t / 10);
		rem = t % 10;
	}
	while (b->n > 0 && b->l[b->n - 1] == 0)
		b->n--;
}

static int big_bits(const struct big *b)
{
	uint32_t top = b->l[b->n - 1];
	int bits = 32 * (b->n - 1);

	while (top) {
		bits++;
		top >>= 1;
	}
	return bits;
}

/* b's top 128 bits, and in *e the power of two they are scaled by;
 * *rest says whether any bit below them is set. */
static u128 big_top128(const struct big *b, int *e, bool *rest)
{
	int bits = big_bits(b), low = bits > 128 ? bits - 128 : 0;
	u128 top = 0;

	for (int at = bits - 1; at >= low; at--)
		top = top << 1 | ((b->l[at / 32] >> (at % 32)) & 1);
	top <<= 128 - (bits - low);
	*rest = false;
	for (int at = 0; at < low && !*rest; at++)
		*rest = (b->l[at / 32] >> (at % 32)) & 1;
	*e = bits - 128;
	return top;
}

static void pow10_set(int n, u128 g, int e)
{
	pow10_tab[n - POW_MIN] = (struct pow10){ (uint64_t)(g >> 64), (uint64_t)g, e };
}

/* The table, exactly: 10^n for n >= 0 by multiplying, rounded up where
 * bits are cut; 10^-m as floor(2^1120 / 10^m) (one exact division by 10 a
 * step, floor of floor being floor), plus one, as 2^1120 / 10^m is never an
 * integer. */
static void pow10_init(void)
{
	struct big b = { .l = { 1 }, .n = 1 };
	bool rest;
	int e;

	for (int n = 0; n <= POW_MAX; n++) {
		u128 g = big_top128(&b, &e, &rest);

		pow10_set(n, g + rest, e);
		big_mul10(&b);
	}
	memset(&b, 0, sizeof(b));
	b.n = BIG_LIMBS;
	b.l[BIG_LIMBS - 1] = 1;		/* 2^(32 * 35) = 2^1120 */
	for (int m = 1; m <= -POW_MIN; m++) {
		big_div10(&b);
		u128 g = big_top128(&b, &e, &rest);

		pow10_set(-m, g + 1, e - 32 * (BIG_LIMBS - 1));
	}
}

/* floor(log10(2^q)), and floor(log10(3/4 2^q)), for q in -1074..971
 * (checked against exact fractions for every q there, in Python, when this
 * was written): 1292913987 is 2^32 log10(2) and
 * -536607788 is 2^32 log10(3/4), rounded. >> of a negative value floors
 * (GCC and Clang define it so). */
static int floor_log10_pow2(int q)
{
	return (int)(((int64_t)q * 1292913987) >> 32);
}

static int floor_log10_pow2_3q(int q)
{
	return (int)(((int64_t)q * 1292913987 - 536607788) >> 32);
}

struct fixed {
	uint64_t i, f;		/* integer part, fraction in 2^-64 */
};

/* x 2^(q-2) 10^-k as 64.64 fixed point, p being 10^-k: the exact product
 * x (hi:lo), cut by 62..65 bits (over all exponents). */
static struct fixed scale(uint64_t x, const struct pow10 *p, int q)
{
	u128 lo = (u128)x * p->lo;
	u128 mid = (u128)x * p->hi + (lo >> 64);
	int r = -(p->e + q + 62);
	u128 y = r >= 64 ? mid >> (r - 64) :
		mid << (64 - r) | (uint64_t)lo >> r;

	return (struct fixed){ (uint64_t)(y >> 64), (uint64_t)y };
}

/* Whether x 2^(q-2) 10^-k is an integer. For k > 0 it is x 2^(q-2-k) / 5^k
 * (q - 2 - k >= 0 there), which needs 5^k to divide x < 2^55 < 5^24; else
 * x 5^-k / 2^m, which needs 2^m to divide x. */
static bool exact_int(uint64_t x, int q, int k)
{
	int m = k + 2 - q;

	if (k > 0) {
		uint64_t p5 = 1;

		if (k >= 24)
			return false;
		for (int i = 0; i < k; i++)
			p5 *= 5;
		return x % p5 == 0;
	}
	return m <= 0 || (m < 64 && (x & ((UINT64_C(1) << m) - 1)) == 0);
}

/* Whether x 2^(q-2) 10^-k is an integer plus 1/2: only x 5^-k / 2^m can be,
 * when x has exactly m - 1 trailing zero bits. */
static bool exact_half(uint64_t x, int q, int k)
{
	int m = k + 2 - q;

	if (k > 0 || m < 1 || m > 64 || x == 0)
		return false;
	return (x & ((UINT64_C(2) << (m - 1)) - 1)) == UINT64_C(1) << (m - 1);
}

/* The decimal d 10^*k10 that finite v > 0 prints as, with d's trailing zeros
 * kept; false where the fast path cannot decide. */
static bool shortest(uint64_t bits, uint64_t *d, int *k10)
{
	uint64_t t = bits & ((UINT64_C(1) << 52) - 1), c;
	int be = (int)(bits >> 52 & 0x7ff), q;

	if (be) {
		c = t | UINT64_C(1) << 52;
		q = be - 1075;
	} else {
		c = t;
		q = -1074;
	}
	bool low_quarter = t == 0 && be > 1;
	int k = low_quarter ? floor_log10_pow2_3q(q) : floor_log10_pow2(q);
	const struct pow10 *p = &pow10_tab[-k - POW_MIN];
	uint64_t xl = 4 * c - (low_quarter ? 1 : 2), xv = 4 * c, xr = 4 * c + 2;
	struct fixed lo = scale(xl, p, q), mid = scale(xv, p, q), hi = scale(xr, p, q);
	bool ends_in = (c & 1) == 0;
	const uint64_t half = UINT64_C(1) << 63;

	if ((lo.f == 0 && !exact_int(xl, q, k)) || (hi.f == 0 && !exact_int(xr, q, k)) ||
	    (mid.f == 0 && !exact_int(xv, q, k)) || (mid.f == half && !exact_half(xv, q, k)))
		return false;
	/* the integers inside: first..last */
	uint64_t first = lo.i + (lo.f != 0 || !ends_in);
	uint64_t last = hi.i - (hi.f == 0 && !ends_in);
	uint64_t m10 = (first + 9) / 10 * 10, s = mid.i;

	if (m10 <= last) {
		*d = m10 / 10;
		*k10 = k + 1;
		return true;
	}
	bool s_in = s >= first, t_in = s + 1 <= last;

	if (!s_in && !t_in)
		return false;
	if (s_in && t_in)
		s += mid.f > half || (mid.f == half && (s & 1));
	else
		s += !s_in;
	*d = s;
	*k10 = k;
	return true;
}

/* d's decimal digits, most significant first, into out; returns how many. */
static int u64_digits(char *out, uint64_t d)
{
	char tmp[20], *p = tmp + sizeof(tmp);
	int n;

	do {
		*--p = (char)('0' + d % 10);
		d /= 10;
	} while (d);
	n = (int)(tmp + sizeof(tmp) - p);
	memcpy(out, p, (size_t)n);
	return n;
}

/* d 10^k (d > 0, no trailing zeros) in the layout above. */
static int layout(char *out, bool neg, uint64_t d, int k)
{
	char dig[20], *o = out;
	int nd = u64_digits(dig, d), x = k + nd - 1;

	if (neg)
		*o++ = '-';
	if (x < -4 || x >= 16) {
		unsigned ax = (unsigned)(x < 0 ? -x : x);

		*o++ = dig[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, dig + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		*o++ = 'e';
		*o++ = x < 0 ? '-' : '+';
		if (ax >= 100)
			*o++ = (char)('0' + ax / 100);
		*o++ = (char)('0' + ax / 10 % 10);
		*o++ = (char)('0' + ax % 10);
	} else if (x < 0) {
		*o++ = '0';
		*o++ = '.';
		memset(o, '0', (size_t)(-x - 1));
		o += -x - 1;
		memcpy(o, dig, (size_t)nd);
		o += nd;
	} else {
		for (int i = 0; i <= x; i++)
			*o++ = i < nd ? dig[i] : '0';
		if (nd > x + 1) {
			*o++ = '.';
			memcpy(o, dig + x + 1, (size_t)(nd - x - 1));
			o += nd - x - 1;
		}
	}
	*o = '\0';
	return (int)(o - out);
}

static int put(char *out, const char *s)
{
	size_t n = strlen(s);

	memcpy(out, s, n + 1);
	return (int)n;
}

int fmt_double_fast(char out[FMT_DOUBLE_MAX], double v)
{
	uint64_t bits, d;
	bool neg;
	int k;

	memcpy(&bits, &v, sizeof(bits));
	neg = bits >> 63;
	bits &= ~(UINT64_C(1) << 63);
	if (bits >= UINT64_C(0x7ff0000000000000))
		return put(out, bits > UINT64_C(0x7ff0000000000000) ? "nan" : neg ? "-inf" : "inf");
	if (bits == 0)
		return put(out, neg ? "-0" : "0");
	pthread_once(&pow10_once, pow10_init);
	if (!shortest(bits, &d, &k) || d == 0)	/* d == 0: never seen; no endless loop */
		return -1;
	while (d % 10 == 0) {
		d /= 10;
		k++;
	}
	return layout(out, neg, d, k);
}

int fmt_double(char *buf, size_t n, double v)
{
	char tmp[FMT_DOUBLE_MAX];
	int len = fmt_double_fast(n >= FMT_DOUBLE_MAX ? buf : tmp, v);

	if (len < 0)
		return fmt_double_slow(buf, n, v, 1);
	if (n < FMT_DOUBLE_MAX && n > 0) {
		size_t keep = (size_t)len < n - 1 ? (size_t)len : n - 1;

		memcpy(buf, tmp, keep);
		buf[keep] = '\0';
	}
	return len;
}

int fmt_u64(char out[FMT_U64_MAX], uint64_t v)
{
	int n = u64_digits(out, v);

	out[n] = '\0';
	return n;
}

void u128_to_dec(unsigned __int128 m, bool neg, char *buf)
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

static bool reads_back(const char *s, double v)
{
	double back = strtod(s, NULL);

	return memcmp(&back, &v, sizeof(v)) == 0;
}

/* p significant digits of v rounded in direction dir, into tmp. */
static void digits(char *tmp, size_t n, int p, double v, int dir)
{
	int saved = fegetround();

	fesetround(dir);
	snprintf(tmp, n, "%.*e", p - 1, v);
	fesetround(saved);
}

int fmt_double_slow(char *buf, size_t n, double v, int min_digits)
{
	static const int dirs[3] = { FE_TONEAREST, FE_UPWARD, FE_DOWNWARD };
	char tmp[FMT_DOUBLE_MAX];
	int p, exp;

	if (isnan(v))
		return snprintf(buf, n, "nan");
	if (isinf(v))
		return snprintf(buf, n, v < 0 ? "-inf" : "inf");
	p = min_digits < 1 ? 1 : min_digits > 17 ? 17 : min_digits;
	for (; p <= 17; p++) {
		int d;

		for (d = 0; d < 3; d++) {
			digits(tmp, sizeof(tmp), p, v, dirs[d]);
			if (reads_back(tmp, v))
				break;
		}
		if (d < 3)
			break;
	}
	exp = atoi(strchr(tmp, 'e') + 1);
	if (exp >= -4 && exp < 16) {
		/* the same digits laid out plainly: move the point */
		char plain[FMT_DOUBLE_MAX + 24], *o = plain;
		const char *m = tmp;

		if (*m == '-')
			*o++ = *m++;
		char dig[20];
		int nd = 0;

		for (; *m != 'e'; m++)
			if (*m != '.')
				dig[nd++] = *m;
		if (exp < 0) {
			*o++ = '0';
			*o++ = '.';
			for (int i = 0; i < -exp - 1; i++)
				*o++ = '0';
			for (int i = 0; i < nd; i++)
				*o++ = dig[i];
		} else {
			for (int i = 0; i <= exp; i++)
				*o++ = i < nd ? dig[i] : '0';
			if (nd > exp + 1) {
				*o++ = '.';
				for (int i = exp + 1; i < nd; i++)
					*o++ = dig[i];
			}
		}
		*o = '\0';
		return snprintf(buf, n, "%s", plain);
	}
	return snprintf(buf, n, "%s", tmp);
}
