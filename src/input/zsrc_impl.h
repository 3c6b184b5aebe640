/*
 * zsrc_impl.h - the state of a zsrc (zsrc.h), for the files that make one
 * up: zsrc.c, and zsrcmap.c (a regular file's compressed bytes mapped
 * instead of read). Private to the input layer.
 */
#ifndef ZSRC_IMPL_H
#define ZSRC_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>
#include "zsrc.h"

/* ---- one operand ----------------------------------------------------------- */

struct zsrc {
	int fd;
	bool is_reg;		/* regular file: reads never stall */
	bool eof;		/* the fd returned end of file */
	bool zstd;		/* decode through dctx */
	bool gzip;		/* decode through gz */
	bool in_frame;		/* inside a zstd frame: EOF now is truncation */
	bool dry;		/* zstd took all input and has no output left */
	const char *name;	/* for errors */
	ZSTD_DCtx *dctx;	/* made on first use, kept across operands */
	struct gzsrc *gz;	/* the same for gzip */
	uint8_t *buf;		/* read-ahead of raw bytes: [pos, len) unread */
	size_t cap, pos, len;
	/* a regular file's rest, mapped (zsrcmap.c): buf points into it, and
	 * the read-ahead buffer waits in own until the mapping is used up */
	void *map;
	size_t map_len;
	struct zmap_ahead *ahead;	/* faults its pages in on a thread */
	uint8_t *own;
	size_t own_cap;
	uint64_t raw_off;	/* raw bytes read from fd so far */
	uint64_t frame_off;	/* where the frame being decoded began */
	uint64_t window_max;	/* largest window a frame may ask for */
	int threads;		/* that may decode frames at once */
	struct zpipe *pipe;	/* the operand's frames, decoded in parallel */
	int pipe_file;		/* ...as this file of the pipe */
	bool pipe_owned;	/* opened for this operand (else zahead's) */
	struct zfeed *feed;	/* a pipe's frames, read on a thread */
	struct gzfeed *gzfeed;	/* ...or its BGZF blocks */
	struct zpipe *gzm;	/* a file's gzip members, spans of them decoded
				 * on the workers (gzmembers.h) */
	bool gzm_stream;	/* ...the stream decodes the members at hand */
	bool gzm_first;		/* ...the first, beside a worker */
	uint64_t gzm_served;	/* ...and has served this much of them */
	uint64_t base;		/* the fd offset where the operand began */
	struct zsrc_decoded dec;	/* of every operand so far */
};

/* Map the rest of a regular file being decoded as one stream, from the
 * first unread byte to its end, and serve it from the mapping as if it had
 * been read (the fd moves to the end): one copy less than read(2) makes,
 * on the one decoding thread. Nothing happens for a short rest or where it
 * cannot be mapped. */
void zsrc_map_rest(struct zsrc *z);

/* Back to the read-ahead buffer, holding the mapping's unread bytes: false
 * when they do not fit (out of memory). */
bool zsrc_unmap_rest(struct zsrc *z);

/* Tell the mapping's page thread how far the decoder has come. */
void zsrc_map_progress(struct zsrc *z);

#endif
