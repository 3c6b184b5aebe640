/*
 * xprod.c - exact products and rounding into a format named by enum xfmt:
 * see xprod.h.
 */
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
	switch (f) {
	case XF_F16: return f16_to_f32((uint16_t)bits);
	case XF_BF16: return bf16_to_f32((uint16_t)bits);
	case XF_F32: return ieee_f32_from_bits((uint32_t)bits);
	default: return ieee_f64_from_bits(bits);
	}
}

/* ---- float products ----------------------------------------------------- */

void fprod_mul_f64(struct fprod *p, double v)
{
	uint64_t m;
	int e;

	if (prod_factor(exact_bits_f64(v), 53, 64, &m, &e, &p->flags))
		fprod_mul64(p, m, e);
}

bool fprod_round(const struct fprod *p, enum xfmt f, uint64_t *bits)
{
	struct ieee_fmt d = ieee_fmt_of(f);

	return fprod_round_fmt(p, &d, bits);
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
	uint64_t a = (uint64_t)(v < 0 ? -(unsigned __int128)v : (unsigned __int128)v);

	p->flags = prod_flags(p->flags, iprod_factor_flags(a, v < 0));
	if (a)
		iprod_mul64(p, a);
}

void iprod_at_merge(struct iprod_at *p, const struct iprod_at *q)
{
	if (!(p->p.flags & PROD_OVER) && (q->p.flags & PROD_OVER))
		p->at = q->at;
	iprod_merge(&p->p, &q->p);
}
