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
#include "results.h"
#include "stats_cells.h"
#include "textkeys.h"
#include "writer.h"

struct gout {
	struct cli *c;
	const struct gs_job *job;
	const struct group_acc *g;
	struct group_rows *rows;	/* the keys in order, a row at a time */
	size_t *idx;		/* text: the rows' entries in their bytes' order */
	unsigned nk, nv, per;	/* keys, values, cells per value */
	const struct textkeys *tk;	/* text: the keys are its strings */
	/* the row last made */
	size_t at;
	struct wval *vals;	/* nk + nv * per */
	struct result *res;	/* sum: [nv] */
	struct cell *cells;	/* stats: [nv][NSTATS] */
};

static enum gs_type val_type(const struct gout *o, unsigned j)
{
	return job_col_dtype(o->job, o->job->group->val[j]).type;
}

/* Row r's entry of the table. */
static size_t entry(const struct gout *o, uint64_t r)
{
	return o->idx ? o->idx[r] : group_row(o->rows, r);
}

/* Text: key column k of entry e is the id of a string of o->tk. */
static uint64_t key_id(const void *ctx, size_t e, unsigned k)
{
	const struct gout *o = ctx;
	enum gs_type t = job_col_dtype(o->job, o->job->group->key[k]).type;
	union gs_scalar v = group_key(o->job, o->g, e, k);

	return type_is_float(t) ? (uint64_t)v.f :
	       type_is_signed(t) ? (uint64_t)v.i : v.u;
}

static struct wval key_wval(const struct gout *o, size_t e, unsigned k)
{
	enum gs_type t = job_col_dtype(o->job, o->job->group->key[k]).type;
	union gs_scalar v = group_key(o->job, o->g, e, k);
	size_t n;

	if (o->tk)
		return (struct wval){ .kind = W_STR,
				      .s = textkeys_str(o->tk, key_id(o, e, k),
							&n) };

	if (type_is_float(t))
		return wv_f64(v.f);
	if (type_is_signed(t))
		return (struct wval){ .kind = W_I64, .i = v.i };
	return wv_u64(v.u);
}

/* Row r's cells into o->vals, once. */
static void make(struct gout *o, uint64_t r)
{
	struct wval *v = o->vals + o->nk;
	size_t e;

	if (o->at == r)
		return;
	e = entry(o, r);
	o->at = r;
	for (unsigned k = 0; k < o->nk; k++)
		o->vals[k] = key_wval(o, e, k);
	for (unsigned j = 0; j < o->nv; j++) {
		enum gs_group_what what = o->job->group->what;
		struct stats_col s;

		if (what == GROUP_SUM || what == GROUP_MINMAX) {
			struct gs_job cj = *o->job;
			struct red_col rc;
			struct gs_err err;

			cj.rec = NULL;
			cj.group = NULL;
			cj.columns = 1;
			cj.cmd = CMD_REDUCE;
			cj.dtype = (struct gs_dtype){ .type = val_type(o, j) };
			group_reduce(o->job, o->g, e, j, cj.op, &rc);
			(void)red_result(&cj, &rc, &o->res[j], &err);
			results_value(&o->res[j], &v[j]);
			continue;
		}
		group_stats(o->job, o->g, e, j, &s);
		if (what == GROUP_COUNT) {
			v[2 * j] = wv_u64(s.count);
			v[2 * j + 1] = wv_u64(s.nan);
			continue;
		}
		memset(&o->cells[j * NSTATS], 0, NSTATS * sizeof(*o->cells));
		column_cells(val_type(o, j), &s, &o->cells[j * NSTATS]);
		for (unsigned i = 0; i < NSTATS; i++)
			v[j * NSTATS + i] = cell_value(&o->cells[j * NSTATS + i]);
	}
}

static bool row(void *ctx, uint64_t r, struct wval *cells)
{
	struct gout *o = ctx;

	make(o, r);
	memcpy(cells, o->vals, (o->nk + (size_t)o->nv * o->per) *
	       sizeof(*cells));
	return true;
}

