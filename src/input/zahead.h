/*
 * zahead.h - the .zst and BGZF operands of a list decoded ahead, frame by
 * frame (a BGZF file's blocks in groups) on the workers of one pipe
 * (zpipe.h), so that a dataset in compressed shards decodes on several
 * cores while the operands are still served in order (input.c). Private
 * to the input layer.
 *
 * Only regular files whose every frame checks out before decoding (whole
 * frames of a bounded size, windows within the limit: zframes_scan; whole
 * BGZF blocks from the first byte to the last: gzframes_list) are decoded
 * ahead, and only as many as keep ZAHEAD_QUEUE decoded bytes queued; the
 * pipe holds at most ZPIPE_BYTES of them decoded. Any other operand is
 * read as it would have been otherwise, when its turn comes. A zstd frame
 * that does not decode is an error named by where it begins, as the stream
 * names it, and none of its bytes are served; a BGZF group that does not
 * decode is decoded again by the stream from where it begins, as -j 1
 * decodes it.
 */
#ifndef ZAHEAD_H
#define ZAHEAD_H

#include <stdbool.h>
#include <stdint.h>
#include "zsrc.h"

struct zahead;

/* For the operands paths[0..n), with up to threads workers decoding at
 * once; NULL when threads < 2 or n < 2 (one operand: zframes.h), or out of
 * memory (decoding ahead is only a speed-up). */
struct zahead *zahead_new(char *const *paths, int n, int threads,
			  uint64_t window_max);
void zahead_free(struct zahead *a);

/* Operand i is being opened: queue it and those after it. */
void zahead_from(struct zahead *a, int i);

/* If operand i was queued, have z serve it from the pipe (its fd, opened
 * by the caller, is left unread): true. Operands before i are dropped from
 * the pipe, whatever is left of them. */
bool zahead_take(struct zahead *a, int i, struct zsrc *z);

/* Back to the first operand (a second pass): nothing decoded is kept. */
void zahead_reset(struct zahead *a);

#endif
