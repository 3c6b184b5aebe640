/*
 * group_out.c - the result of a grouped run (group.h): one row per key,
 * keys ascending, the key columns first (each in its own type: an
 * integer exactly, a float as the shortest double), then each value
 * column's result for that key, formatted by the ungrouped command's own
 * code from the ungrouped command's own state of that key's records
 * (cpu_group.c), so a key's cells are what the command prints for its
 * records alone:
 *
 *   sum, reduce --op OP    each value column's sum, min or max (results.h)
 *   count                  count and nan of each value column
 *   stats                  count nan min max sum mean pvar svar pstdev
 *                          sstdev of each value column       (stats_cells.h)
 *
 * text: the cells between tabs; tsv, csv: a header line first, the keys
 * named key (key_0, key_1, ... for several), the values as the ungrouped
 * command names them (sum; count, nan; the statistics), with _J after
 * them for value column J (0-based) where there are several. json: "keys"
 * (a list per key of its key values), then per key: sum's "count" (records)
 * and "result" (a list of the value columns' sums), count's "count" and
 * "nan", stats' ten statistics, each a list per key of the value columns'.
 * binary: each row's cells as 8-byte values; npy: a structured array of
 * one record per key, fields f0, f1, ... of dtype <i8, <u8 or <f8 as the
 * key's and each result's type (stats: all <f8, as the ungrouped stats).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "group.h"
#include "pool.h"
#include "results.h"
#include "stats_cells.h"
#include "textkeys.h"
#include "writer.h"

/* Rows are made a block at a time (the writer's block): the block's
 * entries copied out of the table on the writer's thread (a spilled
 * table reads through one window), then each row's cells computed on the
 * pool's threads, once, whatever the format reads of them (json reads
 * each row once per field); a table format's rows as they are written. */
#define BLOCK_BYTES (8u << 20)	/* a block's rows, about */
#define BLOCK_MIN 64u
#define BLOCK_MAX 65536u
/* The keys' order is taken many blocks at a time: each take's threads
 * first find where their share starts in every partition (a search
 * whose cost does not shrink with the share), so a share of a block's
 * few thousand rows would spend most of the take finding it. */
#define TAKE_SHARE 32768u	/* rows a thread's share of a take, about */
#define TAKE_MAX (1u << 20)	/* a take's rows at most */

struct gout {
	struct cli *c;
	const struct gs_job *job;
	const struct group_acc *g;
	struct group_rows *rows;	/* the keys in order, a row at a time */
	size_t *idx;		/* text: the rows' entries in their bytes' order */
	unsigned nk, nv, per;	/* keys, values, cells per value */
	unsigned ncells;	/* nk + nv * per */
	const struct textkeys *tk;	/* text: the keys are its strings */
	struct pool pool;
	bool pooled;
	/* the block: rows [r0, r1), bn at most */
	uint64_t r0, r1, n;
	size_t bn, esize;
	unsigned char *ents;	/* [bn] the entries copied out, esize each */
	uint64_t *ids;		/* [tn] ids of rows [t0, t0 + held), or
				 * of the block's (text keys) */
	size_t tn, held;
	uint64_t t0;
	const uint64_t *bids;	/* the block's ids: where the threads copy */
	bool direct;		/* the table's entries readable on any thread */
	bool lazy;		/* a row made as it is written (below) */
	struct wval *vals;	/* [bn][ncells] */
	uint64_t *count;	/* [bn] sum's records */
	struct result *res;	/* sum: [bn][nv] */
	struct cell *cells;	/* stats: [bn][nv][NSTATS] */
};

static enum gs_type val_type(const struct gout *o, unsigned j)
{
	return job_col_dtype(o->job, o->job->group->val[j]).type;
}

static uint64_t as_id(enum gs_type t, union gs_scalar v)
{
	return type_is_float(t) ? (uint64_t)v.f :
	       type_is_signed(t) ? (uint64_t)v.i : v.u;
}

/* Text: key column k of entry e is the id of a string of o->tk. */
static uint64_t key_id(const void *ctx, size_t e, unsigned k)
{
	const struct gout *o = ctx;

	return as_id(job_col_dtype(o->job, o->job->group->key[k]).type,
		     group_key(o->job, o->g, e, k));
}

/* Key column k of a copied entry. */
static struct wval key_wval(const struct gout *o, const void *ent, unsigned k)
{
	enum gs_type t = job_col_dtype(o->job, o->job->group->key[k]).type;
	union gs_scalar v = group_entry_key(o->job, ent, k);
	size_t n;

