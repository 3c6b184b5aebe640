/*
 * hist2d_w_out.c - hist2d --weights and --density: each bin's sum or
 * density, which hist2d_out.c's hist2d_write prints in each format
 * (writer.h) in place of the counts.
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
	struct hist2d_table t;	/* first: the table's callbacks get it */
	bool weighted, wfloat, wsigned, density;
	double *width[2];	/* --density: each axis's bin widths */
	double total;
	char dec[I128_DEC];	/* a wide sum's digits */
};

/* A bin's value before --density: its count or its sum, rounded once. */
static double bin_double(const struct w2ctx *t, uint64_t i)
{
	if (!t->weighted)
		return (double)t->t.a->counts[i];
	if (t->wfloat) {	/* + 0.0: a zero sum is +0, as numpy's */
		uint64_t u = ksum_round(&hist2dw_ksum(t->t.a)[i], XF_F64);
		double d;

		memcpy(&d, &u, sizeof(d));
		return d + 0.0;
	}
	return histw_i128_double(hist2dw_isum(t->t.a) + 2 * i, t->wsigned);
}

static bool bin_zero(const struct hist2d_table *tt, uint64_t i)
{
	const struct w2ctx *t = (const struct w2ctx *)tt;
	const struct ksum *k;
	const uint64_t *w;

	if (!t->weighted)
		return t->t.a->counts[i] == 0;
	if (t->wfloat) {
		k = &hist2dw_ksum(t->t.a)[i];
		return !k->wide && !k->acc &&
		       !(k->flags & (KS_NAN | KS_PINF | KS_NINF));
	}
	w = hist2dw_isum(t->t.a) + 2 * i;
	return w[0] == 0 && w[1] == 0;
}

static struct wval bin_value(struct hist2d_table *tt, uint64_t i)
{
	struct w2ctx *t = (struct w2ctx *)tt;

	if (t->density)
		return wv_f64(bin_double(t, i) / t->width[0][i / t->t.a->ny] /
			      t->width[1][i % t->t.a->ny] / t->total);
	if (!t->weighted)
		return wv_u64(t->t.a->counts[i]);
	if (t->wfloat)
		return wv_f64(bin_double(t, i));
	return histw_i128_value(hist2dw_isum(t->t.a) + 2 * i, t->wsigned,
				t->dec);
}

/* numpy's np.diff of axis k's edges, in their dtype. */
static void widths(const struct cli *c, struct w2ctx *t, int k)
{
	const char *descr = c->job.data_range ? edges_float_descr(&c->job)
					      : "<f8";
	const double *e = t->t.h->edges[k];

	for (uint64_t i = 0; i < t->t.h->n[k]; i++) {
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
	uint64_t n = t->t.a->nx * t->t.a->ny, s[2] = { 0, 0 };
	struct xsum x, y;

	if (t->weighted && !t->wfloat) {
		for (uint64_t i = 0; i < n; i++) {
			const uint64_t *w = hist2dw_isum(t->t.a) + 2 * i;
			uint64_t lo = s[0] + w[0];

			s[1] += w[1] + (lo < s[0]);
			s[0] = lo;
		}
		return histw_i128_double(s, t->wsigned);
	}
	xsum_init(&x);
	for (uint64_t i = 0; i < n; i++) {
		if (!t->weighted) {
			xsum_add_u64(&x, t->t.a->counts[i]);
			continue;
		}
		const struct ksum *k = &hist2dw_ksum(t->t.a)[i];

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

int hist2dw_put(const struct cli *c, struct sbuf *b, struct hist2d_acc *a,
		struct gs_err *err)
{
	const struct hist2d_state *h = c->state;
	const struct gs_job *job = &c->job;
	bool wfloat = job->weighted && type_is_float(job->dtype.type);
	bool wsigned = job->weighted && type_is_signed(job->dtype.type) &&
		       !job->dtype.boolean;
	struct w2ctx t = {
		.t = { .h = h, .a = a, .value = bin_value, .zero = bin_zero },
		.weighted = job->weighted, .wfloat = wfloat, .wsigned = wsigned,
		.density = h->density,
	};
	const struct hist2d_kind k = {
		.name = h->density ? "density" : "sum",
		.json = h->density ? "density" : "sums",
		.descr = h->density || wfloat ? "<f8" : wsigned ? "<i8" : "<u8",
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
	rc = hist2d_write(c, &t.t, &k, b, err);
	free(t.width[0]);
	free(t.width[1]);
	return rc;
}
