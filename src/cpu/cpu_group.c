/*
 * cpu_group.c - --by COLS: exact per-key states on the CPU (acc.h's
 * struct group_acc).
 *
 * Each record's key columns make its key (order keys, ktable.h: integers
 * by value, floats by value with -0 and +0 one key and every NaN one
 * key); the table gives the key's payload, a struct gcol per value
 * column, and the record's values fold into it as the ungrouped stats
 * folds a column: every element counted, NaNs counted apart, the others
 * into min, max and exact sums of the values and of their squares (struct
 * ksum: 32 bytes while the terms fit, a heap xsum for a key that needs
 * one). So a key's state is exactly the ungrouped state of that key's
 * records, and group_stats and group_sum hand it over in the ungrouped
 * command's own structs, for its own formatting.
 *
 * Each thread folds into a small table of its own (LOCAL_KEYS keys at
 * most), flushed into the run's one table when full and at the end of
 * each call (group_shared.h: partitioned by key hash, bounded by
 * job->group->limit, spilling sorted runs to $TMPDIR past it). Merges are
 * exact, so the bits do not depend on threads, chunks or spills. A table
 * that cannot spill fails the accumulator (acc_error), naming the keys
 * and the memory.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "acc.h"
#include "colrd.h"
#include "fkeys.h"
#include "ksum.h"
#include "ktable.h"
#include "cpu_group.h"
#include "group_fold.h"
#include "spill_io.h"
#include "group_scatter.h"
#include "group_shared.h"

/* A thread's own table: at most this many keys (fewer under a small
 * limit), so that it stays in cache; full, and at the end of each call,
 * it is flushed into the run's shared table. */
#define LOCAL_KEYS 16384u
#define LOCAL_KEYS_MIN 64u
/* A full table that held fewer records than this a key did not pay: the
 * thread's keys are many, its records go to the run's table by partition
 * (group_scatter.h) from then on. */
#define PAYS 4u

_Static_assert(sizeof(size_t) == sizeof(uint64_t), "entry ids are 64-bit");

size_t gcol_size(const struct gs_job *job)
{
	switch (job->group->what) {
	case GROUP_COUNT: return offsetof(struct gcol, min);
	case GROUP_MINMAX: return offsetof(struct gcol, s1);
	case GROUP_SUM: return offsetof(struct gcol, s2);
	default: return sizeof(struct gcol);
	}
}

static size_t group_acc_size(const struct gs_job *job)
{
	(void)job;
	return sizeof(struct group_acc);
}

static void group_acc_init(const struct gs_job *job, void *acc)
{
	(void)job;
	memset(acc, 0, sizeof(struct group_acc));
}

static void fail(struct group_acc *g, int why)
{
	if (g->failed)
		return;
	g->failed = why;
	g->fail_keys = (g->sh ? gs_keys(g->sh) : 0) + (g->loc ? g->loc->n : 0);
}

/* ---- the run's shared table ------------------------------------------------
 * The CPU threads' accumulators of one run (a backend's open to finish)
 * share one table: the first to fold makes it, the others find it here.
 * The first merge into the command's accumulator hands the table over and
 * ends the sharing, so the next run (--per-file's next operand) makes its
 * own; so does freeing an accumulator that shares it (an error's end). */
static pthread_mutex_t run_mu = PTHREAD_MUTEX_INITIALIZER;
static struct gshared *run_sh;		/* a reference of its own */
static const struct gs_group *run_gr;

static bool attach(const struct gs_job *job, struct group_acc *g)
{
	pthread_mutex_lock(&run_mu);
	if (run_sh && run_gr == job->group) {
		g->sh = run_sh;
		gs_ref(g->sh);
	} else if ((g->sh = gs_new(job))) {
		if (run_sh)
			gs_unref(job, run_sh);
		run_sh = g->sh;
		run_gr = job->group;
		gs_ref(run_sh);
	}
	pthread_mutex_unlock(&run_mu);
	if (!g->sh)
		fail(g, FAIL_OOM);
	return g->sh != NULL;
}

/* Whether sh was the run's, which it then no longer is. */
static bool detach(const struct gs_job *job, struct gshared *sh)
{
	bool was;

	pthread_mutex_lock(&run_mu);
	was = sh && run_sh == sh;
	if (was)
		run_sh = NULL;
	pthread_mutex_unlock(&run_mu);
	if (was)
		gs_unref(job, sh);	/* its holder keeps it */
	return was;
}

