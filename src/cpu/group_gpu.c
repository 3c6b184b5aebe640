/*
 * group_gpu.c - the device form of a group-by (group_dev.h) on the host:
 * its layout, and its table read back into struct gcol payloads with
 * ksums (the fixed-point limbs added term by term, so the value is exact
 * and the ksum's form is the CPU's own), merged through group_absorb.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "colrd.h"
#include "cpu_group.h"
#include "group_gpu.h"
#include "group_shared.h"

/* The device table's default: 2^21 slots, at most half of them keys
 * (1,048,576 keys; linear probing stays short at half load), about 320
 * MB per stream for a sum of one f32 column; fewer where the slots are
 * wide (stats of several f64 columns), so that a stream's table stays
 * within GD_TABLE_BYTES: it is copied back and read whole at the end. */
#define GD_SLOTS_DEFAULT (1ull << 21)
#define GD_SLOTS_MIN (1ull << 16)
#define GD_TABLE_BYTES (1ull << 30)
/* A stream's spill area: a default chunk (64 MiB), so that a chunk
 * whose every record spills fits the area just drained. */
#define GD_SPILL_BYTES (64ull << 20)
/* Keys merged per group_absorb call; keys per merging thread, at least. */
#define GD_BATCH 1024
#define GD_THREAD_KEYS 32768u
/* Spilled records per folding thread, at least. */
#define GD_THREAD_RECORDS 65536u
#define GD_THREADS_MAX 64

bool group_gpu_supports(const struct gs_job *job, const char **why)
{
	const struct gs_group *gr = job->group;

	if (!gr) {
		*why = "not a group-by";
		return false;
	}
	if (gr->nkeys > GD_MAXK || gr->nvals > GD_MAXV) {
		*why = "--by on the GPU takes up to 4 key and 8 value columns";
		return false;
	}
	if (job_rec_swapped(job)) {
		*why = GROUP_GPU_LE_ONLY;
		return false;
	}
	return true;
}

/* Slots of sw words each: slots, else the environment's, else the
 * default within GD_TABLE_BYTES. */
static uint64_t slots_of(uint64_t slots, uint64_t sw)
{
	const char *env = getenv(GROUP_GPU_SLOTS_ENV);
	char *end;

	if (slots)
		return slots;
	if (env && *env) {
		unsigned long long v = strtoull(env, &end, 10);

		if (!*end && v >= 4 && !(v & (v - 1)))
			return v;
	}
	slots = GD_SLOTS_DEFAULT;
	while (slots > GD_SLOTS_MIN && slots * sw * 8 > GD_TABLE_BYTES)
		slots /= 2;
	return slots;
}

size_t group_gpu_layout(const struct gs_job *job, uint64_t slots,
			struct gd_head *h)
{
	const struct gs_group *gr = job->group;
	uint32_t w;

	memset(h, 0, sizeof(*h));
	h->rs = (uint32_t)job_record_size(job);
	h->nkeys = gr->nkeys;
	h->nvals = gr->nvals;
	h->what = gr->what;
	for (unsigned k = 0; k < gr->nkeys && k < GD_MAXK; k++) {
		struct gs_dtype d = job_col_dtype(job, gr->key[k]);

		h->key_off[k] = (uint32_t)(job->rec ? job->rec->off[gr->key[k]] :
					   gr->key[k] * type_size(d.type));
		h->key_type[k] = d.type;
		h->key_bool[k] = d.boolean;
	}
	w = GD_KEY + gr->nkeys;
	for (unsigned j = 0; j < gr->nvals && j < GD_MAXV; j++) {
		struct gs_dtype d = job_col_dtype(job, gr->val[j]);
		struct gd_col *c = &h->col[j];

		c->off = (uint32_t)(job->rec ? job->rec->off[gr->val[j]] :
				    gr->val[j] * type_size(d.type));
		c->type = d.boolean ? GS_U8 : d.type;
		c->boolean = d.boolean;
		gd_window(c->type, c);
		c->w = w;
		w += gd_col_words(c, gr->what);
	}
	h->sw = w;
	h->slots = slots_of(slots, h->sw);
	h->max_keys = h->slots / 2;
	h->spill_cap = GD_SPILL_BYTES / (h->rs ? h->rs : 1);
	if (getenv(GROUP_GPU_SPILL_ENV) && atoll(getenv(GROUP_GPU_SPILL_ENV)) > 0)
		h->spill_cap = (uint64_t)atoll(getenv(GROUP_GPU_SPILL_ENV));
	if (h->spill_cap < 1)
		h->spill_cap = 1;
	h->table_off = (sizeof(*h) + 63) / 64 * 64;
	h->spill_off = h->table_off + h->slots * h->sw * 8;
	return h->spill_off + h->spill_cap * h->rs;
}

