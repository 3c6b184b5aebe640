/*
 * gzmembers.h - a regular file of plain gzip members (cat a.gz b.gz, gzip
 * or pigz run on pieces and the outputs concatenated) decoded on several
 * threads at once by the pipe of workers (zpipe.h), then served in order
 * (zsrc.c). Private to the input layer.
 *
 * A member's header gives neither its compressed nor its decoded length,
 * so the file is cut into spans of compressed bytes, and each worker
 * decodes its span's members on speculation: from a place in the span
 * where a member header is (1f 8b 08, flags with no reserved bit, a
 * header that parses, its FHCRC right), member after member, each whole
 * with its CRC32 and ISIZE right, until one ends at or past the span's
 * end, in at most GZMEMBERS_BOUND decoded bytes. The place is the first
 * whose members run so far (or to one that does not fit); a member header
 * inside another member's data (a stored member's data may hold whole
 * gzip files) is seldom followed by another member, so it is passed over.
 * A span's bytes are served only where they begin exactly where the
 * members served before them end (the chain, from the first member's
 * start), so a guess that is wrong costs time, never a byte: a
 * span that begins before the chain, or nowhere, is dropped. Where no span
 * begins at the chain (a member over the bound, a corrupt or truncated
 * one, bytes after the last that are no member), the stream (gzsrc.h)
 * decodes from the chain, member by member, as -j 1 does, so every message
 * is the stream's; the spans are taken again at the next member boundary
 * where one of them begins.
 */
#ifndef GZMEMBERS_H
#define GZMEMBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "gs.h"

struct zsrc;

/* Decoded bytes a span's members may come to: ZFEED_UNSIZED_MAX's
 * reasoning (a pipe's budget holds 32 such buffers, two per worker). */
#define GZMEMBERS_BOUND ((uint64_t)32 << 20)

/* Decode zsrc z's operand, a regular file of gzip members whose first
 * begins at byte start of its fd, on its workers: false when it is not
 * worth it (one thread, a short file) or no pipe can be had; then the
 * stream decodes it all. */
bool gzmembers_use(struct zsrc *z, uint64_t start);

/* Up to n decoded bytes, as gzsrc_read gives them (err: where it did
 * not decode, as the stream says it). */
ssize_t gzmembers_read(struct zsrc *z, void *buf, size_t n, int stall_ms,
		       struct gs_err *err);

/* Stop decoding on the workers: the pipe is closed. */
void gzmembers_close(struct zsrc *z);

/* The members that begin in src[0..span), src[0..cmax) readable,
 * inflated into dst[0..cap): from the first member header in the span
 * whose members run, one after another, to the span's end or to one that
 * does not fit; else from the first whose members stop at bytes that are
 * none. Their decoded size; *from and *to where they begin and end (*from
 * ZPIPE_NOWHERE and *to 0 when no member begins in the span). Called by
 * the pipe's workers. */
size_t gzmembers_decode(const unsigned char *src, size_t span, size_t cmax,
			unsigned char *dst, size_t cap, uint64_t *from,
			uint64_t *to);

#endif