bool group_table(const struct gs_job *job, struct group_acc *g)
{
	if (g->sh)
		return true;
	if (!(g->sh = gs_new(job)))
		fail(g, FAIL_OOM);
	return g->sh != NULL;
}

void *group_payload(const struct gs_job *job, struct group_acc *g,
		    const uint64_t *key)
{
	return g->failed ? NULL : gs_payload(job, g->sh, key, NULL);
}

/* ---- payloads --------------------------------------------------------------- */

unsigned group_pay_wides(const struct gs_job *job, const void *pay)
{
	unsigned n = 0;

	for (unsigned j = 0; job->group->what >= GROUP_SUM &&
			     j < job->group->nvals; j++) {
		const struct gcol *c = col_of(job, (void *)pay, j);

		n += c->s1.wide != NULL;
		if (job->group->what == GROUP_STATS)
			n += c->s2.wide != NULL;
	}
	return n;
}

void group_pay_free(const struct gs_job *job, void *pay)
{
	for (unsigned j = 0; job->group->what >= GROUP_SUM &&
			     j < job->group->nvals; j++) {
		struct gcol *c = col_of(job, pay, j);

		ksum_free(&c->s1);
		if (job->group->what == GROUP_STATS)
			ksum_free(&c->s2);
	}
}

static void local_free(const struct gs_job *job, struct group_acc *g)
{
	if (g->held)
		atomic_fetch_sub(&g->sh->windows, g->held);
	g->held = 0;
	if (!g->loc)
		return;
	for (size_t i = 0; i < g->loc->n; i++)
		group_pay_free(job, ktable_pay(g->loc, i));
	group_fold_free(g);
	gscatter_free(g->scat);
	g->scat = NULL;
	ktable_free(g->loc);
	free(g->loc);
	free(g->order);
	g->loc = NULL;
	g->order = NULL;
}

static void group_acc_free(const struct gs_job *job, void *acc)
{
	struct group_acc *g = acc;

	local_free(job, g);
	(void)detach(job, g->sh);
	gs_unref(job, g->sh);
	g->sh = NULL;
}

/* ---- elements ------------------------------------------------------------ */

/* The min and max of c's non-NaN values with v (first: its first one),
 * in t's order (floats: -0 below +0, as the ungrouped stats and reduce). */
static void minmax(struct gcol *c, enum gs_type t, union gs_scalar v,
		   bool first)
{
	if (first) {
		c->min = c->max = v;
	} else if (type_is_float(t)) {
		if (f64_key(v.f) < f64_key(c->min.f))
			c->min = v;
		if (f64_key(v.f) > f64_key(c->max.f))
			c->max = v;
	} else if (type_is_signed(t)) {
		if (v.i < c->min.i)
			c->min = v;
		if (v.i > c->max.i)
			c->max = v;
	} else {
		if (v.u < c->min.u)
			c->min = v;
		if (v.u > c->max.u)
			c->max = v;
	}
}

/* One value of type t at p into c; false: out of memory. */
static bool fold(enum gs_group_what what, struct gcol *c, enum gs_type t,
		 const unsigned char *p)
{
	bool first = c->count == c->nan, ok;
	union gs_scalar v;
	unsigned __int128 sq;

	c->count++;
	if (type_is_float(t)) {
		v.f = as_f64(t, p);
		if (v.f != v.f) {
			c->nan++;
			return true;
		}
	} else if (type_is_signed(t)) {
		v.i = as_i64(t, p);
	} else {
		v.u = as_u64(t, p);
	}
	if (what == GROUP_COUNT)
		return true;
	minmax(c, t, v, first);
	if (what == GROUP_MINMAX)
		return true;
	ok = type_is_float(t) ? ksum_add_f64(&c->s1, v.f) :
	     type_is_signed(t) ? ksum_add_i64(&c->s1, v.i) :
	     ksum_add_u64(&c->s1, v.u);
	if (!ok || what != GROUP_STATS)
		return ok;
	if (type_is_float(t))
		return ksum_add_square_f64(&c->s2, v.f);
	uint64_t m = !type_is_signed(t) ? v.u : v.i < 0 ?
		     -(uint64_t)v.i : (uint64_t)v.i;

	sq = (unsigned __int128)m * m;
	return ksum_add_u128(&c->s2, sq, 0, false);
}

/* A thread's own arrays (its table, its scatter buffers) are held
 * against the run's limit as its windows are (sh->windows), so that the
 * run's table gives way to them and the run's memory stays within the
 * limit whatever the threads. Together with the windows they may take
 * half of it: bytes halved from want while they do not fit, down to
 * least, which is held whether it fits or not (a few KiB a thread). */
