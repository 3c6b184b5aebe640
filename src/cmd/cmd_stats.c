/*
 * cmd_stats.c - `gpustat stats`: count, nan, min, max, sum, mean, pvar,
 * svar, pstdev, sstdev per column. CPU kernels: cpu_stats.c. Every float
 * statistic is rounded once from exact sums (xsum_mean, xsum_var).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "command.h"
#include "group.h"
#include "kstats.h"
#include "numfmt.h"
#include "stats_cells.h"
#include "writer.h"

const char *const stat_names[NSTATS] = {
	"count", "nan", "min", "max", "sum", "mean", "pvar", "svar", "pstdev",
	"sstdev",
};

static void cell_double(struct cell *c, double v)
{
	c->f = v;
	c->is_int = false;
}

static double f64_of(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* without printf: --by writes these for every key */
static void cell_u64(struct cell *c, uint64_t v)
{
	fmt_u64(c->text, v);
	c->f = (double)v;
	c->is_int = true;
}

static void cell_i64(struct cell *c, int64_t v)
{
	c->text[0] = '-';
	fmt_u64(c->text + (v < 0), v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	c->f = (double)v;
	c->is_int = true;
}

static void cell_scalar(struct cell *c, enum gs_type t, union gs_scalar v)
{
	if (type_is_float(t))
		cell_double(c, v.f);
	else if (type_is_signed(t))
		cell_i64(c, v.i);
	else
		cell_u64(c, v.u);
}

/* The sum line: exact integer for integer types. */
static void cell_sum(struct cell *c, enum gs_type t, const struct xsum *s)
{
	char dec[XSUM_DEC_MAX];

	cell_double(c, xsum_to_f64(s));
	if (!type_is_float(t) && xsum_to_dec(s, dec) &&
	    strlen(dec) < sizeof(c->text)) {
		memcpy(c->text, dec, strlen(dec) + 1);
		c->is_int = true;
	}
}

struct wval cell_value(const struct cell *c)
{
	if (c->none)
		return (struct wval){ .kind = W_NONE };
	if (c->is_int)
		return (struct wval){ .kind = W_DEC, .s = c->text, .f = c->f };
	return wv_f64(c->f);
}

void column_cells(enum gs_type t, const struct stats_col *s,
		  struct cell *cells /* [NSTATS] */)
{
	uint64_t n = s->count - s->nan;

	cell_u64(&cells[0], s->count);
	cell_u64(&cells[1], s->nan);
	cell_sum(&cells[4], t, &s->s1);
	if (n == 0) {
		for (int i = 2; i < NSTATS; i++)
			if (i != 4)
				cell_double(&cells[i], NAN);
		/* numpy: no min of no data (an error); nanmin of NaNs alone is
		 * nan, as the mean of no data is */
		cells[2].none = cells[3].none = s->count == 0;
		return;
	}
	cell_scalar(&cells[2], t, s->min);
	cell_scalar(&cells[3], t, s->max);

	bool nan = s->s1.nan || (s->s1.pinf && s->s1.ninf);

	if (nan || s->s1.pinf || s->s1.ninf) {
		/* inf - inf in the deviations: the spread is undefined */
		cell_double(&cells[5], nan ? NAN : s->s1.pinf ? INFINITY : -INFINITY);
		for (int i = 6; i < NSTATS; i++)
			cell_double(&cells[i], NAN);
		return;
	}
	double pvar, svar, psd, ssd;

	xsum_var(&s->s1, &s->s2, n, &pvar, &svar, &psd, &ssd);
	cell_double(&cells[5], xsum_mean(&s->s1, n));
	cell_double(&cells[6], pvar);
	cell_double(&cells[7], svar);
	cell_double(&cells[8], psd);
	cell_double(&cells[9], ssd);
}

bool column_cells_compact(enum gs_type t, const struct stats_col *s,
			  const struct ksum *s1, const struct ksum *s2,
			  struct cell *cells /* [NSTATS] */)
{
	uint64_t n = s->count - s->nan;
	double mean, pvar, svar, psd, ssd;

	if (!n || !ksum_stats(s1, s2, n, &mean, &pvar, &svar, &psd, &ssd))
		return false;
	if (!type_is_float(t) && !ksum_to_dec(s1, cells[4].text))
		return false;
	cell_double(&cells[4], f64_of(ksum_round(s1, XF_F64)));
	cells[4].is_int = !type_is_float(t);
	cell_u64(&cells[0], s->count);
	cell_u64(&cells[1], s->nan);
	cell_scalar(&cells[2], t, s->min);
	cell_scalar(&cells[3], t, s->max);
	cell_double(&cells[5], mean);
	cell_double(&cells[6], pvar);
	cell_double(&cells[7], svar);
	cell_double(&cells[8], psd);
	cell_double(&cells[9], ssd);
	return true;
}

struct table {
	const struct cell *cells;	/* [column][stat] */
	unsigned cols;
};

/* A row per statistic, its name then its value in each column. */
static bool row(void *ctx, uint64_t r, struct wval *cells)
{
	const struct table *t = ctx;

	cells[0] = (struct wval){ .kind = W_STR, .s = stat_names[r] };
	for (unsigned k = 0; k < t->cols; k++)
		cells[1 + k] = cell_value(&t->cells[k * NSTATS + r]);
	return true;
}

/* json: a list per statistic, its value in each column */
static bool get(void *ctx, int id, uint64_t i, uint64_t j, struct wval *v)
{
	*v = cell_value(&((const struct table *)ctx)->cells[j * NSTATS + id]);
	return true;
}

/* The cells printed from the accumulators count in their limit. */
static uint64_t stats_extra(const struct cli *c)
{
	return (uint64_t)c->job.columns * NSTATS * sizeof(struct cell);
}

static int stats_done(struct cli *c, void *acc, struct sbuf *b,
		      struct gs_err *err)
{
	const struct stats_col *cols = acc;
	unsigned n = c->job.columns;
	struct cell *cells;

	/* as numpy: the mean and variances of no data are nan, with a
	 * warning; min and max have no value (--per-file: the operand's
	 * empty fields say it, and stderr is the one run's) */
	if (c->records == 0 && !c->per_file && !c->operand_failed)
		cli_note(c, "no data: min and max have no value; mean and variances are nan");
	cells = calloc((size_t)n * NSTATS, sizeof(*cells));
	if (!cells)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (unsigned k = 0; k < n; k++)
		column_cells(job_col_dtype(&c->job, k).type, &cols[k],
			     &cells[k * NSTATS]);
	struct table t = { cells, n };
	struct wfield fields[NSTATS];
	const struct wresult r = {
		.ctx = &t, .rows = NSTATS, .cells = 1 + n, .text_from = 0,
		.array_from = 1, .row = row, .descr = "<f8",
		.ndim = n == 1 ? 1 : 2, .dims = { NSTATS, n },
		.names = (const char *const[]){ "stat", "value" }, .nnames = 2,
		.labels = 1, .fields = fields, .nfields = NSTATS,
	};

	for (int s = 0; s < NSTATS; s++)
		fields[s] = (struct wfield){ .name = stat_names[s], .depth = 1,
					     .m = n, .get = get, .id = s };
	int rc = writer_put(c, &r, b, err);

	free(cells);
	return rc;
}

static int stats_option(struct cli *c, int id, const char *arg,
			 struct gs_err *err)
{
	(void)id;		/* --by, its one option */
	return group_option(c, arg, err);
}

static int stats_plan(struct cli *c, const struct pass **passes,
		       struct gs_err *err)
{
	return group_plan(c, GROUP_STATS, passes, err);
}

static const struct pass stats_passes[] = {
	{ .op = CMD_STATS, .extra = stats_extra, .done = stats_done },
	{ .done = NULL },
};

const struct command stats_command = {
	.name = "stats",
	.summary = "count, nan, min, max, sum, mean, variances, stdevs",
	.usage = "[OPTION]... [FILE]...",
	.about = "Count, NaN count, min, max, sum, mean, population and sample "
		 "variance and\nstandard deviation of all elements (per column "
		 "with -c). NaNs are counted\nand left out of the other "
		 "statistics; every float result is rounded once\nfrom the "
		 "exact value.",
	.examples = "gpustat stats data.f32\n"
		    "zstd -dc frames.u16.zst | gpustat stats -t u16 -c 4\n"
		    "gpustat stats -f json samples.npy",
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = RESULT_FORMATS,
	.formats_help = RESULT_FORMATS_HELP,
	.opts = group_opts,
	.option = stats_option,
	.check = group_check,
	.plan = stats_plan,
	.passes = stats_passes,
	.mixed = true,
};
