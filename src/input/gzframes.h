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

/* ", libdeflate 1.14 for BGZF" where libdeflate inflates the blocks, else
 * "": for gpustat --version. */
const char *gzframes_inflater(void);

#endif
