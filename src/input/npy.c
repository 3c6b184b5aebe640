/*
 * npy.c - the .npy header: "\x93NUMPY", a version byte pair (1.0, 2.0 or
 * 3.0), the header length (u16 for 1.0, u32 after), then a Python dict
 * literal such as {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * padded with spaces and a newline.
 *
 * The dict is parsed by a small recursive-descent reader that knows exactly
 * the literals numpy writes: quoted strings, True/False and tuples of
 * integers, and the list of fields of a structured dtype (plain numeric
 * fields, numpy's padding between them). Anything else (object arrays,
 * string, nested or sub-array fields) is refused with the position of the
 * offending byte, and so is what numpy's reader
 * (ast.literal_eval, then np.dtype) refuses: a control byte such as NUL in
 * a string, a shape that is a number and not a tuple ("(2)" for "(2,)").
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "fmthdr.h"

static const char npy_magic_bytes[6] = "\x93NUMPY";

int fmt_fail(struct fmt_header *h, size_t pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->msg, sizeof(h->msg), fmt, ap);
	va_end(ap);
	h->errpos = pos;
	return -1;
}

int npy_magic(const uint8_t *p, size_t n)
{
	size_t k = n < 6 ? n : 6;

	if (memcmp(p, npy_magic_bytes, k) != 0)
		return 0;
	return n < 6 ? -1 : 1;
}

/* A cursor over the dict text; base is its offset in the file. */
struct dict {
	const char *s;
	size_t i, n, base;
	struct fmt_header *h;
};

static int dict_fail(struct dict *d, const char *what)
{
	return fmt_fail(d->h, d->base + d->i, "%s", what);
}

static void dict_space(struct dict *d)
{
	while (d->i < d->n && (d->s[d->i] == ' ' || d->s[d->i] == '\t' ||
			       d->s[d->i] == '\r' || d->s[d->i] == '\n'))
		d->i++;
}

/* Skip white space, then expect c. */
static int dict_expect(struct dict *d, char c)
{
	dict_space(d);
	if (d->i >= d->n || d->s[d->i] != c)
		return fmt_fail(d->h, d->base + d->i, "expected '%c'", c);
	d->i++;
	return 0;
}

/* A quoted string without escapes, copied into out. */
static int dict_string(struct dict *d, char *out, size_t size)
{
	char q;
	size_t k = 0;

	dict_space(d);
	if (d->i >= d->n || (d->s[d->i] != '\'' && d->s[d->i] != '"'))
		return dict_fail(d, "expected a quoted string");
	q = d->s[d->i++];
	while (d->i < d->n && d->s[d->i] != q) {
		/* Python refuses a NUL or a line break in a string literal */
		if ((unsigned char)d->s[d->i] < 0x20 || d->s[d->i] == 0x7f)
			return dict_fail(d, "control byte in a string");
		if (d->s[d->i] == '\\' || k + 1 >= size)
			return dict_fail(d, "unsupported string");
		out[k++] = d->s[d->i++];
	}
	if (d->i >= d->n)
		return dict_fail(d, "unterminated string");
	d->i++;
	out[k] = 0;
	return 0;
}

static int dict_bool(struct dict *d, bool *out)
{
	dict_space(d);
	if (d->n - d->i >= 4 && memcmp(d->s + d->i, "True", 4) == 0) {
		d->i += 4;
		*out = true;
	} else if (d->n - d->i >= 5 && memcmp(d->s + d->i, "False", 5) == 0) {
		d->i += 5;
		*out = false;
	} else {
		return dict_fail(d, "expected True or False");
	}
	return 0;
}

static int dict_uint(struct dict *d, uint64_t *out)
{
	uint64_t v = 0;
	size_t start;

	dict_space(d);
	start = d->i;
	while (d->i < d->n && d->s[d->i] >= '0' && d->s[d->i] <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return dict_fail(d, "dimension too large");
		v = v * 10 + (uint64_t)(d->s[d->i++] - '0');
	}
	if (d->i == start)
		return dict_fail(d, "expected a dimension");
	if (d->i < d->n && d->s[d->i] == 'L')	/* Python 2 long */
		d->i++;
	*out = v;
	return 0;
}

/* (), (N,), (N, M), ... with an optional trailing comma, which one
 * dimension needs: Python reads "(2)" as the number 2, not a tuple. */
static int dict_shape(struct dict *d, uint64_t *dims, int *ndim)
{
	bool comma = false;

	*ndim = 0;
	if (dict_expect(d, '(') < 0)
		return -1;
	for (;;) {
		dict_space(d);
		if (d->i < d->n && d->s[d->i] == ')')
			break;
		if (*ndim == NPY_MAX_DIMS)
			return dict_fail(d, "too many dimensions");
		if (dict_uint(d, &dims[(*ndim)++]) < 0)
			return -1;
		dict_space(d);
		comma = d->i < d->n && d->s[d->i] == ',';
		if (comma)
			d->i++;
		else if (d->i >= d->n || d->s[d->i] != ')')
			return dict_fail(d, "expected ',' or ')'");
	}
	if (*ndim == 1 && !comma)
		return dict_fail(d, "shape is a number, not a tuple (one dimension is written (N,))");
	d->i++;
	return 0;
}

