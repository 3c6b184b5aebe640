/*
 * hist2d_w_out.c - hist2d --weights and --density: the result in each
 * format (writer.h), as hist2d_out.c writes counts, with each bin's sum or
 * density in place of its count.
 *
 * A sum is its bin's exact sum rounded once (f64) for float weights, so it
 * can differ from numpy's histogram2d(weights=w) in the last bits (numpy
 * adds the weights one by one in double), and exactly the integer for
 * integer weights (numpy converts them to double). A zero sum is +0, as
 * numpy's bincount starts each bin at 0.0.
 *
 * --density is numpy's histogramdd density=True: hist / dx[i] / dy[j] / s,
 * in double, in that order; dx and dy are np.diff of each axis's edges in
 * the edges' dtype (f8 for a given range, the data's f2 or f4 for its own
 * range), s the total of the bins (their exact sum rounded once; for
 * counts numpy's sum, below 2^53). For counts this is numpy's result bit
 * for bit.
 *
 * Images are refused before the run (cmd_hist2d.c): a grey level is drawn
 * from a count, and weights may be negative, NaN or of any scale.
 */
#include <stdlib.h>
#include <string.h>
#include "acc.h"
#include "edges.h"
#include "hist2d.h"
#include "hist_weights.h"
#include "writer.h"

struct w2ctx {
	const struct hist2d_state *h;
	struct hist2d_acc *a;
	bool weighted, wfloat, wsigned, density;
	double *width[2];	/* --density: each axis's bin widths */
	double total;
	char dec[I128_DEC];	/* a wide sum's digits */
	uint64_t next, ix, iy;	/* the table's next row and its bins */
};

/* A bin's value before --density: its count or its sum, rounded once. */
static double bin_double(const struct w2ctx *t, uint64_t i)
{
	if (!t->weighted)
		return (double)t->a->counts[i];
	if (t->wfloat) {	/* + 0.0: a zero sum is +0, as numpy's */
		uint64_t u = ksum_round(&hist2dw_ksum(t->a)[i], XF_F64);
		double d;

		memcpy(&d, &u, sizeof(d));
		return d + 0.0;
	}
	return histw_i128_double(hist2dw_isum(t->a) + 2 * i, t->wsigned);
}

static bool bin_zero(const struct w2ctx *t, uint64_t i)
{
	const struct ksum *k;
	const uint64_t *w;

	if (!t->weighted)
		return t->a->counts[i] == 0;
	if (t->wfloat) {
		k = &hist2dw_ksum(t->a)[i];
		return !k->wide && !k->acc &&
		       !(k->flags & (KS_NAN | KS_PINF | KS_NINF));
	}
	w = hist2dw_isum(t->a) + 2 * i;
	return w[0] == 0 && w[1] == 0;
}

static struct wval bin_value(struct w2ctx *t, uint64_t i)
{
	if (t->density)
		return wv_f64(bin_double(t, i) / t->width[0][i / t->a->ny] /
			      t->width[1][i % t->a->ny] / t->total);
	if (!t->weighted)
		return wv_u64(t->a->counts[i]);
	if (t->wfloat)
		return wv_f64(bin_double(t, i));
	return histw_i128_value(hist2dw_isum(t->a) + 2 * i, t->wsigned,
				t->dec);
}

/* Row r is bin (r / NY, r % NY): x bin, y bin, sum. */
static bool row(void *ctx, uint64_t r, struct wval *cells)
{
	struct w2ctx *t = ctx;
	uint64_t ny = t->a->ny;

	if (r != t->next) {
		t->ix = r / ny;
		t->iy = r % ny;
	}
	cells[0] = wv_u64(t->ix);
	cells[1] = wv_u64(t->iy);
	cells[2] = bin_value(t, r);
	t->next = r + 1;
	if (++t->iy == ny) {
		t->iy = 0;
		t->ix++;
	}
	return !t->h->nonzero || !bin_zero(t, r);
}

enum { J_BINS, J_RANGE, J_XEDGES, J_YEDGES, J_SUMS };

static bool get(void *ctx, int id, uint64_t i, uint64_t j, struct wval *v)
{
	struct w2ctx *t = ctx;
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
		*v = bin_value(t, i * t->a->ny + j);
		break;
	}
	return true;
}

