/*
 * ksum.c - the compact exact sum (ksum.h).
 *
 * The invariant: the finite part is exactly acc * 2^base with |acc| <
 * 2^KS_BITS, or exactly *wide. A term m * 2^e enters acc when m shifted to
 * the common base still leaves |acc| below 2^KS_BITS; otherwise the key
 * widens, once, and from then on adds into its xsum.
 */
#include <stdlib.h>
#include <string.h>
#include "ksum.h"

#define KS_BITS 126		/* |acc| stays below 2^126: sums never wrap */

static int bits_u128(unsigned __int128 m)	/* significant bits of m */
{
	return m ? 128 - ieee_clz128(m) : 0;
}

static unsigned __int128 mag(__int128 a)
{
	return a < 0 ? -(unsigned __int128)a : (unsigned __int128)a;
}

void ksum_init(struct ksum *k)
{
	memset(k, 0, sizeof(*k));
}

void ksum_free(struct ksum *k)
{
	free(k->wide);
	ksum_init(k);
}

static bool widen(struct ksum *k)
{
	struct xsum *w;

	if (k->wide)
		return true;
	w = malloc(sizeof(*w));
	if (!w)
		return false;
	xsum_init(w);
	if (k->acc)
		xsum_add_i128(w, k->acc, k->base);
	k->wide = w;
	k->acc = 0;
	k->base = 0;
	return true;
}

/* acc * 2^base + (neg ? -m : m) * 2^e in acc, if it fits: true. */
static bool add_compact(struct ksum *k, unsigned __int128 m, int e, bool neg)
{
	__int128 acc = k->acc, t, r;
	int base = k->base;

	if (acc == 0) {
		base = e;
	} else if (e < base) {
		if (bits_u128(mag(acc)) + (base - e) > KS_BITS)
			return false;
		acc = (__int128)((unsigned __int128)acc << (base - e));
		base = e;
	}
	if (bits_u128(m) + (e - base) > KS_BITS)
		return false;
	t = (__int128)(m << (e - base));
	if (neg)
		t = -t;
	r = acc + t;			/* both below 2^126: no wrap */
	if (bits_u128(mag(r)) > KS_BITS)
		return false;
	k->acc = r;
	k->base = r ? base : 0;
	return true;
}

/* A finite term (neg ? -m : m) * 2^e, m > 0. */
static bool add_term(struct ksum *k, unsigned __int128 m, int e, bool neg)
{
	int z = bits_u128(m & -m) - 1;	/* trailing zeros: the low bit's place */

	m >>= z;
	e += z;
	if (!k->wide && add_compact(k, m, e, neg))
		return true;
	if (!widen(k))
		return false;
	xsum_add_u128(k->wide, m, e, neg);
	return true;
}

bool ksum_add_f64(struct ksum *k, double v)
{
	struct exact_term t = exact_f64(v);
	bool ok = true;

	k->flags |= t.flags;	/* KS_NAN, KS_PINF, KS_NINF */
	if (t.m)
		ok = add_term(k, mag(t.m), t.e, t.m < 0);
	if (ok)
		k->flags |= KS_TERM | (exact_bits_f64(v) != 1ull << 63 ?
				       KS_NOTNEGZ : 0);
	return ok;
}

bool ksum_add_i64(struct ksum *k, int64_t v)
{
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;

	if (m && !add_term(k, m, 0, v < 0))
		return false;
	k->flags |= KS_TERM | KS_NOTNEGZ;
	return true;
}

bool ksum_add_u64(struct ksum *k, uint64_t v)
{
	if (v && !add_term(k, v, 0, false))
		return false;
	k->flags |= KS_TERM | KS_NOTNEGZ;
	return true;
}

bool ksum_add_u128(struct ksum *k, unsigned __int128 m, int e, bool neg)
{
	if (m && !add_term(k, m, e, neg))
		return false;
	k->flags |= KS_TERM | KS_NOTNEGZ;
	return true;
}

bool ksum_add_square_f64(struct ksum *k, double v)
{
	uint64_t u = exact_bits_f64(v), m;
	unsigned be;

	be = (unsigned)(u >> 52) & 0x7ff;
	if (be == 0x7ff)
		return ksum_add_f64(k, v * v);
	m = (u & 0xfffffffffffffull) | (uint64_t)(be != 0) << 52;
	return ksum_add_u128(k, (unsigned __int128)m * m,
			     2 * ((int)(be + (be == 0)) - 1075), false);
}

bool ksum_merge(struct ksum *k, const struct ksum *q)
{
	if (q->wide) {
		if (!widen(k))
			return false;
		xsum_merge(k->wide, q->wide);
	} else if (q->acc) {
		bool neg = q->acc < 0;

		if (!add_term(k, mag(q->acc), q->base, neg))
			return false;
	}
	k->flags |= q->flags;
	return true;
}

void ksum_to_xsum(const struct ksum *k, struct xsum *x)
{
	if (k->wide)
		*x = *k->wide;
	else
		xsum_init(x);
	if (k->acc)
		xsum_add_i128(x, k->acc, k->base);
	x->nan = k->flags & KS_NAN;
	x->pinf = k->flags & KS_PINF;
	x->ninf = k->flags & KS_NINF;
	x->negzero = (k->flags & (KS_TERM | KS_NOTNEGZ)) == KS_TERM;
}

uint64_t ksum_round(const struct ksum *k, enum xfmt f)
{
	struct ieee_fmt d = ieee_fmt_of(f);
	uint64_t sign = 1ull << (d.width - 1);
	bool pinf = k->flags & KS_PINF, ninf = k->flags & KS_NINF;
	struct xsum x;

	if ((k->flags & KS_NAN) || (pinf && ninf))
		return d.nan;
	if (pinf || ninf)
		return (ninf ? sign : 0) | d.inf;
	if (k->wide) {
		ksum_to_xsum(k, &x);
		return xsum_round(&x, f);
	}
	if (!k->acc)
		return (k->flags & (KS_TERM | KS_NOTNEGZ)) == KS_TERM ? sign : 0;
	return ieee_round(mag(k->acc), false, k->base, k->acc < 0, &d);
}
