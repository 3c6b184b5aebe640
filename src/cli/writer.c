/*
 * writer.c - the table of formats; see writer.h.
 */
#include <stdlib.h>
#include "writer.h"

static const struct wformat *const formats[] = {
	[FMT_TEXT] = &wr_table,
	[FMT_TSV] = &wr_table,
	[FMT_CSV] = &wr_table,
	[FMT_JSON] = &wr_json,
	[FMT_BINARY] = &wr_binary,
	[FMT_NPY] = &wr_npy,
	[FMT_STATE] = &wr_state,
	[FMT_PGM] = &wr_pgm,
	[FMT_PNG] = &wr_png,
};

/* states are written by state.c; --per-file's, one after another */
const struct wformat wr_state = { .add = writer_concat };

const struct wformat *writer_format(enum gs_format f)
{
	return formats[f];
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

int writer_concat(struct wjoin *j, const char *p, size_t n,
		  struct gs_err *err)
{
	(void)err;
	sb_addn(j->b, p, n);
	return 0;
}
