/*
 * gzmembers.c - see gzmembers.h.
 *
 * The spans are the frames of a mapped file in the pipe (zframes_pipe);
 * each worker finds its own span's first member, so nothing reads the
 * compressed bytes ahead on one thread. A member is inflated raw as
 * gzframes.c inflates a BGZF block (gzinflate.h, a whole buffer at once,
 * into the rest of the span's buffer: its decoded size is known only at
 * its end), its header and trailer read here with the checks the stream
 * makes (gzsrc.c), so that the members a span decodes from a member
 * boundary are exactly those the stream would decode.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "gzinflate.h"
#include "gzmembers.h"
#include "gzsrc.h"
#include "zframes.h"
#include "zpipe.h"
#include "zsrc_impl.h"

/* RFC 1952, 2.3.1 */
#define GZ_FIXED 10
#define GZ_TRAILER 8
#define F_HCRC 0x02
#define F_EXTRA 0x04
#define F_NAME 0x08
#define F_COMMENT 0x10
#define F_RESERVED 0xe0

/* Compressed bytes a span holds: a few per worker, so that spans that
 * begin in the same member (none of theirs to decode) leave the ring room
 * for others; large enough that a span is not per-member work; and about
 * a quarter of the bound decoded (by the ratio of the first bytes), so
 * that the members that begin in it fit. */
#define SPAN_MIN ((uint64_t)64 << 10)
#define SPAN_MAX ((uint64_t)8 << 20)
#define SAMPLE_OUT ((size_t)8 << 20)	/* a ratio of 64 for 128 KiB read */

/* The length of the member header at p[0..n), 0 where there is none that
 * the stream would take (gzsrc.c: magic, method, reserved flags, FHCRC). */
static size_t header_len(const unsigned char *p, size_t n)
{
	size_t at = GZ_FIXED;
	const unsigned char *z;

	if (n < GZ_FIXED || p[0] != 0x1f || p[1] != 0x8b || p[2] != 8 ||
	    (p[3] & F_RESERVED))
		return 0;
	if (p[3] & F_EXTRA) {
		if (n - at < 2 || n - at - 2 < ((size_t)p[at] | (size_t)p[at + 1] << 8))
			return 0;
		at += 2 + ((size_t)p[at] | (size_t)p[at + 1] << 8);
	}
	for (unsigned f = F_NAME; f <= F_COMMENT; f <<= 1)
		if (p[3] & f) {
			if (!(z = memchr(p + at, 0, n - at)))
				return 0;
			at = (size_t)(z - p) + 1;
		}
	if (p[3] & F_HCRC) {
		if (n - at < 2 ||
		    ((size_t)p[at] | (size_t)p[at + 1] << 8) != (crc32(0, p, (uInt)at) & 0xffff))
			return 0;
		at += 2;
	}
	return at;
}

/* The member at p[0..n) inflated into out[0..cap): 1 with its length
 * (*clen) and decoded size (*dlen) where it decodes whole, its CRC32 and
 * ISIZE right; -1 where it might but for the room; 0 where it does not. */
static int member(const unsigned char *p, size_t n, unsigned char *out,
		  size_t cap, size_t *clen, size_t *dlen)
{
	size_t h = header_len(p, n), used;
	const unsigned char *t;
	int r;

	if (!h || (r = gzinflate_raw(p + h, n - h, out, cap, &used, dlen)) <= 0)
		return h ? r : 0;
	if (n - h - used < GZ_TRAILER)
		return 0;
	t = p + h + used;
	if (gzinflate_le32(t) != gzinflate_crc32(0, out, *dlen) ||
	    gzinflate_le32(t + 4) != (uint32_t)*dlen)
		return 0;
	*clen = h + used + GZ_TRAILER;
	return 1;
}

/* The members from src[c] on while they begin before span, into
 * dst[0..cap): their decoded size, and where they end (*end: c where the
 * first does not decode). *whole: whether they ran to the span's end or
 * to a member with no room left, as a member boundary's do; members found
 * at a member header inside another's data seldom do (the bytes after
 * them are no member). Where marks is given, the places after c where a
 * member was tried are marked in it, a bit a byte of the span. */
