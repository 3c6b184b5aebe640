/*
 * results.c - one row of results per column (sum, reduce, dot) in every
 * output format; see results.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "results.h"
#include "writer.h"

struct row {
	const char *name;
	const struct result *r;
	unsigned n;
};

void results_value(const struct result *r, struct wval *v)
{
	if (r->kind == RES_INT_DEC)
		*v = (struct wval){ .kind = W_DEC, .s = r->dec };
	else
		*v = wv_f64(r->kind == RES_F64 ? r->f : (double)NAN);
}

static bool row(void *ctx, uint64_t r, struct wval *cells)
{
	const struct row *x = ctx;

	for (unsigned i = 0; i < x->n; i++)
		results_value(&x->r[i], &cells[i]);
	return true;
}

static bool get(void *ctx, int id, uint64_t i, uint64_t j, struct wval *v)
{
	results_value(&((const struct row *)ctx)->r[j], v);
	return true;
}

/* binary, npy: the dtype of every column's result, or NULL where mixed
 * records' columns have results of different dtypes. */
static const char *results_descr(const struct gs_job *job)
{
	const char *d = writer_descr(job_col_dtype(job, 0).type);

	for (unsigned k = 1; job->rec && k < job->columns; k++)
		if (strcmp(writer_descr(job_col_dtype(job, k).type), d) != 0)
			return NULL;
	return d;
}

int results_format(struct cli *c, const char *name, const char *op,
		   const struct result *r, unsigned n, struct sbuf *b,
		   struct gs_err *err)
{
	struct row x = { name, r, n };
	const char *descr = results_descr(&c->job);
	const char **cell = NULL;
	int rc;

	/* mixed records whose results differ in dtype (an exact integer,
	 * a float's f8): one record of a field per column (writer.h) */
	if (!descr) {
		cell = calloc(n, sizeof(*cell));
		if (!cell)
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		for (unsigned k = 0; k < n; k++)
			cell[k] = writer_descr(job_col_dtype(&c->job, k).type);
	}
	const struct wfield fields[] = {
		{ .name = "count", .base = &c->records },
		{ .name = "result", .depth = 1, .m = n, .get = get },
	};
	const struct wresult res = {
		.ctx = &x, .rows = 1, .cells = n, .row = row, .names = &x.name,
		.nnames = 1,
		.descr = descr, .cell_descr = cell, .ndim = cell ? 0 : 1,
		.dims = { n }, .op = op, .fields = fields, .nfields = 2,
	};

	rc = writer_put(c, &res, b, err);
	free(cell);
	return rc;
}

int result_no_data(const struct cli *c, const char *what, struct gs_err *err)
{
	const char *where;

	if (c->operand_failed) {	/* no data: an operand reported already */
		*err = (struct gs_err){ .code = GS_ERUNTIME };
		return -1;
	}
	where = c->noperands > 1 ? "" : !c->noperands ||
		strcmp(c->operands[0], "-") == 0 ? "stdin" : c->operands[0];
	return gs_fail(err, GS_ERUNTIME, where, "no data: empty input has no %s",
		       what);
}
