/*
 * wr_json.c - json (writer.h): one object a line, "command", "type",
 * "columns" and the result's fields; NaN and infinities as the strings
 * "nan", "inf", "-inf", a missing value as null.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "spill_io.h"
#include "writer.h"

static void add_string(struct sbuf *b, const char *s)
{
	sb_add(b, "\"");
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			sb_addf(b, "\\%c", ch);
		else if (ch < 0x20)
			sb_addf(b, "\\u%04x", ch);
		else
			sb_addn(b, s, 1);
	}
	sb_add(b, "\"");
}

static void add_value(struct sbuf *b, const struct wval *v)
{
	if (v->kind == W_NONE)
		sb_add(b, "null");
	else if (v->kind == W_F64)
		sb_json_double(b, v->f);
	else if (v->kind == W_STR)
		add_string(b, v->s);
	else
		writer_add_text(b, v);	/* a number as text writes it */
}

/* Value j of list i of field f, or false to leave it out. */
static bool get(void *ctx, const struct wfield *f, uint64_t i, uint64_t j,
		struct wval *v)
{
	if (f->get)
		return f->get(ctx, f->id, i, j, v);
	*v = wv_u64(*(const uint64_t *)((const char *)f->base + j * f->stride));
	return true;
}

static void add_list(struct sbuf *b, void *ctx, const struct wfield *f,
		     uint64_t i)
{
	uint64_t m = f->len ? f->len(ctx, i) : f->m;
	bool first = true;
	struct wval v;

	sb_add(b, "[");
	for (uint64_t j = 0; j < m; j++) {
		if (!get(ctx, f, i, j, &v))
			continue;
		if (!first)
			sb_addn(b, ",", 1);
		add_value(b, &v);
		first = false;
	}
	sb_add(b, "]");
}

/* Field f's value (its name written before it). */
static void add_field(struct sbuf *b, void *ctx, const struct wfield *f)
{
	struct wval v;

	if (f->str) {
		add_string(b, f->str);
	} else if (f->depth == 0) {
		get(ctx, f, 0, 0, &v);
		add_value(b, &v);
	} else if (f->depth == 1) {
		add_list(b, ctx, f, 0);
	} else {
		uint64_t mid = f->depth == 3 ? f->mid : 1;

		sb_add(b, "[");
		for (uint64_t i = 0; i < f->n; i++) {
			if (i)
				sb_add(b, ",");
			if (f->depth == 3)
				sb_add(b, "[");
			for (uint64_t j = 0; j < mid; j++) {
				if (j)
					sb_add(b, ",");
				add_list(b, ctx, f, i * mid + j);
			}
			if (f->depth == 3)
				sb_add(b, "]");
		}
		sb_add(b, "]");
	}
}

/* ---- per_row fields: one pass over the rows ------------------------------ */

#define SPOOL_MEM (1u << 20)	/* a field's text kept in memory, at most */

/* A field's text until its turn: in memory, past SPOOL_MEM in a temp
 * file (unlinked at once; closed at the end). */
struct spool {
	struct sbuf mem;
	int fd;
	uint64_t len;		/* in the file */
	bool any;		/* a value written: the next after a comma */
	bool held;		/* no file could be made: all in memory */
};

struct rowpass {
	const struct wresult *r;
	struct sbuf *b;
	unsigned nrow;			/* per_row fields */
	const struct wfield *f[16];
	struct spool sp[16];	/* [0] unused: the first goes to b */
};

static int spool_fail(struct gs_err *err)
{
	return gs_fail(err, GS_ERUNTIME, spill_dir(), "keeping a json field "
		       "of the result until its turn: %s", strerror(errno));
}

static int spool_add(struct spool *s, const char *p, size_t n,
		     struct gs_err *err)
{
	if (s->fd < 0 && !s->held && s->mem.len + n > SPOOL_MEM) {
		/* no temp file ($TMPDIR missing): held in memory, as the
		 * result was before it streamed */
		s->held = (s->fd = spill_tmpfile()) < 0;
		if (s->fd >= 0 &&
		    spill_write(s->fd, s->mem.p, s->mem.len, 0) < 0)
			return spool_fail(err);
		s->len = s->fd >= 0 ? s->mem.len : 0;
		if (s->fd >= 0)
			s->mem.len = 0;
	}
	if (s->fd < 0) {
		sb_addn(&s->mem, p, n);
		return s->mem.oom ? gs_fail(err, GS_ERUNTIME, "",
					    "out of memory") : 0;
	}
	if (spill_write(s->fd, p, n, s->len) < 0)
		return spool_fail(err);
	s->len += n;
	return 0;
}

/* The spool's text into b. */
static int spool_out(struct spool *s, struct sbuf *b, struct gs_err *err)
{
	char buf[1 << 16];

	for (uint64_t at = 0; s->fd >= 0 && at < s->len; ) {
		size_t n = s->len - at < sizeof(buf) ? (size_t)(s->len - at)
						     : sizeof(buf);

		if (spill_read(s->fd, buf, n, at) < 0)
			return spool_fail(err);
		sb_addn(b, buf, n);
		at += n;
	}
	if (s->mem.len)
		sb_addn(b, s->mem.p, s->mem.len);
	return 0;
}

/* Rows [a, z) of every per_row field, each value (depth 1) or list after
 * a comma. */
static int pass_fmt(void *ctx, uint64_t a, uint64_t z, struct wval *cells,
		    struct sbuf *bufs, struct gs_err *err)
{
	struct rowpass *p = ctx;
	void *rc = p->r->ctx;

