/*
 * zahead.h - the .zst operands after the one being read, decoded ahead on
 * threads of their own, so that a dataset in compressed shards decodes on
 * several cores while the operands are still served in order (input.c).
 * Private to the input layer.
 *
 * Only regular files whose every frame checks out before decoding (whole
 * frames with their content sizes, windows within the limit) are decoded
 * ahead, and only as many as fit ZAHEAD_BYTES of decoded data together.
 * An operand that could not be decoded ahead for any reason (a corrupt
 * frame, a file that cannot be opened) is simply read as it would have been
 * otherwise, when its turn comes: its errors are the stream's.
 */
#ifndef ZAHEAD_H
#define ZAHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zahead;

/* For the operands paths[0..n), with up to threads decoding at once; NULL
 * when threads < 2 (or out of memory: decoding ahead is only a speed-up). */
struct zahead *zahead_new(char *const *paths, int n, int threads,
			  uint64_t window_max);
void zahead_free(struct zahead *a);

/* Operand i is being opened: start decoding those after it. */
void zahead_from(struct zahead *a, int i);

/* Operand i's decoded bytes, if it was decoded ahead (waiting for it if
 * need be): true with *buf (malloc'd, the caller frees it) and *len. */
bool zahead_take(struct zahead *a, int i, unsigned char **buf, size_t *len);

/* Back to the first operand (a second pass): nothing decoded is kept. */
void zahead_reset(struct zahead *a);

#endif
