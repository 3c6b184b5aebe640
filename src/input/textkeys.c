/*
 * textkeys.c - text keys to ids (textkeys.h): an open-addressing table of
 * the keys' hashes and their keys, read without a lock and written under
 * one; the keys' bytes each in its own allocation, listed by id.
 *
 * A key seen before is found without a lock, so the parsing threads do
 * not queue on it (with 1,000 keys on 2 threads a lock per field took
 * more time than the parse). A slot is published by its hash, stored
 * last with release: a reader that sees the hash sees its key. A full
 * table is copied into one twice its size, published by the table
 * pointer; a reader still in the old table may miss a key added since,
 * and then looks again under the lock. Old tables are kept until
 * textkeys_free (together at most the last one's size).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "textkeys.h"

struct tkey {
	uint64_t id;
	size_t n;
	char s[];		/* n bytes and a NUL */
};

struct kslot {
	_Atomic uint64_t hash;	/* 0 empty, else the hash | 1 */
	struct tkey *key;	/* set before hash */
};

struct ktab {
	struct ktab *older;	/* the table this one replaced */
	size_t cap;		/* a power of two */
	struct kslot slot[];
};

struct textkeys {
	pthread_mutex_t lock;
	struct ktab *_Atomic tab;
	struct tkey **key;	/* [count] by id */
	uint64_t count, room;
};

/* FNV-1a, 64 bits: keys are short. */
static uint64_t hash_of(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211u;
	return h | 1;
}

/* A hash's first slot: its bits mixed (the hash is odd, and FNV's low
 * bits of keys that differ in their last bytes alone are alike). */
static size_t home(uint64_t h, size_t m)
{
	h *= 0x9e3779b97f4a7c15u;
	return (size_t)(h ^ h >> 32) & m;
}

static struct ktab *ktab_new(size_t cap, struct ktab *older)
{
	struct ktab *t = calloc(1, sizeof(*t) + cap * sizeof(t->slot[0]));

	if (t) {
		t->older = older;
		t->cap = cap;
	}
	return t;
}

struct textkeys *textkeys_new(void)
{
	struct textkeys *k = calloc(1, sizeof(*k));
	struct ktab *t = ktab_new(1024, NULL);

	if (!k || !t || pthread_mutex_init(&k->lock, NULL)) {
		free(t);
		free(k);
		return NULL;
	}
	atomic_init(&k->tab, t);
	return k;
}

void textkeys_free(struct textkeys *k)
{
	struct ktab *t, *older;

	if (!k)
		return;
	for (uint64_t i = 0; i < k->count; i++)
		free(k->key[i]);
	free(k->key);
	for (t = atomic_load(&k->tab); t; t = older) {
		older = t->older;
		free(t);
	}
	pthread_mutex_destroy(&k->lock);
	free(k);
}

/* Key s[0..n) of hash h in table t: its slot's key, or NULL at the empty
 * slot where it would go (*at). */
static struct tkey *find(const struct ktab *t, uint64_t h, const char *s,
			 size_t n, size_t *at)
{
	size_t m = t->cap - 1, i;
	uint64_t x;

	for (i = home(h, m); (x = atomic_load_explicit(&t->slot[i].hash,
						   memory_order_acquire));
	     i = (i + 1) & m) {
		struct tkey *key = t->slot[i].key;

		if (x == h && key->n == n && memcmp(key->s, s, n) == 0)
			return key;
	}
	*at = i;
	return NULL;
}

/* Under the lock: a table twice the size, every key placed again. */
static int grow(struct textkeys *k)
{
	struct ktab *t = atomic_load_explicit(&k->tab, memory_order_relaxed);
	struct ktab *u = ktab_new(t->cap * 2, t);
	size_t m, i, j;

	if (!u)
		return -1;
	m = u->cap - 1;
	for (i = 0; i < t->cap; i++) {
		uint64_t h = atomic_load_explicit(&t->slot[i].hash,
						  memory_order_relaxed);

		if (!h)
			continue;
		for (j = home(h, m); atomic_load_explicit(&u->slot[j].hash,
						     memory_order_relaxed);
		     j = (j + 1) & m)
			;
		u->slot[j].key = t->slot[i].key;
		atomic_store_explicit(&u->slot[j].hash, h,
				      memory_order_relaxed);
	}
	atomic_store_explicit(&k->tab, u, memory_order_release);
	return 0;
}

