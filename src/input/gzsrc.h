/*
 * gzsrc.h - gzip (RFC 1952) under zsrc: an operand's members inflated by
 * zlib, one after another, from zsrc's read-ahead of raw bytes straight
 * into the caller's buffer. Private to the input layer.
 *
 * Each member's header, CRC32 and ISIZE are checked, with the messages of
 * zlib's gzip wrapper; concatenated members (cat a.gz b.gz, pigz -i,
 * BGZF) follow one another, and anything after a member that is not
 * another one is corrupt. Errors
 * name a member by where it begins, in compressed bytes within the
 * operand, as zstd's name a frame: where zlib notices depends on the
 * caller's buffer sizes, where the member begins does not.
 */
#ifndef GZSRC_H
#define GZSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "gs.h"

struct zsrc;
struct gzsrc;		/* zlib's inflate state, kept across operands */

/* Whether p[0..n) begins a gzip member (1f 8b, deflate): 1 yes, 0 no, -1
 * when n < 3 is too short to tell. */
int gzsrc_magic(const uint8_t *p, size_t n);

/* A decoder, NULL when out of memory; freed with gzsrc_free. Where more
 * than one of threads may decode, a thread of its own computes the CRC32
 * of a large read's pieces (gzcrc.h) while the next is inflated. */
struct gzsrc *gzsrc_new(int threads);
void gzsrc_free(struct gzsrc *g);

/* Start decoding an operand at a member boundary. */
void gzsrc_start(struct gzsrc *g);

/* Up to n decoded bytes of zsrc z's operand: the count, 0 at its end
 * (between members), ZSRC_STALL, or -1 (err: read error, truncated or
 * corrupt member). */
ssize_t gzsrc_read(struct gzsrc *g, struct zsrc *z, void *buf, size_t n,
		   int stall_ms, struct gs_err *err);

/* Whether the last read ended a member: the next byte of the operand
 * begins another, or is its end. */
bool gzsrc_between(const struct gzsrc *g);

/* "zlib 1.2.13" (and the inflate BGZF blocks use, where it is another):
 * for gpustat --version. */
const char *gzsrc_version(void);

#endif
