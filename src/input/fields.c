/*
 * fields.c - -F LIST and the projection of records to its columns (see
 * fields.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fields.h"
#include "headline.h"
#include "input.h"

/* As -c: no more columns than this, in a record or selected. */
#define FIELDS_MAX (1u << 20)

struct item {
	unsigned lo, hi;	/* 1-based columns lo..hi; hi 0: the last */
	const char *name;	/* or a header name, NUL-ended in text */
};

struct fields {
	char *text;		/* LIST, its commas made NULs */
	unsigned n;
	struct item it[];
};

/* ---- LIST --------------------------------------------------------------- */

static int parse_column(const char *s, size_t n, unsigned *v)
{
	unsigned long x = 0;

	for (size_t i = 0; i < n; i++) {
		x = x * 10 + (unsigned long)(s[i] - '0');
		if (x > FIELDS_MAX)
			return -1;
	}
	*v = (unsigned)x;
	return n && x ? 0 : -1;
}

/* An item of digits and '-': N, N-M, N- or -M. */
static int parse_range(const char *s, struct item *it, struct gs_err *err)
{
	const char *dash = strchr(s, '-');
	size_t n = strlen(s), k = dash ? (size_t)(dash - s) : n;

	it->lo = 1;
	it->hi = 0;
	if (dash && strchr(dash + 1, '-'))
		goto bad;
	if (k && parse_column(s, k, &it->lo) < 0)
		goto bad;
	if (!dash)
		it->hi = it->lo;
	else if (dash[1] && parse_column(dash + 1, n - k - 1, &it->hi) < 0)
		goto bad;
	if (!k && !(dash && dash[1]))
		goto bad;
	if (it->hi && it->hi < it->lo)
		return gs_fail(err, GS_EUSAGE, "", "--fields: range '%s' runs "
			       "backwards", s);
	return 0;
bad:
	return gs_fail(err, GS_EUSAGE, "", "--fields: '%.40s' is not a column "
		       "number from 1 to %u or a range of them (2-4, 3-, -2)",
		       s, FIELDS_MAX);
}

int fields_parse(const char *list, struct fields **out, struct gs_err *err)
{
	size_t n = 1;
	struct fields *f;
	char *s;

	for (const char *p = list; *p; p++)
		n += *p == ',';
	f = calloc(1, sizeof(*f) + n * sizeof(f->it[0]));
	if (!f || !(f->text = strdup(list))) {
		free(f);
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	}
	*out = f;
	for (s = f->text; f->n < n; f->n++) {
		char *end = strchr(s, ',');
		struct item *it = &f->it[f->n];

		if (end)
			*end = '\0';
		if (!*s)
			return gs_fail(err, GS_EUSAGE, "", "--fields: an empty "
				       "item in '%.80s'", list);
		if (strspn(s, "0123456789-") == strlen(s)) {
			if (parse_range(s, it, err) < 0)
				return -1;
		} else {
			it->name = s;
		}
		s = end + 1;
	}
	return 0;
}

void fields_free(struct fields *f)
{
	if (f)
		free(f->text);
	free(f);
}

int fields_append(struct fields **f, const char *item, struct gs_err *err)
{
	size_t len = 0;
	struct fields *g = NULL;
	char *list;
	int rc;

	for (unsigned i = 0; i < (*f)->n; i++)
		len += strlen((*f)->text + len) + 1;
	if (!(list = malloc(len + strlen(item) + 1)))
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	memcpy(list, (*f)->text, len);
	for (size_t i = 0; i < len; i++)	/* the NULs were the commas */
		list[i] = list[i] ? list[i] : ',';
	strcpy(list + len, item);
	rc = fields_parse(list, &g, err);
	free(list);
	if (rc < 0) {
		fields_free(g);
		return -1;
	}
	fields_free(*f);
	*f = g;
	return 0;
}

