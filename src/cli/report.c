/*
 * report.c - see report.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "numfmt.h"
#include "report.h"

void sb_init(struct sbuf *b)
{
	*b = (struct sbuf){ .p = NULL };
}

void sb_free(struct sbuf *b)
{
	free(b->p);
	sb_init(b);
}

static bool sb_reserve(struct sbuf *b, size_t more)
{
	if (b->oom)
		return false;
	if (b->drain && b->len && b->len + more + 1 > b->drain_at &&
	    !b->drain(b)) {
		b->oom = true;
		return false;
	}
	if (b->len + more + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;

	while (cap < b->len + more + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);

	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void sb_addn(struct sbuf *b, const void *s, size_t n)
{
	if (!sb_reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void sb_add(struct sbuf *b, const char *s)
{
	sb_addn(b, s, strlen(s));
}

void sb_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);

	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		sb_addn(b, small, (size_t)n);
		return;
	}
	if (!sb_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Straight into the buffer: these two write every number of a large table
 * (a million-bin histogram), so no printf and no copy. */
void sb_double(struct sbuf *b, double v)
{
	if (!sb_reserve(b, FMT_DOUBLE_MAX))
		return;
	b->len += (size_t)fmt_double(b->p + b->len, FMT_DOUBLE_MAX, v);
}

void sb_u64(struct sbuf *b, uint64_t v)
{
	if (!sb_reserve(b, FMT_U64_MAX))
		return;
	b->len += (size_t)fmt_u64(b->p + b->len, v);
}

void sb_json_double(struct sbuf *b, double v)
{
	if (v != v || v - v != 0) {	/* NaN or infinite */
		sb_add(b, "\"");
		sb_double(b, v);
		sb_add(b, "\"");
	} else {
		sb_double(b, v);
	}
}

const char *npy_descr(enum gs_type t)
{
	static const char *const d[GS_NTYPES] = {
		[GS_U8] = "|u1", [GS_I8] = "|i1", [GS_U16] = "<u2",
		[GS_I16] = "<i2", [GS_U32] = "<u4", [GS_I32] = "<i4",
		[GS_U64] = "<u8", [GS_I64] = "<i8", [GS_F16] = "<f2",
		[GS_BF16] = "<u2", [GS_F32] = "<f4", [GS_F64] = "<f8",
	};
	return d[t];
}

void npy_header(struct sbuf *b, const char *descr, const uint64_t *dims,
		int ndim, size_t pad_to)
{
	struct sbuf d;

	sb_init(&d);
	/* a structured dtype is numpy's list of fields, unquoted */
	sb_addf(&d, descr[0] == '[' ? "{'descr': %s, 'fortran_order': False, "
		"'shape': (" : "{'descr': '%s', 'fortran_order': False, "
		"'shape': (", descr);
	for (int i = 0; i < ndim; i++)
		sb_addf(&d, "%llu,%s", (unsigned long long)dims[i],
			i + 1 < ndim ? " " : "");
	sb_add(&d, "), }");
	/* magic (6) + version (2) + length (2) + dict + padding + '\n' */
	size_t total = 10 + d.len + 1;

	total = (total + 63) / 64 * 64;
	if (pad_to > total)
		total = pad_to;
	size_t hlen = total - 10;

	sb_addn(b, "\x93NUMPY\x01\x00", 8);
	unsigned char len[2] = { (unsigned char)(hlen & 0xff),
				 (unsigned char)(hlen >> 8) };
	sb_addn(b, len, 2);
	sb_addn(b, d.p, d.len);
	while (d.len + 1 < hlen) {
		sb_add(b, " ");
		d.len++;
	}
	sb_add(b, "\n");
	sb_free(&d);
}