	(void)cells;
	(void)err;
	for (uint64_t i = a; i < z; i++)
		for (unsigned k = 0; k < p->nrow; k++) {
			const struct wfield *f = p->f[k];
			uint64_t mid = f->depth == 3 ? f->mid : 1;
			struct wval v;

			if (f->depth == 1) {
				if (get(rc, f, 0, i, &v)) {
					sb_addn(&bufs[k], ",", 1);
					add_value(&bufs[k], &v);
				}
				continue;
			}
			sb_add(&bufs[k], f->depth == 3 ? ",[" : ",");
			for (uint64_t j = 0; j < mid; j++) {
				if (j)
					sb_addn(&bufs[k], ",", 1);
				add_list(&bufs[k], rc, f, i * mid + j);
			}
			if (f->depth == 3)
				sb_addn(&bufs[k], "]", 1);
		}
	return 0;
}

/* A thread's text of field k: the field's first value without its comma. */
static int pass_take(void *ctx, unsigned k, const struct sbuf *buf,
		     struct gs_err *err)
{
	struct rowpass *p = ctx;
	struct spool *s = &p->sp[k];
	const char *t = buf->p;
	size_t n = buf->len;

	if (!n)
		return 0;
	if (!s->any) {
		t++;
		n--;
		s->any = true;
	}
	if (k)
		return spool_add(s, t, n, err);
	sb_addn(p->b, t, n);
	return 0;
}

static bool pass_wanted(const struct wresult *r)
{
	unsigned n = 0;

	for (unsigned k = 0; r->block && k < r->nfields; k++)
		n += r->fields[k].per_row && !r->fields[k].str;
	return n && n <= 16;
}

static int put(const struct cli *c, const struct wresult *r, struct sbuf *b,
	       struct gs_err *err)
{
	struct rowpass p = { .r = r, .b = b };
	bool pass = pass_wanted(r);
	int rc = 0;

	for (unsigned k = 0; k < 16; k++) {
		sb_init(&p.sp[k].mem);
		p.sp[k].fd = -1;
	}
	sb_addf(b, "{\"command\":\"%s\",", c->cmd);
	if (r->op)
		sb_addf(b, "\"op\":\"%s\",", r->op);
	/* mixed records: each column's type, "i32,f32" */
	sb_add(b, "\"type\":\"");
	for (unsigned k = 0; k < (c->job.rec ? c->job.columns : 1); k++)
		sb_addf(b, "%s%s", k ? "," : "",
			type_name(job_col_dtype(&c->job, k).type));
	sb_addf(b, "\",\"columns\":%u", c->job.columns);
	for (unsigned k = 0; pass && k < r->nfields; k++)
		if (r->fields[k].per_row && !r->fields[k].str)
			p.f[p.nrow++] = &r->fields[k];
	for (unsigned k = 0, at = 0; rc == 0 && k < r->nfields; k++) {
		const struct wfield *f = &r->fields[k];

		sb_addf(b, ",\"%s\":", f->name);
		if (!pass || !f->per_row || f->str) {
			add_field(b, r->ctx, f);
			continue;
		}
		sb_add(b, "[");
		if (at == 0) {	/* the pass; the first field's text to b */
			const struct wblocks w = { .r = r, .ctx = &p,
						   .nbuf = p.nrow,
						   .fmt = pass_fmt,
						   .take = pass_take };

			rc = writer_blocks(&w, err);
		} else {
			rc = spool_out(&p.sp[at], b, err);
		}
		at++;
		sb_add(b, "]");
	}
	if (rc == 0)
		sb_add(b, "}\n");
	for (unsigned k = 0; k < 16; k++) {
		sb_free(&p.sp[k].mem);
		if (p.sp[k].fd >= 0)
			close(p.sp[k].fd);
	}
	return rc;
}

/* ---- --per-file: a list of the results, "file" first in each --------- */

static int join_start(struct wjoin *j, struct gs_err *err)
{
	(void)err;
	sb_add(j->b, j->i ? ",\n{\"file\":" : "[{\"file\":");
	if (j->name)
		add_string(j->b, j->name);
	else
		sb_add(j->b, "null");
	j->past = false;
	j->held.len = 0;
	j->newlines = 0;
	return 0;
}

/* The length of n bytes at p without the line ends that end them. */
static size_t unended(const char *p, size_t n)
{
	while (n && p[n - 1] == '\n')
		n--;
	return n;
}

/* The object's bytes after its "{", a comma first unless it is "{}";
 * its last line ends held back, and dropped at its end. */
static int join_add(struct wjoin *j, const char *p, size_t n,
		    struct gs_err *err)
{
	size_t k;

	if (!j->past) {		/* "{}" or more: known past 2 bytes */
		sb_addn(&j->held, p, n);
		if (j->held.oom)
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		k = unended(j->held.p, j->held.len);
		if (k <= 2)
			return 0;
		sb_add(j->b, ",");
		sb_addn(j->b, j->held.p + 1, k - 1);
		j->newlines = j->held.len - k;
		j->held.len = 0;
		j->past = true;
		return 0;
	}
	k = unended(p, n);
	if (k) {
		for (; j->newlines; j->newlines--)
			sb_addn(j->b, "\n", 1);
		sb_addn(j->b, p, k);
	}
	j->newlines += n - k;
	return 0;
}

/* A result of 2 bytes or fewer, "{}" or none at all: its object is the
 * "file" alone, closed here (no command's json is empty, but a join that
 * left the list unreadable for one would be a trap). */
static int join_end(struct wjoin *j, struct gs_err *err)
{
	(void)err;
	if (!j->past)
		sb_add(j->b, "}");
	j->held.len = 0;
	return 0;
}

static int join_close(struct wjoin *j, struct gs_err *err)
{
	(void)err;
	sb_add(j->b, j->i ? "]\n" : "[]\n");
	return 0;
}

const struct wformat wr_json = { .put = put, .start = join_start,
				 .add = join_add, .end = join_end,
				 .close = join_close };