unsigned fields_max(const struct fields *f)
{
	unsigned m = 1;

	for (unsigned i = 0; i < f->n; i++) {
		m = f->it[i].lo > m ? f->it[i].lo : m;
		m = f->it[i].hi > m ? f->it[i].hi : m;
	}
	return m;
}

/* ---- resolving ------------------------------------------------------------ */

/* "x, y, z" of h's names, cut to fit size bytes. */
static void name_list(const struct headline *h, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < headline_width(h) && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i ? ", " : "", headline_name(h, i));
	if (len >= size)
		strcpy(buf + size - 4, "...");
}

/* The column (0-based) that header name s is. */
static int find_name(const struct headline *h, const char *s,
		     const char *where, unsigned *col, struct gs_err *err)
{
	unsigned i, found = 0, width = headline_width(h);
	char names[200];

	if (!headline_named(h))
		return gs_fail(err, GS_EUSAGE, where, "--fields: '%.60s' is a "
			       "column name, and the input has no header line "
			       "(--header reads one; or give column numbers)", s);
	for (i = 0; i < width; i++) {
		if (strcmp(headline_name(h, i), s) != 0)
			continue;
		if (found++)
			return gs_fail(err, GS_EUSAGE, where, "--fields: '%.60s' "
				       "names columns %u and %u of the header; "
				       "give their numbers", s, *col + 1, i + 1);
		*col = i;
	}
	if (found)
		return 0;
	name_list(h, names, sizeof(names));
	return gs_fail(err, GS_EUSAGE, where, "--fields: no column '%.60s' in "
		       "the header (%s)", s, names);
}

static int past_width(unsigned col, unsigned width, const char *where,
		      struct gs_err *err)
{
	return gs_fail(err, GS_EUSAGE, where, "--fields: column %u is past "
		       "the record's %u value%s%s", col, width,
		       width == 1 ? "" : "s",
		       width == 1 ? " (-c N: records of N values)" : "");
}

int fields_resolve(const struct fields *f, unsigned width,
		   const struct headline *h, const char *where,
		   unsigned **cols, unsigned *n, struct gs_err *err)
{
	uint64_t total = 0;
	unsigned i, c, k = 0, *out;

	for (i = 0; i < f->n; i++) {
		const struct item *it = &f->it[i];
		unsigned hi = it->hi ? it->hi : width;

		if (!it->name && it->lo > width)
			return past_width(it->lo, width, where, err);
		if (!it->name && hi > width)
			return past_width(hi, width, where, err);
		total += it->name ? 1 : hi - it->lo + 1;
	}
	if (total > FIELDS_MAX)
		return gs_fail(err, GS_EUSAGE, where, "--fields: %llu columns, "
			       "more than %u", (unsigned long long)total,
			       FIELDS_MAX);
	if (!(out = malloc((size_t)total * sizeof(*out))))
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (i = 0; i < f->n; i++) {
		const struct item *it = &f->it[i];

		if (it->name && find_name(h, it->name, where, &out[k++], err) < 0) {
			free(out);
			return -1;
		}
		for (c = it->lo; !it->name && c <= (it->hi ? it->hi : width); c++)
			out[k++] = c - 1;
	}
	*cols = out;
	*n = k;
	return 0;
}

/* ---- the projection ------------------------------------------------------- */

/* Bytes of whole records read at a time (at least one record). */
#define PROJ_BUF ((size_t)1 << 20)

struct proj {
	unsigned *cols, n, width;
	enum gs_type type;
	size_t size;		/* bytes per element */
	size_t srec, orec;	/* bytes per record read, per record cut */
	uint8_t *src;		/* records read: [pos, have) not yet cut */
	size_t cap, have, pos;
	bool eof;
	uint8_t *one;		/* a record cut for a read too small for it */
	size_t one_pos, one_len;
	proj_read_fn read;
	struct input *in;
};

