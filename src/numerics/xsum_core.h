/*
 * xsum_core.h - the exact sum's pieces, once for the host (C11) and the
 * device (CUDA C++), GS_HD as in ieee.h, so that struct xsum (xsum.c,
 * 64-bit limbs), struct ksum (ksum.c) and the device's sums (cuda/exact.cuh,
 * 32-bit slots) cannot disagree on what a value adds:
 *
 * - struct exact_term: a value as m * 2^e exactly (any IEEE format given
 *   its fields, integers, the product of two terms), NaN and the infinities
 *   as flags, EXACT_NAN | EXACT_PINF | EXACT_NINF; the same bits are
 *   ksum.h's KS_NAN | KS_PINF | KS_NINF.
 * - the slot form: struct exact_acc, slot q weighing 2^(32q + EXACT_EMIN),
 *   what a device sum is (see exact.cuh); exact_slots_add adds a term,
 *   exact_slots_carry brings every slot but the top into [-2^31, 2^31), so
 *   its value is one signed 32-bit digit per slot, ready for struct xsum
 *   (xsum_add_slots) or for the next kernel's adds.
 * - the rounding of a fixed-point sum, whatever holds its limbs:
 *   exact_limbs_round reads them (struct xsum's 64-bit limbs, the scan's
 *   registers), exact_flags_round rounds its special flags and
 *   exact_top_round the top 128 bits of its magnitude (exact_cut says where
 *   they start; the scan's wide walk reads those from shared memory).
 *
 * Everything is integer arithmetic, so the grouping of terms (threads,
 * blocks, chunks, limbs or slots) cannot change the value; the one rounding
 * is ieee.h's.
 */
#ifndef XSUM_CORE_H
#define XSUM_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "ieee.h"		/* GS_HD */

#define EXACT_NAN 1u		/* a NaN, inf * 0, or +inf and -inf */
#define EXACT_PINF 2u
#define EXACT_NINF 4u

/* A term m * 2^e, or a special value (flags != 0, m == 0). m == 0 with no
 * flags is a zero: it adds nothing. */
struct exact_term {
	__int128 m;
	int e;
	unsigned flags;
};

/* An IEEE value of p significand bits (hidden bit included) and exponent
 * field width w, given its fields: m * 2^e exactly. bias_p = bias + p - 1. */
GS_HD struct exact_term exact_fields(bool neg, unsigned be,
				     unsigned long long frac,
				     unsigned emax_field, int p, int bias_p)
{
	struct exact_term t = { 0, 0, 0 };
	long long m;

	if (be == emax_field) {
		t.flags = frac ? EXACT_NAN : neg ? EXACT_NINF : EXACT_PINF;
		return t;
	}
	m = (long long)(frac | (unsigned long long)(be != 0) << (p - 1));
	t.m = neg ? -m : m;
	t.e = (int)(be + (be == 0)) - bias_p;
	return t;
}

GS_HD struct exact_term exact_f64(double v)
{
	unsigned long long u = exact_bits_f64(v);

	return exact_fields(u >> 63, (unsigned)(u >> 52) & 0x7ff,
			    u & 0xfffffffffffffull, 0x7ff, 53, 1075);
}

GS_HD struct exact_term exact_f32(float v)
{
	unsigned u = exact_bits_f32(v);

	return exact_fields(u >> 31, (u >> 23) & 0xff, u & 0x7fffff, 0xff, 24,
			    150);
}

/* Half types as raw bits (uint16_t in memory). */
GS_HD struct exact_term exact_f16(unsigned short h)
{
	return exact_fields(h >> 15, (h >> 10) & 0x1f, h & 0x3ff, 0x1f, 11, 25);
}

GS_HD struct exact_term exact_bf16(unsigned short h)
{
	return exact_fields(h >> 15, (h >> 7) & 0xff, h & 0x7f, 0xff, 8, 134);
}

GS_HD struct exact_term exact_i64(long long v)
{
	struct exact_term t = { v, 0, 0 };

	return t;
}

GS_HD struct exact_term exact_u64(unsigned long long v)
{
	struct exact_term t = { (__int128)v, 0, 0 };

	return t;
}

GS_HD bool exact_is_zero(struct exact_term t)
{
	return t.m == 0 && t.flags == 0;
}

GS_HD bool exact_is_neg(struct exact_term t)
{
	return t.flags ? t.flags == EXACT_NINF : t.m < 0;
}

/*
 * The exact product of two terms, for |a.m| * |b.m| < 2^127 (two f64
 * mantissas: 106 bits; f32: 48; i64 * i64 fits, u64 * u64 does not).
 * Specials: a NaN operand or inf * 0 is NaN, inf times anything else is a
 * signed inf.
 */
