/*
 * group_dev.h - --by's device form: a hash table of per-key exact
 * accumulators that the GPU folds records into (cuda/group_kernels.cu),
 * written once for the device (CUDA C++) and the host (C11), as
 * hist2d_bin.h is: the host runs the very same fold, one record at a
 * time, in its tests (tests/unit_groupdev.c), and reads the table back
 * into the CPU's own accumulators (src/cpu/group_gpu.c).
 *
 * The device accumulator is one block of 64-bit words:
 *
 *   struct gd_head                 the layout, set by the host at open
 *   slots * sw words               the table: open addressing, linear
 *                                  probing, at most max_keys keys
 *   spill_cap * rs bytes           records the table could not take
 *
 * A slot is: state (0 empty, 1 its key being written, 2 ready), the key's
 * order keys (ktable.h: the CPU's, so the keys group alike), then per
 * value column at its word w:
 *
 *   count, nan                     every element; the NaNs among them
 *   nmin, max                      ~(min order key), max order key
 *   flags                          GDF_*: the infinities, a non -0 term
 *   pos[l1], neg[l1]               the sums of the positive and of the
 *                                  negative values, as fixed-point
 *                                  magnitudes: limb i holds bits
 *                                  lo1 + 64 i ... lo1 + 64 i + 63
 *   sq[l2]                         the sum of the squares, from lo2
 *
 * (nmin and max from GROUP_MINMAX on, the sums from GROUP_SUM, squares
 * for GROUP_STATS only.) Every field starts zeroed. The sums are exact:
 * a term is its significand placed at its exponent, added limb by limb,
 * and a limb whose add wraps (seen in the old value an atomic add
 * returns) carries one into the next, so the limbs end as the exact sum
 * whatever order the adds ran in. The windows are fixed per value type
 * (gd_window): every integer, f16, bf16 and f32 fits, with 64 bits of
 * headroom in the top limb for 2^64 terms; an f64 fits with its lowest
 * bit at 2^-320 or above and below 2^128 (2^-640 and 2^256 squared).
 * A record with a value that does not fit, or a new key once the table
 * holds max_keys, is copied whole to the spill area, where the host folds
 * it with the CPU's own code (src/cpu/group_gpu.c). The host drains the
 * area before a launch could overflow it (cuda/group_kernels.cu), so
 * every key count runs; were it to overflow anyway, the count still
 * grows and the host fails the run (never a wrong number).
 *
 * At the end only the keys come back: gd_compact copies each used slot
 * to the next free place of a buffer of keys slots (any order: the host
 * merges by key), so 1,000 keys read back kilobytes, not the table.
 */
#ifndef GROUP_DEV_H
#define GROUP_DEV_H

#include "gs.h"
#include "fkeys.h"
#include "ieee.h"

#define GD_MAXK 4		/* key columns the device form takes */
#define GD_MAXV 8		/* value columns */

/* flags: an infinity of either sign, a term other than -0 */
#define GDF_PINF 1u
#define GDF_NINF 2u
#define GDF_NOTNEGZ 4u

/* A slot's words before its columns, and each column's before its sums. */
#define GD_STATE 0
#define GD_KEY 1
#define GD_COUNT 0
#define GD_NAN 1
#define GD_NMIN 2
#define GD_MAX 3
#define GD_FLAGS 4
#define GD_SUMS 5

struct gd_col {
	uint32_t off;		/* byte offset of the column in a record */
	uint32_t type;		/* enum gs_type */
	uint32_t boolean;	/* a bool column: 0 or 1 */
	uint32_t w;		/* word of the column's fields in a slot */
	int32_t lo1, lo2;	/* the place of limb 0's low bit */
	uint32_t l1, l2;	/* limbs of each sign's sum; of the squares */
};

struct gd_head {
	uint64_t slots;		/* a power of two */
	uint64_t max_keys;	/* new keys past it spill */
	uint64_t keys;		/* keys reserved (device counter) */
	uint64_t spilled;	/* records spilled (device counter) */
	uint64_t spill_cap;	/* records the spill area holds */
	uint64_t sw;		/* words per slot */
	uint64_t table_off;	/* bytes from the head to slot 0 */
	uint64_t spill_off;	/* ... to the spill area */
	uint64_t used;		/* the compaction's cursor (device); slots
				 * at table_off (a host copy, compact) */
	uint32_t rs;		/* record bytes */
	uint32_t nkeys, nvals, what;	/* enum gs_group_what */
	uint32_t key_off[GD_MAXK], key_type[GD_MAXK], key_bool[GD_MAXK];
	uint32_t compact;	/* a host copy: 1 where the table at table_off
				 * is its used slots alone (gd_compact) */
	struct gd_col col[GD_MAXV];
};

