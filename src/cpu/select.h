/*
 * select.h - the passes of quantile, median and mode: exact order
 * statistics by radix select, and exact value counts.
 *
 * Every element maps to an unsigned key whose order is the value order
 * (select_key): unsigned integers as they are, signed ones with the sign bit
 * flipped, floats with the sign bit flipped when positive and every bit
 * flipped when negative. -0 is taken as +0 first (numpy orders them as
 * equal, and collections.Counter counts them as one key); NaNs have no key
 * and are counted apart.
 *
 * A select pass (CMD_SELECT) counts, per column, the elements and the NaNs,
 * and a histogram of one digit (SELECT_DIGIT_BITS of the key, from the top)
 * of the keys that begin with one of the prefixes the plan names: the first
 * pass takes every key, each later one only the buckets that hold a wanted
 * order statistic. 8- and 16-bit keys take one pass, 32-bit two, 64-bit up
 * to four: once the buckets that hold the wanted elements hold at most
 * COLLECT_MAX keys in all, a collect pass (CMD_COLLECT) keeps their keys
 * whole, to be sorted, and is the last. The histogram of a whole 8/16-bit
 * key is also mode's exact count of every value.
 *
 * A mode pass of a wider type (CMD_MODECOUNT) counts each distinct key in a
 * hash table per column of a fixed capacity (select_plan.cap); past 3/4 of
 * it (MODE_LOAD_NUM / MODE_LOAD_DEN) the column is marked full and the
 * command refuses the result.
 *
 * The plan lives with the command; job->select points to it for the pass.
 */
#ifndef SELECT_H
#define SELECT_H

#include "acc.h"

#define SELECT_DIGIT_BITS 16

struct select_plan {
	unsigned key_bits;	/* 8, 16, 32 or 64 */
	unsigned digit_bits;	/* this pass's digit: 8 or 16 */
	unsigned shift;		/* the digit is (key >> shift) & (nbins - 1) */
	bool first;		/* every key counts (no prefix to match) */
	/* Later passes: the keys whose bits above the digit (key >> (shift +
	 * digit_bits)) equal one of prefix[first_of[k] .. first_of[k + 1]),
	 * sorted and distinct, for column k; histogram h is prefix h's. The
	 * first pass has one histogram per column. */
	const uint64_t *prefix;
	const uint64_t *first_of;	/* columns + 1 entries */
	uint64_t nhist;
	uint64_t cap;		/* CMD_MODECOUNT: hash slots per column, 2^k */
	/* CMD_COLLECT: digit_bits is 0 and the buckets (keys >> shift equal
	 * to a prefix) are kept whole: bucket h's keys go to slots coff[h] to
	 * coff[h + 1] (the count the pass before found in it) */
	const uint64_t *coff;
};

/* A collect accumulator: the counts and NaNs of a select accumulator,
 * then how many keys each bucket received (more than its slots: the input
 * changed), then the slots. Its keys come in any order; sorted, they are
 * the bucket's. */
#define COLLECT_MAX ((uint64_t)1 << 20)	/* keys, 8 MiB per accumulator */
static inline uint64_t *collect_fill(void *acc, const struct gs_job *job)
{
	return (uint64_t *)acc + 2 * (uint64_t)job->columns;
}
static inline uint64_t *collect_keys(void *acc, const struct gs_job *job,
				     uint64_t h)
{
	return collect_fill(acc, job) + job->select->nhist + job->select->coff[h];
}

/* A select accumulator: per column the elements (NaNs included) and the
 * NaNs, then nhist histograms of 2^digit_bits counts. */
static inline uint64_t *select_count(void *acc) { return (uint64_t *)acc; }
static inline uint64_t *select_nan(void *acc, unsigned columns)
{
	return (uint64_t *)acc + columns;
}
static inline uint64_t *select_hist(void *acc, const struct gs_job *job,
				    uint64_t h)
{
	return (uint64_t *)acc + 2 * (uint64_t)job->columns +
	       (h << job->select->digit_bits);
}

/* A mode accumulator, per column: a header, then cap slots of (key, count),
 * a count of 0 marking a free slot. */
struct mode_col {
	uint64_t count, nan, used;
	uint64_t full;		/* keys that found no room: the column is refused */
};
struct mode_slot {
	uint64_t key, count;
};
#define MODE_LOAD_NUM 3		/* at most 3/4 of the slots are used */
#define MODE_LOAD_DEN 4
static inline struct mode_col *mode_col(void *acc, const struct gs_job *job,
					unsigned k)
{
	return (struct mode_col *)((char *)acc + (size_t)k *
		(sizeof(struct mode_col) + job->select->cap * sizeof(struct mode_slot)));
}
static inline struct mode_slot *mode_slots(struct mode_col *c)
{
	return (struct mode_slot *)(c + 1);
}

/* Add n to key's count in column k of a mode accumulator (a key that
 * finds no room counts in the column's full). */
void mode_add(const struct gs_job *job, void *acc, unsigned k, uint64_t key,
	      uint64_t n);

/* The key of an element of type t at p (native byte order); false for a
 * NaN. */
bool select_key(enum gs_type t, const void *p, uint64_t *key);
/* The value of a key: as a double (floats and integers below 2^53 exactly),
 * and exactly in *i (signed) or *u (unsigned) for integer types. */
double select_key_value(enum gs_type t, uint64_t key, int64_t *i, uint64_t *u);
/* Bits of a type's key. */
unsigned select_key_bits(enum gs_type t);

extern const struct acc_kernels select_kernels, collect_kernels, mode_kernels;

#endif
