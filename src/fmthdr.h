/*
 * fmthdr.h - parsers of the headers that carry a type: .npy (npy.c) and
 * binary Netpbm P5/P6 (pnm.c). Private to the input layer.
 *
 * Both work on bytes already in memory, so the stream (input.c) and the size
 * probe (which preads a file's first bytes) share them. A parser returns 1
 * with the header filled, 0 when it needs more bytes than it was given, or
 * -1 with msg/errpos saying what is wrong and where.
 */
#ifndef FMTHDR_H
#define FMTHDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gs.h"

/* Longest header we accept. numpy refuses headers over 10000 bytes by
 * default; Netpbm headers are short unless stuffed with comments. */
#define FMT_HEADER_MAX 16384

struct fmt_header {
	struct gs_dtype dtype;
	unsigned columns;	/* 0: the header says nothing about it */
	uint64_t payload;	/* data bytes that follow the header */
	size_t len;		/* header bytes, payload starts there */
	size_t errpos;		/* on error: offset of the offending byte */
	char msg[160];		/* on error: what is wrong */
};

/* 1 when p starts with the magic, 0 when it does not, -1 when n is too
 * short to tell (only asked while more bytes may come). */
int npy_magic(const uint8_t *p, size_t n);
int pnm_magic(const uint8_t *p, size_t n);

int npy_parse(const uint8_t *p, size_t n, struct fmt_header *h);
int pnm_parse(const uint8_t *p, size_t n, struct fmt_header *h);

/* Netpbm white space: also what may follow the last image of a file. */
bool pnm_space(uint8_t c);

/* Shared by both parsers: fill h->msg/errpos and return -1. */
int fmt_fail(struct fmt_header *h, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
