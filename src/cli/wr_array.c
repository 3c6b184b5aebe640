/*
 * wr_array.c - binary and npy (writer.h): the values of the table's rows,
 * each 8 bytes little-endian in the result's dtype, row after row; npy
 * puts its header first. --per-file stacks the npy results along a new
 * first axis.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "writer.h"

/* v as the 8 bytes of dtype descr. */
static int value_bits(const struct cli *c, const char *descr,
		      const struct wval *v, uint64_t *bits, struct gs_err *err)
{
	bool sgn = descr[1] == 'i';
	double f;
	char *end;

	if (descr[1] != 'f' && (v->kind == W_U64 || v->kind == W_I64)) {
		*bits = v->kind == W_U64 ? v->u : (uint64_t)v->i;
		return 0;
	}
	if (descr[1] == 'f') {
		f = v->kind == W_F64 || v->kind == W_DEC ? v->f
		  : v->kind == W_U64 ? (double)v->u
		  : v->kind == W_I64 ? (double)v->i : (double)NAN;
		memcpy(bits, &f, 8);
		return 0;
	}
	if (v->kind != W_DEC)
		return gs_fail(err, GS_ERUNTIME, c->cmd, "no result for empty input");
	errno = 0;
	if (sgn)
		*bits = (uint64_t)strtoll(v->s, &end, 10);
	else
		*bits = v->s[0] == '-' ? (errno = ERANGE, 0)
				       : strtoull(v->s, &end, 10);
	if (errno)
		return gs_fail(err, GS_ERUNTIME, c->cmd,
			       "result %s does not fit %s for binary output",
			       v->s, sgn ? "i64" : "u64");
	return 0;
}

/* n u64 values, little-endian: as they lie in memory on such a host (a
 * byte at a time was 0.3 s of a one-point hist2d of 4096 x 4096 bins). */
static int put_u64(struct sbuf *b, const uint64_t *v, uint64_t n,
		   struct gs_err *err)
{
	unsigned char out[4096];

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	sb_addn(b, v, (size_t)(8 * n));
	n = 0;
#endif
	for (uint64_t i = 0; i < n; i += sizeof(out) / 8) {
		uint64_t m = n - i < sizeof(out) / 8 ? n - i : sizeof(out) / 8;

		for (uint64_t j = 0; j < m; j++)
			for (int k = 0; k < 8; k++)
				out[8 * j + k] = (unsigned char)(v[i + j] >> (8 * k));
		sb_addn(b, out, (size_t)(8 * m));
	}
	return b->oom ? gs_fail(err, GS_ERUNTIME, "", "out of memory") : 0;
}

/* Row i's kept cells, 8 bytes each. */
static int put_row(const struct cli *c, const struct wresult *r, uint64_t i,
		   struct wval *v, struct sbuf *b, struct gs_err *err)
{
	int rc = 0;

	if (!r->row(r->ctx, i, v))
		return 0;
	for (unsigned j = r->array_from; j < r->cells && rc == 0; j++) {
		unsigned char out[8];
		uint64_t bits = 0;

		const char *d = r->cell_descr ?
				r->cell_descr[j - r->array_from] : r->descr;

		rc = value_bits(c, d, &v[j], &bits, err);
		for (int k = 0; k < 8; k++)
			out[k] = (unsigned char)(bits >> (8 * k));
		if (rc == 0)
			sb_addn(b, out, 8);
	}
	return rc;
}

static int put(const struct cli *c, const struct wresult *r, struct sbuf *b,
	       struct gs_err *err)
{
	int rc = 0;

	if (c->format == FMT_NPY && r->cell_descr) {
		struct sbuf d;

		sb_init(&d);
		sb_add(&d, "[");
		for (unsigned j = r->array_from; j < r->cells; j++)
			sb_addf(&d, "%s('f%u', '%s')", j > r->array_from ?
				", " : "", j - r->array_from,
				r->cell_descr[j - r->array_from]);
		sb_add(&d, "]");
		if (!d.oom)
			npy_header(b, d.p, r->dims, r->ndim, 0);
		b->oom |= d.oom;
		sb_free(&d);
	} else if (c->format == FMT_NPY) {
		npy_header(b, r->descr, r->dims, r->ndim, 0);
	}
	if (r->u64)
		rc = put_u64(b, r->u64, r->dims[0] * (r->ndim > 1 ? r->dims[1] : 1),
			     err);
	if (rc == 0 && !r->u64)
		rc = writer_rows(c, r, put_row, b, err);
	return rc;
}