static size_t run(const unsigned char *src, size_t c, size_t span,
		  size_t cmax, unsigned char *dst, size_t cap, size_t *end,
		  bool *whole, uint64_t *marks)
{
	size_t out = 0, clen, dlen;
	int r = 1;

	for (*end = c; *end < span; *end += clen, out += dlen) {
		if (marks && *end > c)
			marks[*end / 64] |= (uint64_t)1 << *end % 64;
		if ((r = member(src + *end, cmax - *end, dst + out, cap - out,
				&clen, &dlen)) <= 0)
			break;
	}
	*whole = r != 0;
	return out;
}

/* A run that is not whole marks the places it tried a member: a run from
 * one of them is the same run from there on, with no less room, so it is
 * not whole either and is passed over. Without the marks, N small members
 * before bytes that are none (garbage, a corrupt member) were run from
 * each of their N headers, N^2/2 members inflated. */
size_t gzmembers_decode(const unsigned char *src, size_t span, size_t cmax,
			unsigned char *dst, size_t cap, uint64_t *from,
			uint64_t *to)
{
	const unsigned char *q;
	size_t c, part = SIZE_MAX, end = 0, out = 0;
	uint64_t *marks = NULL;
	bool whole, found = false;

	for (c = 0; c < span && (q = memchr(src + c, 0x1f, span - c)); c++) {
		c = (size_t)(q - src);
		if (cmax - c < GZ_FIXED || q[1] != 0x8b || q[2] != 8 ||
		    (q[3] & F_RESERVED) || (marks && marks[c / 64] >> c % 64 & 1))
			continue;
		out = run(src, c, span, cmax, dst, cap, &end, &whole, marks);
		if ((found = end > c && whole))
			break;
		if (end > c && part == SIZE_MAX) {
			part = c;	/* kept, in case no run is whole */
			if ((marks = calloc(span / 64 + 1, sizeof(*marks))))
				run(src, c, span, cmax, dst, cap, &end, &whole,
				    marks);
		}
	}
	/* members that stop at bytes that are none: the last before garbage
	 * or a corrupt member, or inside one (then they are no link) */
	if (!found && part != SIZE_MAX) {
		c = part;
		out = run(src, c, span, cmax, dst, cap, &end, &whole, NULL);
		found = true;
	}
	free(marks);
	*from = found ? c : ZPIPE_NOWHERE;
	*to = found ? end : 0;
	return found ? out : 0;
}

/* ---- the reader -------------------------------------------------------------- */

/* The compressed bytes that decode to about a quarter of the bound, by
 * the first member's bytes at p[0..n) (what zsrc has read ahead of it):
 * SPAN_MAX where they tell nothing. */
static uint64_t span_by_ratio(const unsigned char *p, size_t n)
{
	size_t h = header_len(p, n), used;
	uint64_t span = SPAN_MAX;
	z_stream s = { 0 };
	unsigned char *out;
	int r;

	if (!h || n - h > UINT_MAX || !(out = malloc(SAMPLE_OUT)))
		return span;
	if (inflateInit2(&s, -15) == Z_OK) {
		s.next_in = (Bytef *)p + h;
		s.avail_in = (uInt)(n - h);
		s.next_out = out;
		s.avail_out = (uInt)SAMPLE_OUT;
		r = inflate(&s, Z_NO_FLUSH);
		used = n - h - s.avail_in;
		if ((r == Z_OK || r == Z_STREAM_END || r == Z_BUF_ERROR) &&
		    used >= 1024 && s.avail_out < SAMPLE_OUT)
			span = GZMEMBERS_BOUND / 4 * used / (SAMPLE_OUT - s.avail_out);
		inflateEnd(&s);
	}
	free(out);
	return span;
}