/* numpy's np.diff of axis k's edges, in their dtype. */
static void widths(const struct cli *c, struct w2ctx *t, int k)
{
	const char *descr = c->job.data_range ? edges_float_descr(&c->job)
					      : "<f8";
	const double *e = t->h->edges[k];

	for (uint64_t i = 0; i < t->h->n[k]; i++) {
		double d = e[i + 1] - e[i];

		if (strcmp(descr, "<f2") == 0)
			d = f16_to_f32(hist_half_bits(d));
		else if (strcmp(descr, "<f4") == 0)
			d = (float)d;
		t->width[k][i] = d;
	}
}

/* The bins' total, their exact sum rounded once. */
static double total(const struct w2ctx *t)
{
	uint64_t n = t->a->nx * t->a->ny, s[2] = { 0, 0 };
	struct xsum x, y;

	if (t->weighted && !t->wfloat) {
		for (uint64_t i = 0; i < n; i++) {
			const uint64_t *w = hist2dw_isum(t->a) + 2 * i;
			uint64_t lo = s[0] + w[0];

			s[1] += w[1] + (lo < s[0]);
			s[0] = lo;
		}
		return histw_i128_double(s, t->wsigned);
	}
	xsum_init(&x);
	for (uint64_t i = 0; i < n; i++) {
		if (!t->weighted) {
			xsum_add_u64(&x, t->a->counts[i]);
			continue;
		}
		const struct ksum *k = &hist2dw_ksum(t->a)[i];

		if (k->wide || (k->flags & (KS_NAN | KS_PINF | KS_NINF))) {
			ksum_to_xsum(k, &y);
			xsum_merge(&x, &y);
		} else if (k->acc) {
			xsum_add_i128(&x, k->acc, k->base);
		}
	}
	x.negzero = false;
	return xsum_to_f64(&x);
}

static int put(const struct cli *c, struct sbuf *b, struct w2ctx *t,
	       struct gs_err *err)
{
	struct hist2d_acc *a = t->a;
	uint64_t nx = a->nx, ny = a->ny;
	const char *what = t->density ? "density" : "sum";
	const struct wfield fields[] = {
		{ .name = "bins", .depth = 1, .m = 2, .get = get, .id = J_BINS },
		{ .name = "range", .depth = 2, .n = 2, .m = 2, .get = get,
		  .id = J_RANGE },
		{ .name = "xedges", .depth = 1, .m = nx + 1, .get = get,
		  .id = J_XEDGES },
		{ .name = "yedges", .depth = 1, .m = ny + 1, .get = get,
		  .id = J_YEDGES },
		{ .name = t->density ? "density" : "sums", .depth = 2, .n = nx,
		  .m = ny, .get = get, .id = J_SUMS },
		{ .name = "outside", .base = &a->outside },
		{ .name = "nan", .base = &a->nan },
	};
	const struct wresult r = {
		.ctx = t, .rows = nx * ny, .cells = 3, .array_from = 2,
		.row = row, .names = (const char *const[]){ "xbin", "ybin",
							   what },
		.nnames = 3, .labels = 2,
		.descr = t->density || t->wfloat ? "<f8" :
			 t->wsigned ? "<i8" : "<u8",
		.ndim = 2, .dims = { nx, ny },
		.fields = fields, .nfields = 7,
	};

	return writer_put(c, &r, b, err);
}

int hist2dw_put(const struct cli *c, struct sbuf *b, struct hist2d_acc *a,
		struct gs_err *err)
{
	const struct hist2d_state *h = c->state;
	const struct gs_job *job = &c->job;
	struct w2ctx t = {
		.h = h, .a = a, .weighted = job->weighted,
		.wfloat = job->weighted && type_is_float(job->dtype.type),
		.wsigned = job->weighted && type_is_signed(job->dtype.type) &&
			   !job->dtype.boolean,
		.density = h->density,
	};
	int rc;

	if (t.density) {
		t.width[0] = malloc(a->nx * sizeof(double));
		t.width[1] = malloc(a->ny * sizeof(double));
		if (!t.width[0] || !t.width[1]) {
			free(t.width[0]);
			free(t.width[1]);
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		}
		widths(c, &t, 0);
		widths(c, &t, 1);
		t.total = total(&t);
	}
	rc = put(c, b, &t, err);
	free(t.width[0]);
	free(t.width[1]);
	return rc;
}
