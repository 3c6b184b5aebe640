/*
 * cpu_gvals.c - the group-by of quantile, median and mode on the CPU
 * (gvals.h): each record's order keys and select keys appended to the
 * thread's array (spilled as sorted runs past the limit: gvals_spill.c),
 * the arrays moved over by merges (src is the caller's to free after a
 * merge, and left empty) and joined at the end (the radix sorts that
 * order them by key: gvals_sort.c); their memory, counted against the
 * limit, and freed on threads where big.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "colrd.h"
#include "fkeys.h"
#include "gvals.h"
#include "ktable.h"
#include "pool.h"
#include "select.h"
#include "spill_io.h"

#define SIGN64 (1ull << 63)

enum { GV_OK, GV_OOM, GV_SPILL, GV_DEV };

/* The bytes every live collection holds, all threads and passes. */
static _Atomic uint64_t live;

struct gvals_form gvals_form_of(const struct gs_job *job)
{
	const struct gs_group *gr = job->group;
	struct gvals_form f = { .w = (size_t)gr->nkeys + gr->nvals,
				.nk = gr->nkeys };
	enum gs_type kt, vt;

	if (gr->nkeys != 1 || gr->nvals != 1 || gr->text)
		return f;
	kt = job_col_dtype(job, gr->key[0]).type;
	vt = job_col_dtype(job, gr->val[0]).type;
	if (type_is_float(kt) || type_size(kt) > 4 || type_size(vt) > 4)
		return f;
	/* a signed key's order key is its value plus 2^63 (ktable.h) */
	f.kbias = type_is_signed(kt) ? SIGN64 - ((uint64_t)1 << 31) : 0;
	f.w = 1;
	f.ks = 32;
	f.packed = true;
	f.vfloat = type_is_float(vt);
	return f;
}

const char *gvals_gpu_refusal(const struct gs_job *job)
{
	if (!job->group)
		return "not a group-by";
	if (!gvals_form_of(job).packed)
		return "--by of quantile, median and mode on the GPU takes one "
		       "integer key column and one value column, each of 32 "
		       "bits at most";
	return job_rec_swapped(job) ? GROUP_GPU_LE_ONLY : NULL;
}

bool gvals_gpu_auto(const struct gs_job *job, char *why, size_t n)
{
	const char *no = !job->group || job->group->ranks ?
			 gvals_gpu_refusal(job) :
			 "mode --by reads every value of each key: its records "
			 "are sorted on the CPU";

	if (no)
		snprintf(why, n, "%s", no);
	return !no;
}

static size_t gvals_acc_size(const struct gs_job *job)
{
	(void)job;
	return sizeof(struct gvals_acc);
}

static void gvals_acc_init(const struct gs_job *job, void *acc)
{
	(void)job;
	memset(acc, 0, sizeof(struct gvals_acc));
}

static void fail(struct gvals_acc *g, int why, uint64_t bytes)
{
	if (g->failed)
		return;
	g->failed = why;
	g->fail_n = gvals_held(g) + g->spilled;
	g->fail_bytes = bytes;
}

/* Room for n more records in g (n at most GVALS_SLICE), counted against the
 * limit: past half of it (the sort's copy is the other half) g's records
 * spill, unless g holds fewer than GVALS_SLICE (every thread may). */
static bool reserve(const struct gs_job *job, struct gvals_acc *g, size_t n)
{
	size_t w = gvals_width(job), cap = g->cap ? g->cap : GVALS_SLICE;
	uint64_t now, grow;
	uint64_t *p;

	if (g->failed)
		return false;
	if (g->n + n <= g->cap)
		return true;
	while (cap < g->n + n)
		cap *= 2;
	grow = (cap - g->cap) * w * 8;
	if (g->cap >= GVALS_SLICE &&
	    atomic_load(&live) + grow > job->group->limit / 2) {
		if (gvals_spill(job, g) < 0) {
			g->err = errno;
			fail(g, GV_SPILL, atomic_load(&live) + grow);
			return false;
		}
		return true;	/* g->n is 0: a slice fits */
	}
	now = atomic_fetch_add(&live, grow) + grow;
	if (!(p = realloc(g->w, cap * w * sizeof(*p)))) {
		atomic_fetch_sub(&live, grow);
		fail(g, GV_OOM, now);
		return false;
	}
	g->w = p;
	g->cap = cap;
	return true;
}

/* ---- big arrays freed on threads ------------------------------------------- */

#define BIG_FREE ((size_t)64 << 20)	/* bytes: past them, on the threads */

struct drop {
	void *p;
	size_t bytes;
};

