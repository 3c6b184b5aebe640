/*
 * cmd_mode.c - `gpustat mode`: the most frequent value(s) of each column
 * and how often they occur, exactly (what collections.Counter counts).
 *
 * 8- and 16-bit types: one histogram of every value (the select pass of
 * cpu_select.c over the whole key). Wider types: a hash table of the
 * distinct values of each column (cpu_select.c's mode pass) of at most
 * MODE_SLOTS slots in all (16 bytes each), sized down to the input where its
 * length is known; a column of more distinct values than 3/4 of its slots
 * is refused with an error that says so, never answered approximately.
 *
 * Ties: every value of the highest count, in ascending order. NaNs are
 * counted and left out (a note says how many); -0 and +0 are one value,
 * printed as 0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "group.h"
#include "gvals_out.h"
#include "results.h"
#include "writer.h"
#include "select.h"

#define MODE_SLOTS ((uint64_t)1 << 24)	/* 256 MiB per accumulator */
#define MODE_MIN_SLOTS 1024

/* Each column's result: the count of its mode and the modes' keys. */
struct mode_result {
	uint64_t n, nan, best;
	uint64_t *keys, nkeys;
};

struct mode_state {
	struct select_plan plan;
	struct mode_result *res;	/* [column] */
	uint64_t nan_total;
};

static int mode_check(struct cli *c, struct gs_err *err)
{
	if (c->format == FMT_STATE)
		return gs_fail(err, GS_EUSAGE, "mode", "has no -f state; run it "
			       "over the whole input");
	return group_check(c, err);
}

static int mode_option(struct cli *c, int id, const char *arg,
		       struct gs_err *err)
{
	(void)id;		/* --by, its one option */
	return group_option(c, arg, err);
}

uint64_t *mode_nan_total(struct cli *c)
{
	return &((struct mode_state *)c->state)->nan_total;
}

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* The pass: one histogram of every key, or the hash tables, their slots
 * enough for every element where the input's length is known. */
static int mode_plan(struct cli *c, const struct pass **passes,
		     struct gs_err *err);

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The keys of count best among (key, count) pairs: histogram bins (keys
 * in order) or hash slots (sorted after). */
static int collect(struct mode_result *r, const struct mode_slot *slots,
		   const uint64_t *bins, uint64_t n, struct gs_err *err)
{
	r->best = 0;
	r->nkeys = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t cnt = bins ? bins[i] : slots[i].count;

		if (cnt > r->best) {
			r->best = cnt;
			r->nkeys = 0;
		}
		if (cnt && cnt == r->best)
			r->nkeys++;
	}
	free(r->keys);
	r->keys = malloc((r->nkeys ? r->nkeys : 1) * sizeof(*r->keys));
	if (!r->keys)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	r->nkeys = 0;
	for (uint64_t i = 0; i < n && r->best; i++)
		if ((bins ? bins[i] : slots[i].count) == r->best)
			r->keys[r->nkeys++] = bins ? i : slots[i].key;
	if (!bins)
		qsort(r->keys, r->nkeys, sizeof(*r->keys), cmp_u64);
	return 0;
}

static int column_result(struct cli *c, void *acc, unsigned k,
			 struct mode_result *r, struct gs_err *err)
{
	const struct gs_job *job = &c->job;

	if (job->cmd == CMD_SELECT) {
		r->n = select_count(acc)[k];
		r->nan = select_nan(acc, job->columns)[k];
		return collect(r, NULL, select_hist(acc, job, k),
			       (uint64_t)1 << job->select->digit_bits, err);
	}
	struct mode_col *mc = mode_col(acc, job, k);

	r->n = mc->count;
	r->nan = mc->nan;
	if (mc->full)
		return gs_fail(err, GS_ERUNTIME, "mode", "column %u has more "
			       "distinct values than mode holds (%llu); mode "
			       "of %s data counts each distinct value in memory",
			       k, (unsigned long long)(job->select->cap /
						       MODE_LOAD_DEN * MODE_LOAD_NUM),
			       type_name(job->dtype.type));
	return collect(r, mode_slots(mc), NULL, job->select->cap, err);
}

/* ---- output --------------------------------------------------------------- */

struct wval mode_value(enum gs_type t, uint64_t key)
{
	int64_t i;
	uint64_t u;
	double f = select_key_value(t, key, &i, &u);

	if (type_is_float(t))
		return wv_f64(f);
	if (type_is_signed(t))
		return (struct wval){ .kind = W_I64, .i = i };
	return wv_u64(u);
}

/* The rows, asked for in order: where the next one is. */
struct table {
	const struct mode_result *res;
	enum gs_type type;
	unsigned k;		/* its column */
	uint64_t i;		/* and its mode in that column */
};

/* A row per mode: column, value, count; a column of no value: nan 0. */
static bool row(void *ctx, uint64_t r, struct wval *cells)
{
	struct table *t = ctx;
	const struct mode_result *m;

	if (r == 0)
		t->k = 0, t->i = 0;
	m = &t->res[t->k];
	cells[0] = wv_u64(t->k);
	cells[1] = m->nkeys ? mode_value(t->type, m->keys[t->i]) : wv_f64(NAN);
	cells[2] = wv_u64(m->best);
	if (++t->i >= m->nkeys)
		t->k++, t->i = 0;
	return true;
}

/* json's "mode": each column's list of modes */
static bool get(void *ctx, int id, uint64_t i, uint64_t j, struct wval *v)
{
	const struct table *t = ctx;

	*v = mode_value(t->type, t->res[i].keys[j]);
	return true;
}

