/*
 * group_result.c - a finished --by table read back: its rows in key order
 * (group_rows, group_row), and an entry copied out of the table with the
 * key, the count and the ungrouped state of each value column it holds
 * (group_entry_*, group_stats, group_reduce, group_count); group_out.c
 * computes the rows from these on its threads.
 */
#include <stdlib.h>
#include <string.h>
#include "cpu_group.h"
#include "group_shared.h"

/* The results read a finished table: its final merge (and a spilled
 * one's window) change how it is held, never what it holds. */
static struct gshared *shared(const struct group_acc *acc)
{
	return acc->sh;
}

struct group_rows {
	struct gs_iter it;	/* at row r + 1 */
	uint64_t r;		/* the row of id, or UINT64_MAX */
	uint64_t id;
};

struct group_rows *group_rows(const struct gs_job *job,
			      const struct group_acc *acc, struct pool *pool,
			      uint64_t *n)
{
	struct group_rows *rows = calloc(1, sizeof(*rows));

	*n = 0;
	if (!rows || !acc->sh)
		return rows;
	/* the caller's job, not the one the table was made with: that may
	 * have been a backend's copy, freed with it (auto's hybrid) */
	if (gs_final(job, shared(acc)) < 0 ||
	    gs_iter_start(shared(acc), &rows->it, pool) < 0) {
		free(rows);
		return NULL;
	}
	*n = gs_keys(shared(acc));
	rows->r = UINT64_MAX;
	return rows;
}

size_t group_row(struct group_rows *rows, uint64_t r)
{
	if (rows->r != UINT64_MAX && r < rows->r) {
		gs_iter_rewind(&rows->it);	/* from the first row again */
		rows->r = UINT64_MAX;
	}
	while (rows->r != r && gs_iter_next(&rows->it, &rows->id))
		rows->r++;
	return (size_t)rows->id;
}

void group_rows_take(struct group_rows *rows, uint64_t r0, uint64_t *ids,
		     size_t m, struct pool *pool)
{
	bool next = rows->r == UINT64_MAX ? r0 == 0 : r0 == rows->r + 1;

	if (!m)
		return;
	if (!next) {	/* out of turn: a row at a time */
		for (size_t i = 0; i < m; i++)
			ids[i] = group_row(rows, r0 + i);
		return;
	}
	gs_iter_take(&rows->it, ids, m, pool);
	rows->r = r0 + m - 1;
	rows->id = ids[m - 1];
}

void group_rows_free(struct group_rows *rows)
{
	free(rows);
}

static uint64_t key_at(const struct group_acc *acc, size_t i, unsigned k)
{
	const uint64_t *key = gs_key(shared(acc), i);

	return key ? key[k] : 0;
}

static union gs_scalar key_value(const struct gs_job *job, unsigned k,
				 uint64_t key)
{
	enum gs_type t = job_col_dtype(job, job->group->key[k]).type;
	unsigned char v[8] = { 0 };
	union gs_scalar s;

	gkey_value(t, key, v);
	if (type_is_float(t))
		s.f = as_f64(t, v);
	else if (type_is_signed(t))
		s.i = as_i64(t, v);
	else
		s.u = as_u64(t, v);
	return s;
}

union gs_scalar group_key(const struct gs_job *job,
			  const struct group_acc *acc, size_t i, unsigned k)
{
	return key_value(job, k, key_at(acc, i, k));
}

/* An entry copied out: its payload (16-aligned), then its key words. */
static size_t pay_bytes(const struct gs_job *job)
{
	return gcol_size(job) * job->group->nvals;
}

size_t group_entry_size(const struct gs_job *job)
{
	return (pay_bytes(job) + job->group->nkeys * sizeof(uint64_t) + 15) /
	       16 * 16;
}

void group_entry_copy(const struct gs_job *job, const struct group_acc *acc,
		      size_t i, void *dst)
{
	size_t pb = pay_bytes(job), kb = job->group->nkeys * sizeof(uint64_t);
	const unsigned char *p = gs_pay(shared(acc), i);
	const uint64_t *key = p ? gs_key(shared(acc), i) : NULL;

	/* a window that could not be read gives zeros, its error in the
	 * table (acc_error) */
	if (p && key) {
		memcpy(dst, p, pb);
		memcpy((unsigned char *)dst + pb, key, kb);
	} else {
		memset(dst, 0, pb + kb);
	}
}

union gs_scalar group_entry_key(const struct gs_job *job, const void *entry,
				unsigned k)
{
	const unsigned char *e = entry;
	uint64_t key;

	memcpy(&key, e + pay_bytes(job) + k * sizeof(key), sizeof(key));
	return key_value(job, k, key);
}

void group_stats(const struct gs_job *job, const void *entry, unsigned j,
		 struct stats_col *s)
{
	const struct gcol *c = col_of(job, (void *)entry, j);

	memset(s, 0, sizeof(*s));
	s->count = c->count;
	s->nan = c->nan;
	if (job->group->what == GROUP_COUNT)
		return;
	s->min = c->min;
	s->max = c->max;
	if (job->group->what < GROUP_SUM)
		return;
	ksum_to_xsum(&c->s1, &s->s1);
	if (job->group->what == GROUP_STATS)
		ksum_to_xsum(&c->s2, &s->s2);
}

void group_stats_compact(const struct gs_job *job, const void *entry,
			 unsigned j, struct stats_col *s,
			 const struct ksum **s1, const struct ksum **s2)
{
	const struct gcol *c = col_of(job, (void *)entry, j);

	s->count = c->count;
	s->nan = c->nan;
	s->min = c->min;
	s->max = c->max;
	*s1 = &c->s1;
	*s2 = &c->s2;
}

void group_reduce(const struct gs_job *job, const void *entry, unsigned j,
		  enum gs_op op, struct red_col *r)
{
	const struct gcol *c = col_of(job, (void *)entry, j);

	memset(r, 0, sizeof(*r));
	r->count = c->count;
	if (op == OP_SUM) {
		ksum_to_xsum(&c->s1, &r->u.sum);
		/* a NaN term makes the sum NaN, as the ungrouped sum's */
		r->u.sum.nan = r->u.sum.nan || c->nan;
		return;
	}
	/* min, max: NaN propagates, as numpy's and the ungrouped reduce's */
	r->u.mm.nan = c->nan > 0;
	r->u.mm.v = op == OP_MIN ? c->min : c->max;
}

bool group_entries_direct(const struct group_acc *acc)
{
	return !acc->sh || acc->sh->nruns == 0;
}

bool group_sum_f64(const struct gs_job *job, const void *entry, unsigned j,
		   double *d)
{
	const struct gcol *c = col_of(job, (void *)entry, j);
	uint64_t bits;

	/* NaN, the infinities and a widened sum take group_reduce's way */
	if (c->nan || c->s1.wide ||
	    (c->s1.flags & (KS_NAN | KS_PINF | KS_NINF)))
		return false;
	bits = ksum_round(&c->s1, XF_F64);
	memcpy(d, &bits, sizeof(*d));
	return true;
}

uint64_t group_count(const struct gs_job *job, const void *entry)
{
	return col_of(job, (void *)entry, 0)->count;
}