	if (o->tk)
		return (struct wval){ .kind = W_STR,
				      .s = textkeys_str(o->tk, as_id(t, v), &n) };
	if (type_is_float(t))
		return wv_f64(v.f);
	if (type_is_signed(t))
		return (struct wval){ .kind = W_I64, .i = v.i };
	return wv_u64(v.u);
}

/* Row i of the block: its cells, from its copied entry. */
static void make(struct gout *o, size_t i)
{
	const void *ent = o->ents + i * o->esize;
	struct wval *vals = o->vals + i * o->ncells, *v = vals + o->nk;
	enum gs_group_what what = o->job->group->what;

	if (o->direct)
		group_entry_copy(o->job, o->g, o->bids[i], (void *)ent);
	for (unsigned k = 0; k < o->nk; k++)
		vals[k] = key_wval(o, ent, k);
	o->count[i] = group_count(o->job, ent);
	for (unsigned j = 0; j < o->nv; j++) {
		struct stats_col s;

		if (what == GROUP_SUM || what == GROUP_MINMAX) {
			struct result *res = &o->res[i * o->nv + j];

			/* a float sum held compact: rounded straight from it */
			if (o->job->op == OP_SUM &&
			    type_is_float(val_type(o, j)) &&
			    group_sum_f64(o->job, ent, j, &res->f)) {
				res->kind = RES_F64;
				v[j] = wv_f64(res->f);
				continue;
			}
			struct gs_job cj = *o->job;
			struct red_col rc;
			struct gs_err err;

			cj.rec = NULL;
			cj.group = NULL;
			cj.columns = 1;
			cj.cmd = CMD_REDUCE;
			cj.dtype = (struct gs_dtype){ .type = val_type(o, j) };
			group_reduce(o->job, ent, j, cj.op, &rc);
			(void)red_result(&cj, &rc, res, &err);
			results_value(res, &v[j]);
			continue;
		}
		if (what == GROUP_COUNT) {
			group_stats(o->job, ent, j, &s);
			v[2 * j] = wv_u64(s.count);
			v[2 * j + 1] = wv_u64(s.nan);
			continue;
		}
		struct cell *cells = &o->cells[(i * o->nv + j) * NSTATS];
		const struct ksum *s1, *s2;

		/* mean and variances from the compact sums where they hold
		 * them (not a wide or special sum), else from xsums */
		memset(cells, 0, NSTATS * sizeof(*cells));
		group_stats_compact(o->job, ent, j, &s, &s1, &s2);
		if (!column_cells_compact(val_type(o, j), &s, s1, s2, cells)) {
			group_stats(o->job, ent, j, &s);
			column_cells(val_type(o, j), &s, cells);
		}
		for (unsigned c = 0; c < NSTATS; c++)
			v[j * NSTATS + c] = cell_value(&cells[c]);
	}
}

static void make_task(void *arg, int t, int nt)
{
	struct gout *o = arg;
	size_t n = (size_t)(o->r1 - o->r0);

	for (size_t i = n * (size_t)t / (size_t)nt;
	     i < n * (size_t)(t + 1) / (size_t)nt; i++)
		make(o, i);
}

/* The writer's block: rows [r0, r1) copied out in order, then made; a
 * spilled table's window that could not be read stops the rows (its
 * entries were copied as zeros) with the table's error. */
static int block(void *ctx, uint64_t r0, uint64_t r1, struct gs_err *err)
{
	struct gout *o = ctx;

	o->r0 = r0;
	o->r1 = r1;
	/* the rows' order is found here; their entries are copied on the
	 * threads where the table is in memory */
	o->bids = o->ids;
	if (o->direct && !o->idx) {	/* the order merged on the threads */
		if (r0 < o->t0 || r1 > o->t0 + o->held) {
			o->t0 = r0;
			o->held = o->n - r0 < o->tn ? (size_t)(o->n - r0)
						    : o->tn;
			group_rows_take(o->rows, r0, o->ids, o->held,
					o->pooled ? &o->pool : NULL);
		}
		o->bids = o->ids + (r0 - o->t0);
	} else
		for (uint64_t r = r0; r < r1; r++) {
			size_t id = o->idx ? o->idx[r] : group_row(o->rows, r);

			if (o->direct)
				o->ids[r - r0] = id;
			else
				group_entry_copy(o->job, o->g, id, o->ents +
						 (r - r0) * o->esize);
		}
	if (!o->direct && acc_check(o->job, o->g, err) < 0)
		return -1;
	if (o->lazy)
		return 0;
	if (o->pooled)
		pool_run(&o->pool, make_task, o);
	else
		make_task(o, 0, 1);
	return 0;
}