static void drop_task(void *arg, int i, int nt)
{
	const struct drop *d = arg;
	long sz = sysconf(_SC_PAGESIZE);
	uintptr_t page = sz > 0 ? (uintptr_t)sz : 4096;
	uintptr_t a = ((uintptr_t)d->p + page - 1) / page * page;
	uintptr_t e = ((uintptr_t)d->p + d->bytes) / page * page;
	size_t np = a < e ? (e - a) / page : 0;
	size_t lo = np / (size_t)nt * (size_t)i;
	size_t hi = i == nt - 1 ? np : np / (size_t)nt * (size_t)(i + 1);

	if (lo < hi)
		(void)madvise((void *)(a + lo * page), (hi - lo) * page,
			      MADV_DONTNEED);
}

/* p freed (bytes of it). A big array's pages are let go on pool's
 * threads first (NULL: none): one thread frees pages at a few GB a
 * second, and madvises of slices run at once where one munmap would
 * not. */
static void free_big(struct pool *pool, void *p, size_t bytes)
{
	struct drop d = { p, bytes };

	if (pool && p && bytes >= BIG_FREE)
		pool_run(pool, drop_task, &d);
	free(p);
}

/* g's parts freed (on pool's threads: see free_big). */
static void free_parts(const struct gs_job *job, struct gvals_acc *g,
		       struct pool *pool)
{
	for (size_t k = 0; k < g->nparts; k++) {
		size_t bytes = g->parts[k].cap * gvals_width(job) * 8;

		atomic_fetch_sub(&live, bytes);
		free_big(pool, g->parts[k].w, bytes);
	}
	free(g->parts);
	g->parts = NULL;
	g->nparts = 0;
}

/* g's own array and parts freed (their records elsewhere, or not
 * wanted), on pool's threads (see free_big). */
void gvals_let_go(const struct gs_job *job, struct gvals_acc *g,
		  struct pool *pool)
{
	size_t bytes = g->cap * gvals_width(job) * 8;

	atomic_fetch_sub(&live, bytes);
	free_big(pool, g->w, bytes);
	g->w = NULL;
	g->n = g->cap = 0;
	free_parts(job, g, pool);
}

uint64_t *gvals_array(size_t n, size_t rb)
{
	uint64_t *p = malloc((n ? n : 1) * rb);

	if (p)
		atomic_fetch_add(&live, (n ? n : 1) * rb);
	return p;
}

void gvals_array_free(struct pool *pool, uint64_t *p, size_t bytes)
{
	atomic_fetch_sub(&live, bytes);
	free_big(pool, p, bytes);
}

static void gvals_acc_free(const struct gs_job *job, void *acc)
{
	struct gvals_acc *g = acc;
	struct pool pool;

	if (g->threads > 1 && gvals_held(g) * gvals_width(job) * 8 >= BIG_FREE &&
	    pool_init(&pool, g->threads) == 0) {
		gvals_let_go(job, g, &pool);
		pool_release(&pool);
	}
	gvals_let_go(job, g, NULL);	/* what is left */
	if (g->dev)
		g->dev->ops->release(g->dev);
	g->dev = NULL;
	gvals_release(job, acc);
}

/* ---- the common shape: one key column, one value column ------------------ */

#define INLINE static inline __attribute__((always_inline))

/* select.h's key of a value of type vt at p (the NaN of a float column:
 * GVALS_NAN). */
INLINE uint64_t vkey_at(enum gs_type vt, const unsigned char *p)
{
	uint32_t u32;
	uint64_t u64;

	switch (vt) {
	case GS_F32:
		memcpy(&u32, p, 4);
		return ieee_is_nan(u32, 0x7f800000) ? GVALS_NAN :
		       fkey_nz(u32, 0x80000000u);
	case GS_F64:
		memcpy(&u64, p, 8);
		return ieee_is_nan(u64, 0x7ff0000000000000ull) ? GVALS_NAN :
		       fkey_nz(u64, SIGN64);
	case GS_I32: memcpy(&u32, p, 4); return u32 ^ 0x80000000u;
	case GS_U32: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u64, p, 8); return u64 ^ SIGN64;
	}
}

INLINE void collect(enum gs_type kt, enum gs_type vt, const unsigned char *d,
		    size_t m, size_t rs, size_t koff, size_t voff, uint64_t *out)
{
	for (size_t r = 0; r < m; r++, d += rs) {
		out[2 * r] = gkey_at(kt, d + koff);
		out[2 * r + 1] = vkey_at(vt, d + voff);
	}
}

