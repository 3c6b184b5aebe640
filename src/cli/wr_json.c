/*
 * wr_json.c - json (writer.h): one object a line, "command", "type",
 * "columns" and the result's fields; NaN and infinities as the strings
 * "nan", "inf", "-inf", a missing value as null.
 */
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

static int put(const struct cli *c, const struct wresult *r, struct sbuf *b,
	       struct gs_err *err)
{
	sb_addf(b, "{\"command\":\"%s\",", c->cmd);
	if (r->op)
		sb_addf(b, "\"op\":\"%s\",", r->op);
	/* mixed records: each column's type, "i32,f32" */
	sb_add(b, "\"type\":\"");
	for (unsigned k = 0; k < (c->job.rec ? c->job.columns : 1); k++)
		sb_addf(b, "%s%s", k ? "," : "",
			type_name(job_col_dtype(&c->job, k).type));
	sb_addf(b, "\",\"columns\":%u", c->job.columns);
	for (unsigned k = 0; k < r->nfields; k++) {
		const struct wfield *f = &r->fields[k];
		struct wval v;

		sb_addf(b, ",\"%s\":", f->name);
		if (f->str) {
			add_string(b, f->str);
		} else if (f->depth == 0) {
			get(r->ctx, f, 0, 0, &v);
			add_value(b, &v);
		} else if (f->depth == 1) {
			add_list(b, r->ctx, f, 0);
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
					add_list(b, r->ctx, f, i * mid + j);
				}
				if (f->depth == 3)
					sb_add(b, "]");
			}
			sb_add(b, "]");
		}
	}
	sb_add(b, "}\n");
	return 0;
}

/* --per-file: a list of the results, each object with "file" first. */
static int join(const struct cli *c, const struct sbuf *body,
		const char *const *names, int n, struct sbuf *b,
		struct gs_err *err)
{
	sb_add(b, "[");
	for (int i = 0; i < n; i++) {
		const struct sbuf *r = &body[i];
		size_t len = r->len;

		while (len && r->p[len - 1] == '\n')
			len--;
		sb_add(b, i ? ",\n{\"file\":" : "{\"file\":");
		if (names[i])
			add_string(b, names[i]);
		else
			sb_add(b, "null");
		if (len > 2)		/* "{}" has nothing to follow it */
			sb_add(b, ",");
		sb_addn(b, r->p + 1, len - 1);
	}
	sb_add(b, "]\n");
	return 0;
}

const struct wformat wr_json = { put, join };
