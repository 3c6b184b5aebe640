/*
 * gvals_out.c - the result of quantile, median and mode with --by COLS
 * (gvals_out.h): the collected records (cpu/gvals.h) sorted by key, then
 * each key's run of values, column by column, read as the ungrouped
 * command reads its sorted elements: quantile and median the elements at
 * the ranks numpy's method picks (quantile_math.h, each brought to its
 * place by a selection: the element a sort puts there), mode the longest
 * runs of equal values of the sorted run, all of them in ascending order
 * on a tie. NaNs are counted and left out, as ungrouped. So a key's
 * cells are what the command prints for its records alone, by the same
 * code (quantile_cell, quantile_wval, mode_value). Records a GPU collected
 * (quantile and median) are sorted on the device, which gives each key's
 * run, and only the words at the picked ranks come back (gvals_pick.h).
 *
 * One row per key and quantile (quantile), per key (median), or per key,
 * value column and mode (mode), keys ascending (text keys by their
 * bytes), the key columns first, then the command's own cells:
 *
 *   quantile   text: the value of each column; tsv, csv, binary, npy: q
 *              first, as ungrouped tsv and csv name it
 *   median     the value of each column
 *   mode       column (tsv, csv, text: where there are several; binary,
 *              npy: always, as ungrouped), value, count
 *
 * tsv and csv name the keys key (key_0, key_1, ...) and the rest as the
 * ungrouped command does; binary is each row's cells as 8-byte values,
 * npy a structured array of a record per row, the keys' fields <i8, <u8
 * or <f8 by their type and the rest <f8 (the ungrouped arrays' dtype);
 * json has "keys" (a list per key), then quantile's "method", "q" and
 * "quantiles" [key][q][column], median's "method" and "median"
 * [key][column], or mode's "mode" [key][column][modes] and "mode_count"
 * [key][column], and "count" and "nan" [key][column].
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "group.h"
#include "gvals.h"
#include "gvals_pick.h"
#include "pool.h"
#include "gvals_out.h"
#include "quantile.h"
#include "select.h"
#include "textkeys.h"
#include "writer.h"

#define BLOCK_ROWS 16384u	/* the writer's rows at a time */
#define QPICK_MAX 64u		/* quantiles whose ranks are placed at once */

struct mrow {
	size_t run;		/* the key's place in order */
	unsigned col;
	size_t k;		/* which of its modes */
};

struct gv {
	struct cli *c;
	const struct gs_job *job;
	const struct textkeys *tk;	/* text: the keys are its strings */
	unsigned nk, nv, nq;
	bool mode, median;
	size_t nrun, wd;
	struct gvals_form f;	/* how a record is laid out */
	const uint64_t *w;	/* the records, sorted by key */
	struct gvals_dev_runs dr;	/* records on a device: their runs */
	size_t *first;		/* [run] its first record */
	size_t *order;		/* the runs in output order */
	uint64_t *count, *nan;	/* [run][column] */
	struct qcell *cells;	/* [run][q][column] */
	uint64_t *best;		/* mode: [run][column] its count */
	size_t *mfirst, *mn;	/* mode: [run][column] its modes in modes[] */
	uint64_t *modes;
	/* the row cursor of mode, and where it stood at each row of the
	 * block (the rows then made on any thread) */
	size_t at_run, at_col, at_mode;
	struct mrow *brow;	/* [16384] */
	uint64_t b0;		/* the block's first row */
	char **names;
	const char **descr;
	unsigned ncells;
	struct pool pool;	/* -j's threads, where more than one */
	bool pooled;
};

static enum gs_type val_type(const struct gv *o, unsigned j)
{
	return job_col_dtype(o->job, o->job->group->val[j]).type;
}

static enum gs_type key_type(const struct gv *o, unsigned k)
{
	return job_col_dtype(o->job, o->job->group->key[k]).type;
}

static union gs_scalar key_of(const struct gv *o, size_t run, unsigned k)
{
	const uint64_t *r = o->dr.word ? &o->dr.word[run] :
			    o->w + o->first[run] * o->wd;

	return gvals_key(o->job, k, gvals_rec_key(&o->f, r, k));
}