/* The packed form's words (gvals.h): a 32-bit key's order key less kbias,
 * and a 32-bit value's select key (a NaN's GVALS_NAN cut to UINT32_MAX). */
INLINE void collect_packed(enum gs_type kt, enum gs_type vt,
			   const unsigned char *d, size_t m, size_t rs,
			   size_t koff, size_t voff, uint64_t kbias,
			   uint64_t *out)
{
	for (size_t r = 0; r < m; r++, d += rs)
		out[r] = (gkey_at(kt, d + koff) - kbias) << 32 |
			 (uint32_t)vkey_at(vt, d + voff);
}

/* m records at d into out as gvals_cpu_add's loop writes them, by a loop
 * made for their key and value types: true, or false (another shape). */
static bool collect_fast(const struct colrd *kc, const struct colrd *vc,
			 const unsigned char *d, size_t m, size_t rs,
			 const struct gvals_form *f, uint64_t *out)
{
	enum gs_type kt = kc->t, vt = vc->t;

	if (kc->swap || kc->boolean || vc->swap || vc->boolean)
		return false;
#define P(K, VT) if (vt == VT) { collect_packed(K, VT, d, m, rs, kc->off, \
				vc->off, f->kbias, out); return true; }
	if (f->packed) {
		if (kt == GS_I32) { P(GS_I32, GS_F32) P(GS_I32, GS_I32)
				    P(GS_I32, GS_U32) }
		if (kt == GS_U32) { P(GS_U32, GS_F32) P(GS_U32, GS_I32)
				    P(GS_U32, GS_U32) }
		return false;
	}
#undef P
#define V(K, VT) if (vt == VT) { \
		collect(K, VT, d, m, rs, kc->off, vc->off, out); return true; }
#define K(KT) if (kt == KT) { V(KT, GS_F32) V(KT, GS_F64) V(KT, GS_I32) \
		V(KT, GS_I64) return false; }
	K(GS_I32) K(GS_I64) K(GS_U32) K(GS_U64) K(GS_F64)
#undef K
#undef V
	return false;
}

static void gvals_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			  const void *data, const void *data2, size_t nrec)
{
	const struct gs_group *gr = job->group;
	struct gvals_acc *g = acc;
	const unsigned char *d = data;
	struct gvals_form f = gvals_form_of(job);
	size_t rs = job_record_size(job), w = f.w;
	struct colrd *kc = scratch, *vc = kc + gr->nkeys;
	unsigned char e[8];
	uint64_t pk, pv;
	/* the tests' device in host memory (gvals_hostdev.c) takes the
	 * records the GPU would, in slices of its room at most */
	uint64_t room = f.packed && !gvals_gpu_refusal(job) ?
			gvals_hostdev_room() : 0;
	size_t slice = room && room < GVALS_SLICE ? (size_t)room : GVALS_SLICE;

	(void)data2;
	for (unsigned k = 0; k < gr->nkeys; k++)
		kc[k] = colrd_of(job, gr->key[k]);
	for (unsigned j = 0; j < gr->nvals; j++)
		vc[j] = colrd_of(job, gr->val[j]);
	for (size_t at = 0; at < nrec;) {
		size_t m = nrec - at < slice ? nrec - at : slice;
		uint64_t *out;

		if (room) {	/* counted there, not in g->n */
			if (!(out = gvals_hostdev_tail(job, g, room, m))) {
				fail(g, GV_OOM, 0);
				return;
			}
		} else {
			if (!reserve(job, g, m))
				return;
			out = g->w + g->n * w;
		}
		if (gr->nkeys == 1 && gr->nvals == 1 &&
		    collect_fast(kc, vc, d, m, rs, &f, out)) {
			if (!room)
				g->n += m;
			at += m;
			d += m * rs;
			continue;
		}
		for (size_t r = 0; f.packed && r < m; r++, d += rs) {
			colrd_element(&kc[0], d, e);
			pk = gkey_of(kc[0].t, e) - f.kbias;
			colrd_element(&vc[0], d, e);
			if (!select_key(vc[0].t, e, &pv))
				pv = UINT32_MAX;
			*out++ = pk << 32 | pv;
		}
		for (size_t r = 0; !f.packed && r < m; r++, d += rs) {
			for (unsigned k = 0; k < gr->nkeys; k++) {
				colrd_element(&kc[k], d, e);
				*out++ = gkey_of(kc[k].t, e);
			}
			for (unsigned j = 0; j < gr->nvals; j++) {
				colrd_element(&vc[j], d, e);
				if (!select_key(vc[j].t, e, out))
					*out = GVALS_NAN;
				out++;
			}
		}
		if (!room)
			g->n += m;
		at += m;
	}
}

