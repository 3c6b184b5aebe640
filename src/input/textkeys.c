/*
 * textkeys.c - text keys to ids (textkeys.h): an open-addressing table of
 * the keys' hashes and ids under one lock, the keys' bytes each in its
 * own allocation, listed by id.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "textkeys.h"

struct tkey {
	size_t n;
	char s[];		/* n bytes and a NUL */
};

struct textkeys {
	pthread_mutex_t lock;
	uint64_t *hash;		/* [cap]: 0 empty, else the hash | 1 */
	uint64_t *slot;		/* [cap]: the id there */
	size_t cap;		/* a power of two */
	struct tkey **key;	/* [count] by id */
	uint64_t count, room;
};

/* FNV-1a, 64 bits: keys are short and few (per distinct key once). */
static uint64_t hash_of(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211u;
	return h | 1;
}

struct textkeys *textkeys_new(void)
{
	struct textkeys *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->cap = 1024;
	k->hash = calloc(k->cap, sizeof(*k->hash));
	k->slot = calloc(k->cap, sizeof(*k->slot));
	if (!k->hash || !k->slot || pthread_mutex_init(&k->lock, NULL)) {
		free(k->hash);
		free(k->slot);
		free(k);
		return NULL;
	}
	return k;
}

void textkeys_free(struct textkeys *k)
{
	if (!k)
		return;
	for (uint64_t i = 0; i < k->count; i++)
		free(k->key[i]);
	free(k->key);
	free(k->hash);
	free(k->slot);
	pthread_mutex_destroy(&k->lock);
	free(k);
}

/* Twice the slots, every key placed again. */
static int grow(struct textkeys *k)
{
	size_t cap = k->cap * 2;
	uint64_t *hash = calloc(cap, sizeof(*hash));
	uint64_t *slot = calloc(cap, sizeof(*slot));

	if (!hash || !slot) {
		free(hash);
		free(slot);
		return -1;
	}
	for (size_t i = 0; i < k->cap; i++) {
		size_t j;

		if (!k->hash[i])
			continue;
		for (j = k->hash[i] & (cap - 1); hash[j]; j = (j + 1) & (cap - 1))
			;
		hash[j] = k->hash[i];
		slot[j] = k->slot[i];
	}
	free(k->hash);
	free(k->slot);
	k->hash = hash;
	k->slot = slot;
	k->cap = cap;
	return 0;
}

/* A new key s[0..n) of hash h as the next id at slot i. */
static int64_t add(struct textkeys *k, size_t i, uint64_t h,
		   const char *s, size_t n)
{
	struct tkey *t;

	if (k->count == k->room) {
		uint64_t room = k->room ? 2 * k->room : 256;
		struct tkey **key = realloc(k->key, room * sizeof(*key));

		if (!key)
			return -1;
		k->key = key;
		k->room = room;
	}
	if (!(t = malloc(sizeof(*t) + n + 1)))
		return -1;
	t->n = n;
	memcpy(t->s, s, n);
	t->s[n] = '\0';
	k->key[k->count] = t;
	k->hash[i] = h;
	k->slot[i] = k->count;
	return (int64_t)k->count++;
}

static int64_t intern(struct textkeys *k, uint64_t h, const char *s,
		      size_t n)
{
	int64_t id = -1;
	size_t i;

	pthread_mutex_lock(&k->lock);
	if (2 * (k->count + 1) > k->cap && grow(k) < 0)
		goto out;
	for (i = h & (k->cap - 1); k->hash[i]; i = (i + 1) & (k->cap - 1)) {
		const struct tkey *t = k->key[k->slot[i]];

		if (k->hash[i] == h && t->n == n && memcmp(t->s, s, n) == 0) {
			id = (int64_t)k->slot[i];
			goto out;
		}
	}
	id = add(k, i, h, s, n);
out:
	pthread_mutex_unlock(&k->lock);
	return id;
}

int64_t textkeys_intern(struct textkeys *k, const char *s, size_t n)
{
	return intern(k, hash_of(s, n), s, n);
}

int64_t textkeys_intern_cached(struct textkeys *k, struct textkeys_cache *c,
			       const char *s, size_t n)
{
	uint64_t h = hash_of(s, n);
	size_t i = (h >> 17) % TEXTKEYS_CACHE;
	int64_t id;

	if (c->hash[i] == h && c->n[i] == n && memcmp(c->s[i], s, n) == 0)
		return (int64_t)c->id[i];
	if ((id = intern(k, h, s, n)) < 0)
		return -1;
	/* the key's bytes stay where they are: only its pointer moves */
	pthread_mutex_lock(&k->lock);
	c->s[i] = k->key[id]->s;
	pthread_mutex_unlock(&k->lock);
	c->hash[i] = h;
	c->id[i] = (uint64_t)id;
	c->n[i] = n;
	return id;
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
