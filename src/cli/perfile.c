/*
 * perfile.c - see perfile.h; each format labels and joins the results its
 * own way (writer.h's start, add, end and close).
 */
#include <stdlib.h>
#include "perfile.h"
#include "result_out.h"

/* Bytes of the result on to the format's join; the result's start first. */
static int pass_on(struct perfile *pf, const char *p, size_t n)
{
	if (pf->failed)
		return -1;
	if (!pf->started) {
		pf->started = true;
		if (pf->f->start && pf->f->start(&pf->j, &pf->err) < 0)
			pf->failed = true;
	}
	if (!pf->failed && n && pf->f->add &&
	    pf->f->add(&pf->j, p, n, &pf->err) < 0)
		pf->failed = true;
	return pf->failed ? -1 : 0;
}

/* The result's buffer, full: its bytes on, so none is held whole. */
static bool drain(struct sbuf *s)
{
	struct perfile *pf = s->drain_ctx;

	if (pass_on(pf, s->p, s->len) < 0)
		return false;
	s->len = 0;
	return true;
}

void perfile_init(struct perfile *pf, const struct cli *c, int operands,
		  struct sbuf *b)
{
	const struct wformat *f = writer_format(c->format);

	*pf = (struct perfile){ .f = f };
	pf->j = (struct wjoin){ .c = c, .b = b, .n = operands };
	if (operands > 1 && c->format != FMT_STATE)
		pf->j.n++;	/* the total */
	sb_init(&pf->j.held);
	sb_init(&pf->j.label);
	sb_init(&pf->cur);
	if (!f->start && f->add == writer_concat)
		pf->direct = b;
	pf->cur.drain = drain;
	pf->cur.drain_ctx = pf;
	pf->cur.drain_at = RESULT_OUT_BUFFER;
}

struct sbuf *perfile_next(struct perfile *pf, const char *name)
{
	if (pf->direct)
		return pf->direct;
	pf->j.name = name;
	pf->started = false;
	pf->cur.len = 0;
	pf->cur.oom = false;	/* a result's cut is its own */
	return &pf->cur;
}

int perfile_end(struct perfile *pf, int rc, struct gs_err *err)
{
	if (pf->direct)		/* in the output already */
		return rc;
	if (rc == 0 && pf->cur.oom && !pf->failed) {
		/* out of memory: the output is cut, so the run ends here
		 * rather than read every later operand for nothing */
		pf->j.b->oom = true;
		pf->cur.len = 0;
		pf->j.i++;
		return gs_fail(err, GS_ERUNTIME, "",
			       "out of memory for the output");
	}
	if (rc == 0 && pass_on(pf, pf->cur.p, pf->cur.len) == 0 &&
	    pf->f->end && pf->f->end(&pf->j, &pf->err) < 0)
		pf->failed = true;
	pf->cur.len = 0;
	pf->j.i++;
	if (!pf->failed)
		return rc;
	*err = pf->err;		/* the cause of the result's cut bytes */
	return -1;
}

int perfile_join(struct perfile *pf, struct gs_err *err)
{
	if (pf->direct || !pf->f->close)
		return 0;
	return pf->f->close(&pf->j, err);
}

void perfile_free(struct perfile *pf)
{
	sb_free(&pf->cur);
	sb_free(&pf->j.held);
	sb_free(&pf->j.label);
	free(pf->j.descr);
}