static uint64_t thread_hold(struct gshared *sh, uint64_t want,
			    uint64_t least)
{
	uint64_t room = sh->limit / 2, held = atomic_load(&sh->windows);

	if (least > want)
		least = want;
	for (; want > least; want /= 2)
		while (held + want <= room)
			if (atomic_compare_exchange_weak(&sh->windows, &held,
							 held + want))
				return want;
	want = least;
	atomic_fetch_add(&sh->windows, want);
	return want;
}

/* The thread's table, made at its first call: LOCAL_KEYS keys at most,
 * fewer where the limit is small (a sixteenth of it) or the threads'
 * arrays have no room for them (thread_hold). */
static bool local_table(const struct gs_job *job, struct group_acc *g)
{
	size_t psize = gcol_size(job) * job->group->nvals;
	/* a key's entry, its slots (at most 4 of 4 bytes) and order */
	uint64_t per = job->group->nkeys * 8 + psize + 16 + 4;
	uint64_t cap = job->group->limit / 16 / per;

	if (g->loc)
		return true;
	cap = cap > LOCAL_KEYS ? LOCAL_KEYS : cap < LOCAL_KEYS_MIN ?
	      LOCAL_KEYS_MIN : cap;
	g->held += thread_hold(g->sh, cap * per, LOCAL_KEYS_MIN * per);
	cap = (g->held / per) & ~(uint64_t)(LOCAL_KEYS_MIN - 1);
	g->loc = malloc(sizeof(*g->loc));
	g->order = malloc(cap * sizeof(*g->order));
	if (!g->loc || !g->order ||
	    ktable_init(g->loc, job->group->nkeys, psize) < 0) {
		free(g->loc);
		free(g->order);
		g->loc = NULL;
		g->order = NULL;
		fail(g, FAIL_OOM);
		return false;
	}
	g->cap = (size_t)cap;
	return true;
}

/* The thread's table into the shared one, emptied (its payloads moved or
 * merged there, whatever happened). */
static bool local_flush(const struct gs_job *job, struct group_acc *g)
{
	int rc = gs_absorb(job, g->sh, g->loc->keys, g->loc->pay, g->loc->n,
			   g->order);

	ktable_clear(g->loc);
	return rc == 0;
}

/* group_fold.c's ways out (cpu_group.h). */
bool group_flush(const struct gs_job *job, struct group_acc *g)
{
	return local_flush(job, g);
}

/* Whether the thread's table held PAYS records a key (every record counts
 * in its first value column). */
static bool table_pays(const struct gs_job *job, const struct group_acc *g)
{
	uint64_t recs = 0;

	for (size_t i = 0; i < g->loc->n; i++)
		recs += col_of(job, ktable_pay(g->loc, i), 0)->count;
	return recs >= (uint64_t)PAYS * g->loc->n;
}

/* The thread's scatter buffers: what a sixteenth of the limit gives
 * them (at most BATCH entries a partition), held as thread_hold gives it,
 * so that many threads' buffers together stay within the limit. */
static bool scatter_new(const struct gs_job *job, struct group_acc *g,
			size_t vbytes, gscatter_fold by)
{
	uint64_t want = gscatter_bytes(g->sh, vbytes, job->group->limit / 16);
	uint64_t b = thread_hold(g->sh, want, gscatter_bytes(g->sh, vbytes, 0));

	g->held += b;
	return (g->scat = gscatter_new(job, g->sh, vbytes, b, by)) != NULL;
}

bool group_full(const struct gs_job *job, struct group_acc *g,
		size_t vbytes, gscatter_fold by)
{
	bool spread = !g->scat && !table_pays(job, g);

	if (!local_flush(job, g))
		return false;
	if (spread && !scatter_new(job, g, vbytes, by)) {
		fail(g, FAIL_OOM);
		return false;
	}
	return true;
}

bool group_scatter_failed(struct group_acc *g)
{
	if (!atomic_load(&g->sh->err))
		fail(g, FAIL_OOM);
	return false;
}

void group_fail_oom(struct group_acc *g)
{
	fail(g, FAIL_OOM);
}

/* The scattered records (a key's words, then the record) into t (the
 * generic loop's gscatter_fold; ctx: the value columns' readers). */