/* ---- --per-file: npy ---------------------------------------------------- */

#define NPY_DIMS_MAX 4
#define DESCR_MAX (GS_RECORD_MAX * 20)	/* a structured one: results.c */

/* The descr, shape and data of an npy this program wrote (report.c's
 * npy_header: version 1.0, C order); false if it is not one. */
static bool npy_parse(const struct sbuf *r, char *descr, size_t dn,
		      uint64_t *dims, int *ndim, size_t *data)
{
	const unsigned char *u = (const unsigned char *)r->p;
	const char *h, *p, *q;
	size_t hlen;

	if (r->len < 10 || memcmp(r->p, "\x93NUMPY\x01\x00", 8))
		return false;
	hlen = (size_t)u[8] | (size_t)u[9] << 8;
	if (10 + hlen > r->len)
		return false;
	h = r->p + 10;
	if (!(p = strstr(h, "'descr': ")) || p > h + hlen)
		return false;
	p += 9;		/* '<f8', or a structured dtype's [...] */
	if (!(q = *p == '[' ? strchr(p, ']') : *p == '\'' ? strchr(++p, '\'')
		: NULL) || (size_t)(q - p) + 1 >= dn)
		return false;
	if (*q == ']')
		q++;
	memcpy(descr, p, (size_t)(q - p));
	descr[q - p] = '\0';
	if (!(p = strstr(h, "'shape': (")) || p > h + hlen)
		return false;
	for (p += 10, *ndim = 0; *p != ')'; ) {
		char *e;

		if (*ndim == NPY_DIMS_MAX)
			return false;
		dims[(*ndim)++] = strtoull(p, &e, 10);
		if (e == p)
			return false;
		p = e + strspn(e, ", ");
	}
	*data = 10 + hlen;
	return true;
}

/* The operand whose result's header is refused. */
static int npy_refuse(const struct wjoin *j, struct gs_err *err)
{
	if (j->i == 0)
		return gs_fail(err, GS_ERUNTIME, "",
			       "internal: not an npy result");
	return gs_fail(err, GS_ERUNTIME, j->name ? j->name : "total",
		       "--per-file: its result's shape differs from the first "
		       "operand's");
}

static int npy_start(struct wjoin *j, struct gs_err *err)
{
	(void)err;
	j->past = false;
	j->held.len = 0;
	return 0;
}

/* The result's header, whole in j->held: the first result's shape with
 * a first axis of one row per result before it, written at once (the
 * number of results is known from the start, and every result's shape
 * must be the first's), a later one's checked against it; then the
 * data after it. */
static int npy_head(struct wjoin *j, struct gs_err *err)
{
	char d[DESCR_MAX];
	uint64_t dims[NPY_DIMS_MAX + 1];
	int nd;
	size_t at;

	if (!npy_parse(&j->held, d, sizeof(d), dims + 1, &nd, &at))
		return npy_refuse(j, err);
	if (j->i == 0) {
		if (!(j->descr = strdup(d)))
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		memcpy(j->dims, dims + 1, (size_t)nd * sizeof(*dims));
		j->ndim = nd;
		dims[0] = (uint64_t)j->n;
		npy_header(j->b, d, dims, nd + 1, 0);
	} else if (strcmp(d, j->descr) || nd != j->ndim ||
		   memcmp(dims + 1, j->dims, (size_t)nd * sizeof(*dims))) {
		return npy_refuse(j, err);
	}
	sb_addn(j->b, j->held.p + at, j->held.len - at);
	j->held.len = 0;
	j->past = true;
	return 0;
}

/* Bytes held until the header is whole (its length is in its first 10),
 * the data straight on after it. */
static int npy_add(struct wjoin *j, const char *p, size_t n,
		   struct gs_err *err)
{
	const unsigned char *u;

	if (j->past) {
		sb_addn(j->b, p, n);
		return 0;
	}
	sb_addn(&j->held, p, n);
	if (j->held.oom)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	u = (const unsigned char *)j->held.p;
	if (j->held.len < 10 ||
	    (!memcmp(j->held.p, "\x93NUMPY\x01\x00", 8) &&
	     j->held.len < 10 + ((size_t)u[8] | (size_t)u[9] << 8)))
		return 0;
	return npy_head(j, err);
}

static int npy_end(struct wjoin *j, struct gs_err *err)
{
	return j->past ? 0 : npy_head(j, err);
}

const struct wformat wr_binary = { .put = put, .add = writer_concat };
const struct wformat wr_npy = { .put = put, .start = npy_start,
				.add = npy_add, .end = npy_end };