GS_HD struct exact_term exact_mul(struct exact_term a, struct exact_term b)
{
	struct exact_term t = { 0, 0, 0 };

	if (a.flags | b.flags) {
		if ((a.flags | b.flags) & EXACT_NAN || exact_is_zero(a) ||
		    exact_is_zero(b))
			t.flags = EXACT_NAN;
		else
			t.flags = exact_is_neg(a) != exact_is_neg(b) ?
				  EXACT_NINF : EXACT_PINF;
		return t;
	}
	t.m = a.m * b.m;
	t.e = a.e + b.e;
	return t;
}

GS_HD struct exact_term exact_prod_f64(double a, double b)
{
	return exact_mul(exact_f64(a), exact_f64(b));
}

/* A sum's special flags rounded into f: NaN (or both infinities) is NaN,
 * one infinity is that infinity; 0 (no bits of a special) without flags. */
GS_HD uint64_t exact_flags_round(unsigned flags, const struct ieee_fmt *f)
{
	if ((flags & EXACT_NAN) ||
	    (flags & (EXACT_PINF | EXACT_NINF)) == (EXACT_PINF | EXACT_NINF))
		return f->nan;
	return flags ? f->inf | (uint64_t)(flags == EXACT_NINF) << (f->width - 1)
		     : 0;
}

/* Where the top 128 bits of a magnitude whose top bit is bit top start. */
GS_HD int exact_cut(int top)
{
	return top > 127 ? top - 127 : 0;
}

/* (neg ? -1 : 1) * a magnitude rounded once to nearest even into f: its
 * limbs x, y, z from limb cut / 64 up (cut = exact_cut(top)), whether a
 * lower limb has a bit set (low), limb 0's lsb weighing 2^lsb. The top 128
 * bits and a sticky bit for the rest round as ieee_round_fast does. */
GS_HD uint64_t exact_top_round(unsigned long long x, unsigned long long y,
			       unsigned long long z, int cut, bool low,
			       int64_t lsb, bool neg, const struct ieee_fmt *f)
{
	int s = cut % 64;
	bool sticky = low || (s && (x << (64 - s)) != 0);
	unsigned long long lo = s ? x >> s | y << (64 - s) : x;
	unsigned long long hi = s ? y >> s | z << (64 - s) : y;

	return ieee_round_fast((unsigned __int128)hi << 64 | lo, sticky,
			       cut + lsb, neg, f);
}

#ifdef __CUDA_ARCH__
#define EXACT_UNROLL _Pragma("unroll")
#else
#define EXACT_UNROLL
#endif

/* Limb j of a two's complement value of n limbs l, its sign's extension
 * past them: by index on the host; on the device by a select over every
 * limb, so that limbs kept in registers (the scan's) are never indexed by
 * a variable, which would move them to local memory. */
GS_HD uint64_t exact_limb(const uint64_t *l, int n, int j)
{
	uint64_t x = l[n - 1] >> 63 ? ~(uint64_t)0 : 0;

#ifdef __CUDA_ARCH__
EXACT_UNROLL
	for (int i = 0; i < n; i++)
		x = i == j ? l[i] : x;
	return x;
#else
	return j < n ? l[j] : x;
#endif
}

/* Limb j of a two's complement value's magnitude, from its limb x there,
 * the value's lowest nonzero limb lo and its sign: the limbs themselves,
 * or negated (~x + 1, whose + 1 carries up to limb lo and stops there). */
GS_HD uint64_t exact_mag_limb(uint64_t x, int j, int lo, bool neg)
{
	return j < lo ? 0 : !neg ? x : j == lo ? 0 - x : ~x;
}

/*
 * The one reader of a fixed-point sum's limbs, whatever holds them (struct
 * xsum's 68, the scan's K in registers): the two's complement value of
 * l[0 .. n), limb 0's lsb weighing 2^lsb, with its special flags, rounded
 * once to nearest even into f; an exact zero is +0. Its lowest nonzero
 * limb and its top limb that is not the sign's extension say where the
 * magnitude's top is (a negative value's is at the lowest nonzero limb
 * when only ones lie above it) and whether bits below exact_cut's three
 * limbs are set; those three limbs are read as exact_mag_limb makes them.
 * l is read only at the loops' own indices and through exact_limb: with n
 * a constant and the loops unrolled (the device), l stays in registers.
 */
