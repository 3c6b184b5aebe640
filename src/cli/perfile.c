/*
 * perfile.c - see perfile.h.
 */
#include <stdlib.h>
#include <string.h>
#include "perfile.h"

int perfile_init(struct perfile *pf, int n)
{
	pf->n = 0;
	pf->body = calloc((size_t)n, sizeof(*pf->body));
	pf->name = calloc((size_t)n, sizeof(*pf->name));
	return pf->body && pf->name ? 0 : -1;
}

struct sbuf *perfile_next(struct perfile *pf, const char *name)
{
	struct sbuf *b = &pf->body[pf->n];

	sb_init(b);
	pf->name[pf->n++] = name;
	return b;
}

void perfile_free(struct perfile *pf)
{
	for (int i = 0; i < pf->n; i++)
		sb_free(&pf->body[i]);
	free(pf->body);
	free(pf->name);
}

/* ---- text, tsv, csv ------------------------------------------------------- */

/* A csv field, quoted as RFC 4180 asks where it holds a separator, a quote
 * or a line end. */
static void add_csv_field(struct sbuf *b, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
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
		add_csv_field(b, name);
	else
		sb_add(b, name);
}

/* Every line of body with name after it; the header line (tsv, csv) kept
 * only for the first result, with "file" after it. */
static void join_table(const struct cli *c, const struct sbuf *body,
		       const char *name, bool first, struct sbuf *b)
{
	const char *p = body->p, *end = body->p + body->len;
	bool header = report_has_header(c->format);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!header || first) {
			sb_addn(b, p, n);
			add_label(b, c->format, header ? "file" : name);
			sb_add(b, "\n");
		}
		header = false;
		p += n + 1;
	}
}

/* ---- json ------------------------------------------------------------------ */

static void add_json_string(struct sbuf *b, const char *s)
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

/* A result's object with "file" first: "{" NAME "," the rest. */
static void join_json(const struct perfile *pf, struct sbuf *b)
{
	sb_add(b, "[");
	for (int i = 0; i < pf->n; i++) {
		const struct sbuf *r = &pf->body[i];
		size_t len = r->len;

		while (len && r->p[len - 1] == '\n')
			len--;
		sb_add(b, i ? ",\n{\"file\":" : "{\"file\":");
		if (pf->name[i])
			add_json_string(b, pf->name[i]);
		else
			sb_add(b, "null");
		if (len > 2)		/* "{}" has nothing to follow it */
			sb_add(b, ",");
		sb_addn(b, r->p + 1, len - 1);
	}
	sb_add(b, "]\n");
}

/* ---- npy ------------------------------------------------------------------- */

#define NPY_DIMS_MAX 4

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
	if (!(p = strstr(h, "'descr': '")) || !(q = strchr(p += 10, '\'')) ||
	    (size_t)(q - p) >= dn || p > h + hlen)
		return false;
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

/* The results as one array with a first axis of one row per result. */
static int join_npy(const struct perfile *pf, struct sbuf *b,
		    struct gs_err *err)
{
	char descr[16], d[16];
	uint64_t dims[NPY_DIMS_MAX + 1], e[NPY_DIMS_MAX];
	int ndim, nd;
	size_t at;

	if (!npy_parse(&pf->body[0], descr, sizeof(descr), dims + 1, &ndim, &at))
		return gs_fail(err, GS_ERUNTIME, "", "internal: not an npy result");
	for (int i = 1; i < pf->n; i++)
		if (!npy_parse(&pf->body[i], d, sizeof(d), e, &nd, &at) ||
		    strcmp(d, descr) || nd != ndim ||
		    memcmp(e, dims + 1, (size_t)nd * sizeof(*e)))
			return gs_fail(err, GS_ERUNTIME, pf->name[i] ? pf->name[i]
				       : "total", "--per-file: its result's shape "
				       "differs from the first operand's");
	dims[0] = (uint64_t)pf->n;
	npy_header(b, descr, dims, ndim + 1, 0);
	for (int i = 0; i < pf->n; i++) {
		npy_parse(&pf->body[i], d, sizeof(d), e, &nd, &at);
		sb_addn(b, pf->body[i].p + at, pf->body[i].len - at);
	}
	return 0;
}

int perfile_join(const struct cli *c, const struct perfile *pf,
		 struct sbuf *b, struct gs_err *err)
{
	for (int i = 0; i < pf->n; i++)
		if (pf->body[i].oom) {
			b->oom = true;
			return 0;
		}
	switch (c->format) {
	case FMT_JSON:
		join_json(pf, b);
		return 0;
	case FMT_NPY:
		return pf->n ? join_npy(pf, b, err) : 0;
	case FMT_BINARY:
	case FMT_STATE:
		for (int i = 0; i < pf->n; i++)
			sb_addn(b, pf->body[i].p, pf->body[i].len);
		return 0;
	default:
		for (int i = 0; i < pf->n; i++)
			join_table(c, &pf->body[i], pf->name[i] ? pf->name[i]
				   : "total", i == 0, b);
		return 0;
	}
}