/* Text: the key's string id. */
static uint64_t key_id(const void *ctx, size_t run, unsigned k)
{
	const struct gv *o = ctx;
	enum gs_type t = key_type(o, k);
	union gs_scalar v = key_of(o, run, k);

	return type_is_float(t) ? (uint64_t)v.f :
	       type_is_signed(t) ? (uint64_t)v.i : v.u;
}

static struct wval key_wval(const struct gv *o, size_t run, unsigned k)
{
	enum gs_type t = key_type(o, k);
	union gs_scalar v = key_of(o, run, k);
	size_t n;

	if (o->tk)
		return (struct wval){ .kind = W_STR,
				      .s = textkeys_str(o->tk, key_id(o, run, k),
							&n) };
	if (type_is_float(t))
		return wv_f64(v.f);
	if (type_is_signed(t))
		return (struct wval){ .kind = W_I64, .i = v.i };
	return wv_u64(v.u);
}

/* ---- each key's results --------------------------------------------------- */

/* A thread's share of the runs, r0 to r1, and the modes it found. */
struct part {
	struct gv *o;
	const size_t *len;	/* [run] its records */
	size_t r0, r1;
	uint64_t *modes;
	size_t nmodes, capmodes;
	bool oom;
};

static bool add_mode(struct part *p, uint64_t key)
{
	if (p->nmodes == p->capmodes) {
		size_t cap = p->capmodes ? 2 * p->capmodes : 1024;
		uint64_t *m = realloc(p->modes, cap * sizeof(*m));

		if (!m)
			return false;
		p->modes = m;
		p->capmodes = cap;
	}
	p->modes[p->nmodes++] = key;
	return true;
}

/* Mode of the m sorted keys v: the count of the longest runs, and each
 * such run's key, ascending. */
static bool mode_of(struct part *p, size_t at, const uint64_t *v, size_t m)
{
	struct gv *o = p->o;
	uint64_t best = 0;

	for (size_t i = 0, e; i < m; i = e) {
		for (e = i + 1; e < m && v[e] == v[i]; e++)
			;
		if (e - i > best)
			best = e - i;
	}
	o->best[at] = best;
	o->mfirst[at] = p->nmodes;	/* in p's modes until joined */
	for (size_t i = 0, e; i < m; i = e) {
		for (e = i + 1; e < m && v[e] == v[i]; e++)
			;
		if (e - i == best && !add_mode(p, v[i]))
			return false;
	}
	o->mn[at] = p->nmodes - o->mfirst[at];
	return true;
}

/* The keys at the ranks the nq picks read, into lo[q] and hi[q], by
 * the values' top bits (h: gvals_col_hist's): false where that would not
 * pay. */
static bool radix_picks(const struct gvals_col *c, const uint64_t *h,
			const struct qpick *pick, unsigned nq, uint64_t *v,
			uint64_t *tmp, uint64_t *lo, uint64_t *hi)
{
	uint64_t rk[2 * QPICK_MAX], key[2 * QPICK_MAX];
	unsigned nr = 0, d = 0;

	for (unsigned q = 0; q < nq; q++) {
		rk[nr++] = pick[q].lo;
		rk[nr++] = pick[q].hi;
	}
	gvals_isort(rk, nr);
	for (unsigned i = 0; i < nr; i++)	/* each rank once */
		if (!d || rk[i] != rk[d - 1])
			rk[d++] = rk[i];
	if (!gvals_col_ranks(c, h, rk, d, v, tmp, key))
		return false;
	for (unsigned q = 0; q < nq; q++) {
		unsigned i = 0;

		while (rk[i] != pick[q].lo)
			i++;
		lo[q] = key[i];
		while (rk[i] != pick[q].hi)
			i++;
		hi[q] = key[i];
	}
	return true;
}

/* Column j of run r's values into v, the NaNs (the largest keys,
 * GVALS_NAN) left out: how many. */
static size_t copy_values(const struct gvals_col *c, uint64_t *v)
{
	size_t m = 0;

	for (size_t i = 0; i < c->n; i++) {
		uint64_t x = gvals_rec_val(c->f, c->rec + i * c->wd, c->j);

		if (!(c->fl && x == GVALS_NAN))
			v[m++] = x;
	}
	return m;
}

