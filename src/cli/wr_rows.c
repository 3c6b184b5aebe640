/*
 * wr_rows.c - the rows of a result, written in order (writer.h): one at
 * a time, or where the result readies them in blocks, a block at a time
 * with each thread of its pool writing a share of the block's rows into
 * buffers of its own, added to the output in row order. So the text is
 * the same bytes whatever the threads, and the memory a block's.
 */
#include <stdlib.h>
#include "pool.h"
#include "writer.h"

struct share {
	const struct wblocks *w;
	uint64_t a, z;		/* this block's rows of the thread */
	struct wval *cells;
	struct sbuf *bufs;	/* nbuf */
	int rc;
	struct gs_err err;
};

static void fmt_task(void *arg, int i, int n)
{
	struct share *s = (struct share *)arg + i;

	(void)n;
	for (unsigned k = 0; k < s->w->nbuf; k++)
		s->bufs[k].len = 0;
	s->rc = s->a < s->z ? s->w->fmt(s->w->ctx, s->a, s->z, s->cells,
					s->bufs, &s->err) : 0;
}

int writer_blocks(const struct wblocks *w, struct gs_err *err)
{
	const struct wresult *r = w->r;
	int nt = r->pool ? r->pool->n : 1, rc = 0;
	uint64_t per = r->block_rows ? r->block_rows : 4096;
	struct share *s = calloc((size_t)nt, sizeof(*s));
	struct sbuf *bufs = calloc((size_t)nt * w->nbuf, sizeof(*bufs));

	for (int t = 0; s && bufs && t < nt; t++) {
		s[t] = (struct share){ .w = w, .bufs = bufs + t * w->nbuf };
		for (unsigned k = 0; k < w->nbuf; k++)
			sb_init(&s[t].bufs[k]);
		if (!(s[t].cells = writer_cells(r, err)))
			rc = -1;
	}
	if (!s || !bufs)
		rc = gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (uint64_t r0 = 0; rc == 0 && r0 < r->rows; r0 += per) {
		uint64_t r1 = r->rows - r0 < per ? r->rows : r0 + per;

		if ((rc = r->block(r->ctx, r0, r1, err)) < 0)
			break;
		for (int t = 0; t < nt; t++) {
			uint64_t m = r1 - r0;

			s[t].a = r0 + m * (uint64_t)t / (uint64_t)nt;
			s[t].z = r0 + m * (uint64_t)(t + 1) / (uint64_t)nt;
		}
		if (nt > 1)
			pool_run(r->pool, fmt_task, s);
		else
			fmt_task(s, 0, 1);
		/* in row order: the first failing row's error */
		for (int t = 0; rc == 0 && t < nt; t++) {
			for (unsigned k = 0; rc == 0 && k < w->nbuf; k++)
				rc = !s[t].bufs[k].oom ?
				     w->take(w->ctx, k, &s[t].bufs[k], err) :
				     gs_fail(err, GS_ERUNTIME, "", "out of memory");
			if (rc == 0 && s[t].rc) {
				*err = s[t].err;
				rc = -1;
			}
		}
	}
	for (int t = 0; s && bufs && t < nt; t++) {
		for (unsigned k = 0; k < w->nbuf; k++)
			sb_free(&s[t].bufs[k]);
		free(s[t].cells);
	}
	free(bufs);
	free(s);
	return rc;
}

/* ---- a table's rows ------------------------------------------------------ */

struct table_rows {
	const struct cli *c;
	const struct wresult *r;
	writer_row_fn one;
	struct sbuf *b;
};

static int fmt_rows(void *ctx, uint64_t a, uint64_t z, struct wval *cells,
		    struct sbuf *bufs, struct gs_err *err)
{
	struct table_rows *t = ctx;
	int rc = 0;

	for (uint64_t i = a; rc == 0 && i < z; i++)
		rc = t->one(t->c, t->r, i, cells, &bufs[0], err);
	return rc;
}

static int take_rows(void *ctx, unsigned k, const struct sbuf *buf,
		     struct gs_err *err)
{
	struct table_rows *t = ctx;

	(void)k;
	(void)err;
	if (buf->len)
		sb_addn(t->b, buf->p, buf->len);
	return 0;
}

int writer_rows(const struct cli *c, const struct wresult *r,
		writer_row_fn one, struct sbuf *b, struct gs_err *err)
{
	struct table_rows t = { c, r, one, b };
	struct wval *v;
	int rc = 0;

	if (r->block) {
		const struct wblocks w = { .r = r, .ctx = &t, .nbuf = 1,
					   .fmt = fmt_rows, .take = take_rows };

		return writer_blocks(&w, err);
	}
	if (!(v = writer_cells(r, err)))
		return -1;
	for (uint64_t i = 0; rc == 0 && i < r->rows; i++)
		rc = one(c, r, i, v, b, err);
	free(v);
	return rc;
}