static bool row(void *ctx, uint64_t r, struct wval *cells)
{
	struct gout *o = ctx;

	if (o->lazy)
		make(o, (size_t)(r - o->r0));
	memcpy(cells, o->vals + (r - o->r0) * o->ncells,
	       o->ncells * sizeof(*cells));
	return true;
}

/* json: id -1 the keys, -2 sum's records, else the id-th cell of each
 * value column; of the block's rows */
static bool get(void *ctx, int id, uint64_t i, uint64_t j, struct wval *v)
{
	struct gout *o = ctx;

	if (id == -2)		/* a list of one value per key */
		*v = wv_u64(o->count[j - o->r0]);
	else if (id == -1)
		*v = o->vals[(i - o->r0) * o->ncells + j];
	else
		*v = o->vals[(i - o->r0) * o->ncells + o->nk + j * o->per +
			     (unsigned)id];
	return true;
}

/* The header's names and the npy fields' dtypes, a cell each. */
static int describe(const struct gout *o, const char *name, char ***names,
		    const char ***descr, struct gs_err *err)
{
	static const char *const count_names[] = { "count", "nan" };
	unsigned cells = o->nk + o->nv * o->per;
	enum gs_group_what what = o->job->group->what;

	*names = calloc(cells, sizeof(**names));
	*descr = calloc(cells, sizeof(**descr));
	if (!*names || !*descr)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (unsigned k = 0; k < o->nk; k++) {
		char buf[32];

		snprintf(buf, sizeof(buf), o->nk > 1 ? "key_%u" : "key", k);
		(*names)[k] = strdup(buf);
		(*descr)[k] = writer_descr(job_col_dtype(o->job,
					   o->job->group->key[k]).type);
	}
	for (unsigned j = 0; j < o->nv; j++)
		for (unsigned i = 0; i < o->per; i++) {
			unsigned at = o->nk + j * o->per + i;
			const char *n = o->per == 1 ? name :
					what == GROUP_COUNT ? count_names[i] :
					stat_names[i];
			char buf[64];

			if (o->nv > 1)
				snprintf(buf, sizeof(buf), "%s_%u", n, j);
			else
				snprintf(buf, sizeof(buf), "%s", n);
			(*names)[at] = strdup(buf);
			(*descr)[at] = o->per == 1 ?
				       writer_descr(val_type(o, j)) :
				       what == GROUP_COUNT ? "<u8" : "<f8";
		}
	for (unsigned i = 0; i < cells; i++)
		if (!(*names)[i])
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	return 0;
}

static int put(struct gout *o, uint64_t n, struct sbuf *b, struct gs_err *err)
{
	struct cli *c = o->c;
	enum gs_group_what what = c->job.group->what;
	bool reduce = c->command != &sum_command && o->per == 1;
	const char *name = reduce ? op_name(c->job.op) : "sum";
	unsigned cells = o->nk + o->nv * o->per, nf = 0;
	char **names = NULL;
	const char **descr = NULL;
	struct wfield fields[1 + NSTATS];
	int rc;

	if (describe(o, name, &names, &descr, err) < 0) {
		rc = -1;
		goto out;
	}
	fields[nf++] = (struct wfield){ .name = "keys", .depth = 2, .n = n,
					.m = o->nk, .get = get, .id = -1,
					.per_row = true };
	if (o->per == 1) {
		fields[nf++] = (struct wfield){ .name = "count", .depth = 1,
						.m = n, .get = get, .id = -2,
						.per_row = true };
		fields[nf++] = (struct wfield){ .name = "result", .depth = 2,
						.n = n, .m = o->nv, .get = get,
						.id = 0, .per_row = true };
	} else {
		for (unsigned i = 0; i < o->per; i++)
			fields[nf++] = (struct wfield){
				.name = what == GROUP_COUNT ?
					(i ? "nan" : "count") : stat_names[i],
				.depth = 2, .n = n, .m = o->nv, .get = get,
				.id = (int)i, .per_row = true };
	}
	const struct wresult r = {
		.ctx = o, .rows = n, .cells = cells, .row = row,
		.names = (const char *const *)names, .nnames = cells,
		.labels = cells, .cell_descr = descr, .ndim = 1,
		.dims = { n }, .op = reduce ? name : NULL, .fields = fields,
		.nfields = nf, .block = block, .block_rows = o->bn,
		.pool = o->pooled ? &o->pool : NULL,
	};

	rc = writer_put(c, &r, b, err);
out:
	for (unsigned i = 0; names && i < cells; i++)
		free(names[i]);
	free(names);
	free(descr);
	return rc;
}