/* json: id -1 the keys, -2 sum's records, else the id-th cell of each
 * value column */
static bool get(void *ctx, int id, uint64_t i, uint64_t j, struct wval *v)
{
	struct gout *o = ctx;

	if (id == -2) {		/* a list of one value per key */
		*v = wv_u64(group_count(o->job, o->g, entry(o, j)));
		return true;
	}
	make(o, i);
	if (id == -1)
		*v = o->vals[j];
	else
		*v = o->vals[o->nk + j * o->per + (unsigned)id];
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
					.m = o->nk, .get = get, .id = -1 };
	if (o->per == 1) {
		fields[nf++] = (struct wfield){ .name = "count", .depth = 1,
						.m = n, .get = get, .id = -2 };
		fields[nf++] = (struct wfield){ .name = "result", .depth = 2,
						.n = n, .m = o->nv, .get = get,
						.id = 0 };
	} else {
		for (unsigned i = 0; i < o->per; i++)
			fields[nf++] = (struct wfield){
				.name = what == GROUP_COUNT ?
					(i ? "nan" : "count") : stat_names[i],
				.depth = 2, .n = n, .m = o->nv, .get = get,
				.id = (int)i };
	}
	const struct wresult r = {
		.ctx = o, .rows = n, .cells = cells, .row = row,
		.names = (const char *const *)names, .nnames = cells,
		.labels = cells, .cell_descr = descr, .ndim = 1,
		.dims = { n }, .op = reduce ? name : NULL, .fields = fields,
		.nfields = nf,
	};

	rc = writer_put(c, &r, b, err);
out:
	for (unsigned i = 0; names && i < cells; i++)
		free(names[i]);
	free(names);
	free(descr);
	return rc;
}

int group_done(struct cli *c, void *acc, struct sbuf *b, struct gs_err *err)
{
	const struct gs_group *gr = c->job.group;
	struct gout o = { .c = c, .job = &c->job, .g = acc, .nk = gr->nkeys,
			  .nv = gr->nvals, .at = SIZE_MAX };
	uint64_t n;
	bool oom;
	int rc;

	if (acc_check(&c->job, acc, err) < 0)
		return -1;
	o.per = gr->what == GROUP_COUNT ? 2 : gr->what == GROUP_STATS ?
		NSTATS : 1;	/* sum, min, max: one result */
	o.rows = group_rows(&c->job, acc, &n);
	/* a spilled table's final merge can fail: acc_check says how */
	if (!o.rows && acc_check(&c->job, acc, err) < 0)
		return -1;
	oom = !o.rows;
	o.tk = gr->text;	/* a run's over text, or a merge of its states */
	/* text keys: in their bytes' order, an index of every key (the
	 * strings are all in memory already) */
	if (o.tk && n && !oom) {
		if (!(o.idx = malloc(n * sizeof(*o.idx)))) {
			oom = true;
		} else {
			for (uint64_t r = 0; r < n; r++)
				o.idx[r] = group_row(o.rows, r);
			group_sort_text(o.tk, o.idx, n, o.nk, key_id, &o);
		}
	}
	o.vals = calloc(o.nk + (size_t)o.nv * o.per, sizeof(*o.vals));
	o.res = calloc(o.nv, sizeof(*o.res));
	o.cells = gr->what == GROUP_STATS ?
		  calloc((size_t)o.nv * NSTATS, sizeof(*o.cells)) : NULL;
	if (oom || !o.vals || !o.res ||
	    (gr->what == GROUP_STATS && !o.cells))
		rc = gs_fail(err, GS_ERUNTIME, "", "out of memory");
	else
		rc = put(&o, n, b, err);
	if (rc == 0 && acc_check(&c->job, acc, err) < 0)
		rc = -1;	/* a spilled table read back short */
	free(o.idx);
	group_rows_free(o.rows);
	free(o.vals);
	free(o.res);
	free(o.cells);
	return rc;
}