uint64_t group_gpu_max_keys(const struct gs_job *job)
{
	struct gd_head h;

	group_gpu_layout(job, 0, &h);
	return h.max_keys;
}

/* group_gpu_auto's checks; with keys false, not the keys' width. */
static bool auto_checks(const struct gs_job *job, bool keys, char *why,
			size_t n)
{
	const struct gs_group *gr = job->group;
	uint64_t most = group_gpu_max_keys(job), nk = 1;
	const char *no;

	if (!group_gpu_supports(job, &no)) {
		snprintf(why, n, "a group-by: %s: the CPU", no);
		return false;
	}
	for (unsigned j = 0; j < gr->nvals; j++)
		if (job_col_dtype(job, gr->val[j]).type == GS_F64 &&
		    gr->what >= GROUP_SUM) {
			snprintf(why, n, "a group-by of f64 values: the CPU "
				 "(the GPU's sums spill those past 2^-320 .. "
				 "2^128; --backend cuda runs it)");
			return false;
		}
	for (unsigned k = 0; keys && k < gr->nkeys; k++) {
		struct gs_dtype d = job_col_dtype(job, gr->key[k]);
		size_t bits = d.boolean ? 1 : type_size(d.type) * 8;

		if (bits > 16 || nk > most >> bits) {
			snprintf(why, n, "a group-by whose keys (%s) may be "
				 "more than the GPU's table holds (%llu): the "
				 "CPU (--backend cuda runs it, spilling past "
				 "them)", type_name(d.type),
				 (unsigned long long)most);
			return false;
		}
		nk <<= bits;
	}
	return true;
}

bool group_gpu_auto(const struct gs_job *job, char *why, size_t n)
{
	return auto_checks(job, true, why, n);
}

bool group_gpu_auto_sized(const struct gs_job *job, char *why, size_t n)
{
	return auto_checks(job, false, why, n);
}

/* The value whose order key (gd_fkey, or an integer's) is k. */
static union gs_scalar scalar_of(uint32_t t, uint64_t k)
{
	union gs_scalar s;

	if (gd_is_float(t)) {
		uint64_t i = k ^ GD_SIGN;
		uint64_t b = i ^ ((uint64_t)((int64_t)i >> 63) >> 1);

		memcpy(&s.f, &b, sizeof(b));
	} else if (gd_is_signed(t)) {
		s.i = (int64_t)(k ^ GD_SIGN);
	} else {
		s.u = k;
	}
	return s;
}

static bool limbs_in(struct ksum *k, const uint64_t *a, uint32_t l, int lo,
		     bool neg)
{
	for (uint32_t i = 0; i < l; i++)
		if (a[i] && !ksum_add_u128(k, a[i], lo + 64 * (int)i, neg))
			return false;
	return true;
}

/* A column's device fields at f as a struct gcol (its first cs bytes at
 * out); false: out of memory. */
static bool gcol_of(const struct gd_col *c, uint32_t what, const uint64_t *f,
		    void *out, size_t cs)
{
	struct gcol g;
	bool some, ok = true;
	uint64_t fl;

	memset(&g, 0, sizeof(g));
	g.count = f[GD_COUNT];
	g.nan = f[GD_NAN];
	some = g.count > g.nan;
	if (what != GROUP_COUNT && some) {
		g.min = scalar_of(c->type, ~f[GD_NMIN]);
		g.max = scalar_of(c->type, f[GD_MAX]);
	}
	if (what >= GROUP_SUM) {
		fl = f[GD_FLAGS];
		ok = limbs_in(&g.s1, f + GD_SUMS, c->l1, c->lo1, false) &&
		     limbs_in(&g.s1, f + GD_SUMS + c->l1, c->l1, c->lo1, true);
		/* the flags the CPU's adds leave (ksum.c, cpu_group.c) */
		g.s1.flags = (some ? KS_TERM : 0) |
			     (fl & GDF_NOTNEGZ ? KS_NOTNEGZ : 0) |
			     (fl & GDF_PINF ? KS_PINF : 0) |
			     (fl & GDF_NINF ? KS_NINF : 0);
	}
	if (ok && what == GROUP_STATS) {
		ok = limbs_in(&g.s2, f + GD_SUMS + 2 * c->l1, c->l2, c->lo2,
			      false);
		g.s2.flags = (some ? KS_TERM | KS_NOTNEGZ : 0) |
			     (fl & (GDF_PINF | GDF_NINF) ? KS_PINF : 0);
	}
	memcpy(out, &g, cs);
	if (!ok) {
		ksum_free(&g.s1);
		ksum_free(&g.s2);
	}
	return ok;
}