/* Column j of run r: the NaNs counted and left out, then its results:
 * mode's from the values copied into v and sorted (tmp: as many),
 * quantile's from the elements at their ranks, found on a copy, or on
 * a long run by the values' top bits (gvals_pick.h). */
static bool column(struct part *p, size_t r, unsigned j, uint64_t *v,
		   uint64_t *tmp)
{
	struct gv *o = p->o;
	const struct quantile_state *qs = o->c->state;
	size_t from = o->first[r], at = r * o->nv + j, n = o->count[at], m;
	enum gs_type t = val_type(o, j);
	struct qpick pick[QPICK_MAX];
	struct gvals_col col = { .f = &o->f, .rec = o->w + from * o->wd,
				 .wd = o->wd, .n = n, .j = j,
				 .bits = select_key_bits(t),
				 .rb = n < 4096 ? 8 : GVALS_RADIX_BITS,
				 .fl = type_is_float(t) };
	uint64_t h[1u << GVALS_RADIX_BITS], lo[QPICK_MAX], hi[QPICK_MAX];
	bool radix = !o->mode && n >= GVALS_RADIX_MIN;

	m = radix ? n - gvals_col_hist(&col, h) : copy_values(&col, v);
	o->nan[at] = n - m;
	if (o->mode) {
		if (m < 64)
			gvals_isort(v, m);
		else
			(void)gvals_sort(v, tmp, m, 1, 1, 0);  /* one word: no memory */
		return mode_of(p, at, v, m);
	}
	for (unsigned q0 = 0; q0 < o->nq; q0 += QPICK_MAX) {
		unsigned nq = o->nq - q0 < QPICK_MAX ? o->nq - q0 : QPICK_MAX;

		for (unsigned q = 0; m && q < nq; q++)
			qpick_of(qs->method, &qs->q[q0 + q], m, &pick[q]);
		if (m && radix &&
		    !radix_picks(&col, h, pick, nq, v, tmp, lo, hi)) {
			radix = false;
			(void)copy_values(&col, v);
		}
		if (m && !radix)
			gvals_pick_ranks(v, tmp, m, pick, nq);
		for (unsigned q = 0; q < nq; q++) {
			struct qcell *cell =
				&o->cells[(r * o->nq + q0 + q) * o->nv + j];

			if (!m) {
				cell->f = NAN;
				cell->is_int = false;
				continue;
			}
			quantile_cell(t, &pick[q],
				      radix ? lo[q] : v[pick[q].lo],
				      radix ? hi[q] : v[pick[q].hi], cell);
		}
	}
	return true;
}

/* Thread i's runs: each value column's results. */
static void work(void *arg, int i, int n)
{
	struct part *p = (struct part *)arg + i;
	struct gv *o = p->o;
	size_t most = 1;
	uint64_t *v, *tmp;

	(void)n;
	for (size_t r = p->r0; r < p->r1; r++)
		most = p->len[r] > most ? p->len[r] : most;
	v = malloc(most * sizeof(*v));
	tmp = malloc(most * sizeof(*tmp));
	p->oom = !v || !tmp;
	for (size_t r = p->r0; !p->oom && r < p->r1; r++)
		for (unsigned j = 0; !p->oom && j < o->nv; j++) {
			o->count[r * o->nv + j] = p->len[r];
			p->oom = !column(p, r, j, v, tmp);
		}
	free(v);
	free(tmp);
}

/* The runs' results on the threads (-j), each a share of about as many
 * records, then their modes joined in run order. 0, or -1: out of memory. */
static int split(struct gv *o, const size_t *len, size_t n)
{
	int nt = o->pooled ? o->pool.n : 1;
	struct part *p;
	size_t r = 0, done = 0, total = 0;
	int rc = 0;

	if (!(p = calloc((size_t)nt, sizeof(*p))))
		return -1;
	for (int i = 0; i < nt; i++) {
		p[i] = (struct part){ .o = o, .len = len, .r0 = r };
		while (r < o->nrun && (i == nt - 1 || done < n / nt * (i + 1)))
			done += len[r++];
		p[i].r1 = r;
	}
	if (nt > 1)
		pool_run(&o->pool, work, p);
	else
		work(p, 0, 1);
	for (int i = 0; i < nt; i++) {
		rc = p[i].oom ? -1 : rc;
		total += p[i].nmodes;
	}
	if (o->mode && rc == 0 &&
	    !(o->modes = malloc((total ? total : 1) * sizeof(*o->modes))))
		rc = -1;
	total = 0;
	for (int i = 0; i < nt; i++) {
		for (size_t c = p[i].r0 * o->nv; rc == 0 && o->mode &&
		     c < p[i].r1 * o->nv; c++)
			o->mfirst[c] += total;
		if (rc == 0 && p[i].nmodes)
			memcpy(o->modes + total, p[i].modes,
			       p[i].nmodes * sizeof(*o->modes));
		total += p[i].nmodes;
		free(p[i].modes);
	}
	free(p);
	return rc;
}