struct proj *proj_new(const unsigned *cols, unsigned n, unsigned width,
		      enum gs_type type, proj_read_fn read, struct input *in)
{
	struct proj *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->n = n;
	p->width = width;
	p->type = type;
	p->size = type_size(type);
	p->srec = width * p->size;
	p->orec = n * p->size;
	p->cap = PROJ_BUF > p->srec ? PROJ_BUF / p->srec * p->srec : p->srec;
	p->read = read;
	p->in = in;
	p->cols = malloc(n * sizeof(*cols));
	p->src = malloc(p->cap);
	p->one = malloc(p->orec);
	if (!p->cols || !p->src || !p->one) {
		proj_free(p);
		return NULL;
	}
	memcpy(p->cols, cols, n * sizeof(*cols));
	return p;
}

/* nrec records at s cut into o; the element size a constant in each loop
 * so that the copies are moves. */
#define CUT(SZ) \
	for (size_t r = 0; r < nrec; r++, s += p->srec) \
		for (unsigned c = 0; c < p->n; c++, o += (SZ)) \
			memcpy(o, s + (size_t)p->cols[c] * (SZ), (SZ))

static void cut(const struct proj *p, const uint8_t *s, size_t nrec,
		uint8_t *o)
{
	switch (p->size) {
	case 1: CUT(1); break;
	case 2: CUT(2); break;
	case 4: CUT(4); break;
	default: CUT(8); break;
	}
}

static int trailing(const struct proj *p, struct gs_err *err)
{
	size_t n = p->have - p->pos;
	const char *s = n == 1 ? " does" : "s do", *t = type_name(p->type);
	const struct gs_record *r = input_record(p->in);
	char rec[200];

	if (r)	/* columns of records of mixed types, cut as bytes */
		return gs_fail(err, GS_ERUNTIME, input_name(p->in), "trailing "
			       "%zu byte%s not make a whole record (%s is %zu "
			       "bytes)", n, s, record_name(r, rec, sizeof(rec)),
			       p->srec);
	if (p->width == 1)
		return gs_fail(err, GS_ERUNTIME, input_name(p->in), "trailing %zu "
			       "byte%s not make a whole element (%s is %zu "
			       "bytes)", n, s, t, p->srec);
	return gs_fail(err, GS_ERUNTIME, input_name(p->in), "trailing %zu "
		       "byte%s not make a whole record (%u x %s is %zu bytes)",
		       n, s, p->width, t, p->srec);
}

ssize_t proj_read(struct proj *p, void *buf, size_t n, int stall_ms,
		  struct gs_err *err)
{
	ssize_t r;

	for (;;) {
		size_t whole = (p->have - p->pos) / p->srec, k;

		if (p->one_pos < p->one_len) {
			k = p->one_len - p->one_pos < n ? p->one_len - p->one_pos : n;
			memcpy(buf, p->one + p->one_pos, k);
			p->one_pos += k;
			return (ssize_t)k;
		}
		if (whole && n < p->orec) {
			cut(p, p->src + p->pos, 1, p->one);
			p->pos += p->srec;
			p->one_pos = 0;
			p->one_len = p->orec;
			continue;
		}
		if (whole) {
			k = whole < n / p->orec ? whole : n / p->orec;
			cut(p, p->src + p->pos, k, buf);
			p->pos += k * p->srec;
			return (ssize_t)(k * p->orec);
		}
		if (p->eof)
			return p->have > p->pos ? trailing(p, err) : 0;
		memmove(p->src, p->src + p->pos, p->have - p->pos);
		p->have -= p->pos;
		p->pos = 0;
		r = p->read(p->in, p->src + p->have, p->cap - p->have, stall_ms,
			    err);
		if (r < 0)
			return r;
		p->eof = r == 0;
		p->have += (size_t)r;
	}
}

void proj_reset(struct proj *p)
{
	if (!p)
		return;
	p->have = p->pos = 0;
	p->one_pos = p->one_len = 0;
	p->eof = false;
}

void proj_free(struct proj *p)
{
	if (!p)
		return;
	free(p->cols);
	free(p->src);
	free(p->one);
	free(p);
}
