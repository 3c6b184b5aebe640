/*
 * gzframes.c - see gzframes.h.
 *
 * The blocks are listed by pread, two per block (its header, its ISIZE),
 * as zframes.c lists zstd frames, then grouped: a block decodes to 64 KiB
 * at most, and the pipe's ring holds 64 frames, so a frame per block would
 * keep the workers waiting on the ring. Each worker inflates a group's
 * blocks one by one, each a whole buffer at a time (gzinflate.h).
 */
#include <stdlib.h>
#include <sys/stat.h>
#include "gzframes.h"
#include "gzinflate.h"
#include "zframes.h"
#include "zpipe.h"

#define BGZF_PEEK 64		/* header bytes read: bgzip's are 18 */
#define BGZF_TRAILER 8		/* CRC32, ISIZE */

/* Decoded bytes a group aims at: enough groups for every worker several
 * times over, each large enough that serving it is not per-block work. */
#define GROUP_MIN ((uint64_t)256 << 10)
#define GROUP_MAX ((uint64_t)4 << 20)

struct block {
	uint64_t off;
	uint32_t len, isize;	/* compressed and decoded bytes */
};

size_t gzframes_block(const unsigned char *h, size_t n, size_t *hlen)
{
	size_t xlen, at;

	if (n < 12 || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || h[3] != 4)
		return 0;
	xlen = (size_t)h[10] | (size_t)h[11] << 8;
	if (n < 12 + xlen)
		return 0;
	for (at = 12; at + 4 <= 12 + xlen;
	     at += 4 + ((size_t)h[at + 2] | (size_t)h[at + 3] << 8)) {
		size_t slen = (size_t)h[at + 2] | (size_t)h[at + 3] << 8;

		if (h[at] == 'B' && h[at + 1] == 'C' && slen == 2 &&
		    at + 6 <= 12 + xlen) {
			size_t len = ((size_t)h[at + 4] | (size_t)h[at + 5] << 8) + 1;

			*hlen = 12 + xlen;
			return len >= *hlen + BGZF_TRAILER ? len : 0;
		}
	}
	return 0;
}

/* The blocks of [start, end) in *list (malloc'd, *n): false when a member
 * is not a whole BGZF block, or out of memory. */
static bool scan(int fd, uint64_t start, uint64_t end, struct block **list,
		 size_t *n)
{
	unsigned char h[BGZF_PEEK];
	size_t cap = 0, k, len, hlen;

	*list = NULL;
	*n = 0;
	for (uint64_t off = start; off < end; off += len) {
		k = end - off < sizeof(h) ? (size_t)(end - off) : sizeof(h);
		if (!zframes_peek(fd, off, h, k) ||
		    !(len = gzframes_block(h, k, &hlen)) || len > end - off ||
		    !zframes_peek(fd, off + len - 4, h, 4))
			return false;
		if (*n == cap) {
			struct block *l = realloc(*list, (cap = cap * 2 + 256) *
						  sizeof(*l));

			if (!l)
				return false;
			*list = l;
		}
		(*list)[(*n)++] = (struct block){ off, (uint32_t)len, gzinflate_le32(h) };
	}
	return true;
}

/* The blocks in groups of about target decoded bytes each, as zpipe
 * frames: *ng of them, or NULL when out of memory. */
static struct zframe *group(const struct block *b, size_t n, uint64_t target,
			    size_t *ng)
{
	struct zframe *g = malloc((n ? n : 1) * sizeof(*g));
	size_t k = 0;

	for (size_t i = 0; g && i < n; i++) {
		if (k == 0 || g[k - 1].dsize >= target)
			g[k++] = (struct zframe){ .off = b[i].off,
						  .sized = true,
						  .codec = ZCODEC_BGZF };
		g[k - 1].csize += b[i].len;
		g[k - 1].dsize += b[i].isize;
	}
	*ng = k;
	return g;
}

bool gzframes_list(int fd, uint64_t start, uint64_t end, int threads,
		   struct zframe **list, size_t *ng)
{
	struct block *blocks = NULL;
	uint64_t total = 0, target;
	size_t n = 0;

	*list = NULL;
	if (!scan(fd, start, end, &blocks, &n)) {
		free(blocks);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		total += blocks[i].isize;
	target = total / (4 * (uint64_t)threads);
	target = target < GROUP_MIN ? GROUP_MIN : target > GROUP_MAX ? GROUP_MAX : target;
	*list = group(blocks, n, target, ng);
	free(blocks);
	return *list != NULL;
}

struct zpipe *gzframes_open(int fd, uint64_t start, int threads)
{
	struct zframe *list = NULL;
	struct stat st;
	size_t ng = 0;

	if (threads < 2 || fstat(fd, &st) < 0 || (uint64_t)st.st_size <= start ||
	    !gzframes_list(fd, start, (uint64_t)st.st_size, threads, &list, &ng)) {
		free(list);
		return NULL;
	}
	return zframes_pipe(fd, (uint64_t)st.st_size, list, ng, threads);
}

/* ---- the workers' inflate ---------------------------------------------------- */

/* One block's deflate data in[0..len) to exactly out[0..n): true when it
 * decodes so, every input byte used, its CRC32 crc. */
static bool inflate_block(const unsigned char *in, size_t len,
			  unsigned char *out, size_t n, uint32_t crc)
{
	size_t used, got;

	return gzinflate_raw(in, len, out, n, &used, &got) == 1 &&
	       used == len && got == n && gzinflate_crc32(0, out, n) == crc;
}

bool gzframes_decode(const unsigned char *src, size_t csize,
		     unsigned char *dst, size_t dsize)
{
	static unsigned char none[1];	/* zlib wants an output, even empty */
	size_t at = 0, out = 0, len, hlen;

	while (at < csize) {
		const unsigned char *b = src + at;
		size_t k = csize - at < BGZF_PEEK ? csize - at : BGZF_PEEK;
		uint32_t isize;

		if (!(len = gzframes_block(b, k, &hlen)) || len > csize - at)
			return false;
		isize = gzinflate_le32(b + len - 4);
		if (isize > dsize - out ||
		    !inflate_block(b + hlen, len - hlen - BGZF_TRAILER,
				   isize ? dst + out : none, isize,
				   gzinflate_le32(b + len - 8)))
			return false;
		out += isize;
		at += len;
	}
	return out == dsize;
}