/* The runs' starts in a share of the sorted records, found on a thread. */
struct runs {
	const struct gv *o;
	size_t n;
	size_t **at;		/* [thread]: its starts */
	size_t *nat;
	atomic_bool oom;
};

static void runs_task(void *arg, int i, int nt)
{
	struct runs *u = arg;
	const struct gv *o = u->o;
	size_t lo = u->n / (size_t)nt * (size_t)i, cap = 0, k = 0;
	size_t hi = i == nt - 1 ? u->n : u->n / (size_t)nt * (size_t)(i + 1);
	size_t *at = NULL, wd = o->wd;

	for (size_t r = lo; r < hi; r++) {
		const uint64_t *x = o->w + r * wd;

		if (r && gvals_same_key(&o->f, x, x - wd))
			continue;
		if (k == cap) {
			size_t *p = realloc(at, (cap = cap ? 2 * cap : 64) *
					    sizeof(*p));

			if (!p) {
				atomic_store(&u->oom, true);
				break;
			}
			at = p;
		}
		at[k++] = r;
	}
	u->at[i] = at;
	u->nat[i] = k;
}

/* o->first and o->nrun: where each key's run of the n sorted records
 * begins, found by the threads in shares. 0, or -1: out of memory. */
static int find_runs(struct gv *o, size_t n)
{
	int nt = o->pooled && n >= ((size_t)1 << 16) ? o->pool.n : 1;
	struct runs u = { .o = o, .n = n };
	size_t k = 0;

	atomic_init(&u.oom, false);
	u.at = calloc((size_t)nt, sizeof(*u.at));
	u.nat = calloc((size_t)nt, sizeof(*u.nat));
	if (!u.at || !u.nat) {
		free(u.at);
		free(u.nat);
		return -1;
	}
	if (nt > 1)
		pool_run(&o->pool, runs_task, &u);
	else
		runs_task(&u, 0, 1);
	for (int i = 0; i < nt; i++)
		k += u.nat[i];
	o->first = malloc((k ? k : 1) * sizeof(*o->first));
	for (int i = 0; i < nt; i++) {
		if (o->first && !atomic_load(&u.oom) && u.nat[i])
			memcpy(o->first + o->nrun, u.at[i],
			       u.nat[i] * sizeof(*o->first));
		o->nrun += u.nat[i];
		free(u.at[i]);
	}
	free(u.at);
	free(u.nat);
	return o->first && !atomic_load(&u.oom) ? 0 : -1;
}

/* The runs of equal keys of the sorted records (or those on dev), their
 * results. */
static int results(struct gv *o, size_t n, struct gvals_dev *dev,
		   struct gs_err *err)
{
	size_t cells;
	size_t *len;