static size_t gvals_scratch_size(const struct gs_job *job)
{
	return ((size_t)job->group->nkeys + job->group->nvals) *
	       sizeof(struct colrd);
}

/* ---- records on a device --------------------------------------------------- */

#define TAKE_WORDS ((size_t)1 << 20)	/* words read back at a time */

bool gvals_add_words(const struct gs_job *job, struct gvals_acc *g,
		     const uint64_t *w, size_t n)
{
	for (size_t at = 0; at < n;) {
		size_t m = n - at < GVALS_SLICE ? n - at : GVALS_SLICE;

		if (!reserve(job, g, m))
			return false;
		memcpy(g->w + g->n, w + at, m * sizeof(*w));
		g->n += m;
		at += m;
	}
	return true;
}

bool gvals_dev_take(const struct gs_job *job, struct gvals_acc *g,
		    struct gvals_dev *d)
{
	size_t most = d->n < TAKE_WORDS ? (size_t)d->n : TAKE_WORDS;
	uint64_t *buf = malloc((most ? most : 1) * sizeof(*buf));
	struct gs_err e = { 0 };
	bool ok = buf != NULL;

	for (uint64_t at = 0; ok && at < d->n; at += TAKE_WORDS) {
		size_t m = d->n - at < TAKE_WORDS ? (size_t)(d->n - at)
						  : TAKE_WORDS;

		if (d->ops->take(d, at, m, buf, &e) < 0) {
			snprintf(g->why, sizeof(g->why), "%.150s", e.what);
			fail(g, GV_DEV, 0);
			ok = false;
		} else {
			ok = gvals_add_words(job, g, buf, m);
		}
	}
	if (!buf)
		fail(g, GV_OOM, 0);
	free(buf);
	return ok;
}

/* d's words into g's memory, d then released: false once g failed. */
static bool take_dev(const struct gs_job *job, struct gvals_acc *g,
		     struct gvals_dev *d)
{
	bool ok = gvals_dev_take(job, g, d);

	d->ops->release(d);
	return ok;
}

/* src's device records to g's: moved, appended to g's own, or (no room
 * there, or another kind of device: the tests' in host memory beside a
 * GPU's) taken to g's memory. */
static void merge_dev(const struct gs_job *job, struct gvals_acc *g,
		      struct gvals_acc *s)
{
	struct gvals_dev *d = s->dev;
	struct gs_err e;

	s->dev = NULL;
	if (!g->dev)
		g->dev = d;
	else if (g->dev->ops == d->ops &&
		 g->dev->ops->append(g->dev, d, &e) == 0)
		d->ops->release(d);
	else
		(void)take_dev(job, g, d);
}

int gvals_dev_place(const struct gs_job *job, struct gvals_acc *g, bool want,
		    struct gs_err *err)
{
	struct gvals_dev *d = g->dev;
	struct gs_err e;

	if (acc_check(job, g, err) < 0)
		return -1;
	if (want && !g->nruns) {
		uint64_t n0 = d->n;
		size_t k = 0;
		bool ok = d->ops->put(d, g->w, g->n, &e) == 0;

		for (; ok && k < g->nparts; k++)
			ok = d->ops->put(d, g->parts[k].w, g->parts[k].n,
					 &e) == 0;
		if (ok) {	/* g's own words now d's */
			gvals_let_go(job, g, NULL);
			return 1;
		}
		d->n = n0;	/* no room there: every word to the host */
	}
	g->dev = NULL;
	if (!take_dev(job, g, d))
		return acc_check(job, g, err) < 0 ? -1 :
		       gs_fail(err, GS_ERUNTIME, "", "out of memory");
	return 0;
}

