/*
 * zsrc.h - the bytes of the operands, one at a time: read from the fd,
 * decoded by zstd or gzip (gzsrc.h) when the operand is compressed.
 * Private to the input layer.
 *
 * Raw (compressed) bytes go through a fixed read-ahead buffer; uncompressed
 * data is read straight into the caller's buffer once the few bytes peeked
 * for the magic are served, and zstd decodes straight into it too.
 */
#ifndef ZSRC_H
#define ZSRC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "gs.h"

#define ZSRC_STALL (-2)

/* The codecs: what zsrc_named and zsrc_detect find, zsrc_use takes. */
#define ZSRC_ZSTD 1
#define ZSRC_GZIP 2

/* Opaque: the fd being read, its read-ahead buffer and the zstd decoder,
 * which lives from the first compressed operand to zsrc_free. */
struct zsrc;

/* A source for a list of operands whose zstd frames may ask for a window
 * of at most window_max bytes, the frames of a regular file (zframes.h) or
 * of a pipe (zfeed.h) decoded on up to threads threads. NULL when out of
 * memory. */
struct zsrc *zsrc_new(uint64_t window_max, int threads);
void zsrc_free(struct zsrc *z);

/* Start reading fd (the caller opens and closes it); name is for errors. */
void zsrc_start(struct zsrc *z, int fd, bool is_reg, const char *name);

/* The codec the name says the operand is in: ZSRC_ZSTD (".zst"),
 * ZSRC_GZIP (".gz") or 0. */
int zsrc_named(const char *path);

/* The window a zstd frame header at p[0..n) asks for: 1 with *win, 0 when
 * more bytes are needed, -1 when p is no zstd frame header. */
int zsrc_frame_window(const uint8_t *p, size_t n, uint64_t *win);

/* The size of the frame header whose descriptor (its fifth byte) is fhd. */
size_t zsrc_header_size(unsigned fhd);

/* Whether the 4 bytes at p are a zstd frame or skippable frame magic. */
bool zsrc_magic(const uint8_t *p);

/* Whether the operand begins with a zstd frame or a skippable frame
 * (ZSRC_ZSTD) or a gzip member (ZSRC_GZIP): the codec, 0 for none,
 * ZSRC_STALL, or -1 (read error in err). Consumes nothing. */
int zsrc_detect(struct zsrc *z, int stall_ms, struct gs_err *err);

/* Decode the operand through zstd from now on. Each frame's header is
 * checked against window_max before zstd allocates its window. -1 when the
 * decoder cannot be made (out of memory). */
int zsrc_use_zstd(struct zsrc *z);

/* Decode the operand through codec (ZSRC_ZSTD or ZSRC_GZIP) from now on: a
 * regular file's BGZF blocks (gzframes.h) or other gzip members
 * (gzmembers.h) decode in parallel. -1 when the decoder cannot be made. */
int zsrc_use(struct zsrc *z, int codec);

/* Serve the operand from file file of pipe p, its frames of codec
 * (ZSRC_ZSTD, or ZSRC_GZIP: BGZF groups) decoded ahead (zahead.h), instead
 * of decoding it; p stays its owner's. False when out of memory. */
struct zpipe;
bool zsrc_serve(struct zsrc *z, struct zpipe *p, int file, int codec);

/* Decoded bytes served so far, of every operand: by workers decoding frames
 * in parallel (threads of them, the last pipe's) and by the one stream. */
struct zsrc_decoded {
	uint64_t parallel, stream;
	int threads;
	const char *codec;	/* the last compressed operand's: "zstd", ... */
};
void zsrc_decoded(const struct zsrc *z, struct zsrc_decoded *d);

/* Whether the operand's frames are decoded in parallel (for now: a pipe
 * from a frame it cannot take on goes on as one stream). A file's gzip
 * members (gzmembers.h) say no: most gzip files are one member, read as
 * one stream, and the spans of a file of many serve small chunks as
 * well. */
bool zsrc_parallel(const struct zsrc *z);

/* Whether the operand is being decoded, and by what: "zstd", "gzip" or
 * NULL. */
bool zsrc_compressed(const struct zsrc *z);
const char *zsrc_codec(const struct zsrc *z);

/* Up to n decoded bytes: the count, 0 at the end of the operand (and
 * where n is 0: nothing is read), ZSRC_STALL when stall_ms >= 0 and a
 * pipe stayed silent that long, or -1 (read error, truncated or corrupt
 * frame; err says which and where). */
ssize_t zsrc_read(struct zsrc *z, void *buf, size_t n, int stall_ms,
		  struct gs_err *err);

/* The next bytes of an uncompressed regular file in place, as zsrc_read
 * would give them, mapped instead of copied: n of them at *p, and n (the
 * offset moves past them); 0 where the operand is not such a file, some
 * bytes wait in the read-ahead, fewer than n are left (zsrc_read goes
 * on from there, and finds the end), or *p would be no multiple of align
 * (a power of two up to the page size); -1 on error. A regular file's zstd
 * frames decoded in parallel are lent in place the same way, up to n
 * bytes of one frame (zpipe_view). Give
 * the view back with zsrc_unview(*p, count). A file that shrinks while
 * mapped raises SIGBUS where its lost pages are read, as with mmap(2). */
ssize_t zsrc_view(struct zsrc *z, size_t n, size_t align, const void **p,
		  struct gs_err *err);
void zsrc_unview(const void *p, size_t n);

/* Take back the last k bytes read of a regular file's frames decoded in
 * parallel, for zsrc_view or zsrc_read to serve again: false where they
 * are no longer in the head frame (or the file is not decoded so). */
bool zsrc_unread(struct zsrc *z, size_t k);

/* Whether a regular file's frames, decoded in parallel, have all been
 * viewed or read: what comes next is the operand's end, found by a read. */
bool zsrc_served(struct zsrc *z);

/* ---- the raw bytes, for a codec under zsrc (gzsrc.c) ------------------- */

/* The raw bytes read ahead and not yet used: their count, at *p. */
size_t zsrc_raw(struct zsrc *z, const uint8_t **p);

/* The first k of them are used. */
void zsrc_raw_take(struct zsrc *z, size_t k);

/* Read more raw bytes after them: the count, 0 at the end of the operand,
 * ZSRC_STALL, or -1 (read error in err). */
ssize_t zsrc_raw_more(struct zsrc *z, int stall_ms, struct gs_err *err);

/* Where the first unused raw byte lies in the operand, and its name. */
uint64_t zsrc_raw_off(const struct zsrc *z);
const char *zsrc_name(const struct zsrc *z);

#endif