/* Frees the ksums of n payload columns at pay. */
static void free_cols(const struct gs_job *job, unsigned char *pay, size_t n)
{
	size_t cs = gcol_size(job);

	if (job->group->what < GROUP_SUM)
		return;
	for (size_t i = 0; i < n; i++) {
		struct gcol g;

		memset(&g, 0, sizeof(g));
		memcpy(&g, pay + i * cs, cs);
		ksum_free(&g.s1);
		if (job->group->what == GROUP_STATS)
			ksum_free(&g.s2);
	}
}

/* Every ready slot of slots [lo, hi) of the table at tab through
 * group_absorb, in batches. */
static bool merge_slots(const struct gs_job *job, struct group_acc *acc,
			const struct gd_head *h, const uint64_t *tab,
			uint64_t lo, uint64_t hi)
{
	size_t cs = gcol_size(job), ps = cs * h->nvals, n = 0;
	uint64_t *keys = malloc(GD_BATCH * h->nkeys * sizeof(uint64_t));
	unsigned char *pay = malloc(GD_BATCH * ps);
	bool ok = keys && pay;

	for (uint64_t i = lo; ok && i <= hi; i++) {
		const uint64_t *s = tab + i * h->sw;

		if (n == GD_BATCH || (i == hi && n)) {
			ok = group_absorb(job, acc, keys, pay, n);
			free_cols(job, pay, n * h->nvals);
			n = 0;
		}
		if (i == hi || s[GD_STATE] != 2 || !ok)
			continue;
		memcpy(keys + n * h->nkeys, s + GD_KEY,
		       h->nkeys * sizeof(uint64_t));
		for (uint32_t j = 0; ok && j < h->nvals; j++)
			if (!(ok = gcol_of(&h->col[j], h->what, s + h->col[j].w,
					   pay + n * ps + j * cs, cs)))
				free_cols(job, pay + n * ps, j);
		n += ok;
	}
	if (pay)
		free_cols(job, pay, n * h->nvals);	/* a batch cut short */
	free(keys);
	free(pay);
	return ok;
}

struct merger {
	const struct gs_job *job;
	struct group_acc *acc;
	const struct gd_head *h;
	const uint64_t *tab;
	uint64_t lo, hi;
	bool ok;
};

static void *merge_some(void *arg)
{
	struct merger *m = arg;

	m->ok = merge_slots(m->job, m->acc, m->h, m->tab, m->lo, m->hi);
	return NULL;
}

unsigned group_gpu_threads(uint64_t work, uint64_t per)
{
	const char *env = getenv(GROUP_GPU_THREADS_ENV);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t t = work / per;

	if (cpus < 1)
		cpus = 1;
	if (t > (uint64_t)cpus)
		t = (uint64_t)cpus;
	if (env && *env && atol(env) > 0)
		t = (uint64_t)atol(env);
	if (t > GD_THREADS_MAX)
		t = GD_THREADS_MAX;
	if (t > work)
		t = work;
	return t ? (unsigned)t : 1;
}

/* The table's slots (its used ones alone where the copy is compact) into
 * acc: on several threads where there are many keys, each its share of
 * the slots (group_absorb is safe from any number of threads: the run's
 * table is locked by partition), so a million keys do not wait on one. */