static uint64_t len(void *ctx, uint64_t i)
{
	return ((const struct table *)ctx)->res[i].nkeys;
}

/* text, tsv, csv: a line per mode, "column" first with -c > 1 (a tie of
 * a million values is a million short lines, not one of megabytes);
 * binary, npy: f64 rows (column, value, count), shape (rows, 3). */
static int put(struct cli *c, const struct mode_result *res, struct sbuf *b,
	       struct gs_err *err)
{
	unsigned cols = c->job.columns, from = cols == 1;
	struct table t = { res, c->job.dtype.type, 0, 0 };
	uint64_t rows = 0;

	for (unsigned k = 0; k < cols; k++)
		rows += res[k].nkeys ? res[k].nkeys : 1;
	const struct wfield fields[] = {
		{ .name = "mode", .depth = 2, .n = cols, .get = get, .len = len },
		{ .name = "mode_count", .depth = 1, .m = cols,
		  .base = &res[0].best, .stride = sizeof(*res) },
		{ .name = "count", .depth = 1, .m = cols, .base = &res[0].n,
		  .stride = sizeof(*res) },
		{ .name = "nan", .depth = 1, .m = cols, .base = &res[0].nan,
		  .stride = sizeof(*res) },
	};
	const struct wresult r = {
		.ctx = &t, .rows = rows, .cells = 3, .text_from = from,
		.table_from = from, .row = row, .descr = "<f8",
		.ndim = 2, .dims = { rows, 3 }, .fields = fields, .nfields = 4,
		.names = (const char *const[]){ "column", "value", "count" },
		.nnames = 3, .labels = 3,
	};

	return writer_put(c, &r, b, err);
}

static int mode_done(struct cli *c, void *acc, struct sbuf *b,
		     struct gs_err *err)
{
	struct mode_state *s = c->state;
	unsigned cols = c->job.columns;

	if (c->records == 0)
		return result_no_data(c, "mode", err);
	if (!s->res && !(s->res = calloc(cols, sizeof(*s->res))))
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	s->nan_total = 0;
	for (unsigned k = 0; k < cols; k++) {
		if (column_result(c, acc, k, &s->res[k], err) < 0)
			return -1;
		s->nan_total += s->res[k].nan;
	}
	return put(c, s->res, b, err);
}

static int mode_finish(struct cli *c, const struct sbuf *b)
{
	struct mode_state *s = c->state;
	int rc = cli_finish(c, b);

	if (rc == 0 && s->nan_total && c->format != FMT_JSON)
		cli_note(c, "note: %llu NaN%s left out", (unsigned long long)s->nan_total,
			 s->nan_total == 1 ? "" : "s");
	return rc;
}

static const struct pass histogram_pass[] = {
	{ .op = CMD_SELECT, .done = mode_done },
	{ .done = NULL },
};
static const struct pass table_pass[] = {
	{ .op = CMD_MODECOUNT, .done = mode_done },
	{ .done = NULL },
};

static int mode_plan(struct cli *c, const struct pass **passes,
		     struct gs_err *err)
{
	struct mode_state *s = c->state;
	struct select_plan *pl = &s->plan;
	unsigned bits = select_key_bits(c->job.dtype.type);
	uint64_t cols = c->job.columns, cap = MODE_SLOTS / pow2_at_least(cols);

	if (c->by)
		return gvals_plan(c, passes, err);
	memset(pl, 0, sizeof(*pl));
	c->job.select = pl;
	pl->key_bits = bits;
	if (bits <= 16) {
		pl->digit_bits = bits;
		pl->first = true;
		pl->nhist = cols;
		*passes = histogram_pass;
		return 0;
	}
	if (c->input_bytes >= 0) {
		uint64_t per_col = (uint64_t)c->input_bytes / job_record_size(&c->job);
		uint64_t need = pow2_at_least(per_col / MODE_LOAD_NUM * MODE_LOAD_DEN + 2);

		cap = need < cap ? need : cap;
	}
	pl->cap = cap < MODE_MIN_SLOTS ? MODE_MIN_SLOTS : cap;
	*passes = table_pass;
	return 0;
}

const struct command mode_command = {
	.name = "mode",
	.summary = "the most frequent value(s) and their count",
	.usage = "[OPTION]... [FILE]...",
	.about = "The most frequent value of all elements (per column with -c) "
		 "and how often\nit occurs, exactly as collections.Counter "
		 "counts: one line per mode, the\nvalue then its count (the "
		 "column first with -c 2 or more), every\nvalue of a tie in "
		 "ascending order. NaNs are counted and left out (a note says\n"
		 "how many); "
		 "-0 and +0 are one value, printed 0; a column of NaNs only: "
		 "\"nan 0\";\nno data: an error. 8- and 16-bit types: one "
		 "histogram; wider types hold\neach distinct value in memory, "
		 "up to 12.5 million per run (more is an\nerror). --by COLS: the "
		 "same per key, its cells first (every key's values\nheld in "
		 "memory, sorted). No -f state.",
	.examples = "gpustat mode -t u8 photo.raw\n"
		    "gpustat mode -t i32 -c 2 -f json pairs.i32\n"
		    "gpustat mode --by 1 -t u16,u8 labels.bin",
	.opts = group_opts,
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = "text tsv csv json binary npy",
	.formats_help = "text (default), tsv, csv, json, binary, npy",
	.state_size = sizeof(struct mode_state),
	.option = mode_option,
	.check = mode_check,
	.plan = mode_plan,
	.passes = histogram_pass,
	.finish = mode_finish,
};