bool gzmembers_use(struct zsrc *z, uint64_t start)
{
	struct zframe *list;
	struct stat st;
	uint64_t rest, span, ratio;
	size_t n = 0;

	if (z->threads < 2 || fstat(z->fd, &st) < 0 ||
	    (uint64_t)st.st_size <= start)
		return false;
	rest = (uint64_t)st.st_size - start;
	span = rest / (4 * (uint64_t)z->threads);
	ratio = span_by_ratio(z->buf + z->pos, z->len - z->pos);
	span = span < ratio ? span : ratio;
	span = span < SPAN_MIN ? SPAN_MIN : span > SPAN_MAX ? SPAN_MAX : span;
	if (rest < 2 * span || !(list = malloc((rest / span + 1) * sizeof(*list))))
		return false;
	for (uint64_t off = start; off < (uint64_t)st.st_size; off += span)
		list[n++] = (struct zframe){
			.off = off,
			.csize = (uint64_t)st.st_size - off < span ?
				 (uint64_t)st.st_size - off : span,
			.dsize = GZMEMBERS_BOUND, .codec = ZCODEC_GZMEMBERS };
	z->gzm = zframes_pipe(z->fd, (uint64_t)st.st_size, list, n, z->threads);
	if (!z->gzm)
		return false;
	/* the first member too, beside the stream (gzmembers_read) */
	zpipe_chain(z->gzm, start);
	z->gzm_stream = true;
	z->gzm_first = true;
	z->gzm_served = 0;
	z->dec.threads = zpipe_threads(z->gzm);
	return true;
}

void gzmembers_close(struct zsrc *z)
{
	zpipe_close(z->gzm);
	z->gzm = NULL;
}

/* Move the stream's next raw byte on to absolute offset at: within what
 * is read ahead (or mapped), or by a seek. */
static int skip_to(struct zsrc *z, uint64_t at, struct gs_err *err)
{
	uint64_t cur = z->base + zsrc_raw_off(z);

	if (at >= cur && at - cur <= z->len - z->pos) {
		z->pos += (size_t)(at - cur);
		return 0;
	}
	if (lseek(z->fd, (off_t)at, SEEK_SET) < 0)
		return gs_fail(err, GS_ERUNTIME, z->name,
			       "cannot seek to byte %llu: %s",
			       (unsigned long long)at, strerror(errno));
	z->eof = false;
	z->pos = z->len = 0;
	z->raw_off = at - z->base;
	return 0;
}

ssize_t gzmembers_read(struct zsrc *z, void *buf, size_t n, int stall_ms,
		       struct gs_err *err)
{
	uint64_t at;
	size_t code;
	ssize_t r = 0;

	/* The stream begins on the first member at once, and the worker that
	 * decoded it takes over where it has, the bytes the stream served
	 * skipped: a file of one member is read as fast as -j 1 reads it. At
	 * the later boundaries the reader waits for the span that begins
	 * there, so what is decoded where does not depend on timing. */
	if (!z->gzm_stream ||
	    (z->gzm_first && zpipe_link(z->gzm, 0, z->gzm_served) == 1)) {
		z->gzm_stream = false;
		z->gzm_first = false;
		r = zpipe_read(z->gzm, 0, buf, n, -1, &at, &code);
		if (r > 0) {
			z->dec.parallel += (uint64_t)r;
			return r;
		}
	}
	/* no span begins at the chain: the stream decodes from there on */
	if (!z->gzm_stream) {
		at = zpipe_chain_at(z->gzm);
		if (r == 0)	/* the spans are done with */
			gzmembers_close(z);
		if (skip_to(z, at, err) < 0)
			return -1;
		gzsrc_start(z->gz);
		z->gzm_stream = true;
		z->gzm_served = 0;
	}
	r = gzsrc_read(z->gz, z, buf, n, stall_ms, err);
	if (r <= 0)
		return r;
	z->dec.stream += (uint64_t)r;
	z->gzm_served += (uint64_t)r;
	if (z->gzm && gzsrc_between(z->gz)) {	/* a member boundary */
		zpipe_chain(z->gzm, z->base + zsrc_raw_off(z));
		z->gzm_stream = false;
		z->gzm_first = false;
	}
	return r;
}