/* '<f4', '|u1', '>i2', '=f8' ... to a gpustat type; '|b1' (bool) is u8. */
static int npy_descr(const char *s, struct gs_dtype *dt)
{
	static const struct { char kind; int size; enum gs_type type; } map[] = {
		{ 'u', 1, GS_U8 }, { 'u', 2, GS_U16 }, { 'u', 4, GS_U32 },
		{ 'u', 8, GS_U64 }, { 'i', 1, GS_I8 }, { 'i', 2, GS_I16 },
		{ 'i', 4, GS_I32 }, { 'i', 8, GS_I64 }, { 'f', 2, GS_F16 },
		{ 'f', 4, GS_F32 }, { 'f', 8, GS_F64 }, { 'b', 1, GS_U8 },
	};
	char order = s[0];
	size_t k;

	if (!order || !strchr("<>|=", order) || !s[1] || s[2] < '1' ||
	    s[2] > '8' || s[3])
		return -1;
	for (k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
		if (map[k].kind != s[1] || map[k].size != s[2] - '0')
			continue;
		if (order == '|' && map[k].size != 1)
			return -1;
		dt->type = map[k].type;
		dt->big_endian = map[k].size > 1 &&
			(order == '>' || (order == '=' &&
			 __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
		return 0;
	}
	return -1;
}

static size_t npy_itemsize(enum gs_type t)
{
	switch (t) {
	case GS_U8: case GS_I8: return 1;
	case GS_U16: case GS_I16: case GS_F16: case GS_BF16: return 2;
	case GS_U32: case GS_I32: case GS_F32: return 4;
	default: return 8;
	}
}

/* One field of a structured dtype, ('name', 'descr'), into h->rec; an
 * unnamed '|Vn' is numpy's padding (aligned dtypes): n bytes skipped. */
static int npy_field(struct dict *d)
{
	struct gs_record *r = &d->h->rec;
	char name[256], descr[32];
	size_t at;

	if (dict_expect(d, '(') < 0)
		return -1;
	dict_space(d);
	if (d->i < d->n && d->s[d->i] == '(')
		return dict_fail(d, "a field with a title is not supported");
	if (dict_string(d, name, sizeof(name)) < 0 || dict_expect(d, ',') < 0)
		return -1;
	dict_space(d);
	at = d->i;
	if (d->i < d->n && d->s[d->i] == '[')
		return fmt_fail(d->h, d->base + at, "field '%.40s': nested "
				"structured dtypes are not supported", name);
	if (dict_string(d, descr, sizeof(descr)) < 0)
		return -1;
	dict_space(d);
	if (d->i < d->n && d->s[d->i] == ',')
		return fmt_fail(d->h, d->base + d->i, "field '%.40s': "
				"sub-array fields are not supported", name);
	if (!name[0] && descr[0] == '|' && descr[1] == 'V' && descr[2]) {
		uint64_t pad;
		struct dict v = { descr + 2, 0, strlen(descr + 2), 0, d->h };

		if (dict_uint(&v, &pad) < 0 || v.i != v.n || pad > 1u << 20)
			return fmt_fail(d->h, d->base + at, "bad padding '%s'",
					descr);
		r->size += pad;
		return dict_expect(d, ')');
	}
	if (r->n == GS_RECORD_MAX)
		return fmt_fail(d->h, d->base + at, "more than %d fields",
				GS_RECORD_MAX);
	if (npy_descr(descr, &r->type[r->n]) < 0)
		return fmt_fail(d->h, d->base + at, "field '%.40s': unsupported "
				"dtype '%s' (plain numeric fields only)", name,
				descr);
	r->type[r->n].boolean = descr[1] == 'b';
	r->endian[r->n] = true;
	r->off[r->n] = r->size;
	r->size += npy_itemsize(r->type[r->n].type);
	r->n++;
	return dict_expect(d, ')');
}

/* A structured dtype: a list of plain numeric fields, read as records of
 * mixed types (gs.h); the header's dtype is then u8. */
static int npy_fields(struct dict *d)
{
	d->h->rec = (struct gs_record){ .n = 0 };
	d->h->dtype = (struct gs_dtype){ .type = GS_U8 };
	if (dict_expect(d, '[') < 0)
		return -1;
	for (;;) {
		dict_space(d);
		if (d->i < d->n && d->s[d->i] == ']')
			break;
		if (npy_field(d) < 0)
			return -1;
		dict_space(d);
		if (d->i < d->n && d->s[d->i] == ',')
			d->i++;
		else if (d->i >= d->n || d->s[d->i] != ']')
			return dict_fail(d, "expected ',' or ']'");
	}
	d->i++;
	if (d->h->rec.n == 0)
		return dict_fail(d, "a structured dtype without fields");
	return 0;
}

/* One "key: value" entry; seen[] catches missing and repeated keys. */
static int dict_entry(struct dict *d, bool seen[3], bool *fortran,
		      uint64_t *dims, int *ndim)
{
	char key[32], descr[32];
	size_t at;

	if (dict_string(d, key, sizeof(key)) < 0 || dict_expect(d, ':') < 0)
		return -1;
	dict_space(d);
	at = d->i;
	if (strcmp(key, "descr") == 0 && !seen[0]) {
		seen[0] = true;
		if (d->i < d->n && d->s[d->i] == '[')
			return npy_fields(d);
		if (dict_string(d, descr, sizeof(descr)) < 0)
			return -1;
		if (npy_descr(descr, &d->h->dtype) < 0)
			return fmt_fail(d->h, d->base + at,
					"unsupported dtype '%s'", descr);
		d->h->boolean = descr[1] == 'b';
		d->h->dtype.boolean = d->h->boolean;
		return 0;
	}
	if (strcmp(key, "fortran_order") == 0 && !seen[1]) {
		seen[1] = true;
		return dict_bool(d, fortran);
	}
	if (strcmp(key, "shape") == 0 && !seen[2]) {
		seen[2] = true;
		return dict_shape(d, dims, ndim);
	}
	return fmt_fail(d->h, d->base + at, "unexpected key '%s'", key);
}

/* Columns (product of the trailing dimensions) and payload bytes. The
 * columns are capped before anything is allocated for them, as -c is. */
static int npy_sizes(struct dict *d, const uint64_t *dims, int ndim)
{
	uint64_t all = 1, trail = 1;
	int k;

	for (k = 0; k < ndim; k++) {
		if (__builtin_mul_overflow(all, dims[k], &all) ||
		    (k > 0 && __builtin_mul_overflow(trail, dims[k], &trail)))
			return fmt_fail(d->h, d->base, "shape too large");
	}
	if (__builtin_mul_overflow(all, d->h->rec.n ? d->h->rec.size
				   : npy_itemsize(d->h->dtype.type),
				   &d->h->payload))
		return fmt_fail(d->h, d->base, "shape too large");
	if (ndim >= 2 && trail > FMT_COLUMNS_MAX)
		return fmt_fail(d->h, d->base,
				"%llu columns (the last axes), more than %u",
				(unsigned long long)trail, FMT_COLUMNS_MAX);
	d->h->columns = ndim >= 2 ? (unsigned)trail : 0;
	if (d->h->rec.n && ndim > 1)
		return fmt_fail(d->h, d->base, "a structured array of %d axes "
				"(records are read from one axis)", ndim);
	if (d->h->rec.n)
		d->h->columns = d->h->rec.n;
	return 0;
}

/* Column-major data needs reading column by column only when two or more
 * axes are longer than 1: otherwise both orders lay it out alike. */
static bool npy_column_major(const uint64_t *dims, int ndim, uint64_t payload)
{
	int k, long_axes = 0;

	for (k = 0; k < ndim; k++)
		long_axes += dims[k] > 1;
	return long_axes > 1 && payload > 0;
}

static int npy_dict(struct dict *d)
{
	bool seen[3] = { false, false, false }, fortran = false;
	uint64_t dims[NPY_MAX_DIMS];
	int ndim = 0;

	if (dict_expect(d, '{') < 0)
		return -1;
	for (;;) {
		dict_space(d);
		if (d->i < d->n && d->s[d->i] == '}')
			break;
		if (dict_entry(d, seen, &fortran, dims, &ndim) < 0)
			return -1;
		dict_space(d);
		if (d->i < d->n && d->s[d->i] == ',')
			d->i++;
		else if (d->i >= d->n || d->s[d->i] != '}')
			return dict_fail(d, "expected ',' or '}'");
	}
	d->i++;
	dict_space(d);
	if (d->i != d->n)
		return dict_fail(d, "junk after the dict");
	if (!seen[0] || !seen[1] || !seen[2])
		return fmt_fail(d->h, d->base, "missing key '%s'",
				!seen[0] ? "descr" : !seen[1] ? "fortran_order"
				: "shape");
	if (npy_sizes(d, dims, ndim) < 0)
		return -1;
	d->h->fortran = fortran && npy_column_major(dims, ndim, d->h->payload);
	d->h->ndim = ndim;
	memcpy(d->h->dims, dims, (size_t)ndim * sizeof(dims[0]));
	return 0;
}

int npy_parse(const uint8_t *p, size_t n, struct fmt_header *h)
{
	size_t pre, dlen;
	struct dict d;

	if (n < 10)
		return 0;
	if (p[6] < 1 || p[6] > 3 || p[7] != 0)
		return fmt_fail(h, 6, "unsupported version %u.%u", p[6], p[7]);
	pre = p[6] == 1 ? 10 : 12;
	if (n < pre)
		return 0;
	dlen = p[8] | (size_t)p[9] << 8;
	if (pre == 12)
		dlen |= (size_t)p[10] << 16 | (size_t)p[11] << 24;
	if (dlen > FMT_HEADER_MAX - pre)
		return fmt_fail(h, 8, "header of %zu bytes is too long", pre + dlen);
	if (n < pre + dlen)
		return 0;
	h->len = pre + dlen;
	d = (struct dict){ (const char *)p + pre, 0, dlen, pre, h };
	if (npy_dict(&d) < 0)
		return -1;
	return 1;
}
