/*
 * gzinflate.h - what gzip's decoders share: a whole buffer of raw deflate
 * data inflated at once (the workers' BGZF blocks, gzframes.c, and a
 * span's members, gzmembers.c), the CRC32 (those and the stream, gzsrc.c)
 * and the trailer's little-endian words. libdeflate where the build found
 * it (it inflates a buffer 1.5 to 2.2 times as fast as zlib, and its CRC32
 * is several times as fast as zlib's), zlib otherwise. Private to the
 * input layer.
 */
#ifndef GZINFLATE_H
#define GZINFLATE_H

#include <stddef.h>
#include <stdint.h>

/* The little-endian 32-bit word at p (a trailer's CRC32 or ISIZE). */
static inline uint32_t gzinflate_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* crc (0 to begin) carried over p[0..n). */
uint32_t gzinflate_crc32(uint32_t crc, const void *p, size_t n);

/* Raw deflate data at in[0..n) inflated into out[0..cap): 1 with the
 * bytes it took (*used) and gave (*got) where it ends within both, -1
 * where out is too short (or no decoder can be had), 0 where it is no
 * deflate data. Each thread keeps a decoder of its own. */
int gzinflate_raw(const unsigned char *in, size_t n, unsigned char *out,
		  size_t cap, size_t *used, size_t *got);

/* ", libdeflate 1.14 for BGZF and CRC32" where libdeflate is in, else "":
 * for gpustat --version. */
const char *gzinflate_name(void);

#endif
