/*
 * hist2d.h - what cmd_hist2d.c (options and passes) and hist2d_out.c (the
 * result in each format, and the edges files) share.
 */
#ifndef HIST2D_H
#define HIST2D_H

#include "acc.h"
#include "cli.h"
#include "out.h"
#include "report.h"
#include "writer.h"

/* --norm: how a non-zero count becomes a grey level; the default is 0,
 * as merge (which has no --norm) makes the state */
enum hist2d_norm { NORM_LOG, NORM_LINEAR, NORM_EQ };

/* The options and what the passes hand on (the driver's c->state). */
struct hist2d_state {
	bool range_set, nonzero, norm_set, density;
	enum hist2d_norm norm;
	unsigned depth;			/* --depth: 8, 16, or 0 (the format's) */
	const char *weights;		/* --weights COL, or NULL */
	const char *edges_path[2];	/* --xedges, --yedges */
	/* pass 1 of a run without --range: what pass 2 must find again */
	bool two_pass;
	uint64_t pass1_records;
	/* the count pass's edges of x and y (n[k] + 1 each), and the records
	 * in no bin, for the note */
	double *edges[2];
	uint64_t n[2];
	uint64_t nan, outside;
};

/* A result's bins as hist2d_write prints them: bin i (x bin i / NY, y bin
 * i % NY) has the value value() gives, a count, a weight sum or a density;
 * zero() says whether it is empty (--nonzero). The first member of each
 * result's own context, which the callbacks get back. */
struct hist2d_table {
	const struct hist2d_state *h;
	struct hist2d_acc *a;
	struct wval (*value)(struct hist2d_table *t, uint64_t i);
	bool (*zero)(const struct hist2d_table *t, uint64_t i);
	uint64_t next, ix, iy;	/* the table's next row and its bins */
};

/* How a result names and stores its values: name in the table (json's
 * the plural, json), the npy dtype, and where set the u64 array itself
 * (writer.h's u64); an image's pixel() and bits, or NULL and 0. */
struct hist2d_kind {
	const char *name, *json, *descr;
	const uint64_t *u64;
	unsigned (*pixel)(void *t, uint64_t row, uint64_t col,
			  unsigned maxval);
	unsigned bits;
};

/* t's bins as k says in c->format into b: a row per bin (x bin, y bin,
 * value), json's bins, range, xedges, yedges, values[x][y], outside and
 * nan, the (NX, NY) array, or the image. 0, or -1 with err. */
int hist2d_write(const struct cli *c, struct hist2d_table *t,
		 const struct hist2d_kind *k, struct sbuf *b,
		 struct gs_err *err);

/* The counts of a in c->format into b: 0, or -1 with err. */
int hist2d_put(const struct cli *c, struct sbuf *b, struct hist2d_acc *a,
	       struct gs_err *err);

/* The weight sums (c->job.weighted, CMD_HIST2DW's acc) or the densities
 * (--density) of a in c->format into b, as hist2d_put prints counts
 * (hist2d_w_out.c): 0, or -1 with err. */
int hist2dw_put(const struct cli *c, struct sbuf *b, struct hist2d_acc *a,
		struct gs_err *err);

/* --xedges/--yedges FILE (path, or NULL): refused where it is the output
 * or an operand. 0, or -1 with err. */
int hist2d_edges_check(const struct cli *c, const char *path,
		       struct gs_err *err);

/* Write axis k's edges to a temporary file of its --?edges FILE, in o
 * (out_close renames it into place). 0, or an exit status. */
int hist2d_edges_open(struct cli *c, int k, struct out *o);

#endif
