/*
 * zsrc.h - the bytes of one operand: read from its fd, decoded by zstd when
 * the operand is compressed. Private to the input layer (input.c).
 *
 * Raw (compressed) bytes go through a fixed read-ahead buffer; uncompressed
 * data is read straight into the caller's buffer once the few bytes peeked
 * for the magic are served, and zstd decodes straight into it too.
 */
#ifndef ZSRC_H
#define ZSRC_H

#include <stdbool.h>
#include <sys/types.h>
#include <zstd.h>
#include "gs.h"

#define ZSRC_STALL (-2)

struct zsrc {
	int fd;
	bool is_reg;		/* regular file: reads never stall */
	bool eof;		/* the fd returned end of file */
	bool zstd;		/* decode through dctx */
	bool in_frame;		/* inside a zstd frame: EOF now is truncation */
	const char *name;	/* for errors */
	ZSTD_DCtx *dctx;	/* owned by the caller, reused across operands */
	uint8_t *buf;		/* read-ahead of raw bytes: [pos, len) unread */
	size_t cap, pos, len;
	uint64_t raw_off;	/* raw bytes read from fd so far */
	uint64_t frame_off;	/* where the frame being decoded began */
	uint64_t window_max;	/* largest window a frame may ask for */
};

/* Start reading fd; buf/cap/dctx are kept from the previous operand. */
void zsrc_start(struct zsrc *z, int fd, bool is_reg, const char *name);

/* Whether the 4 bytes at p are a zstd frame or skippable frame magic. */
bool zsrc_magic(const uint8_t *p);

/* Whether the operand begins with a zstd frame or a skippable frame: 1 yes,
 * 0 no, ZSRC_STALL, or -1 (read error in err). Consumes nothing. */
int zsrc_detect(struct zsrc *z, int stall_ms, struct gs_err *err);

/* Decode through dctx from now on (dctx set by the caller, its
 * ZSTD_d_windowLogMax at least window_max). Each frame's header is checked
 * against window_max before zstd allocates its window. */
void zsrc_use_zstd(struct zsrc *z);

/* Up to n decoded bytes: the count, 0 at the end of the operand,
 * ZSRC_STALL when stall_ms >= 0 and a pipe stayed silent that long, or -1
 * (read error, truncated or corrupt frame; err says which and where). */
ssize_t zsrc_read(struct zsrc *z, void *buf, size_t n, int stall_ms,
		  struct gs_err *err);

#endif
