/*
 * writer.c - the table of formats; see writer.h.
 */
#include <stdlib.h>
#include "writer.h"

static const struct wformat formats[] = {
	{ FMT_TEXT, wr_table_put, wr_table_join },
	{ FMT_TSV, wr_table_put, wr_table_join },
	{ FMT_CSV, wr_table_put, wr_table_join },
	{ FMT_JSON, wr_json_put, wr_json_join },
	{ FMT_BINARY, wr_array_put, wr_concat_join },
	{ FMT_NPY, wr_array_put, wr_npy_join },
	/* states are written by state.c; each operand's, one after another */
	{ FMT_STATE, NULL, wr_concat_join },
};

const struct wformat *writer_format(enum gs_format f)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].format == f)
			return &formats[i];
	return NULL;
}

int writer_put(const struct cli *c, const struct wresult *r, struct sbuf *b,
	       struct gs_err *err)
{
	const struct wformat *f = writer_format(c->format);

	if (!f || !f->put)
		return gs_fail(err, GS_ERUNTIME, c->cmd, "internal: no writer "
			       "for -f %s", format_name(c->format));
	return f->put(c, r, b, err);
}

const char *writer_descr(enum gs_type t)
{
	return type_is_float(t) ? "<f8" : type_is_signed(t) ? "<i8" : "<u8";
}

struct wval *writer_cells(const struct wresult *r, struct gs_err *err)
{
	struct wval *v = calloc(r->cells ? r->cells : 1, sizeof(*v));

	if (!v)
		gs_fail(err, GS_ERUNTIME, "", "out of memory");
	return v;
}

int wr_concat_join(const struct cli *c, const struct sbuf *body,
		   const char *const *names, int n, struct sbuf *b,
		   struct gs_err *err)
{
	for (int i = 0; i < n; i++)
		sb_addn(b, body[i].p, body[i].len);
	return 0;
}
