/*
 * hist2d_out.c - hist2d's result in each format (writer.h): the table,
 * json and array that counts and hist2d_w_out.c's sums and densities share
 * (hist2d_write), the counts' image and its grey levels, and the
 * --xedges/--yedges files.
 *
 * Grey levels (0..maxval: 255 at 8 bits, 65535 at 16; --depth, else pgm
 * 16 and png 8): a zero count is black, 0; a non-zero count c is
 * 1 + round(t * (maxval - 1)), round half up, where
 * t = (f(c) - f(cmin)) / (f(cmax) - f(cmin)) over the non-zero counts'
 * cmin and cmax (t = 1 where those are equal), and f is --norm's:
 *   linear  f(c) = c
 *   log     f(c) = log(1 + c)  (log1p)
 *   eq      f(c) = the fraction of the non-zero bins whose count is <= c,
 *           datashader's eq_hist: the cumulative distribution of the
 *           non-zero counts, so that each grey level covers about as many
 *           bins as another
 * The image's columns are x bins, left to right; its rows y bins, the
 * highest at the top (y upward).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "acc.h"
#include "edges.h"
#include "hist2d.h"
#include "writer.h"

struct h2ctx {
	struct hist2d_table t;	/* first: the table's callbacks get it */
	/* images: the norm's f of the smallest and largest non-zero count,
	 * and for eq the non-zero counts, sorted */
	double f0, f1;
	uint64_t *sorted, nsorted;
};

/* ---- what counts and sums print alike ------------------------------------ */

/* Row r is bin (r / NY, r % NY): x bin, y bin, value. The rows come in
 * order: two divisions a row were half the time of an npy of 4096 x 4096. */
static bool row(void *ctx, uint64_t r, struct wval *cells)
{
	struct hist2d_table *t = ctx;
	uint64_t ny = t->a->ny;

	if (r != t->next) {
		t->ix = r / ny;
		t->iy = r % ny;
	}
	cells[0] = wv_u64(t->ix);
	cells[1] = wv_u64(t->iy);
	cells[2] = t->value(t, r);
	t->next = r + 1;
	if (++t->iy == ny) {
		t->iy = 0;
		t->ix++;
	}
	return !t->h->nonzero || !t->zero(t, r);
}

enum { J_BINS, J_RANGE, J_XEDGES, J_YEDGES, J_VALUES };

/* json: "range" is numpy's outer edges of each axis, [[x0, x1], [y0, y1]] */
static bool get(void *ctx, int id, uint64_t i, uint64_t j, struct wval *v)
{
	struct hist2d_table *t = ctx;
	const struct hist2d_state *h = t->h;

	switch (id) {
	case J_BINS:
		*v = wv_u64(h->n[j]);
		break;
	case J_RANGE:
		*v = wv_f64(h->edges[i][j ? h->n[i] : 0]);
		break;
	case J_XEDGES:
	case J_YEDGES:
		*v = wv_f64(h->edges[id == J_YEDGES][j]);
		break;
	default:
		*v = t->value(t, i * t->a->ny + j);
		break;
	}
	return true;
}

int hist2d_write(const struct cli *c, struct hist2d_table *t,
		 const struct hist2d_kind *k, struct sbuf *b,
		 struct gs_err *err)
{
	struct hist2d_acc *a = t->a;
	uint64_t nx = a->nx, ny = a->ny;
	const struct wfield fields[] = {
		{ .name = "bins", .depth = 1, .m = 2, .get = get, .id = J_BINS },
		{ .name = "range", .depth = 2, .n = 2, .m = 2, .get = get,
		  .id = J_RANGE },
		{ .name = "xedges", .depth = 1, .m = nx + 1, .get = get,
		  .id = J_XEDGES },
		{ .name = "yedges", .depth = 1, .m = ny + 1, .get = get,
		  .id = J_YEDGES },
		{ .name = k->json, .depth = 2, .n = nx, .m = ny, .get = get,
		  .id = J_VALUES },
		{ .name = "outside", .base = &a->outside },
		{ .name = "nan", .base = &a->nan },
	};
	const struct wresult r = {
		.ctx = t, .rows = nx * ny, .cells = 3, .array_from = 2,
		.row = row, .names = (const char *const[]){ "xbin", "ybin",
							   k->name },
		.nnames = 3, .labels = 2,
		.descr = k->descr, .ndim = 2, .dims = { nx, ny }, .u64 = k->u64,
		.fields = fields, .nfields = 7,
		.width = nx, .height = ny, .bits = k->bits, .pixel = k->pixel,
	};

	return writer_put(c, &r, b, err);
}

