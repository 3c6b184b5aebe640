/* zwalk.h - the frames of a zstd file listed from their frame and block
 * headers alone (RFC 8878), for bench/nvcomp_probe.cu: where each frame
 * begins and ends, its content size if its header has one, else a bound
 * from its blocks, and the content checksum it ends with. Skippable frames
 * (pzstd's: 4 bytes, the next frame's compressed size) are counted and left
 * out. Header-only C; static functions. */
#ifndef ZWALK_H
#define ZWALK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ZW_MAGIC 0xFD2FB528u
#define ZW_SKIP_MAGIC 0x184D2A50u	/* ...50 to ...5F */
#define ZW_BLOCK_MAX (128u << 10)

struct zw_frame {
	uint64_t off;		/* the frame's first byte in the file */
	uint64_t csize;		/* its bytes, header to checksum */
	uint64_t bound;		/* its content size, or at most this */
	int64_t fcs;		/* the header's content size, -1: none */
	uint32_t blocks;
	int has_sum;		/* Content_Checksum_flag */
	uint32_t sum;		/* the checksum: XXH64's low 32 bits */
	int64_t hint;		/* pzstd's skippable frame before it: its size, else -1 */
};

static uint32_t zw_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* zw_parse: the zstd frame at p (n bytes from there to the end of the
 * file) into *f (off left alone); NULL, or what is wrong with it. Checks
 * what the headers can tell: reserved bits and block types, block sizes
 * over the block maximum, a content size its blocks cannot hold or that
 * raw and RLE blocks exceed, a frame that runs past n. */
static const char *zw_parse(const uint8_t *p, uint64_t n, struct zw_frame *f)
{
	if (n < 6)
		return "truncated frame header";
	if (zw_le32(p) != ZW_MAGIC)
		return "not a zstd frame";
	uint8_t d = p[4];
	int fcs_flag = d >> 6, single = d >> 5 & 1, dict = d & 3;
	static const int dict_len[4] = { 0, 1, 2, 4 };
	int fcs_len = fcs_flag == 0 ? single : 1 << fcs_flag;
	uint64_t h = 5 + !single + dict_len[dict] + fcs_len;

	if (d & 8)
		return "reserved bit set in the frame header";
	if (n < h + 3)
		return "truncated frame header";
	uint64_t window = 0, fcs = 0;
	if (!single) {
		uint8_t w = p[5];
		uint64_t base = 1ull << (10 + (w >> 3));
		window = base + (base >> 3) * (w & 7);
	}
	const uint8_t *q = p + h - fcs_len;
	for (int i = 0; i < fcs_len; i++)
		fcs |= (uint64_t)q[i] << (8 * i);
	if (fcs_len == 2)
		fcs += 256;
	if (single)
		window = fcs;
	f->fcs = fcs_len ? (int64_t)fcs : -1;
	f->has_sum = d >> 2 & 1;
	uint64_t bmax = window < ZW_BLOCK_MAX ? window : ZW_BLOCK_MAX;
	uint64_t at = h, bound = 0, exact = 0;
	int last = 0;

	f->blocks = 0;
	while (!last) {
		if (n - at < 3)
			return "truncated block header";
		uint32_t b = p[at] | (uint32_t)p[at + 1] << 8 | (uint32_t)p[at + 2] << 16;
		uint32_t type = b >> 1 & 3, size = b >> 3;
		uint64_t body = type == 1 ? 1 : size;

		last = b & 1;
		if (type == 3)
			return "reserved block type";
		if (size > bmax)
			return "block larger than the block maximum";
		at += 3;
		if (n - at < body)
			return "block runs past the end of the file";
		at += body;
		bound += type == 2 ? bmax : size;
		exact += type == 2 ? 0 : size;
		f->blocks++;
	}
	if (f->has_sum) {
		if (n - at < 4)
			return "truncated content checksum";
		f->sum = zw_le32(p + at);
		at += 4;
	}
	if (f->fcs >= 0) {
		if ((uint64_t)f->fcs > bound || (uint64_t)f->fcs < exact)
			return "content size its blocks cannot hold";
		bound = f->fcs;
	}
	f->csize = at;
	f->bound = bound;
	return NULL;
}

/* zw_file: the zstd frames of p[0, n) into frames (up to cap of them);
 * their number, or -1 with why (and where) in err. *skips counts the
 * skippable frames. */
static long zw_file(const uint8_t *p, uint64_t n, struct zw_frame *frames, long cap,
		    long *skips, char *err, size_t errsize)
{
	uint64_t at = 0;
	long k = 0;
	int64_t hint = -1;

	*skips = 0;
	while (at < n) {
		if (n - at < 8) {
			snprintf(err, errsize, "byte %llu: %llu trailing bytes",
				 (unsigned long long)at, (unsigned long long)(n - at));
			return -1;
		}
		uint32_t m = zw_le32(p + at);
		if ((m & ~0xFu) == ZW_SKIP_MAGIC) {
			uint32_t len = zw_le32(p + at + 4);
			if (n - at - 8 < len) {
				snprintf(err, errsize, "byte %llu: skippable frame runs past the end",
					 (unsigned long long)at);
				return -1;
			}
			hint = len == 4 ? (int64_t)zw_le32(p + at + 8) : -1;
			at += 8 + (uint64_t)len;
			++*skips;
			continue;
		}
		if (k == cap) {
			snprintf(err, errsize, "more than %ld frames", cap);
			return -1;
		}
		const char *why = zw_parse(p + at, n - at, &frames[k]);
		if (why) {
			snprintf(err, errsize, "byte %llu: %s", (unsigned long long)at, why);
			return -1;
		}
		frames[k].off = at;
		frames[k].hint = hint;
		if (hint >= 0 && (uint64_t)hint != frames[k].csize) {
			snprintf(err, errsize, "byte %llu: skippable frame says %lld bytes, the frame has %llu",
				 (unsigned long long)at, (long long)hint,
				 (unsigned long long)frames[k].csize);
			return -1;
		}
		hint = -1;
		at += frames[k++].csize;
	}
	return k;
}

#endif
