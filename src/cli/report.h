/*
 * report.h - building output: a growable string, numbers as text and
 * JSON, and .npy headers, for the result writer (writer.h) and for the
 * outputs that are not results (scan's stream, hist's --edges, bench).
 */
#ifndef REPORT_H
#define REPORT_H

#include "gs.h"

struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;		/* an allocation failed; contents are cut */
	/* Where set, a result streams: before the buffer would pass
	 * drain_at bytes, drain() takes the bytes it holds (writes them on)
	 * and empties it, or unsets itself and keeps them (the buffer grows
	 * as without); drain() false (a write failed: its owner keeps why)
	 * cuts the contents as oom does. */
	bool (*drain)(struct sbuf *b);
	void *drain_ctx;
	size_t drain_at;
};

void sb_init(struct sbuf *b);
void sb_free(struct sbuf *b);
void sb_add(struct sbuf *b, const char *s);
void sb_addn(struct sbuf *b, const void *s, size_t n);
void sb_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_double(struct sbuf *b, double v);	/* shortest round trip */
void sb_u64(struct sbuf *b, uint64_t v);
/* A double as JSON: a number, or "nan"/"inf"/"-inf" as strings. */
void sb_json_double(struct sbuf *b, double v);

/* A version 1.0 .npy header for shape (dims[0], ..., dims[ndim-1]) whose
 * length is padded to `pad_to` bytes when pad_to is larger than needed
 * (for headers rewritten later with a larger count), else to 64. */
void npy_header(struct sbuf *b, const char *descr, const uint64_t *dims,
		int ndim, size_t pad_to);
/* numpy's descr of a little-endian gpustat type ("<f4", "|u1", ...). bf16
 * has no numpy type; it is written as "<u2". */
const char *npy_descr(enum gs_type t);

#endif