static bool fold_records(void *ctx, const struct gs_job *job,
			 struct ktable *t, const unsigned char *ents,
			 size_t esize, size_t n, const uint32_t *idx,
			 unsigned *wides)
{
	const struct gs_group *gr = job->group;
	const struct colrd *vc = ctx;
	size_t kb = gr->nkeys * sizeof(uint64_t), cs = gcol_size(job);
	unsigned char e[8];

	for (size_t i = 0; i < n; i++) {
		unsigned char *pay = ktable_pay(t, idx[i]);
		const unsigned char *d = ents + i * esize + kb;
		unsigned before = group_pay_wides(job, pay);

		for (unsigned j = 0; j < gr->nvals; j++) {
			colrd_element(&vc[j], d, e);
			if (!fold(gr->what, (struct gcol *)(pay + j * cs),
				  vc[j].t, e))
				return false;
		}
		*wides += group_pay_wides(job, pay) - before;
	}
	return true;
}

static void group_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			  const void *data, const void *data2, size_t nrec)
{
	const struct gs_group *gr = job->group;
	struct group_acc *g = acc;
	const unsigned char *d = data;
	size_t rs = job_record_size(job), cs = gcol_size(job);
	uint64_t *key = scratch;
	struct colrd *kc = (struct colrd *)(key + gr->nkeys), *vc = kc + gr->nkeys;
	unsigned char e[8];

	(void)data2;
	if (g->failed || (!g->sh && !attach(job, g)) || !local_table(job, g))
		return;
	if (group_fold(job, g, d, nrec))	/* the common shapes, faster */
		return;
	for (unsigned k = 0; k < gr->nkeys; k++)
		kc[k] = colrd_of(job, gr->key[k]);
	for (unsigned j = 0; j < gr->nvals; j++)
		vc[j] = colrd_of(job, gr->val[j]);
	if (g->scat) {
		g->scat->job = job;
		g->scat->ctx = vc;
	}
	for (size_t r = 0; r < nrec; r++, d += rs) {
		unsigned char *pay;

		for (unsigned k = 0; k < gr->nkeys; k++) {
			colrd_element(&kc[k], d, e);
			key[k] = gkey_of(kc[k].t, e);
		}
		if (g->scat) {
			unsigned p = gscatter_part(g->scat, key);
			unsigned char *to = gscatter_room(g->scat, p);

			memcpy(to, key, gr->nkeys * sizeof(*key));
			memcpy(to + gr->nkeys * sizeof(*key), d, rs);
			if (!gscatter_push(g->scat, p)) {
				(void)group_scatter_failed(g);
				return;
			}
			continue;
		}
		if (!(pay = ktable_get(g->loc, key, NULL))) {
			fail(g, FAIL_OOM);
			return;
		}
		for (unsigned j = 0; j < gr->nvals; j++, pay += cs) {
			colrd_element(&vc[j], d, e);
			if (!fold(gr->what, (struct gcol *)pay, vc[j].t, e)) {
				fail(g, FAIL_OOM);
				return;
			}
		}
		if (g->loc->n >= g->cap) {
			if (!group_full(job, g, rs, fold_records))
				return;
			if (g->scat)
				g->scat->ctx = vc;
		}
	}
	if (g->scat && !gscatter_drain(g->scat)) {
		(void)group_scatter_failed(g);
		return;
	}
	(void)local_flush(job, g);
}

static size_t group_scratch_size(const struct gs_job *job)
{
	return job->group->nkeys * sizeof(uint64_t) +
	       (job->group->nkeys + job->group->nvals) * sizeof(struct colrd);
}

/* ---- merging -------------------------------------------------------------- */

static bool merge_col(const struct gs_job *job, struct gcol *c,
		      const struct gcol *s, enum gs_type t)
{
	enum gs_group_what what = job->group->what;
	bool mine = c->count > c->nan;

	c->count += s->count;
	c->nan += s->nan;
	if (what == GROUP_COUNT || s->count == s->nan)
		return true;	/* nothing more in s */
	minmax(c, t, s->min, !mine);
	minmax(c, t, s->max, false);
	if (what == GROUP_MINMAX)
		return true;
	if (!ksum_merge(&c->s1, &s->s1))
		return false;
	return what != GROUP_STATS || ksum_merge(&c->s2, &s->s2);
}

/* src's columns into dst's, exactly; src's widened sums are then freed. */
static bool pay_merge(const struct gs_job *job, void *dst, const void *src)
{
	for (unsigned j = 0; j < job->group->nvals; j++) {
		enum gs_type t = job_col_dtype(job, job->group->val[j]).type;

		if (!merge_col(job, col_of(job, dst, j),
			       col_of(job, (void *)src, j), t))
			return false;
	}
	return true;
}