/* The block's room: as many rows as about BLOCK_BYTES hold. */
static bool block_room(struct gout *o)
{
	enum gs_group_what what = o->job->group->what;
	size_t row = o->esize + o->ncells * sizeof(*o->vals) + sizeof(*o->count)
		     + (what == GROUP_STATS ? o->nv * NSTATS * sizeof(*o->cells)
		     : what == GROUP_SUM || what == GROUP_MINMAX ?
		     o->nv * sizeof(*o->res) : 0);

	o->bn = BLOCK_BYTES / row;
	o->bn = o->bn < BLOCK_MIN ? BLOCK_MIN : o->bn > BLOCK_MAX ? BLOCK_MAX
	      : o->bn;
	/* whole blocks: a block never straddles two takes */
	size_t want = o->pooled ? (size_t)o->pool.n * TAKE_SHARE : 0;
	size_t k = (want + o->bn - 1) / o->bn;

	k = k > TAKE_MAX / o->bn ? TAKE_MAX / o->bn : k;
	o->tn = (k ? k : 1) * o->bn;
	o->tn = o->n && o->n < o->tn ? (size_t)o->n : o->tn;
	o->ents = malloc(o->bn * o->esize);
	o->ids = malloc(o->tn * sizeof(*o->ids));
	o->vals = calloc(o->bn * o->ncells, sizeof(*o->vals));
	o->count = malloc(o->bn * sizeof(*o->count));
	o->res = what == GROUP_SUM || what == GROUP_MINMAX ?
		 malloc(o->bn * o->nv * sizeof(*o->res)) : NULL;
	o->cells = what == GROUP_STATS ?
		   malloc(o->bn * o->nv * NSTATS * sizeof(*o->cells)) : NULL;
	return o->ents && o->ids && o->vals && o->count &&
	       (o->res || !(what == GROUP_SUM || what == GROUP_MINMAX)) &&
	       (o->cells || what != GROUP_STATS);
}

int group_done(struct cli *c, void *acc, struct sbuf *b, struct gs_err *err)
{
	const struct gs_group *gr = c->job.group;
	struct gout o = { .c = c, .job = &c->job, .g = acc, .nk = gr->nkeys,
			  .nv = gr->nvals };
	int nt = c->eo.threads > 0 ? c->eo.threads : 1;
	uint64_t n;
	bool oom;
	int rc;

	if (acc_check(&c->job, acc, err) < 0)
		return -1;
	o.per = gr->what == GROUP_COUNT ? 2 : gr->what == GROUP_STATS ?
		NSTATS : 1;	/* sum, min, max: one result */
	o.ncells = o.nk + o.nv * o.per;
	o.esize = group_entry_size(&c->job);
	o.pooled = nt > 1 && pool_init(&o.pool, nt) == 0;
	o.rows = group_rows(&c->job, acc, o.pooled ? &o.pool : NULL, &n);
	o.n = n;
	/* a spilled table's final merge can fail: acc_check says how */
	if (!o.rows && acc_check(&c->job, acc, err) < 0) {
		rc = -1;
		goto out;
	}
	oom = !o.rows;
	o.direct = !oom && group_entries_direct(acc);
	/* a table's rows are read once each, a share of the block on each
	 * thread: each is made there as it is written, its cells still in
	 * the thread's cache (json reads a row once per field) */
	o.lazy = c->format == FMT_TEXT || c->format == FMT_TSV ||
		 c->format == FMT_CSV;
	o.tk = gr->text;	/* a run's over text, or a merge of its states */
	/* text keys: in their bytes' order, an index of every key (the
	 * strings are all in memory already) */
	if (o.tk && n && !oom) {
		if (!(o.idx = malloc(n * sizeof(*o.idx)))) {
			oom = true;
		} else {
			for (uint64_t r = 0; r < n; r++)
				o.idx[r] = group_row(o.rows, r);
			oom = group_sort_text(o.tk, o.idx, n, o.nk, key_id,
					      &o) < 0;
		}
	}
	if (oom || !block_room(&o))
		rc = gs_fail(err, GS_ERUNTIME, "", "out of memory");
	else
		rc = put(&o, n, b, err);
	if (rc == 0 && acc_check(&c->job, acc, err) < 0)
		rc = -1;	/* a spilled table read back short */
out:
	if (o.pooled)
		pool_release(&o.pool);
	free(o.idx);
	group_rows_free(o.rows);
	free(o.ents);
	free(o.ids);
	free(o.vals);
	free(o.count);
	free(o.res);
	free(o.cells);
	return rc;
}
