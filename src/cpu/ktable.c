/*
 * ktable.c - order keys and the group-by table (ktable.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fkeys.h"
#include "gvals.h"
#include "ktable.h"
#include "xprod.h"

#define SIGN64 (1ull << 63)
#define KEY_NAN UINT64_MAX
#define PAY_ALIGN 64		/* a cache line */

static uint64_t float_key(double d)
{
	if (isnan(d))
		return KEY_NAN;
	return f64_ukey(d == 0 ? 0 : d);	/* -0 groups with +0 */
}

uint64_t gkey_of(enum gs_type t, const void *p)
{
	union { uint8_t u8; int8_t i8; uint16_t u16; int16_t i16;
		uint32_t u32; int32_t i32; uint64_t u64; int64_t i64;
		float f; double d; } v;

	memcpy(&v, p, type_size(t));
	switch (t) {
	case GS_U8: return v.u8;
	case GS_I8: return (uint64_t)(int64_t)v.i8 ^ SIGN64;
	case GS_U16: return v.u16;
	case GS_I16: return (uint64_t)(int64_t)v.i16 ^ SIGN64;
	case GS_U32: return v.u32;
	case GS_I32: return (uint64_t)(int64_t)v.i32 ^ SIGN64;
	case GS_U64: return v.u64;
	case GS_I64: return (uint64_t)v.i64 ^ SIGN64;
	case GS_F16: return float_key(f16_to_f32(v.u16));
	case GS_BF16: return float_key(bf16_to_f32(v.u16));
	case GS_F32: return float_key(v.f);
	default: return float_key(v.d);
	}
}

void gkey_value(enum gs_type t, uint64_t k, void *p)
{
	uint64_t i = k ^ SIGN64;
	double d;
	float f;
	uint16_t h;

	switch (t) {
	case GS_U8: case GS_U16: case GS_U32: case GS_U64:
		i = k;
		/* fall through */
	case GS_I8: case GS_I16: case GS_I32: case GS_I64:
		memcpy(p, &i, type_size(t));	/* the low bytes: little-endian */
		return;
	default:
		break;
	}
	d = k == KEY_NAN ? NAN : ukey_to_f64(k);
	switch (t) {
	case GS_F16:
		h = (uint16_t)round_f64(d, XF_F16);
		memcpy(p, &h, sizeof(h));
		break;
	case GS_BF16:
		h = (uint16_t)round_f64(d, XF_BF16);
		memcpy(p, &h, sizeof(h));
		break;
	case GS_F32:
		f = (float)d;			/* exact: it came from a float */
		memcpy(p, &f, sizeof(f));
		break;
	default:
		memcpy(p, &d, sizeof(d));
	}
}

/* ---- the table ----------------------------------------------------------- */

uint64_t ktable_hash(const uint64_t *key, size_t kw)
{
	uint64_t h = KTABLE_HASH0;

	for (size_t i = 0; i < kw; i++)
		h = ktable_hash_word(h, key[i]);
	return h;
}

int ktable_init(struct ktable *t, size_t kw, size_t psize)
{
	memset(t, 0, sizeof(*t));
	t->kw = kw;
	t->psize = psize;
	t->mask = 63;
	t->slot = calloc(t->mask + 1, sizeof(*t->slot));
	return t->slot ? 0 : -1;
}

void ktable_free(struct ktable *t)
{
	free(t->slot);
	free(t->keys);
	free(t->pay);
	memset(t, 0, sizeof(*t));
}

static void place(uint32_t *slot, size_t mask, uint64_t h, uint32_t e)
{
	size_t i = h & mask;

	while (slot[i])
		i = (i + 1) & mask;
	slot[i] = e;
}

static int grow_slots(struct ktable *t)
{
	size_t mask = t->mask * 2 + 1;
	uint32_t *s = calloc(mask + 1, sizeof(*s));

	if (!s)
		return -1;
	for (size_t e = 0; e < t->n; e++)
		place(s, mask, ktable_hash(ktable_key(t, e), t->kw), (uint32_t)e + 1);
	free(t->slot);
	t->slot = s;
	t->mask = mask;
	return 0;
}

/* Payloads of cap entries, on a cache line's boundary: a payload of 64
 * bytes (a sum's struct gcol) is then one line, not two, and a fold into
 * a table past the caches loads half the lines. NULL: out of memory. */
static unsigned char *pay_alloc(size_t cap, size_t psize)
{
	size_t b = (cap * psize + !psize + PAY_ALIGN - 1) / PAY_ALIGN *
		   PAY_ALIGN;

	return aligned_alloc(PAY_ALIGN, b);
}

static int grow_entries(struct ktable *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	uint64_t *k;
	unsigned char *p;

	if (cap > UINT32_MAX - 1)
		cap = UINT32_MAX - 1;
	if (cap <= t->n)
		return -1;
	k = realloc(t->keys, cap * t->kw * sizeof(*k));
	if (!k)
		return -1;
	t->keys = k;
	p = pay_alloc(cap, t->psize);
	if (!p)
		return -1;
	if (t->n)
		memcpy(p, t->pay, t->n * t->psize);
	free(t->pay);
	t->pay = p;
	t->cap = cap;
	return 0;
}

/* The entry of key whose hash is h, inserted (payload zeroed) if new:
 * its index, or -1 when memory or the entries run out. */
