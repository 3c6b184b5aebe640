/*
 * hist_weights.c - hist --weights COL and --density, and hist's result:
 * counts, weight sums or densities in each format (hist_weights.h).
 *
 * --weights COL: COL numbers the input's columns as -F does (or names one
 * of --header's). Without -F the values are every other column; with -F
 * they are its columns, and COL is added at the end of its list, so that
 * the job reads the weight last. Each bin holds the exact sum of its
 * values' weights (cpu_hist_w.c), printed rounded once to f64 for float
 * weights, or exactly as an integer for integer weights.
 *
 * --density is numpy's density=True, n / db / n.sum(): each bin's value
 * (count, or weight sum rounded once) over its width (numpy's np.diff of
 * the edges, in the edges' dtype; 1 for one bin per value) over the
 * column's total (its bins' exact sum rounded once), in double, as numpy
 * divides. For counts this is numpy's result bit for bit.
 */
#include <stdlib.h>
#include <string.h>
#include "edges.h"
#include "fields.h"
#include "headline.h"
#include "hist_weights.h"
#include "plot.h"
#include "writer.h"
#include "algorithm.h"

/* ---- options and plan --------------------------------------------------- */

static bool is_number(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

int histw_check(struct cli *c, const char *col, bool density,
		struct gs_err *err)
{
	uint64_t n;

	if (density && c->format == FMT_STATE)
		return gs_fail(err, GS_EUSAGE, c->cmd, "--density does not go "
			       "with -f state: a state holds the sums, merge "
			       "prints them");
	if (!col)
		return 0;
	if (c->job.algo != ALGO_DEFAULT && c->job.algo != ALGO_CPU)
		return gs_fail(err, GS_EUSAGE, c->cmd, "--weights has no "
			       "--algorithm of its own (the default, or cpu)");
	if (strchr(col, ','))
		return gs_fail(err, GS_EUSAGE, "", "--weights: one column, not "
			       "'%.60s'", col);
	if (is_number(col) && (parse_u64(col, &n) < 0 || n == 0))
		return gs_fail(err, GS_EUSAGE, "", "--weights: expected a column "
			       "number from 1 or a --header name, not '%s'", col);
	if (!is_number(col) && !c->header)
		return gs_fail(err, GS_EUSAGE, "", "--weights: '%.60s' is not a "
			       "column number (a name needs --header)", col);
	return c->fields ? fields_append(&c->fields, col, err) : 0;
}

/* Records of mixed types: the values' columns must be of one type, which
 * becomes the job's (the bins are that type's); the weight's may differ. */
static int value_type(struct cli *c, struct gs_err *err)
{
	const struct gs_record *r = c->job.rec;
	unsigned first = c->job.wcol == 0 ? 1 : 0;
	struct gs_dtype d = r->type[first];
	char t[200];

	for (unsigned k = 0; k < r->n; k++)
		if (k != c->job.wcol && (r->type[k].type != d.type ||
					 r->type[k].boolean != d.boolean))
			return gs_fail(err, GS_EUSAGE, "hist", "--weights: the "
				       "value columns of %s are of different "
				       "types (-F picks columns of one type)",
				       record_name(r, t, sizeof(t)));
	c->job.dtype = (struct gs_dtype){ .type = d.type,
					  .boolean = d.boolean };
	return 0;
}

/* The weight column, by name, of the header line. */
static int named_column(struct cli *c, const char *col, unsigned *k,
			struct gs_err *err)
{
	struct fields *f = NULL;
	unsigned *cols, n;
	int rc = fields_parse(col, &f, err);

	if (rc == 0)
		rc = fields_resolve(f, c->job.columns, c->info.head, "--weights",
				    &cols, &n, err);
	fields_free(f);
	if (rc < 0)
		return -1;
	*k = cols[0];
	free(cols);
	return 0;
}

int histw_plan(struct cli *c, const char *col, struct gs_err *err)
{
	struct gs_job *job = &c->job;
	char t[200];
	uint64_t n;

	if (!col && job->rec)	/* as the driver refuses other commands */
		return gs_fail(err, GS_EUSAGE, "hist", "records of mixed types "
			       "(%s): it reads one column of them (-F N), or "
			       "values and --weights",
			       record_name(job->rec, t, sizeof(t)));
	if (!col)
		return 0;
	if (job->columns < 2)
		return gs_fail(err, GS_EUSAGE, c->cmd, "--weights needs records "
			       "of a value and its weight (-c N, or -t T1,T2)");
	if (c->fields) {
		job->wcol = job->columns - 1;	/* histw_check put it last */
	} else if (is_number(col)) {
		if (parse_u64(col, &n) < 0 || n > job->columns)
			return gs_fail(err, GS_EUSAGE, c->cmd, "--weights: column "
				       "%s is past the record's %u values", col,
				       job->columns);
		job->wcol = (unsigned)n - 1;
	} else if (named_column(c, col, &job->wcol, err) < 0) {
		return -1;
	}
	job->weighted = true;
	/* each operand's opening would settle the job's type to the record's
	 * again, without value_type's */
	if (job->rec && c->per_file && c->noperands > 1)
		return gs_fail(err, GS_EUSAGE, "hist", "--per-file does not go "
			       "with --weights on records of mixed types yet");
	return job->rec ? value_type(c, err) : 0;
}

/* ---- the result --------------------------------------------------------- */

/* A table of each bin's count, weight sum or density (bin_value). */
struct wtable {
	const struct gs_job *job;
	struct hist_acc *h;
	const double *edges;	/* ranged bins' nbins + 1 */
	bool nonzero, density, wfloat, wsigned;
	unsigned labels;	/* value, or lo and hi */
	double *total;		/* --density: each column's, rounded once */
	char (*dec)[I128_DEC];	/* each column's digits of a wide sum */
	const char *descr;	/* the edges' dtype */
};

/* A 128-bit sum's words as a signed (or unsigned) integer. */
static __int128 i128_of(const uint64_t *w)
{
	return (__int128)(((unsigned __int128)w[1] << 64) | w[0]);
}

static unsigned __int128 u128_of(const uint64_t *w)
{
	return ((unsigned __int128)w[1] << 64) | w[0];
}

static double i128_double(const uint64_t *w, bool sign)
{
	return sign ? (double)i128_of(w) : (double)u128_of(w);
}

/* The decimal digits of a 128-bit value into s. */
static const char *dec128(char *s, const uint64_t *w, bool sign)
{
	bool neg = sign && i128_of(w) < 0;
	unsigned __int128 u = neg ? -u128_of(w) : u128_of(w);
	char tmp[I128_DEC];
	int n = 0, k = 0;

	do {
		tmp[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (neg)
		s[k++] = '-';
	while (n)
		s[k++] = tmp[--n];
	s[k] = '\0';
	return s;
}

/* A bin's value before --density: its count or its sum, rounded once. */
static double bin_double(const struct wtable *t, uint64_t col, uint64_t bin)
{
	if (!t->job->weighted)
		return (double)hist_counts(t->h, col)[bin];
	if (t->wfloat)
		return xsum_to_f64(&histw_xsum(t->h, col)[bin]);
	return i128_double(histw_isum(t->h, col) + 2 * bin, t->wsigned);
}

static bool bin_zero(const struct wtable *t, uint64_t col, uint64_t bin)
{
	const struct xsum *x;
	const uint64_t *w;

	if (!t->job->weighted)
		return hist_counts(t->h, col)[bin] == 0;
	if (t->wfloat) {
		x = &histw_xsum(t->h, col)[bin];
		return xsum_is_zero(x) && !x->nan && !x->pinf && !x->ninf;
	}
	w = histw_isum(t->h, col) + 2 * bin;
	return w[0] == 0 && w[1] == 0;
}

/* numpy's np.diff of the edges: in their dtype (f16, f32 or f64). */
static double bin_width(const struct wtable *t, uint64_t bin)
{
	double d;

	if (!t->job->ranged)
		return 1;
	d = t->edges[bin + 1] - t->edges[bin];
	if (strcmp(t->descr, "<f2") == 0)
		return f16_to_f32(hist_half_bits(d));
	if (strcmp(t->descr, "<f4") == 0)
		return (float)d;
	return d;
}

static struct wval bin_value(const struct wtable *t, uint64_t col,
			     uint64_t bin)
{
	if (t->density)
		return wv_f64(bin_double(t, col, bin) / bin_width(t, bin) /
			      t->total[col]);
	if (!t->job->weighted)
		return wv_u64(hist_counts(t->h, col)[bin]);
	if (t->wfloat)
		return wv_f64(bin_double(t, col, bin));
	return histw_i128_value(histw_isum(t->h, col) + 2 * bin, t->wsigned,
				t->dec[col]);
}

struct wval histw_i128_value(const uint64_t *w, bool sign, char *dec)
{
	if (!sign && w[1] == 0)
		return wv_u64(w[0]);
	if (sign && i128_of(w) == (int64_t)w[0])
		return (struct wval){ .kind = W_I64, .i = (int64_t)w[0] };
	return (struct wval){ .kind = W_DEC, .f = i128_double(w, sign),
			      .s = dec128(dec, w, sign) };
}

double histw_i128_double(const uint64_t *w, bool sign)
{
	return i128_double(w, sign);
}

/* Each column's total: its bins' exact sum, rounded once. */
static void totals(struct wtable *t)
{
	struct hist_acc *h = t->h;

	for (uint64_t k = 0; k < h->columns; k++) {
		struct xsum x;
		uint64_t s[2] = { 0, 0 };

		xsum_init(&x);
		for (uint64_t i = 0; i < h->nbins; i++) {
			const uint64_t *w = histw_isum(h, k) + 2 * i;

			if (!t->job->weighted) {
				xsum_add_u64(&x, hist_counts(h, k)[i]);
			} else if (t->wfloat) {
				xsum_merge(&x, &histw_xsum(h, k)[i]);
			} else {
				uint64_t lo = s[0] + w[0];

				s[1] += w[1] + (lo < s[0]);
				s[0] = lo;
			}
		}
		t->total[k] = t->job->weighted && !t->wfloat ?
			      i128_double(s, t->wsigned) : xsum_to_f64(&x);
	}
}

static bool kept(const struct wtable *t, uint64_t bin)
{
	if (!t->nonzero)
		return true;
	for (uint64_t k = 0; k < t->h->columns; k++)
		if (!bin_zero(t, k, bin))
			return true;
	return false;
}

/* A row per bin: its value, or its lo and hi edges, then each column's
 * count, sum or density. */
static bool row(void *ctx, uint64_t r, struct wval *cells)
{
	const struct wtable *t = ctx;

	if (!kept(t, r))
		return false;
	if (t->job->ranged) {
		cells[0] = wv_f64(t->edges[r]);
		cells[1] = wv_f64(t->edges[r + 1]);
	} else {
		cells[0] = (struct wval){ .kind = W_I64,
					  .i = hist_bin_value(t->job, r) };
	}
	for (uint64_t k = 0; k < t->h->columns; k++)
		cells[t->labels + k] = bin_value(t, k, r);
	return true;
}

enum { J_VALUES, J_SUMS, J_RANGE, J_EDGES };

/* json: the values and [column][bin] counts (sums, densities); ranged
 * bins: "range" is numpy's (first_edge, last_edge): --range widened where
 * LO == HI, or the data's range as numpy computes it in the bin type, the
 * outer edges. */
static bool get(void *ctx, int id, uint64_t i, uint64_t j, struct wval *v)
{
	const struct wtable *t = ctx;
	const struct gs_job *job = t->job;

	switch (id) {
	case J_VALUES:
		*v = (struct wval){ .kind = W_I64, .i = hist_bin_value(job, j) };
		return kept(t, j);
	case J_SUMS:
		*v = bin_value(t, i, j);
		return kept(t, j);
	case J_RANGE:
		*v = wv_f64(job->data_range ? t->edges[j ? t->h->nbins : 0]
					    : j ? job->hi : job->lo);
		return true;
	default:
		*v = wv_f64(t->edges[j]);
		return true;
	}
}

static const char *array_descr(const struct wtable *t)
{
	if (t->density || t->wfloat)
		return "<f8";
	return t->wsigned ? "<i8" : "<u8";
}

/* The table; json's values and counts, or for ranged bins bins, range,
 * edges, counts and what no bin holds; binary, npy: [bin][column], shape
 * (bins,) or (bins, columns). Sums and densities take the counts' places,
 * named for what they are. */
static int put(const struct cli *c, struct sbuf *b, struct wtable *t,
	       struct gs_err *err)
{
	struct hist_acc *h = t->h;
	uint64_t cols = h->columns, nb = h->nbins;
	const char *what = t->density ? "density" :
			   t->job->weighted ? "sum" : "count";
	const char *json = t->density ? "density" :
			   t->job->weighted ? "sums" : "counts";
	const struct wfield values[] = {
		{ .name = "values", .depth = 1, .m = nb, .get = get,
		  .id = J_VALUES },
		{ .name = json, .depth = 2, .n = cols, .m = nb, .get = get,
		  .id = J_SUMS },
	};
	const struct wfield ranged[] = {
		{ .name = "bins", .base = &h->nbins },
		{ .name = "range", .depth = 1, .m = 2, .get = get, .id = J_RANGE },
		{ .name = "edges", .depth = 1, .m = nb + 1, .get = get,
		  .id = J_EDGES },
		values[1],
		{ .name = "below", .depth = 1, .m = cols, .base = hist_below(h),
		  .stride = 8 },
		{ .name = "above", .depth = 1, .m = cols, .base = hist_above(h),
		  .stride = 8 },
		{ .name = "nan", .depth = 1, .m = cols, .base = hist_nan(h),
		  .stride = 8 },
	};
	const struct wresult r = {
		.ctx = t, .rows = nb, .cells = t->labels + (unsigned)cols,
		.array_from = t->labels, .row = row,
		.descr = array_descr(t), .ndim = cols == 1 ? 1 : 2,
		.dims = { nb, cols },
		.names = c->job.ranged ? (const char *const[]){ "lo", "hi", what }
				       : (const char *const[]){ "value", what },
		.nnames = t->labels + 1, .labels = t->labels,
		.fields = c->job.ranged ? ranged : values,
		.nfields = c->job.ranged ? 7 : 2,
	};

	return writer_put(c, &r, b, err);
}

int hist_put(const struct cli *c, struct sbuf *b, struct hist_acc *h,
	     const double *edges, bool nonzero, bool density,
	     struct gs_err *err)
{
	const struct gs_job *job = &c->job;
	struct wtable t = {
		.job = job, .h = h, .edges = edges, .nonzero = nonzero,
		.density = density,
		.wfloat = job->weighted && histw_float(job),
		.wsigned = job->weighted && histw_signed(job),
		.labels = job->ranged ? 2 : 1,
		.descr = edges_float_descr(job),
	};
	int rc;

	t.total = calloc(h->columns, sizeof(*t.total));
	t.dec = calloc(h->columns, sizeof(*t.dec));
	if (!t.total || !t.dec) {
		rc = gs_fail(err, GS_ERUNTIME, "", "out of memory");
	} else {
		if (density)
			totals(&t);
		rc = put(c, b, &t, err);
	}
	free(t.total);
	free(t.dec);
	return rc;
}
