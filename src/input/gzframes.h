/*
 * gzframes.h - the BGZF blocks of a regular file (bgzip's layout: gzip
 * members of at most 64 KiB, each giving its own compressed size in a 'BC'
 * extra subfield and its decoded size in its ISIZE), grouped into frames
 * of a few MiB and decoded on several threads at once by the pipe of
 * workers (zpipe.h), then served in order (zsrc.c). Private to the input
 * layer.
 *
 * Only a file that is BGZF blocks from where it is read to its end takes
 * this path; any other gzip is read as a stream (gzsrc.h). A group that
 * does not decode (bad deflate data, CRC32 or ISIZE) is decoded again by
 * the stream from where it begins, which serves its good blocks and names
 * the bad one as -j 1 does.
 */
#ifndef GZFRAMES_H
#define GZFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zpipe;
struct zframe;

/* BGZF: a block's length and the bytes it decodes to are at most this. */
#define GZFRAMES_BLOCK_MAX ((size_t)64 << 10)

/* The BGZF block whose first n bytes are at h (RFC 1952 with FLG.FEXTRA
 * alone, and a 'BC' subfield of 2 bytes): its length (at most
 * GZFRAMES_BLOCK_MAX) with *hlen, the header's; 0 when h begins no such
 * block, or n bytes do not hold its header. */
size_t gzframes_block(const unsigned char *h, size_t n, size_t *hlen);

/* The BGZF blocks of regular file fd's bytes [start, end), in groups for
 * threads workers, as frames in *list (malloc'd; *n of them), read by
 * pread: false when a member is not a whole BGZF block, or out of memory
 * (the file is then read otherwise). */
bool gzframes_list(int fd, uint64_t start, uint64_t end, int threads,
		   struct zframe **list, size_t *n);

/* The BGZF blocks of regular file fd from byte start to its end, if there
 * are at least two groups of them, queued as file 0 of a new pipe decoding
 * on up to threads workers: the pipe, or NULL (read the file as a
 * stream). */
struct zpipe *gzframes_open(int fd, uint64_t start, int threads);

/* Inflate the BGZF blocks src[0..csize) into dst, exactly dsize bytes in
 * all, each block's CRC32 and ISIZE checked: false when they do not
 * decode so. Called by the pipe's workers, each with a decoder of its
 * own. */
bool gzframes_decode(const unsigned char *src, size_t csize,
		     unsigned char *dst, size_t dsize);

#endif
