/*
 * gzcrc.h - the CRC32 of a gzip member's decoded bytes, computed on a
 * thread of its own while the stream (gzsrc.c) inflates the next piece,
 * as pigz checks on a thread beside its inflate. Private to the input
 * layer.
 *
 * The pieces are lent: the thread reads a piece until gzcrc_wait has
 * returned, so nothing may write it before then.
 */
#ifndef GZCRC_H
#define GZCRC_H

#include <stddef.h>
#include <stdint.h>

struct gzcrc;

/* A thread that computes CRC32s: NULL where none can be had (compute
 * them in place). */
struct gzcrc *gzcrc_new(void);
void gzcrc_free(struct gzcrc *c);

/* Lend p[0..n), the bytes after those lent before: the thread carries
 * the CRC32 over them. Waits where many pieces are lent already. */
void gzcrc_add(struct gzcrc *c, const void *p, size_t n);

/* Wait until the thread has read every piece lent: crc carried over them
 * all, in order (the pieces are then given back, and the next one lent
 * goes after crc). */
uint32_t gzcrc_wait(struct gzcrc *c, uint32_t crc);

#endif
