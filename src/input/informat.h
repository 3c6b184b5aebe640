/*
 * informat.h - the formats an operand may be in, as one table walked by one
 * detection path (informat.c). Private to the input layer.
 *
 * Each format is a record: how its data begins (a magic), how its header is
 * parsed (fmthdr.h), and what may follow a payload. Formats gpustat does not
 * read (xz, PNG, a PBM bitmap ...) are records too, with what to do
 * instead: read as raw data they would give numbers about their encoding,
 * not about what they hold. Adding a format is one record plus its parser.
 *
 * zstd and gzip are not in the table: they are a layer below (zsrc.h),
 * and the formats are recognised in what they decode.
 */
#ifndef INFORMAT_H
#define INFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "fmthdr.h"

struct in_format {
	const char *name;	/* "npy", "pgm"; refused: what it is */
	/* How it begins: magic() says 1, 0, or -1 when n is too short to
	 * tell; or, when magic is NULL, the bytes sig[0..len) then, when next
	 * is set, one of next's bytes. */
	int (*magic)(const uint8_t *p, size_t n);
	const char *sig;
	size_t len;
	const char *next;
	/* Refused formats: what to do instead. NULL for those read. */
	const char *refuse;
	/* The header parser, NULL for raw data (which has no header). */
	int (*parse)(const uint8_t *p, size_t n, struct fmt_header *h);
	/* End of a payload: the bytes that may come before another header
	 * (pnm images follow one another); NULL when nothing may follow. */
	bool (*gap)(uint8_t c);
};

/* Raw data: an operand whose first bytes match no row (or any, --raw). */
extern const struct in_format informat_raw;

/* The format whose magic begins p[0..n), NULL for none; *more is set when
 * more bytes could still make one match. */
const struct in_format *informat_find(const uint8_t *p, size_t n, bool *more);

/* Payload bytes of all the operands from their headers, without reading
 * the streams: -1 unless each is a regular file, not compressed, whose
 * header (if any) tells. raw: no header is looked for (--raw).
 * stdin_start: where stdin's data begins when it is a regular file, else
 * -1. */
int64_t informat_total(char *const *paths, int npaths, bool raw,
		       off_t stdin_start);

#endif