GS_HD uint64_t exact_limbs_round(const uint64_t *l, int n, unsigned flags,
				 int lsb, const struct ieee_fmt *f)
{
	bool neg = l[n - 1] >> 63;
	uint64_t ext = neg ? ~(uint64_t)0 : 0, xlo = 0, xt = 0;
	int lo = n, t = -1, h, cut, k;

	if (flags)
		return exact_flags_round(flags, f);
EXACT_UNROLL
	for (int j = 0; j < n; j++)
		if (l[j]) {
			lo = j;
			xlo = l[j];
			break;
		}
	if (lo == n)
		return 0;
EXACT_UNROLL
	for (int j = n - 1; j >= 0; j--)
		if (l[j] != ext) {
			t = j;
			xt = l[j];
			break;
		}
	h = t > lo ? t : lo;
	cut = exact_cut(64 * h + 63 -
			ieee_clz64(exact_mag_limb(h == t ? xt : xlo, h, lo, neg)));
	k = cut / 64;
	return exact_top_round(exact_mag_limb(exact_limb(l, n, k), k, lo, neg),
			       exact_mag_limb(exact_limb(l, n, k + 1), k + 1, lo, neg),
			       exact_mag_limb(exact_limb(l, n, k + 2), k + 2, lo, neg),
			       cut, lo < k, lsb, neg, f);
}

/* Significant bits of |m| (0 for 0). */
GS_HD int exact_nbits(__int128 m)
{
	unsigned __int128 a = m < 0 ? -(unsigned __int128)m : (unsigned __int128)m;
	unsigned long long hi = (unsigned long long)(a >> 64);

	if (hi)
		return 128 - ieee_clz64(hi);
	return 64 - ieee_clz64((unsigned long long)a);
}

/* ---- the slot form --------------------------------------------------------- */

/* Weight of slot 0's unit: the lsb of struct xsum, below the smallest
 * product of two doubles (2^-2148). */
#define EXACT_EMIN (-2176)
/* A term with E < 2176 and |M| < 2^127, shifted by up to 31 bits, ends in
 * slot (2176 + 2175) / 32 + 4 = 139; four more slots take the carries of
 * up to 2^128 such terms, far beyond any stream. */
#define EXACT_SLOTS 144

/* One exact sum in slots; zeroed means 0. */
struct exact_acc {
	long long slot[EXACT_SLOTS];	/* slot q weighs 2^(32q + EXACT_EMIN) */
	unsigned long long flags;	/* EXACT_NAN | EXACT_PINF | EXACT_NINF */
};

/* *p += v, atomically on the device (shared or global memory); plainly on
 * the host, where tests emulate one thread. */
GS_HD void exact_atomic_add(long long *p, long long v)
{
#ifdef __CUDA_ARCH__
	atomicAdd((unsigned long long *)p, (unsigned long long)v);
#else
	*p = (long long)((unsigned long long)*p + (unsigned long long)v);
#endif
}

/*
 * slot[] += m * 2^e, EXACT_EMIN <= e < -EXACT_EMIN, |m| < 2^127. With
 * e - EXACT_EMIN = 32q + r, m * 2^r = hi * 2^(64+r) + lo * 2^r, each half
 * shifted into 96 bits and cut at 32-bit boundaries: five pieces of
 * magnitude < 2^33 into slots q .. q + 4.
 */
GS_HD void exact_slots_add(long long *slot, __int128 m, int e)
{
	unsigned p = (unsigned)(e - EXACT_EMIN), q = p / 32, r = p % 32;
	unsigned __int128 a = (unsigned __int128)(unsigned long long)m << r;
	__int128 b = (__int128)((unsigned __int128)(long long)(m >> 64) << r);
	const long long mask = 0xffffffff;
	long long piece[5];

	piece[0] = (long long)a & mask;
	piece[1] = (long long)(a >> 32) & mask;
	piece[2] = (long long)(a >> 64) + ((long long)b & mask);
	piece[3] = (long long)(b >> 32) & mask;
	piece[4] = (long long)(b >> 64);	/* arithmetic: the sign */
	for (int k = 0; k < 5; k++)
		if (piece[k])
			exact_atomic_add(&slot[q + k], piece[k]);
}

/* slot[q] += v as a block hands on a slot of its own: the low 32 bits
 * there, the rest one slot up (the top slot takes all), so that each add
 * is below 2^33 for |v| < 2^62 and the slots stay carriable. */
GS_HD void exact_slot_spill(long long *slot, unsigned q, long long v)
{
	long long hi = v >> 32;

	if (v == 0)
		return;
	if (q == EXACT_SLOTS - 1) {
		exact_atomic_add(&slot[q], v);
		return;
	}
	exact_atomic_add(&slot[q], v & 0xffffffff);
	if (hi)
		exact_atomic_add(&slot[q + 1], hi);
}

/* Carry s[0 .. n) upwards so that every slot but the top lies in
 * [-2^31, 2^31) (balanced: a negative sum leaves no -1s up top); the value
 * is unchanged. Slots below 2^62 in magnitude, as the device keeps them. */
GS_HD void exact_slots_carry(long long *s, unsigned n)
{
	long long c = 0;

	for (unsigned q = 0; q + 1 < n; q++) {
		long long v = s[q] + c;

		c = (v + (1ll << 31)) >> 32;
		s[q] = v - (long long)((unsigned long long)c << 32);
	}
	s[n - 1] += c;
}

#endif
