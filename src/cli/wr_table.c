/*
 * wr_table.c - text, tsv and csv (writer.h): a line per row, its cells
 * between tabs or commas; tsv and csv begin with a header line. text
 * leaves out the labels that only a header explains.
 */
#include <stdlib.h>
#include <string.h>
#include "writer.h"

static bool has_header(enum gs_format f)
{
	return f == FMT_TSV || f == FMT_CSV;
}

void writer_add_text(struct sbuf *b, const struct wval *v)
{
	switch (v->kind) {
	case W_NONE:
		break;
	case W_F64:
		sb_double(b, v->f);
		break;
	case W_U64:
		sb_u64(b, v->u);
		break;
	case W_I64:	/* without printf: hist's values are millions */
		if (v->i < 0)
			sb_add(b, "-");
		sb_u64(b, v->i < 0 ? 0 - (uint64_t)v->i : (uint64_t)v->i);
		break;
	case W_DEC:
	case W_STR:
		sb_add(b, v->s);
		break;
	}
}

static void add_header(struct sbuf *b, const struct wresult *r,
		       unsigned from, char sep)
{
	unsigned per = r->nnames - r->labels;
	bool many = r->cells - r->labels > per;

	for (unsigned j = from; j < r->cells; j++) {
		unsigned v = j - r->labels;

		if (j > from)
			sb_addn(b, &sep, 1);
		if (j < r->labels)
			sb_add(b, r->names[j]);
		else if (!many)
			sb_add(b, r->names[r->labels + v]);
		else
			sb_addf(b, "%s_%u", r->names[r->labels + v % per], v / per);
	}
	sb_add(b, "\n");
}

static void add_csv_field(struct sbuf *b, const char *s, bool key);

static unsigned first_cell(const struct cli *c, const struct wresult *r)
{
	return has_header(c->format) ? r->table_from : r->text_from;
}

static int put_row(const struct cli *c, const struct wresult *r, uint64_t i,
		   struct wval *v, struct sbuf *b, struct gs_err *err)
{
	char sep = c->format == FMT_CSV ? ',' : '\t';
	unsigned from = first_cell(c, r);

	(void)err;
	if (!r->row(r->ctx, i, v))
		return 0;
	for (unsigned j = from; j < r->cells; j++) {
		if (j > from)
			sb_addn(b, &sep, 1);
		if (c->format == FMT_CSV && v[j].kind == W_STR)
			add_csv_field(b, v[j].s, true);	/* a key, a name */
		else
			writer_add_text(b, &v[j]);
	}
	sb_addn(b, "\n", 1);
	return 0;
}

static int put(const struct cli *c, const struct wresult *r, struct sbuf *b,
	       struct gs_err *err)
{
	if (has_header(c->format))
		add_header(b, r, first_cell(c, r),
			   c->format == FMT_CSV ? ',' : '\t');
	return writer_rows(c, r, put_row, b, err);
}

/* ---- --per-file ------------------------------------------------------------ */

/* A csv field, quoted as RFC 4180 asks where it holds a separator, a quote
 * or a line end; a text key (key) also where it holds white space or is
 * empty, which gpustat's text input would read otherwise (as a separator,
 * or an empty field's error). */
static void add_csv_field(struct sbuf *b, const char *s, bool key)
{
	const char *special = key ? ",\" \t\v\f\r\n" : ",\"\r\n";

	if ((*s || !key) && !s[strcspn(s, special)]) {
		sb_add(b, s);
		return;
	}
	sb_add(b, "\"");
	for (; *s; s++)
		if (*s == '"')
			sb_add(b, "\"\"");
		else
			sb_addn(b, s, 1);
	sb_add(b, "\"");
}

static void add_label(struct sbuf *b, enum gs_format f, const char *name)
{
	sb_addn(b, f == FMT_CSV ? "," : "\t", 1);
	if (f == FMT_CSV)
		add_csv_field(b, name, false);
	else
		sb_add(b, name);
}

/* The separator and the label that end result j's lines. */
static int start(struct wjoin *j, struct gs_err *err)
{
	(void)err;
	j->past = !has_header(j->c->format);	/* no header line to keep */
	j->held.len = 0;
	j->label.len = 0;
	add_label(&j->label, j->c->format, j->name ? j->name : "total");
	return 0;
}

/* A line of the result (the bytes held, then p's n) with its label; the
 * header line (tsv, csv) kept only for the first result, with "file"
 * after it. */
static void add_line(struct wjoin *j, const char *p, size_t n)
{
	struct sbuf *b = j->b;
	bool header = !j->past;

	j->past = true;
	if (!header || j->i == 0) {
		if (j->held.len)	/* held.p may be NULL */
			sb_addn(b, j->held.p, j->held.len);
		sb_addn(b, p, n);
		if (header)
			add_label(b, j->c->format, "file");
		else
			sb_addn(b, j->label.p, j->label.len);
		sb_addn(b, "\n", 1);
	}
	j->held.len = 0;
}

/* Every whole line as it comes; a line's start held until its end. */
static int add(struct wjoin *j, const char *p, size_t n, struct gs_err *err)
{
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t k = nl ? (size_t)(nl - p) : n;

		if (!nl) {
			sb_addn(&j->held, p, n);
			break;
		}
		add_line(j, p, k);
		p += k + 1;
		n -= k + 1;
	}
	return j->held.oom ? gs_fail(err, GS_ERUNTIME, "", "out of memory")
			   : 0;
}

/* A last line without its line end is a line too. */
static int end(struct wjoin *j, struct gs_err *err)
{
	(void)err;
	if (j->held.len)
		add_line(j, "", 0);
	return 0;
}

const struct wformat wr_table = { .put = put, .start = start, .add = add,
				  .end = end };