#ifdef __CUDACC__
#define GD_FN static __device__ inline
#define GD_ADD(p, v) ((uint64_t)atomicAdd((unsigned long long *)(p), \
					   (unsigned long long)(v)))
#define GD_MAXU(p, v) atomicMax((unsigned long long *)(p), \
				(unsigned long long)(v))
#define GD_OR(p, v) atomicOr((unsigned long long *)(p), \
			     (unsigned long long)(v))
#define GD_CAS(p, c, v) ((uint64_t)atomicCAS((unsigned long long *)(p), \
					      (unsigned long long)(c), \
					      (unsigned long long)(v)))
#define GD_LOAD(p) (*(volatile uint64_t *)(p))
#define GD_STORE(p, v) (*(volatile uint64_t *)(p) = (v))
#define GD_FENCE() __threadfence()
#else
/* The host runs it in its tests (tests/unit_groupdev.c), on several
 * threads too: the same atomics, as the compiler's builtins. */
#define GD_FN static inline
static inline uint64_t gd_host_cas(uint64_t *p, uint64_t c, uint64_t v)
{
	__atomic_compare_exchange_n(p, &c, v, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return c;		/* the old value, as atomicCAS returns */
}

static inline void gd_host_max(uint64_t *p, uint64_t v)
{
	uint64_t o = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (o < v && !__atomic_compare_exchange_n(p, &o, v, true,
						     __ATOMIC_SEQ_CST,
						     __ATOMIC_RELAXED))
		;
}
#define GD_ADD(p, v) __atomic_fetch_add((p), (uint64_t)(v), __ATOMIC_SEQ_CST)
#define GD_MAXU(p, v) gd_host_max((p), (v))
#define GD_OR(p, v) __atomic_fetch_or((p), (uint64_t)(v), __ATOMIC_SEQ_CST)
#define GD_CAS(p, c, v) gd_host_cas((p), (c), (v))
#define GD_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define GD_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
/* none needed: the CAS that publishes a key is a release of the stores
 * before it, and the load that sees it an acquire (and ThreadSanitizer
 * does not model fences) */
#define GD_FENCE() ((void)0)
#endif

#define GD_SIGN (1ull << 63)
#define GD_KEY_NAN UINT64_MAX

/* The fixed-point windows of a value column of type t (see above). */
GS_HD void gd_window(enum gs_type t, struct gd_col *c)
{
	switch (t) {
	case GS_F16:
		c->lo1 = -24, c->l1 = 2, c->lo2 = -48, c->l2 = 3;
		break;
	case GS_BF16: case GS_F32:
		c->lo1 = -149, c->l1 = 6, c->lo2 = -298, c->l2 = 10;
		break;
	case GS_F64:
		c->lo1 = -320, c->l1 = 8, c->lo2 = -640, c->l2 = 15;
		break;
	default:	/* integers: magnitudes below 2^64, squares 2^128 */
		c->lo1 = 0, c->l1 = 2, c->lo2 = 0, c->l2 = 3;
		break;
	}
}

/* The words of a column's fields in a slot, for what. */
GS_HD uint32_t gd_col_words(const struct gd_col *c, enum gs_group_what what)
{
	return what == GROUP_COUNT ? 2 : what == GROUP_MINMAX ? GD_SUMS :
	       what == GROUP_SUM ? GD_SUMS + 2 * c->l1 :
	       GD_SUMS + 2 * c->l1 + c->l2;
}

GS_HD bool gd_is_float(uint32_t t)
{
	return t == GS_F16 || t == GS_BF16 || t == GS_F32 || t == GS_F64;
}

GS_HD bool gd_is_signed(uint32_t t)
{
	return t == GS_I8 || t == GS_I16 || t == GS_I32 || t == GS_I64;
}

/* An element of type t at p (any alignment, native order): a float as a
 * double, an integer's bits sign-extended. */
GS_HD uint64_t gd_load(const unsigned char *p, uint32_t t, uint32_t boolean,
		       double *d)
{
	uint64_t u = 0;
	unsigned n = t == GS_U8 || t == GS_I8 ? 1 : t == GS_U16 ||
		     t == GS_I16 || t == GS_F16 || t == GS_BF16 ? 2 :
		     t == GS_U32 || t == GS_I32 || t == GS_F32 ? 4 : 8;

	for (unsigned i = 0; i < n; i++)
		u |= (uint64_t)p[i] << (8 * i);
	if (boolean)
		return u != 0;
	switch (t) {
	case GS_I8: return (uint64_t)(int64_t)(int8_t)u;
	case GS_I16: return (uint64_t)(int64_t)(int16_t)u;
	case GS_I32: return (uint64_t)(int64_t)(int32_t)u;
	case GS_F16: *d = ieee_f16_to_f32((uint16_t)u); break;
	case GS_BF16: *d = ieee_bf16_to_f32((uint16_t)u); break;
	case GS_F32: *d = ieee_f32_from_bits((uint32_t)u); break;
	case GS_F64: memcpy(d, &u, 8); break;
	default: break;
	}
	return u;
}

/* A key column's order key: ktable.c's gkey_of. */
GS_HD uint64_t gd_key(const unsigned char *p, uint32_t t, uint32_t boolean)
{
	double d = 0;
	uint64_t u = gd_load(p, t, boolean, &d);

	if (boolean || !(gd_is_float(t) || gd_is_signed(t)))
		return u;
	if (!gd_is_float(t))
		return u ^ GD_SIGN;
	if (d != d)
		return GD_KEY_NAN;
	return f64_ukey(d == 0 ? 0.0 : d);
}

/* One value, taken apart. */
struct gd_val {
	uint64_t ord;		/* its order key (min and max) */
	uint64_t m;		/* |value| = m * 2^e, m odd (or 0) */
	int e;
	bool nan, neg, fits;
	uint32_t flags;		/* GDF_* */
};

GS_HD int gd_bits(uint64_t m)
{
	int n = 0;

	while (m) {
		n++;
		m >>= 1;
	}
	return n;
}

/* Whether m * 2^e (m of mbits bits) fits l limbs from lo, the top one
 * left free. */
GS_HD bool gd_fits(int mbits, int e, int lo, uint32_t l)
{
	return mbits == 0 || (e >= lo && e - lo + mbits <= 64 * ((int)l - 1));
}

GS_HD struct gd_val gd_value(const unsigned char *rec, const struct gd_col *c,
			     uint32_t what)
{
	struct gd_val v;
	double d = 0;
	uint64_t u = gd_load(rec + c->off, c->type, c->boolean, &d), b;
	int be;

	v.e = 0;
	v.nan = false;
	v.fits = true;
	if (c->boolean || !(gd_is_float(c->type) || gd_is_signed(c->type))) {
		v.ord = u, v.m = u, v.neg = false, v.flags = GDF_NOTNEGZ;
		return v;
	}
	if (!gd_is_float(c->type)) {
		v.ord = u ^ GD_SIGN;
		v.neg = (int64_t)u < 0;
		v.m = v.neg ? -u : u;
		v.flags = GDF_NOTNEGZ;
		return v;
	}
	v.nan = d != d;
	v.ord = f64_ukey(d);
	memcpy(&b, &d, 8);
	v.neg = b >> 63;
	be = (int)(b >> 52 & 0x7ff);
	v.flags = b == GD_SIGN ? 0 : GDF_NOTNEGZ;
	v.m = 0;
	if (be == 0x7ff) {		/* inf (NaN is counted apart) */
		v.flags |= v.neg ? GDF_NINF : GDF_PINF;
		return v;
	}
	v.m = (b & 0xfffffffffffffull) | (uint64_t)(be != 0) << 52;
	v.e = (be ? be : 1) - 1075;
	while (v.m && !(v.m & 1)) {
		v.m >>= 1;
		v.e++;
	}
	if (what >= GROUP_SUM) {
		int n = gd_bits(v.m);

		v.fits = gd_fits(n, v.e, c->lo1, c->l1) &&
			 (what != GROUP_STATS ||
			  gd_fits(2 * n, 2 * v.e, c->lo2, c->l2));
	}
	return v;
}

/* a[i] += t, carrying into the limbs above (l of them). */
GD_FN void gd_addc(uint64_t *a, uint32_t i, uint32_t l, uint64_t t)
{
	uint64_t old;

	if (!t || i >= l)
		return;
	old = GD_ADD(&a[i], t);
	while (old + t < old && ++i < l) {
		t = 1;
		old = GD_ADD(&a[i], 1);
	}
}

/* a += m * 2^p, p >= 0 (m below 2^128: three limbs at most). */
GD_FN void gd_place(uint64_t *a, uint32_t l, int p, unsigned __int128 m)
{
	uint32_t i = (uint32_t)p >> 6, s = (uint32_t)p & 63;

	gd_addc(a, i, l, (uint64_t)m << s);
	gd_addc(a, i + 1, l, s ? (uint64_t)(m >> (64 - s)) :
				 (uint64_t)(m >> 64));
	gd_addc(a, i + 2, l, s ? (uint64_t)(m >> (128 - s)) : 0);
}

/* One value into its column's fields at f. */
GD_FN void gd_fold_val(uint64_t *f, const struct gd_col *c, uint32_t what,
		       const struct gd_val *v)
{
	GD_ADD(&f[GD_COUNT], 1);
	if (v->nan) {
		GD_ADD(&f[GD_NAN], 1);
		return;
	}
	if (what == GROUP_COUNT)
		return;
	/* read first: once a key's extremes settle, most records change
	 * nothing, and an atomic on a hot key costs where a read does not */
	if (GD_LOAD(&f[GD_NMIN]) < ~v->ord)
		GD_MAXU(&f[GD_NMIN], ~v->ord);
	if (GD_LOAD(&f[GD_MAX]) < v->ord)
		GD_MAXU(&f[GD_MAX], v->ord);
	if ((GD_LOAD(&f[GD_FLAGS]) & v->flags) != v->flags)
		GD_OR(&f[GD_FLAGS], v->flags);
	if (what == GROUP_MINMAX || !v->m)
		return;
	gd_place(f + GD_SUMS + (v->neg ? c->l1 : 0), c->l1, v->e - c->lo1,
		 v->m);
	if (what == GROUP_STATS)
		gd_place(f + GD_SUMS + 2 * c->l1, c->l2, 2 * v->e - c->lo2,
			 (unsigned __int128)v->m * v->m);
}

GS_HD uint64_t gd_hash(const uint64_t *key, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (uint32_t k = 0; k < n; k++) {
		h = (h ^ key[k]) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	return h * 0x94d049bb133111ebull;
}

/* The slot of key in the table at tab, claimed if new; NULL when the
 * table holds max_keys keys and key is not one of them. */
GD_FN uint64_t *gd_slot(struct gd_head *h, uint64_t *tab, const uint64_t *key)
{
	uint64_t mask = h->slots - 1, i = gd_hash(key, h->nkeys) & mask;

	for (uint64_t probe = 0; probe < h->slots; probe++, i = (i + 1) & mask) {
		uint64_t *s = tab + i * h->sw, st = GD_LOAD(&s[GD_STATE]);
		bool same = true;

		if (st == 0) {
			if (GD_ADD(&h->keys, 1) >= h->max_keys) {
				GD_ADD(&h->keys, (uint64_t)-1);
				return NULL;
			}
			st = GD_CAS(&s[GD_STATE], 0, 1);
			if (st == 0) {
				for (uint32_t k = 0; k < h->nkeys; k++)
					GD_STORE(&s[GD_KEY + k], key[k]);
				GD_FENCE();
				GD_CAS(&s[GD_STATE], 1, 2);
				return s;
			}
			GD_ADD(&h->keys, (uint64_t)-1);	/* another took it */
		}
		while (st == 1)		/* its key is on the way */
			st = GD_LOAD(&s[GD_STATE]);
		GD_FENCE();
		for (uint32_t k = 0; k < h->nkeys; k++)
			same = same && GD_LOAD(&s[GD_KEY + k]) == key[k];
		if (same)
			return s;
	}
	return NULL;
}

/* One record into the table at base (the head's block); false: spilled
 * (a value out of its window, or the table full). The values are taken
 * apart twice (to check, then to fold) rather than kept: an array of them
 * would live in the GPU's local memory. */
GD_FN bool gd_fold(struct gd_head *h, unsigned char *base,
		   const unsigned char *rec)
{
	uint64_t key[GD_MAXK], *s = NULL, sp;
	bool fits = true;

	for (uint32_t k = 0; k < h->nkeys; k++)
		key[k] = gd_key(rec + h->key_off[k], h->key_type[k],
				h->key_bool[k]);
	for (uint32_t j = 0; fits && j < h->nvals; j++)
		fits = gd_value(rec, &h->col[j], h->what).fits;
	if (fits)
		s = gd_slot(h, (uint64_t *)(base + h->table_off), key);
	if (s) {
		for (uint32_t j = 0; j < h->nvals; j++) {
			struct gd_val v = gd_value(rec, &h->col[j], h->what);

			gd_fold_val(s + h->col[j].w, &h->col[j], h->what, &v);
		}
		return true;
	}
	sp = GD_ADD(&h->spilled, 1);
	if (sp < h->spill_cap)
		memcpy(base + h->spill_off + sp * h->rs, rec, h->rs);
	return false;
}

/* Slot i of the table at tab, if used, to the next place of out (of
 * h->keys slots): *cursor counts the places taken. */
GD_FN void gd_compact(const struct gd_head *h, const uint64_t *tab,
		      uint64_t *out, uint64_t *cursor, uint64_t i)
{
	const uint64_t *s = tab + i * h->sw;
	uint64_t j;

	if (s[GD_STATE] != 2)
		return;
	j = GD_ADD(cursor, 1);
	for (uint64_t w = 0; w < h->sw; w++)
		out[j * h->sw + w] = s[w];
}

#endif