static bool merge_table(const struct gs_job *job, struct group_acc *acc,
			const struct gd_head *h, const unsigned char *dev)
{
	const uint64_t *tab = (const uint64_t *)(dev + h->table_off);
	uint64_t slots = h->compact ? h->used : h->slots;
	unsigned nt = group_gpu_threads(slots, GD_THREAD_KEYS);
	struct merger m[GD_THREADS_MAX];
	pthread_t th[GD_THREADS_MAX];
	bool started[GD_THREADS_MAX], ok = true;

	if (nt <= 1)
		return merge_slots(job, acc, h, tab, 0, slots);
	for (unsigned t = 0; t < nt; t++) {
		m[t] = (struct merger){ job, acc, h, tab, slots * t / nt,
					slots * (t + 1) / nt, false };
		started[t] = t > 0 && !pthread_create(&th[t], NULL,
						      merge_some, &m[t]);
		if (t > 0 && !started[t])
			merge_some(&m[t]);	/* no thread: merge here */
	}
	merge_some(&m[0]);
	for (unsigned t = 0; t < nt; t++) {
		if (t > 0 && started[t])
			pthread_join(th[t], NULL);
		ok = ok && m[t].ok;
	}
	return ok;
}

uint64_t group_gpu_drain(const struct gd_head *h, uint64_t spilled,
			 size_t n)
{
	/* past the area already (never, drained here): the merge fails */
	return spilled + n <= h->spill_cap || spilled > h->spill_cap ? 0 :
	       spilled;
}

struct spill_folder {
	const struct gs_job *job;
	struct group_acc g;	/* sharing the table of the drain's acc */
	const unsigned char *recs;
	size_t n;
};

static void *fold_some(void *arg)
{
	struct spill_folder *f = arg;
	void *scratch = malloc(group_kernels.scratch_size(f->job) + 1);

	if (!scratch) {
		group_fail_spill(&f->g, 0, 0);
		return NULL;
	}
	group_kernels.cpu_add(f->job, &f->g, scratch, f->recs, NULL, f->n);
	free(scratch);
	return NULL;
}

bool group_gpu_fold_spill(const struct gs_job *job, struct group_acc *acc,
			  const void *recs, size_t n)
{
	unsigned nt = group_gpu_threads(n, GD_THREAD_RECORDS);
	size_t rs = job_record_size(job);
	struct spill_folder f[GD_THREADS_MAX];
	pthread_t th[GD_THREADS_MAX];
	bool started[GD_THREADS_MAX];

	/* acc's own table first: cpu_add would join (and register) the
	 * run's, as a CPU thread does */
	if (acc->failed || !group_table(job, acc))
		return false;
	if (!n)
		return true;
	/* on several threads where there are many, each with a local table
	 * of its own, flushed into acc's (safe from any number of threads,
	 * as the CPU backend's threads share the run's) */
	for (unsigned t = 0; t < nt; t++) {
		memset(&f[t], 0, sizeof(f[t]));
		f[t].job = job;
		f[t].g.sh = acc->sh;
		gs_ref(acc->sh);
		f[t].recs = (const unsigned char *)recs + n * t / nt * rs;
		f[t].n = n * (t + 1) / nt - n * t / nt;
		started[t] = t > 0 && !pthread_create(&th[t], NULL, fold_some,
						      &f[t]);
		if (t > 0 && !started[t])
			fold_some(&f[t]);	/* no thread: fold here */
	}
	fold_some(&f[0]);
	for (unsigned t = 0; t < nt; t++) {
		if (t > 0 && started[t])
			pthread_join(th[t], NULL);
		if (f[t].g.failed)
			group_fail_spill(acc, 0, 0);
		group_kernels.acc_free(job, &f[t].g);
	}
	return !acc->failed && !atomic_load(&acc->sh->err);
}

void group_gpu_merge(const struct gs_job *job, struct group_acc *acc,
		     const void *dev)
{
	const struct gd_head *h = dev;
	const unsigned char *base = dev;

	if (acc->failed || !group_table(job, acc))
		return;
	if (h->spilled > h->spill_cap) {
		group_fail_spill(acc, h->spilled, h->max_keys);
		return;
	}
	if (!merge_table(job, acc, h, base)) {
		group_fail_spill(acc, 0, 0);	/* out of memory, unless failed */
		return;
	}
	(void)group_gpu_fold_spill(job, acc, base + h->spill_off, h->spilled);
}
