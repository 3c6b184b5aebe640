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

void fprod_mul_f64(struct fprod *p, double v)
{
	uint64_t u, m;
	int e;

	memcpy(&u, &v, sizeof(u));
	p->flags ^= (u >> 63) * PROD_NEG;
	if (isnan(v)) {
		p->flags |= PROD_NAN;
		return;
	}
	if (isinf(v)) {
		p->flags |= PROD_INF;
		return;
	}
	if (v == 0) {
		p->flags |= PROD_ZERO;
		return;
	}
	e = (int)((u >> 52) & 0x7ff);
	m = u & ((1ull << 52) - 1);
	if (e)
		m |= 1ull << 52;
	else
		e = 1;
	fprod_mul64(p, m, (int64_t)e - 1075);	/* v = m * 2^(e - 1075) */
}

bool fprod_round(const struct fprod *p, enum xfmt f, uint64_t *bits)
{
	struct ieee_fmt d = ieee_fmt_of(f);
	bool neg = p->flags & PROD_NEG;
	unsigned __int128 lo = (unsigned __int128)1 << 127, hi = lo;
	int64_t e = -127;	/* the empty product */
	uint64_t a, b;

	if ((p->flags & PROD_NAN) ||
	    (p->flags & (PROD_ZERO | PROD_INF)) == (PROD_ZERO | PROD_INF)) {
		*bits = d.nan;
		return true;
	}
	if (p->flags & (PROD_ZERO | PROD_INF)) {
		*bits = (uint64_t)neg << (d.width - 1) |
			(p->flags & PROD_INF ? d.inf : 0);
		return true;
	}
	if (p->hi[1]) {
		lo = (unsigned __int128)p->lo[1] << 64 | p->lo[0];
		hi = (unsigned __int128)p->hi[1] << 64 | p->hi[0];
		e = p->exp;
	}
	a = round_u128(lo, e, neg, f);
	b = round_u128(hi, e, neg, f);
	*bits = a;
	return a == b;
}

/* ---- integer products --------------------------------------------------- */

void iprod_at_init(struct iprod_at *p)
{
	p->p.mag[0] = 1;
	p->p.mag[1] = 0;
	p->p.flags = 0;
	p->at = UINT64_MAX;
}

void iprod_mul(struct iprod *p, __int128 v)
{
	if (v == 0) {
		p->flags |= PROD_ZERO;
		return;
	}
	p->flags ^= v < 0 ? PROD_NEG : 0;
	iprod_mul64(p, (uint64_t)(v < 0 ? -(unsigned __int128)v : (unsigned __int128)v));
}

void iprod_at_merge(struct iprod_at *p, const struct iprod_at *q)
{
	if (!(p->p.flags & PROD_OVER) && (q->p.flags & PROD_OVER))
		p->at = q->at;
	iprod_merge(&p->p, &q->p);
}
