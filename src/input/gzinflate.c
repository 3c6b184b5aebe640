/*
 * gzinflate.c - see gzinflate.h.
 */
#include <limits.h>
#include <stdlib.h>
#include <zlib.h>
#ifdef GS_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#include "gzinflate.h"

#ifdef GS_HAVE_LIBDEFLATE
uint32_t gzinflate_crc32(uint32_t crc, const void *p, size_t n)
{
	return libdeflate_crc32(crc, p, n);
}

int gzinflate_raw(const unsigned char *in, size_t n, unsigned char *out,
		  size_t cap, size_t *used, size_t *got)
{
	static _Thread_local struct libdeflate_decompressor *d;
	enum libdeflate_result r;

	if (!d && !(d = libdeflate_alloc_decompressor()))
		return -1;
	r = libdeflate_deflate_decompress_ex(d, in, n, out, cap, used, got);
	return r == LIBDEFLATE_SUCCESS ? 1 : r == LIBDEFLATE_INSUFFICIENT_SPACE ? -1 : 0;
}

const char *gzinflate_name(void)
{
	return ", libdeflate " LIBDEFLATE_VERSION_STRING " for BGZF and CRC32";
}
#else
uint32_t gzinflate_crc32(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *q = p;

	while (n) {	/* zlib's length is a uInt */
		uInt k = n > UINT_MAX ? UINT_MAX : (uInt)n;

		crc = (uint32_t)crc32(crc, q, k);
		q += k;
		n -= k;
	}
	return crc;
}

int gzinflate_raw(const unsigned char *in, size_t n, unsigned char *out,
		  size_t cap, size_t *used, size_t *got)
{
	static _Thread_local z_stream *s;
	uInt in_n = n > UINT_MAX ? UINT_MAX : (uInt)n;
	uInt out_n = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
	int r;

	if (!s) {
		z_stream *t = calloc(1, sizeof(*t));

		if (!t || inflateInit2(t, -15) != Z_OK) {
			free(t);
			return -1;
		}
		s = t;
	}
	if (inflateReset(s) != Z_OK)
		return -1;
	s->next_in = (Bytef *)in;
	s->avail_in = in_n;
	s->next_out = out;
	s->avail_out = out_n;
	r = inflate(s, Z_FINISH);
	if (r != Z_STREAM_END)	/* Z_BUF_ERROR: out, or in, ran short */
		return r == Z_BUF_ERROR && s->avail_out == 0 ? -1 : 0;
	*used = in_n - s->avail_in;
	*got = out_n - s->avail_out;
	return 1;
}

const char *gzinflate_name(void)
{
	return "";
}
#endif