static int64_t entry_of(struct ktable *t, const uint64_t *key, uint64_t h,
			bool *fresh)
{
	size_t i = h & t->mask, kb = t->kw * sizeof(*key);
	uint32_t e;

	while ((e = t->slot[i])) {
		/* one column, the common key: no call */
		if (t->kw == 1 ? t->keys[e - 1] == key[0] :
		    !memcmp(ktable_key(t, e - 1), key, kb)) {
			if (fresh)
				*fresh = false;
			return e - 1;
		}
		i = (i + 1) & t->mask;
	}
	if (t->n == t->cap && grow_entries(t))
		return -1;
	if ((t->n + 1) * 2 > t->mask + 1) {
		if (grow_slots(t))
			return -1;
		place(t->slot, t->mask, h, (uint32_t)t->n + 1);
	} else {
		t->slot[i] = (uint32_t)t->n + 1;
	}
	memcpy(t->keys + t->n * t->kw, key, kb);
	memset(ktable_pay(t, t->n), 0, t->psize);
	if (fresh)
		*fresh = true;
	return (int64_t)t->n++;
}

void *ktable_get(struct ktable *t, const uint64_t *key, bool *fresh)
{
	int64_t e = entry_of(t, key, ktable_hash(key, t->kw), fresh);

	return e < 0 ? NULL : ktable_pay(t, (size_t)e);
}

/* How far ahead of the lookups the batch loads the slots (PF_SLOT) and
 * then the entries the slots name (PF_ENTRY): far enough to overlap the
 * misses of a table bigger than the caches. */
#define PF_SLOT 32u
#define PF_ENTRY 16u

int ktable_find(struct ktable *t, const uint64_t *keys, size_t stride,
		size_t n, uint64_t *h, uint32_t *idx)
{
	for (size_t i = 0; i < n; i++)
		h[i] = ktable_hash(keys + i * stride, t->kw);
	return ktable_find_hashed(t, keys, stride, n, h, idx);
}

int ktable_find_hashed(struct ktable *t, const uint64_t *keys, size_t stride,
		       size_t n, uint64_t *h, uint32_t *idx)
{
	/* the low 32 bits place a key while the slots stay below 2^32,
	 * which a batch's growth cannot pass from 2^31 slots or fewer */
	if (t->mask > UINT32_MAX >> 1)
		for (size_t i = 0; i < n; i++)
			h[i] = ktable_hash(keys + i * stride, t->kw);
	for (size_t i = 0; i < n + PF_SLOT; i++) {
		int64_t e;

		if (i < n)
			__builtin_prefetch(&t->slot[h[i] & t->mask]);
		/* here, not in a function of its own: gcc takes one that
		 * only loads and prefetches for pure, and drops its calls */
		if (i >= PF_SLOT - PF_ENTRY && i - (PF_SLOT - PF_ENTRY) < n) {
			uint32_t s = t->slot[h[i - (PF_SLOT - PF_ENTRY)] & t->mask];

			if (s) {
				const char *p = ktable_pay(t, s - 1);

				__builtin_prefetch(ktable_key(t, s - 1));
				__builtin_prefetch(p);
				__builtin_prefetch(p + t->psize - !!t->psize);
			}
		}
		if (i < PF_SLOT)
			continue;
		e = entry_of(t, keys + (i - PF_SLOT) * stride, h[i - PF_SLOT],
			     NULL);
		if (e < 0)
			return -1;
		idx[i - PF_SLOT] = (uint32_t)e;
	}
	return 0;
}

void ktable_clear(struct ktable *t)
{
	memset(t->slot, 0, (t->mask + 1) * sizeof(*t->slot));
	t->n = 0;
}

size_t ktable_bytes(const struct ktable *t)
{
	return (t->mask + 1) * sizeof(*t->slot) +
	       t->cap * (t->kw * sizeof(*t->keys) + t->psize);
}

/* ---- sorted order: a radix sort of (key, index) records ------------------ */

size_t *ktable_sorted(const struct ktable *t)
{
	size_t n = t->n, w = t->kw + 1, *ids;
	uint64_t *a, *b;

	if (!n)
		return NULL;
	a = malloc(n * w * sizeof(*a));
	b = a ? malloc(n * w * sizeof(*b)) : NULL;
	ids = b ? malloc(n * sizeof(*ids)) : NULL;
	if (!ids)
		goto out;
	for (size_t i = 0; i < n; i++) {
		memcpy(a + i * w, ktable_key(t, i), t->kw * sizeof(*a));
		a[i * w + t->kw] = i;
	}
	/* keys are distinct: the index word never decides, nor does order */
	if (!gvals_sort(a, b, n, w, t->kw, 0)) {
		free(ids);
		ids = NULL;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		ids[i] = (size_t)a[i * w + t->kw];
out:
	free(a);
	free(b);
	return ids;
}

int ktable_sort(struct ktable *t)
{
	size_t *idx, kb = t->kw * sizeof(*t->keys);
	uint64_t *k;
	unsigned char *p;

	if (!t->n)
		return 0;
	idx = ktable_sorted(t);
	k = idx ? malloc(t->cap * kb) : NULL;
	p = k ? pay_alloc(t->cap, t->psize) : NULL;
	if (!p) {
		free(idx);
		free(k);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		memcpy(k + i * t->kw, ktable_key(t, idx[i]), kb);
		memcpy(p + i * t->psize, ktable_pay(t, idx[i]), t->psize);
	}
	free(idx);
	free(t->keys);
	free(t->pay);
	t->keys = k;
	t->pay = p;
	memset(t->slot, 0, (t->mask + 1) * sizeof(*t->slot));
	for (size_t e = 0; e < t->n; e++)
		place(t->slot, t->mask, ktable_hash(ktable_key(t, e), t->kw),
		      (uint32_t)e + 1);
	return 0;
}
