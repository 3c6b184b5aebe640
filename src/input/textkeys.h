/*
 * textkeys.h - the string keys of a text run grouped by --by: each
 * distinct field (its bytes) gets an id, 0, 1, 2, ... in the order the
 * parse threads first meet them (so ids differ from run to run; only the
 * bytes they stand for are the key). Thread-safe: every parse thread
 * interns into the one dictionary.
 */
#ifndef TEXTKEYS_H
#define TEXTKEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gs.h"

struct textkeys;

/* NULL when out of memory. */
struct textkeys *textkeys_new(void);
void textkeys_free(struct textkeys *k);

/* The id of s[0..n) (a new one if unseen), or -1 when out of memory;
 * threads may call it at once (a key seen before takes no lock). */
int64_t textkeys_intern(struct textkeys *k, const char *s, size_t n);

/* The keys so far, and key id's bytes (NUL-terminated), *n of them. */
uint64_t textkeys_count(const struct textkeys *k);
const char *textkeys_str(const struct textkeys *k, uint64_t id, size_t *n);

/* Each key's place in the order of their bytes (memcmp's, a key before
 * the longer ones it begins, as `sort` in the C locale): rank[id] for
 * every id, malloc'd; NULL when out of memory or there are no keys. */
uint64_t *textkeys_ranks(const struct textkeys *k);

/* The largest id a value of type t holds exactly (a boolean's: 1): a
 * key column of that type numbers at most this many keys and one. */
uint64_t textkeys_max(enum gs_type t, bool boolean);

#endif
