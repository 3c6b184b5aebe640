/*
 * xprod.c - exact products and rounding into a format named by enum xfmt:
 * see xprod.h.
 */
#include <math.h>
#include <string.h>
#include "xprod.h"

/* ---- rounding into IEEE formats -----------------------------------------
 * The rounding itself is ieee.h's, shared with xsum.c and the GPU code;
 * these name a format by enum xfmt for the kernels and the backends. */

enum xfmt type_xfmt(enum gs_type t)
{
	switch (t) {
	case GS_F16: return XF_F16;
	case GS_BF16: return XF_BF16;
	case GS_F32: return XF_F32;
	default: return XF_F64;
	}
}

uint64_t round_u128(unsigned __int128 m, int64_t e, bool neg, enum xfmt f)
{
	struct ieee_fmt d = ieee_fmt_of(f);

	return ieee_round(m, false, e, neg, &d);
}

uint64_t round_f64(double v, enum xfmt f)
{
	struct ieee_fmt d = ieee_fmt_of(f);

	return ieee_round_f64(v, &d);
}

double xfmt_to_f64(uint64_t bits, enum xfmt f)
{
	double v;
	float s;
	uint32_t w = (uint32_t)bits;

	switch (f) {
	case XF_F16: return f16_to_f32((uint16_t)bits);
	case XF_BF16: return bf16_to_f32((uint16_t)bits);
	case XF_F32:
		memcpy(&s, &w, sizeof(s));
		return s;
	default:
		memcpy(&v, &bits, sizeof(v));
		return v;
	}
}

/* ---- float products ----------------------------------------------------- */

void fprod_init(struct fprod *p)
{
	memset(p, 0, sizeof(*p));
	p->lo = p->hi = (unsigned __int128)1 << 127;
	p->exp = -127;
}

/* a * b as 256 bits: *h the high 128, *l the low 128. */
static void mul_u128(unsigned __int128 a, unsigned __int128 b,
		     unsigned __int128 *h, unsigned __int128 *l)
{
	const unsigned __int128 M = ~(uint64_t)0;
	unsigned __int128 ll = (a & M) * (b & M), lh = (a & M) * (b >> 64);
	unsigned __int128 hl = (a >> 64) * (b & M), hh = (a >> 64) * (b >> 64);
	unsigned __int128 mid = (ll >> 64) + (lh & M) + (hl & M);

	*l = (mid << 64) | (ll & M);
	*h = hh + (lh >> 64) + (hl >> 64) + (mid >> 64);
}

/* 256-bit (h, l) >> s for 1 <= s <= 128, and whether bits were dropped. */
static unsigned __int128 shr256(unsigned __int128 h, unsigned __int128 l,
				int s, bool *inexact)
{
	if (s == 128) {
		*inexact = l != 0;
		return h;
	}
	*inexact = (l << (128 - s)) != 0;
	return (h << (128 - s)) | (l >> s);
}

/*
 * Multiply the bracket by [lo2, hi2] * 2^exp2 (hi2 with its top bit set):
 * the low end rounds down, the high end up, and the shift that brings the
 * high end back to 128 bits is applied to both so they share the exponent.
 * The low end may then sit a bit below the top, which only widens nothing.
 */
static void fprod_mul_bracket(struct fprod *p, unsigned __int128 lo2,
			      unsigned __int128 hi2, int64_t exp2)
{
	unsigned __int128 h, l, hi, lo;
	bool inexact;
	int s;

	mul_u128(p->hi, hi2, &h, &l);
	s = 128 - ieee_clz128(h);
	hi = shr256(h, l, s, &inexact);
	if (inexact && ++hi == 0) {	/* rounded up past 2^128 */
		hi = (unsigned __int128)1 << 127;
		s++;
	}
	mul_u128(p->lo, lo2, &h, &l);
	lo = s > 128 ? h >> 1 : shr256(h, l, s, &inexact);
	p->hi = hi;
	p->lo = lo;
	p->exp += exp2 + s;
}

void fprod_mul_f64(struct fprod *p, double v)
{
	unsigned __int128 w;
	uint64_t u, m;
	int e, z;

	memcpy(&u, &v, sizeof(u));
	p->neg ^= u >> 63;
	if (isnan(v)) {
		p->nan = true;
		return;
	}
	if (isinf(v)) {
		p->inf = true;
		return;
	}
	if (v == 0) {
		p->zero = true;
		return;
	}
	e = (int)((u >> 52) & 0x7ff);
	m = u & ((1ull << 52) - 1);
	if (e)
		m |= 1ull << 52;
	else
		e = 1;
	/* v = m * 2^(e - 1075); as a 128-bit mantissa with the top bit set */
	z = __builtin_clzll(m) + 64;
	w = (unsigned __int128)m << z;

	fprod_mul_bracket(p, w, w, (int64_t)e - 1075 - z);
}

void fprod_merge(struct fprod *p, const struct fprod *q)
{
	p->nan |= q->nan;
	p->zero |= q->zero;
	p->inf |= q->inf;
	p->neg ^= q->neg;
	fprod_mul_bracket(p, q->lo, q->hi, q->exp);
}

bool fprod_round(const struct fprod *p, enum xfmt f, uint64_t *bits)
{
	struct ieee_fmt d = ieee_fmt_of(f);
	uint64_t sign = (uint64_t)p->neg << (d.width - 1);
	uint64_t a, b;

	if (p->nan || (p->zero && p->inf)) {
		*bits = d.nan;
		return true;
	}
	if (p->inf || p->zero) {
		*bits = sign | (p->inf ? d.inf : 0);
		return true;
	}
	a = round_u128(p->lo, p->exp, p->neg, f);
	b = round_u128(p->hi, p->exp, p->neg, f);
	*bits = a;
	return a == b;
}

/* ---- integer products --------------------------------------------------- */

void iprod_init(struct iprod *p)
{
	memset(p, 0, sizeof(*p));
	p->at = UINT64_MAX;
	p->mag = 1;
}

static void iprod_mul_mag(struct iprod *p, unsigned __int128 m)
{
	if (__builtin_mul_overflow(p->mag, m, &p->mag))
		p->overflow = true;
}

void iprod_mul(struct iprod *p, __int128 v)
{
	if (v == 0) {
		p->zero = true;
		return;
	}
	p->neg ^= v < 0;
	if (!p->overflow)
		iprod_mul_mag(p, v < 0 ? -(unsigned __int128)v : (unsigned __int128)v);
}

void iprod_merge(struct iprod *p, const struct iprod *q)
{
	p->zero |= q->zero;
	p->neg ^= q->neg;
	if (!p->overflow && q->overflow)
		p->at = q->at;
	p->overflow |= q->overflow;
	if (!p->overflow)
		iprod_mul_mag(p, q->mag);
}