	if (dev) {	/* each run's count and NaNs are the device's */
		int rc = gvals_dev_runs(dev, &o->f, o->job->group->limit,
					&o->dr, err);

		o->nrun = o->dr.nrun;
		o->count = o->dr.n;
		o->nan = o->dr.nan;
		if (rc < 0)
			return -1;
	} else if (find_runs(o, n) < 0) {
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	}
	if (!(o->order = malloc((o->nrun ? o->nrun : 1) * sizeof(*o->order))))
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	cells = o->nrun * o->nv;
	if ((double)cells * (o->mode ? 40 : 16 + (double)o->nq *
			     sizeof(*o->cells)) > (double)o->job->group->limit)
		return gs_fail(err, GS_ERUNTIME, "--by", "%llu keys of %u value "
			       "column%s%s need %.2f MiB of results, over the "
			       "limit of %.2f MiB", (unsigned long long)o->nrun,
			       o->nv, o->nv == 1 ? "" : "s",
			       o->mode ? "" : " and their quantiles",
			       (double)cells * (o->mode ? 40 : 16 + (double)o->nq *
			       sizeof(*o->cells)) / 1048576.0,
			       (double)o->job->group->limit / 1048576.0);
	for (size_t r = 0; r < o->nrun; r++)
		o->order[r] = r;
	if (dev)	/* quantile and median of one value column */
		return (o->cells = calloc(cells * o->nq + 1, sizeof(*o->cells))) ?
			gvals_dev_cells(dev, &o->f, val_type(o, 0), o->c->state,
					&o->dr, o->cells, o->pooled ? &o->pool
								    : NULL, err) :
			gs_fail(err, GS_ERUNTIME, "", "out of memory");
	o->count = calloc(cells ? cells : 1, sizeof(*o->count));
	o->nan = calloc(cells ? cells : 1, sizeof(*o->nan));
	len = malloc((o->nrun ? o->nrun : 1) * sizeof(*len));
	if (o->mode) {
		o->best = calloc(cells ? cells : 1, sizeof(*o->best));
		o->mfirst = calloc(cells ? cells : 1, sizeof(*o->mfirst));
		o->mn = calloc(cells ? cells : 1, sizeof(*o->mn));
	} else {
		o->cells = calloc((cells ? cells : 1) * o->nq, sizeof(*o->cells));
	}
	if (!o->count || !o->nan || !len || (o->mode ? !o->best || !o->mfirst
					     || !o->mn : !o->cells)) {
		free(len);
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	}
	for (size_t r = 0; r < o->nrun; r++)
		len[r] = (r + 1 < o->nrun ? o->first[r + 1] : n) - o->first[r];
	bool oom = split(o, len, n) < 0;

	free(len);
	if (oom)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	if (o->tk && group_sort_text(o->tk, o->order, o->nrun, o->nk, key_id,
				     o) < 0)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	return 0;
}

/* ---- the result ------------------------------------------------------------ */

/* Whether quantile's rows have q (all but text) and mode's the column
 * (several value columns, or an array, as ungrouped). */
static bool with_q(const struct gv *o)
{
	return !o->mode && !o->median && o->c->format != FMT_TEXT;
}

static bool with_col(const struct gv *o)
{
	return o->mode && (o->nv > 1 || o->c->format == FMT_BINARY ||
			   o->c->format == FMT_NPY);
}

/* quantile's and median's rows are there to read on any thread; mode's
 * come from its cursor, each row's place kept for the block */
static int block(void *ctx, uint64_t r0, uint64_t r1, struct gs_err *err)
{
	struct gv *o = ctx;

	(void)err;
	o->b0 = r0;
	for (uint64_t r = r0; o->mode && r < r1; r++) {
		size_t c = o->order[o->at_run] * o->nv + o->at_col;

		o->brow[r - r0] = (struct mrow){ o->at_run, o->at_col,
						 o->at_mode };
		if (++o->at_mode >= o->mn[c]) {
			o->at_mode = 0;
			if (++o->at_col == o->nv) {
				o->at_col = 0;
				o->at_run++;
			}
		}
	}
	return 0;
}

static bool row(void *ctx, uint64_t r, struct wval *cells)
{
	struct gv *o = ctx;
	const struct quantile_state *qs = o->c->state;
	const struct mrow *m = o->mode ? &o->brow[r - o->b0] : NULL;
	size_t i = m ? m->run : (size_t)(r / o->nq), run = o->order[i];
	unsigned at = o->nk;

	for (unsigned k = 0; k < o->nk; k++)
		cells[k] = key_wval(o, run, k);
	if (!o->mode) {
		unsigned q = (unsigned)(r % o->nq);

		if (with_q(o))	/* arrays: the double nearest P */
			cells[at++] = (struct wval){ .kind = W_DEC,
						     .s = qs->q[q].text,
						     .f = strtod(qs->q[q].text,
								 NULL) };
		for (unsigned j = 0; j < o->nv; j++)
			cells[at + j] = quantile_wval(&o->cells[(run * o->nq + q) *
							       o->nv + j]);
		return true;
	}
	size_t c = run * o->nv + m->col;

	if (with_col(o))
		cells[at++] = wv_u64(m->col);
	cells[at] = o->mn[c] ? mode_value(val_type(o, m->col),
					  o->modes[o->mfirst[c] + m->k])
			     : wv_f64(NAN);
	cells[at + 1] = wv_u64(o->best[c]);
	return true;
}

