/* gzwalk.h - the gzip members of a file listed on the host, for
 * bench/nvcomp_gz_probe.cu: BGZF blocks from their 'BC' extra subfield
 * (bgzip's layout: each member gives its own compressed size), any other
 * members from their compressed sizes given beside the file (a gzip member
 * does not say where it ends: only inflating it finds its end, which is why
 * gpustat's CPU reader (src/input/gzmembers.c) tries member headers and
 * decodes from them). Each member's header is parsed (RFC 1952), its
 * trailer read: CRC32 and ISIZE. Header-only C; static functions. */
#ifndef GZWALK_H
#define GZWALK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define GW_TRAILER 8
#define GW_F_HCRC 0x02
#define GW_F_EXTRA 0x04
#define GW_F_NAME 0x08
#define GW_F_COMMENT 0x10
#define GW_F_RESERVED 0xe0

struct gw_member {
	uint64_t off;		/* the member's first byte in the file */
	uint64_t csize;		/* its bytes, header to trailer */
	uint32_t hlen;		/* its header's bytes: the deflate data follow */
	uint32_t crc;		/* CRC32 of its content (the trailer's) */
	uint32_t isize;		/* its content's size mod 2^32 (the trailer's) */
};

static uint32_t gw_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* gw_header: the length of the member header at p[0, n), 0 where it is
 * none (magic, CM 8, reserved flags, fields that run past n). *bgzf: the
 * member's length from its 'BC' subfield, 0 where it has none. The header
 * CRC (FHCRC) is skipped, not checked. */
static size_t gw_header(const uint8_t *p, uint64_t n, uint64_t *bgzf)
{
	size_t at = 10;

	*bgzf = 0;
	if (n < 10 || p[0] != 0x1f || p[1] != 0x8b || p[2] != 8 || (p[3] & GW_F_RESERVED))
		return 0;
	if (p[3] & GW_F_EXTRA) {
		if (n - at < 2)
			return 0;
		size_t xlen = p[at] | (size_t)p[at + 1] << 8, e = at + 2 + xlen;
		if (n < e)
			return 0;
		for (size_t s = at + 2; s + 4 <= e;) {
			size_t slen = p[s + 2] | (size_t)p[s + 3] << 8;
			if (p[s] == 'B' && p[s + 1] == 'C' && slen == 2 && s + 6 <= e)
				*bgzf = (p[s + 4] | (uint64_t)p[s + 5] << 8) + 1;
			s += 4 + slen;
		}
		at = e;
	}
	for (unsigned f = GW_F_NAME; f <= GW_F_COMMENT; f <<= 1)
		if (p[3] & f) {
			const uint8_t *z = (const uint8_t *)memchr(p + at, 0, n - at);
			if (!z)
				return 0;
			at = (size_t)(z - p) + 1;
		}
	if (p[3] & GW_F_HCRC)
		at += 2;
	return at <= n ? at : 0;
}

/* gw_file: the members of p[0, n) into list (up to cap): BGZF blocks
 * where the first member is one (every member must be), else the members
 * whose compressed sizes sizes[0, nsizes) gives (nsizes 0: none given, an
 * error). Their number, or -1 with why (and where) in err. */
static long gw_file(const uint8_t *p, uint64_t n, const uint64_t *sizes, long nsizes,
		    struct gw_member *list, long cap, int *is_bgzf, char *err, size_t errsize)
{
	uint64_t at = 0, bg;
	long k = 0;

	*is_bgzf = gw_header(p, n, &bg) && bg;
	if (!*is_bgzf && !nsizes) {
		snprintf(err, errsize, "not BGZF: give the members' compressed sizes (-i FILE)");
		return -1;
	}
	while (at < n) {
		size_t h = gw_header(p + at, n - at, &bg);
		uint64_t len = *is_bgzf ? bg : k < nsizes ? sizes[k] : 0;

		if (!h || (*is_bgzf && !bg)) {
			snprintf(err, errsize, "byte %llu: no %s member header", (unsigned long long)at,
				 *is_bgzf ? "BGZF" : "gzip");
			return -1;
		}
		if (k == cap || (!*is_bgzf && k >= nsizes)) {
			snprintf(err, errsize, "byte %llu: more members than %s", (unsigned long long)at,
				 k == cap ? "fit" : "the sizes given");
			return -1;
		}
		if (len < h + 2 + GW_TRAILER || len > n - at) {
			snprintf(err, errsize, "byte %llu: member of %llu bytes (header %zu, %llu left)",
				 (unsigned long long)at, (unsigned long long)len, h,
				 (unsigned long long)(n - at));
			return -1;
		}
		list[k].off = at;
		list[k].csize = len;
		list[k].hlen = (uint32_t)h;
		list[k].crc = gw_le32(p + at + len - 8);
		list[k].isize = gw_le32(p + at + len - 4);
		at += len;
		k++;
	}
	if (!*is_bgzf && k != nsizes) {
		snprintf(err, errsize, "%ld members, %ld sizes given", k, nsizes);
		return -1;
	}
	return k;
}

#endif
