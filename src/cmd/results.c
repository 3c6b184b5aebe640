/*
 * results.c - one row of results per column (sum, reduce, dot) in every
 * output format; see results.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "results.h"

static void add_result_text(struct sbuf *b, const struct result *r)
{
	if (r->kind == RES_INT_DEC)
		sb_add(b, r->dec);
	else if (r->kind == RES_F64)
		sb_double(b, r->f);
	else
		sb_add(b, "nan");
}

static void add_result_json(struct sbuf *b, const struct result *r)
{
	if (r->kind == RES_INT_DEC)
		sb_add(b, r->dec);
	else if (r->kind == RES_F64)
		sb_json_double(b, r->f);
	else
		sb_add(b, "\"nan\"");
}

/* An integer result as 8 little-endian bytes of i64/u64. */
static int result_bytes(const struct cli *c, const struct result *r,
			unsigned char *out, struct gs_err *err)
{
	bool sgn = type_is_signed(c->job.dtype.type);
	uint64_t bits;

	if (r->kind == RES_F64 || (r->kind == RES_NONE && type_is_float(c->job.dtype.type))) {
		double f = r->kind == RES_F64 ? r->f : (double)NAN;

		memcpy(&bits, &f, 8);
	} else if (r->kind == RES_NONE) {
		return gs_fail(err, GS_ERUNTIME, c->cmd, "no result for empty input");
	} else {
		char *end;

		errno = 0;
		if (sgn)
			bits = (uint64_t)strtoll(r->dec, &end, 10);
		else
			bits = r->dec[0] == '-' ? (errno = ERANGE, 0)
						: strtoull(r->dec, &end, 10);
		if (errno)
			return gs_fail(err, GS_ERUNTIME, c->cmd,
				       "result %s does not fit %s for binary output",
				       r->dec, sgn ? "i64" : "u64");
	}
	for (int i = 0; i < 8; i++)
		out[i] = (unsigned char)(bits >> (8 * i));
	return 0;
}

static int emit_binary(struct cli *c, struct sbuf *b, const struct result *r,
		       unsigned n, struct gs_err *err)
{
	bool is_float = type_is_float(c->job.dtype.type);

	if (c->format == FMT_NPY) {
		uint64_t dims[1] = { n };

		npy_header(b, is_float ? "<f8" : type_is_signed(c->job.dtype.type)
			   ? "<i8" : "<u8", dims, 1, 0);
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned char v[8];

		if (result_bytes(c, &r[i], v, err) < 0)
			return -1;
		sb_addn(b, v, 8);
	}
	return 0;
}

int results_format(struct cli *c, const char *name, const char *op,
		   const struct result *r, unsigned n, struct sbuf *b,
		   struct gs_err *err)
{
	char sep = report_sep(c->format);

	if (c->format == FMT_JSON) {
		sb_addf(b, "{\"command\":\"%s\",", c->cmd);
		if (op)
			sb_addf(b, "\"op\":\"%s\",", op);
		sb_addf(b, "\"type\":\"%s\",\"columns\":%u,\"count\":%llu,\"result\":[",
			type_name(c->job.dtype.type), c->job.columns,
			(unsigned long long)c->records);
		for (unsigned i = 0; i < n; i++) {
			if (i)
				sb_add(b, ",");
			add_result_json(b, &r[i]);
		}
		sb_add(b, "]}\n");
		return 0;
	}
	if (c->format == FMT_BINARY || c->format == FMT_NPY)
		return emit_binary(c, b, r, n, err);
	if (report_has_header(c->format)) {
		report_value_names(b, c->format, name, n);
		sb_add(b, "\n");
	}
	for (unsigned i = 0; i < n; i++) {
		if (i)
			sb_addn(b, &sep, 1);
		add_result_text(b, &r[i]);
	}
	sb_add(b, "\n");
	return 0;
}

int result_no_data(const struct cli *c, const char *what, struct gs_err *err)
{
	const char *where;

	if (c->operand_failed) {	/* no data: an operand reported already */
		*err = (struct gs_err){ .code = GS_ERUNTIME };
		return -1;
	}
	where = c->noperands > 1 ? "" : !c->noperands ||
		strcmp(c->operands[0], "-") == 0 ? "stdin" : c->operands[0];
	return gs_fail(err, GS_ERUNTIME, where, "no data: empty input has no %s",
		       what);
}