static void gvals_acc_merge(const struct gs_job *job, void *acc,
			    const void *src)
{
	struct gvals_acc *g = acc;
	/* src's array and runs move over (every caller frees src after
	 * merging it, and a thread's array is the bulk) */
	struct gvals_acc *s = (struct gvals_acc *)src;

	if (s->failed && !g->failed) {
		g->failed = s->failed;
		g->err = s->err;
		memcpy(g->why, s->why, sizeof(g->why));
		g->fail_n = s->fail_n;
		g->fail_bytes = s->fail_bytes;
	}
	if (s->nruns && !g->failed) {
		struct gvals_run *r = realloc(g->runs, (g->nruns + s->nruns) *
					      sizeof(*r));

		if (!r) {
			fail(g, GV_OOM, 0);
			return;
		}
		memcpy(r + g->nruns, s->runs, s->nruns * sizeof(*r));
		g->runs = r;
		g->nruns += s->nruns;
		g->spilled += s->spilled;
		free(s->runs);
		s->runs = NULL;
		s->nruns = 0;
		s->spilled = 0;
	}
	if (g->failed)
		return;
	if (s->dev)
		merge_dev(job, g, s);
	/* the first array becomes g's own, the rest its parts; an empty
	 * array stays src's to free */
	bool take = s->n && !g->cap;
	size_t more = s->nparts + (s->n && !take);

	if (more) {
		struct gvals_part *p = realloc(g->parts, (g->nparts + more) *
					       sizeof(*p));

		if (!p) {
			fail(g, GV_OOM, 0);
			return;
		}
		g->parts = p;
		if (s->nparts)
			memcpy(p + g->nparts, s->parts, s->nparts * sizeof(*p));
		g->nparts += s->nparts;
		if (s->n && !take)
			p[g->nparts++] = (struct gvals_part){ s->w, s->n, s->cap };
		free(s->parts);
		s->parts = NULL;
		s->nparts = 0;
	}
	if (take) {
		g->w = s->w;
		g->n = s->n;
		g->cap = s->cap;
	}
	if (s->n) {
		s->w = NULL;
		s->n = s->cap = 0;
	}
}

size_t gvals_held(const struct gvals_acc *g)
{
	size_t n = g->n;

	for (size_t i = 0; i < g->nparts; i++)
		n += g->parts[i].n;
	return n;
}

int gvals_join(const struct gs_job *job, struct gvals_acc *g, bool spill)
{
	size_t rb = gvals_width(job) * sizeof(uint64_t), n = gvals_held(g);
	uint64_t *w;

	if (!g->nparts)
		return 0;
	if (spill) {
		for (size_t k = 0; k < g->nparts; k++) {
			struct gvals_part own = { g->w, g->n, g->cap };
			int rc;

			g->w = g->parts[k].w;
			g->n = g->parts[k].n;
			rc = gvals_spill(job, g);
			g->w = own.w;
			g->n = own.n;
			if (rc < 0)
				return -1;
			g->parts[k].n = 0;
		}
	} else {
		if (n > g->cap) {
			if (!(w = realloc(g->w, n * rb))) {
				errno = ENOMEM;
				return -1;
			}
			atomic_fetch_add(&live, (n - g->cap) * rb);
			g->w = w;
			g->cap = n;
		}
		for (size_t k = 0; k < g->nparts; k++) {
			memcpy(g->w + g->n * gvals_width(job), g->parts[k].w,
			       g->parts[k].n * rb);
			g->n += g->parts[k].n;
		}
	}
	free_parts(job, g, NULL);
	return 0;
}

static double mib(uint64_t n)
{
	return (double)n / (double)((uint64_t)1 << 20);
}

static int gvals_acc_error(const struct gs_job *job, const void *acc,
			   struct gs_err *err)
{
	const struct gvals_acc *g = acc;

	if (g->failed == GV_SPILL)
		return gs_fail(err, GS_ERUNTIME, "--by", "%llu records (and "
			       "counting) of every key's values need %.2f MiB, "
			       "over half the limit of %.2f MiB, and spilling "
			       "them to %s failed: %s",
			       (unsigned long long)g->fail_n, mib(g->fail_bytes),
			       mib(job->group->limit), spill_dir(),
			       strerror(g->err));
	if (g->failed == GV_DEV)
		return gs_fail(err, GS_ERUNTIME, "--by", "reading the device's "
			       "records back failed: %s", g->why);
	if (g->failed)
		return gs_fail(err, GS_ERUNTIME, "--by", "out of memory after "
			       "%llu records", (unsigned long long)g->fail_n);
	return 0;
}

const struct acc_kernels gvals_kernels = {
	.acc_size = gvals_acc_size,
	.acc_init = gvals_acc_init,
	.acc_merge = gvals_acc_merge,
	.scratch_size = gvals_scratch_size,
	.cpu_add = gvals_cpu_add,
	.acc_free = gvals_acc_free,
	.acc_error = gvals_acc_error,
};

union gs_scalar gvals_key(const struct gs_job *job, unsigned k, uint64_t key)
{
	enum gs_type t = job_col_dtype(job, job->group->key[k]).type;
	union gs_scalar s;

	if (type_is_float(t)) {
		s.f = key == UINT64_MAX ? NAN : ukey_to_f64(key);
	} else if (type_is_signed(t)) {
		s.i = (int64_t)(key ^ SIGN64);
	} else {
		s.u = key;
	}
	return s;
}