/* ---- counts -------------------------------------------------------------- */

static struct wval count_value(struct hist2d_table *t, uint64_t i)
{
	return wv_u64(t->a->counts[i]);
}

static bool count_zero(const struct hist2d_table *t, uint64_t i)
{
	return t->a->counts[i] == 0;
}

/* ---- images -------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* How many of the sorted non-zero counts are <= c. */
static uint64_t count_le(const struct h2ctx *t, uint64_t c)
{
	uint64_t lo = 0, hi = t->nsorted;

	while (lo < hi) {
		uint64_t m = lo + (hi - lo) / 2;

		if (t->sorted[m] <= c)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

static double norm_f(const struct h2ctx *t, uint64_t c)
{
	switch (t->t.h->norm) {
	case NORM_LINEAR:
		return (double)c;
	case NORM_LOG:
		return log1p((double)c);
	default:
		return (double)count_le(t, c) / (double)t->nsorted;
	}
}

/* The span of the non-zero counts under the norm (and eq's sorted
 * counts). 0, or -1 with err. */
static int image_init(struct h2ctx *t, struct gs_err *err)
{
	const struct hist2d_acc *a = t->t.a;
	uint64_t n = a->nx * a->ny, k = 0, cmin = 0, cmax = 0;

	t->sorted = NULL;
	t->nsorted = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t c = a->counts[i];

		if (!c)
			continue;
		cmin = !k || c < cmin ? c : cmin;
		cmax = c > cmax ? c : cmax;
		k++;
	}
	if (t->t.h->norm == NORM_EQ && k) {
		t->sorted = malloc(k * sizeof(*t->sorted));
		if (!t->sorted)
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		for (uint64_t i = 0; i < n; i++)
			if (a->counts[i])
				t->sorted[t->nsorted++] = a->counts[i];
		qsort(t->sorted, k, sizeof(*t->sorted), cmp_u64);
	}
	t->f0 = k ? norm_f(t, cmin) : 0;
	t->f1 = k ? norm_f(t, cmax) : 0;
	return 0;
}

/* Pixel (row, col): x bin col, y bin NY - 1 - row. */
static unsigned pixel(void *ctx, uint64_t r, uint64_t col, unsigned maxval)
{
	const struct h2ctx *t = ctx;
	const struct hist2d_acc *a = t->t.a;
	uint64_t c = a->counts[col * a->ny + (a->ny - 1 - r)];
	double f;

	if (!c)
		return 0;
	f = t->f1 > t->f0 ? (norm_f(t, c) - t->f0) / (t->f1 - t->f0) : 1;
	return 1 + (unsigned)floor(f * (maxval - 1) + 0.5);
}

/* ---- the result ---------------------------------------------------------- */

int hist2d_put(const struct cli *c, struct sbuf *b, struct hist2d_acc *a,
	       struct gs_err *err)
{
	const struct hist2d_state *h = c->state;
	struct h2ctx t = { .t = { .h = h, .a = a, .value = count_value,
				  .zero = count_zero } };
	bool image = c->format == FMT_PGM || c->format == FMT_PNG;
	const struct hist2d_kind k = {
		.name = "count", .json = "counts", .descr = "<u8",
		.u64 = a->counts, .pixel = image ? pixel : NULL,
		.bits = h->depth,
	};
	int rc;

	if (image && image_init(&t, err) < 0)
		return -1;
	rc = hist2d_write(c, &t.t, &k, b, err);
	free(t.sorted);
	return rc;
}

/* ---- --xedges, --yedges -------------------------------------------------- */

int hist2d_edges_check(const struct cli *c, const char *path,
		       struct gs_err *err)
{
	const struct hist2d_state *h = c->state;

	if (!path)
		return 0;
	if (strcmp(path, "-") == 0 ||
	    out_same_file(path, c->output && strcmp(c->output, "-") ? c->output
								    : NULL) ||
	    (h->edges_path[0] && h->edges_path[1] &&
	     out_same_file(h->edges_path[0], h->edges_path[1])))
		return gs_fail(err, GS_EUSAGE, "hist2d", "--xedges and --yedges "
			       "each need a file of their own, not the output");
	return out_check_inputs(path == h->edges_path[0] ? "--xedges"
							  : "--yedges",
				path, c->operands, c->noperands, err);
}

int hist2d_edges_open(struct cli *c, int k, struct out *o)
{
	const struct hist2d_state *h = c->state;

	/* linspace's type: float64 for a given range, the data's own */
	return edges_file_write(c, o, h->edges_path[k], c->job.data_range ?
				edges_float_descr(&c->job) : "<f8", h->edges[k],
				0, h->n[k]);
}