/* Under the lock: key s[0..n) of hash h as the next id. */
static struct tkey *add(struct textkeys *k, uint64_t h, const char *s,
			size_t n)
{
	struct ktab *t;
	struct tkey *key;
	size_t i;

	if (k->count == k->room) {
		uint64_t room = k->room ? 2 * k->room : 256;
		struct tkey **all = realloc(k->key, room * sizeof(*all));

		if (!all)
			return NULL;
		k->key = all;
		k->room = room;
	}
	t = atomic_load_explicit(&k->tab, memory_order_relaxed);
	if (2 * (k->count + 1) > t->cap) {
		if (grow(k) < 0)
			return NULL;
		t = atomic_load_explicit(&k->tab, memory_order_relaxed);
	}
	if (!(key = malloc(sizeof(*key) + n + 1)))
		return NULL;
	key->id = k->count;
	key->n = n;
	memcpy(key->s, s, n);
	key->s[n] = '\0';
	find(t, h, s, n, &i);
	t->slot[i].key = key;
	atomic_store_explicit(&t->slot[i].hash, h, memory_order_release);
	k->key[k->count++] = key;
	return key;
}

int64_t textkeys_intern(struct textkeys *k, const char *s, size_t n)
{
	uint64_t h = hash_of(s, n);
	struct tkey *key;
	size_t i;

	key = find(atomic_load_explicit(&k->tab, memory_order_acquire), h, s,
		   n, &i);
	if (key)
		return (int64_t)key->id;
	pthread_mutex_lock(&k->lock);
	key = find(atomic_load_explicit(&k->tab, memory_order_relaxed), h, s,
		   n, &i);
	if (!key)
		key = add(k, h, s, n);
	pthread_mutex_unlock(&k->lock);
	return key ? (int64_t)key->id : -1;
}

uint64_t textkeys_count(const struct textkeys *k)
{
	return k->count;
}

const char *textkeys_str(const struct textkeys *k, uint64_t id, size_t *n)
{
	*n = k->key[id]->n;
	return k->key[id]->s;
}

/* qsort's order of pointers into k->key: by the keys' bytes. */
static int by_bytes(const void *a, const void *b)
{
	const struct tkey *x = **(struct tkey **const *)a;
	const struct tkey *y = **(struct tkey **const *)b;
	int r = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);

	return r ? r : (x->n > y->n) - (x->n < y->n);
}

uint64_t *textkeys_ranks(const struct textkeys *k)
{
	struct tkey **(*order) = malloc((k->count ? k->count : 1) *
					sizeof(*order));
	uint64_t *rank = malloc((k->count ? k->count : 1) * sizeof(*rank));

	if (!order || !rank || !k->count) {
		free(order);
		free(rank);
		return NULL;
	}
	for (uint64_t i = 0; i < k->count; i++)
		order[i] = &k->key[i];
	qsort(order, k->count, sizeof(*order), by_bytes);
	for (uint64_t r = 0; r < k->count; r++)
		rank[order[r] - k->key] = r;
	free(order);
	return rank;
}

uint64_t textkeys_max(enum gs_type t, bool boolean)
{
	if (boolean)
		return 1;
	switch (t) {
	case GS_U8: return UINT8_MAX;
	case GS_I8: return INT8_MAX;
	case GS_U16: return UINT16_MAX;
	case GS_I16: return INT16_MAX;
	case GS_U32: return UINT32_MAX;
	case GS_I32: return INT32_MAX;
	case GS_F16: return (uint64_t)1 << 11;
	case GS_BF16: return (uint64_t)1 << 8;
	case GS_F32: return (uint64_t)1 << 24;
	case GS_F64: return (uint64_t)1 << 53;
	default: return INT64_MAX;
	}
}
