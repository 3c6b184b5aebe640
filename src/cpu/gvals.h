/*
 * gvals.h - the accumulator of a group-by of quantile, median and mode
 * (--by COLS, cpu_gvals.c): every record's key and values, to be sorted.
 *
 * A record is kept as nkeys + nvals words: each key column's order key
 * (ktable.h: integers and floats by value, -0 and +0 one key, every NaN
 * one key after +inf), then each value column's select key (select.h:
 * its value's order in its own type, -0 as +0), a NaN of a float column
 * as GVALS_NAN, above every other key of its type. Threads collect their
 * own records and merging appends them, so the collection is the same
 * multiset whatever the threads and chunks; the result sorts it (by key,
 * then each key's values), which makes every order the same.
 *
 * The records' bytes count against job->group->limit, all threads
 * together; past it the accumulator fails (acc_error) naming the records
 * and the memory.
 */
#ifndef GVALS_H
#define GVALS_H

#include "acc.h"

#define GVALS_NAN UINT64_MAX

struct gvals_acc {
	uint64_t *w;		/* n records of nkeys + nvals words */
	size_t n, cap;
	int failed;		/* 0, or why it stopped */
	uint64_t fail_n, fail_bytes;
};

/* Words per record of job. */
static inline size_t gvals_width(const struct gs_job *job)
{
	return (size_t)job->group->nkeys + job->group->nvals;
}

/* Sort n records of w words at a by their first nk words, as unsigned
 * lexicographic keys (LSD radix over the bytes that differ; tmp holds n
 * records too). false: no memory to count in (nk > 1). */
bool gvals_sort(uint64_t *a, uint64_t *tmp, size_t n, size_t w, size_t nk);
/* The same on threads threads (each pass's slices counted and scattered
 * apart, offsets thread by thread within a bucket: the same order). */
bool gvals_sort_threads(uint64_t *a, uint64_t *tmp, size_t n, size_t w,
			size_t nk, int threads);

/* Key column k's order key as the value it is: .f for a float key, .i
 * or .u by the signedness of an integer key (a NaN key: the quiet NaN). */
union gs_scalar gvals_key(const struct gs_job *job, unsigned k, uint64_t key);

#endif