/* json's fields: 0 q, 1 the keys, 2 the results, 3 count, 4 nan, 5 the
 * modes' count; list i of a [key][column] field is key i's */
static bool get(void *ctx, int id, uint64_t i, uint64_t j, struct wval *v)
{
	const struct gv *o = ctx;
	const struct quantile_state *qs = o->c->state;

	switch (id) {
	case 0:
		*v = (struct wval){ .kind = W_DEC, .s = qs->q[j].text };
		return true;
	case 1:
		*v = key_wval(o, o->order[i], (unsigned)j);
		return true;
	case 2:
		if (o->mode) {	/* list i: key i / nv's column i % nv */
			size_t c = o->order[i / o->nv] * o->nv + i % o->nv;

			*v = mode_value(val_type(o, (unsigned)(i % o->nv)),
					o->modes[o->mfirst[c] + j]);
		} else {	/* list i: key i / nq's quantile i % nq */
			size_t run = o->order[i / o->nq];

			*v = quantile_wval(&o->cells[(run * o->nq + i % o->nq) *
						     o->nv + j]);
		}
		return true;
	default: {
		size_t c = o->order[i] * o->nv + j;

		*v = wv_u64(id == 3 ? o->count[c] : id == 4 ? o->nan[c] :
			    o->best[c]);
		return true;
	}
	}
}

static uint64_t len(void *ctx, uint64_t i)
{
	const struct gv *o = ctx;

	return o->mn[o->order[i / o->nv] * o->nv + i % o->nv];
}

/* The header's names and the npy fields' dtypes, a cell each. */
static int describe(struct gv *o, unsigned labels, struct gs_err *err)
{
	const char *own[3];
	unsigned n = 0;

	o->names = calloc(labels + 3, sizeof(*o->names));
	o->descr = calloc(o->ncells, sizeof(*o->descr));
	if (!o->names || !o->descr)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	if (o->mode) {
		if (with_col(o))
			own[n++] = "column";
		own[n++] = "value";
		own[n++] = "count";
	} else {
		if (with_q(o))
			own[n++] = "q";
		own[n++] = o->median ? "median" : "quantile";
	}
	for (unsigned k = 0; k < o->nk; k++) {
		char buf[32];

		snprintf(buf, sizeof(buf), o->nk > 1 ? "key_%u" : "key", k);
		o->names[k] = strdup(buf);
		o->descr[k] = writer_descr(key_type(o, k));
	}
	for (unsigned i = 0; i < n; i++)
		o->names[o->nk + i] = strdup(own[i]);
	for (unsigned i = o->nk; i < o->ncells; i++)
		o->descr[i] = "<f8";
	for (unsigned i = 0; i < o->nk + n; i++)
		if (!o->names[i])
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	return 0;
}