bool group_pay_merge(const struct gs_job *job, void *dst, void *src)
{
	bool ok = pay_merge(job, dst, src);

	group_pay_free(job, src);
	return ok;
}

struct walk_into {
	const struct gs_job *job;
	struct group_acc *g;
};

static bool merge_entry(void *ctx, const uint64_t *key, unsigned char *pay)
{
	struct walk_into *w = ctx;
	void *to = group_payload(w->job, w->g, key);

	return to && pay_merge(w->job, to, pay);
}

/* g fails as src's table did (its spill or read-back error, which
 * acc_error reports), or, where src's table did not, out of memory:
 * keys that could not come in are never dropped silently. */
static void inherit(struct group_acc *g, struct gshared *src)
{
	int e = atomic_load(&src->err);
	int none = 0;

	if (e && e != ENOMEM &&
	    atomic_compare_exchange_strong(&g->sh->err, &none, e)) {
		g->sh->err_keys = src->err_keys;
		g->sh->err_bytes = src->err_bytes;
		return;
	}
	fail(g, FAIL_OOM);
}

static void group_acc_merge(const struct gs_job *job, void *acc,
			    const void *src)
{
	struct group_acc *g = acc, *s = (struct group_acc *)src;
	struct walk_into w = { job, g };

	if (s->failed && !g->failed) {
		g->failed = s->failed;
		g->fail_keys = s->fail_keys;
	}
	if (g->failed || !s->sh || g->sh == s->sh)
		return;
	if (!g->sh && detach(job, s->sh)) {	/* the run's: handed over */
		g->sh = s->sh;
		gs_ref(g->sh);
		return;
	}
	/* another's table (an operand's, a state's): entry by entry */
	if (!group_table(job, g))
		return;
	if (gs_final(job, s->sh) < 0 || (!gs_walk(s->sh, merge_entry, &w) &&
					 !g->failed &&
					 !atomic_load(&g->sh->err)))
		inherit(g, s->sh);
}

void group_fail_spill(struct group_acc *g, uint64_t records, uint64_t keys)
{
	if (g->failed)
		return;
	g->failed = records ? FAIL_SPILL : FAIL_OOM;
	g->fail_keys = keys;
	g->fail_records = records;
}

static double mib(uint64_t n)
{
	return (double)n / (double)((uint64_t)1 << 20);
}

static int group_acc_error(const struct gs_job *job, const void *acc,
			   struct gs_err *err)
{
	const struct group_acc *g = acc;
	struct gshared *sh = g->sh;
	int e = sh ? atomic_load(&sh->err) : 0;
	const char *dir = spill_dir();

	if (e && e != ENOMEM)
		return gs_fail(err, GS_ERUNTIME, "--by", "%llu keys (and "
			       "counting) need %.2f MiB of accumulators, over "
			       "the limit of %.2f MiB, and spilling them to %s "
			       "failed: %s", (unsigned long long)sh->err_keys,
			       mib(sh->err_bytes), mib(job->group->limit), dir,
			       strerror(e));
	if (g->failed == FAIL_SPILL)
		return gs_fail(err, GS_ERUNTIME, "--by", "%llu records did not "
			       "fit the GPU's table (%llu keys, f64 values "
			       "from 2^-320 to 2^128) nor its spill area: "
			       "--backend cpu computes them",
			       (unsigned long long)g->fail_records,
			       (unsigned long long)g->fail_keys);
	if (g->failed || e)
		return gs_fail(err, GS_ERUNTIME, "--by", "out of memory after "
			       "%llu keys", (unsigned long long)(g->failed ?
			       g->fail_keys : sh->err_keys));
	return 0;
}

const struct acc_kernels group_kernels = {
	.acc_size = group_acc_size,
	.acc_init = group_acc_init,
	.acc_merge = group_acc_merge,
	.scratch_size = group_scratch_size,
	.cpu_add = group_cpu_add,
	.acc_free = group_acc_free,
	.acc_error = group_acc_error,
};

bool group_absorb(const struct gs_job *job, struct group_acc *g,
		  const void *keys, const void *payloads, size_t n)
{
	/* a table of g's own, not the run's: nothing may merge a GPU's keys
	 * into it twice, and no later run (--per-file's next operand) may
	 * find it registered (only a CPU thread's merge ends a run) */
	if (g->failed || !group_table(job, g))
		return false;
	return gs_absorb(job, g->sh, keys, (unsigned char *)payloads, n,
			 NULL) == 0;
}
