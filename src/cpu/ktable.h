/*
 * ktable.h - the table a group-by accumulates into: keys of one or more
 * columns, each an order key (below), to a fixed-size payload per key.
 *
 * An order key is a u64 whose unsigned order is the order of the values
 * and whose equality is the grouping: integers of every type by value,
 * floats by value with -0 and +0 one key and every NaN one key, after
 * +inf (pandas' groups, numpy's sort order). Keys of several columns
 * compare column by column.
 *
 * The table is open addressing over entry indices, entries stored in
 * insertion order (keys and payloads in two arrays), so a thread's table
 * merges into another by walking its entries, and the sorted order is an
 * index sort over the keys. Payloads start zeroed; their array starts on
 * a cache line (64 bytes).
 */
#ifndef KTABLE_H
#define KTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "fkeys.h"
#include "gs.h"

/* The order key of an element of type t at p (native byte order). */
uint64_t gkey_of(enum gs_type t, const void *p);
/* gkey_of inline, for a loop made per type: i32, i64, u32, u64 and f64
 * here, the other types through gkey_of. */
static inline __attribute__((always_inline)) uint64_t
gkey_at(enum gs_type t, const void *p)
{
	int32_t i32; int64_t i64; uint32_t u32; uint64_t u64; double d;

	switch (t) {
	case GS_I32: memcpy(&i32, p, 4); return (uint64_t)(int64_t)i32 ^ (1ull << 63);
	case GS_I64: memcpy(&i64, p, 8); return (uint64_t)i64 ^ (1ull << 63);
	case GS_U32: memcpy(&u32, p, 4); return u32;
	case GS_U64: memcpy(&u64, p, 8); return u64;
	case GS_F64: memcpy(&d, p, 8);	/* every NaN one key, -0 with +0 */
		return d != d ? UINT64_MAX : f64_ukey(d == 0 ? 0 : d);
	default: return gkey_of(t, p);
	}
}
/* The element of type t whose order key is k, written at p (NaN as the
 * type's quiet NaN; -0 never comes back). */
void gkey_value(enum gs_type t, uint64_t k, void *p);

struct ktable {
	size_t kw;		/* key words (columns) per key */
	size_t psize;		/* payload bytes per key */
	size_t n;		/* keys */
	size_t cap;		/* entries allocated */
	size_t mask;		/* slots - 1; slots a power of two, load <= 1/2 */
	uint32_t *slot;		/* entry index + 1; 0 empty */
	uint64_t *keys;		/* n * kw */
	unsigned char *pay;	/* n * psize */
};

int ktable_init(struct ktable *t, size_t kw, size_t psize);
void ktable_free(struct ktable *t);
/* The payload of key, inserted zeroed if new (*fresh tells, when not
 * NULL); NULL when memory or the 2^32 - 1 entries run out. */
void *ktable_get(struct ktable *t, const uint64_t *key, bool *fresh);
/* The entries of n keys at keys, keys + stride, ... (stride in words),
 * each inserted zeroed if new, into idx[0..n), their hashes into h[0..n)
 * (scratch): as n ktable_gets, the table's memory loaded ahead of the
 * lookups. 0, or -1 when memory or the entries run out (some of the keys
 * in, idx unset). */
int ktable_find(struct ktable *t, const uint64_t *keys, size_t stride,
		size_t n, uint64_t *h, uint32_t *idx);
/* As ktable_find, the keys' hashes given in h[0..n): their low 32 bits
 * at least (all are computed again where the table's slots could pass
 * 2^32). */
int ktable_find_hashed(struct ktable *t, const uint64_t *keys, size_t stride,
		       size_t n, uint64_t *h, uint32_t *idx);
/* Key and payload of entry i (i < n). */
static inline const uint64_t *ktable_key(const struct ktable *t, size_t i)
{
	return t->keys + i * t->kw;
}

static inline void *ktable_pay(const struct ktable *t, size_t i)
{
	return t->pay + i * t->psize;
}

/* Entry indices in ascending key order (malloc'd, n of them; NULL when
 * out of memory, or for an empty table). */
size_t *ktable_sorted(const struct ktable *t);
/* The entries reordered into ascending key order (the payloads move
 * with their keys): 0, or -1 out of memory (t unchanged). */
int ktable_sort(struct ktable *t);
/* No keys, the memory kept (payloads are the caller's to release). */
void ktable_clear(struct ktable *t);
/* The hash the table places key by (its high bits are free to pick a
 * partition: group_shared.c); ktable_hash_word: a key of one column's,
 * inline for the loops that hash every record. */
uint64_t ktable_hash(const uint64_t *key, size_t kw);
static inline uint64_t ktable_hash_word(uint64_t h, uint64_t w)
{
	h ^= w + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 30;	/* splitmix64's finaliser */
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ h >> 31;
}
#define KTABLE_HASH0 0x243f6a8885a308d3ull
static inline uint64_t ktable_hash1(uint64_t key)
{
	return ktable_hash_word(KTABLE_HASH0, key);
}
/* Bytes the table holds now. */
size_t ktable_bytes(const struct ktable *t);

#endif