static int put(struct gv *o, struct sbuf *b, struct gs_err *err)
{
	const struct quantile_state *qs = o->c->state;
	uint64_t rows = 0;
	unsigned labels, nnames, nf = 0;
	struct wfield fields[7];

	if (o->mode) {
		for (size_t c = 0; c < o->nrun * o->nv; c++)
			rows += o->mn[c] ? o->mn[c] : 1;
		o->ncells = o->nk + with_col(o) + 2;
		labels = nnames = o->ncells;
	} else {
		rows = o->nrun * o->nq;
		o->ncells = o->nk + with_q(o) + o->nv;
		labels = o->nk + with_q(o);
		nnames = labels + 1;
	}
	if (describe(o, labels, err) < 0)
		return -1;
	if (o->mode && !(o->brow = malloc(BLOCK_ROWS * sizeof(*o->brow))))
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	if (!o->mode)
		fields[nf++] = (struct wfield){ .name = "method",
						.str = qmethod_names[qs->method] };
	if (!o->mode && !o->median)
		fields[nf++] = (struct wfield){ .name = "q", .depth = 1,
						.m = o->nq, .get = get, .id = 0 };
	fields[nf++] = (struct wfield){ .name = "keys", .depth = 2,
					.n = o->nrun, .m = o->nk, .get = get,
					.id = 1 };
	if (o->mode)
		fields[nf++] = (struct wfield){ .name = "mode", .depth = 3,
						.n = o->nrun, .mid = o->nv,
						.get = get, .len = len, .id = 2 };
	else if (o->median)
		fields[nf++] = (struct wfield){ .name = "median", .depth = 2,
						.n = o->nrun, .m = o->nv,
						.get = get, .id = 2 };
	else
		fields[nf++] = (struct wfield){ .name = "quantiles", .depth = 3,
						.n = o->nrun, .mid = o->nq,
						.m = o->nv, .get = get, .id = 2 };
	if (o->mode)
		fields[nf++] = (struct wfield){ .name = "mode_count", .depth = 2,
						.n = o->nrun, .m = o->nv,
						.get = get, .id = 5 };
	fields[nf++] = (struct wfield){ .name = "count", .depth = 2,
					.n = o->nrun, .m = o->nv, .get = get,
					.id = 3 };
	fields[nf++] = (struct wfield){ .name = "nan", .depth = 2,
					.n = o->nrun, .m = o->nv, .get = get,
					.id = 4 };
	const struct wresult r = {
		.ctx = o, .rows = rows, .cells = o->ncells, .row = row,
		.names = (const char *const *)o->names, .nnames = nnames,
		.labels = labels, .cell_descr = o->descr, .ndim = 1,
		.dims = { rows }, .fields = fields, .nfields = nf,
		.block = block, .block_rows = BLOCK_ROWS,
		.pool = o->pooled ? &o->pool : NULL,
	};

	return writer_put(o->c, &r, b, err);
}

static void gv_free(struct gv *o)
{
	if (o->pooled)
		pool_release(&o->pool);
	for (unsigned i = 0; o->names && i < o->nk + 3; i++)
		free(o->names[i]);
	free(o->names);
	free(o->descr);
	free(o->first);
	free(o->dr.word);
	free(o->dr.first);
	free(o->order);
	free(o->count);
	free(o->nan);
	free(o->cells);
	free(o->best);
	free(o->mfirst);
	free(o->mn);
	free(o->modes);
	free(o->brow);
}

static int gvals_done(struct cli *c, void *acc, struct sbuf *b,
		      struct gs_err *err)
{
	const struct gs_group *gr = c->job.group;
	struct gvals_acc *g = acc;
	struct quantile_state *qs = c->state;
	struct gv o = { .c = c, .job = &c->job, .nk = gr->nkeys, .nv = gr->nvals,
			.wd = gvals_width(&c->job),
			.f = gvals_form_of(&c->job) };
	uint64_t nan = 0;
	size_t n = 0;
	int rc = 0;

	if (acc_check(&c->job, acc, err) < 0)
		return -1;
	o.mode = c->command == &mode_command;
	o.median = !o.mode && qs->median;
	o.nq = o.mode ? 1 : qs->nq;
	o.tk = c->info.text ? group_text_keys() : NULL;
	/* records on a device: read there by quantile and median */
	if (g->dev && (rc = gvals_dev_place(&c->job, g, !o.mode, err)) < 0)
		return -1;
	if (!(g->dev && rc) &&
	    gvals_sorted(&c->job, g, c->eo.threads, &o.w, &n, err) < 0)
		return -1;
	o.pooled = c->eo.threads > 1 && pool_init(&o.pool, c->eo.threads) == 0;
	rc = results(&o, n, g->dev, err);
	for (size_t i = 0; rc == 0 && i < o.nrun * o.nv; i++)
		nan += o.nan[i];
	if (o.mode)
		*mode_nan_total(c) = nan;
	else
		qs->nan_total = nan;
	if (rc == 0)
		rc = put(&o, b, err);
	gv_free(&o);
	return rc;
}

static const struct pass gvals_passes[] = {
	{ .op = CMD_GVALS, .done = gvals_done },
	{ .done = NULL },
};

int gvals_plan(struct cli *c, const struct pass **passes, struct gs_err *err)
{
	return group_plan_with(c, gvals_passes, c->command != &mode_command,
			       passes, err);
}
