/*
 * gzsrc.c - see gzsrc.h.
 *
 * zlib inflates each member's deflate data raw (windowBits -15); the
 * header (RFC 1952, 2.3) and the trailer are read here, and the CRC32 is
 * computed apart on each piece just decoded, while it is still in the
 * cache: libdeflate's CRC32 (where the build has it) is several times as
 * fast as the one zlib's gzip wrapper would run. Where a read asks for
 * several pieces of a mapped file, and more than one thread may decode, a
 * thread of its own computes it (gzcrc.h) while the next piece is
 * inflated, and the read waits for it before it returns: the caller may
 * write its buffer then.
 * Every check and message is the wrapper's: what zlib would call an
 * error, where it would, is called so here (tests/test_gzip.sh holds them
 * to it).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "gzcrc.h"
#include "gzinflate.h"
#include "gzsrc.h"
#include "zsrc.h"

/* RFC 1952, 2.3.1: FLG */
#define F_HCRC 0x02
#define F_EXTRA 0x04
#define F_NAME 0x08
#define F_COMMENT 0x10
#define F_RESERVED 0xe0

/* Decoded bytes a piece, where the CRC32 is computed on its thread: the
 * last piece of a read is checked after it is inflated, the others while
 * the next is; zlib copies 32 KiB of each into its window. */
#define PIECE ((size_t)1 << 20)

/* the parts of a member, in order; the header's optional ones are
 * skipped where its flags leave them out */
enum part { P_FIXED, P_XLEN, P_EXTRA, P_NAME, P_COMMENT, P_HCRC, P_DATA,
	    P_TRAILER };

struct gzsrc {
	z_stream s;		/* raw inflate */
	bool in_member;		/* inside a member: the end now is truncation */
	uint64_t member_off;	/* where it began */
	enum part part;
	uint8_t fix[10];	/* the fixed part, XLEN, HCRC or the trailer */
	unsigned have;		/* ...bytes of it so far */
	unsigned flg;
	unsigned skip;		/* of the extra field, bytes left */
	uint32_t hcrc;		/* CRC32 of the header so far */
	uint32_t crc;		/* of the data decoded so far */
	uint32_t isize;		/* its length, mod 2^32 */
	int threads;		/* that may decode: above 1, a CRC32 thread */
	struct gzcrc *cc;	/* ...made at the first read that lends */
	bool lend;		/* the read lends its pieces to it */
};

int gzsrc_magic(const uint8_t *p, size_t n)
{
	static const uint8_t m[3] = { 0x1f, 0x8b, 0x08 };

	if (memcmp(p, m, n < 3 ? n : 3) != 0)
		return 0;
	return n < 3 ? -1 : 1;
}

struct gzsrc *gzsrc_new(int threads)
{
	struct gzsrc *g = calloc(1, sizeof(*g));

	if (g && inflateInit2(&g->s, -15) != Z_OK) {
		free(g);
		g = NULL;
	}
	if (g)
		g->threads = threads;
	return g;
}

void gzsrc_free(struct gzsrc *g)
{
	if (!g)
		return;
	gzcrc_free(g->cc);
	inflateEnd(&g->s);
	free(g);
}

void gzsrc_start(struct gzsrc *g)
{
	g->in_member = false;
}

static int corrupt(struct gzsrc *g, struct zsrc *z, int ret, const char *msg,
		   struct gs_err *err)
{
	if (ret == Z_MEM_ERROR)
		return gs_fail(err, GS_ERUNTIME, zsrc_name(z),
			       "out of memory inflating the gzip member at compressed byte %llu",
			       (unsigned long long)g->member_off);
	return gs_fail(err, GS_ERUNTIME, zsrc_name(z),
		       "corrupt gzip member at compressed byte %llu: %s",
		       (unsigned long long)g->member_off,
		       msg ? msg : "inflate failed");
}

/* Gather p[0..n) into fix until it holds want bytes: how many it took. */
static size_t gather(struct gzsrc *g, unsigned want, const uint8_t *p,
		     size_t n)
{
	size_t k = want - g->have < n ? want - g->have : n;

	memcpy(g->fix + g->have, p, k);
	g->have += (unsigned)k;
	return k;
}

/* The part after the header's part at: the next one its flags name. */
static enum part after(const struct gzsrc *g, enum part at)
{
	if (at < P_XLEN && (g->flg & F_EXTRA))
		return P_XLEN;
	if (at < P_NAME && (g->flg & F_NAME))
		return P_NAME;
	if (at < P_COMMENT && (g->flg & F_COMMENT))
		return P_COMMENT;
	if (at < P_HCRC && (g->flg & F_HCRC))
		return P_HCRC;
	return P_DATA;
}

static void next_part(struct gzsrc *g, enum part part)
{
	g->part = part;
	g->have = 0;
}

/* Read the header from p[0..n): the bytes taken (*used), and 1 when the
 * header is whole, 0 when it needs more, -1 (*msg: zlib's words) when it
 * is not one. Checked as soon as zlib would check: the magic after 2
 * bytes, the method and flags after 4. */
static int header(struct gzsrc *g, const uint8_t *p, size_t n, size_t *used,
		  const char **msg)
{
	size_t at = 0, k;
	const uint8_t *end;

	while (at < n && g->part != P_DATA) {
		const uint8_t *q = p + at;

		switch (g->part) {
		case P_FIXED:
			k = gather(g, 10, q, n - at);
			if (g->have >= 2 && (g->fix[0] != 0x1f || g->fix[1] != 0x8b)) {
				*msg = "incorrect header check";
				return -1;
			}
			if (g->have >= 3 && g->fix[2] != Z_DEFLATED) {
				*msg = "unknown compression method";
				return -1;
			}
			if (g->have >= 4 && (g->fix[3] & F_RESERVED)) {
				*msg = "unknown header flags set";
				return -1;
			}
			if (g->have < 10)
				break;
			g->flg = g->fix[3];
			g->hcrc = (uint32_t)crc32(0, g->fix, 10);
			next_part(g, after(g, P_FIXED));
			at += k;
			continue;
		case P_XLEN:
			k = gather(g, 2, q, n - at);
			if (g->have == 2) {
				g->skip = g->fix[0] | (unsigned)g->fix[1] << 8;
				next_part(g, P_EXTRA);
			}
			break;
		case P_EXTRA:
			k = g->skip < n - at ? g->skip : n - at;
			g->skip -= (unsigned)k;
			if (!g->skip)
				next_part(g, after(g, P_EXTRA));
			break;
		case P_NAME:
		case P_COMMENT:
			end = memchr(q, 0, n - at);
			k = end ? (size_t)(end - q) + 1 : n - at;
			if (end)
				next_part(g, after(g, g->part));
			break;
		default:	/* P_HCRC: of the bytes before it */
			k = gather(g, 2, q, n - at);
			if (g->have == 2 &&
			    (g->fix[0] | (unsigned)g->fix[1] << 8) != (g->hcrc & 0xffff)) {
				*used = at + k;
				*msg = "header crc mismatch";
				return -1;
			}
			at += k;
			if (g->have == 2)
				next_part(g, P_DATA);
			continue;
		}
		if (g->flg & F_HCRC)
			g->hcrc = (uint32_t)crc32(g->hcrc, q, (uInt)k);
		at += k;
	}
	*used = at;
	return g->part == P_DATA;
}

/* Read the trailer from p[0..n) as header() reads the header: the CRC32
 * is checked once its 4 bytes are in, ISIZE once the 8 are. */
static int trailer(struct gzsrc *g, const uint8_t *p, size_t n, size_t *used,
		   const char **msg)
{
	*used = gather(g, 8, p, n);
	if (g->have >= 4 && gzinflate_le32(g->fix) != g->crc) {
		*msg = "incorrect data check";
		return -1;
	}
	if (g->have == 8 && gzinflate_le32(g->fix + 4) != g->isize) {
		*msg = "incorrect length check";
		return -1;
	}
	return g->have == 8;
}

/* A member begins: its header is read next. */
static void member(struct gzsrc *g, uint64_t off)
{
	g->member_off = off;
	g->in_member = true;
	next_part(g, P_FIXED);
	g->flg = 0;
	g->hcrc = 0;
	g->crc = 0;
	g->isize = 0;
}

/* The CRC32 goes on over p[0..n): on its thread where the read lends
 * its pieces, else here. */
static void crc_over(struct gzsrc *g, const uint8_t *p, size_t n)
{
	if (g->lend)
		gzcrc_add(g->cc, p, n);
	else
		g->crc = gzinflate_crc32(g->crc, p, n);
}

/* The CRC32 of every byte decoded so far: the pieces lent are read. */
static void crc_sync(struct gzsrc *g)
{
	if (g->lend)
		g->crc = gzcrc_wait(g->cc, g->crc);
}

/* Inflate what the read-ahead holds into buf[0..n): the bytes decoded
 * (*got), whether they filled it (*full), or -1 (err). A trailer in the
 * same input is checked before the bytes are served, as zlib's wrapper
 * would. */
static int inflate_some(struct gzsrc *g, struct zsrc *z, const uint8_t *p,
			size_t avail, uint8_t *buf, size_t n, size_t *got,
			bool *again, bool *full, struct gs_err *err)
{
	uInt in = avail > UINT_MAX ? UINT_MAX : (uInt)avail;
	const char *msg = NULL;
	size_t used;
	int ret, r;

	*again = false;
	g->s.next_in = (Bytef *)p;
	g->s.avail_in = in;
	g->s.next_out = buf;
	g->s.avail_out = n > UINT_MAX ? UINT_MAX : (uInt)n;
	*got = g->s.avail_out;
	ret = inflate(&g->s, Z_NO_FLUSH);
	zsrc_raw_take(z, in - g->s.avail_in);
	*got -= g->s.avail_out;
	*full = g->s.avail_out == 0;
	crc_over(g, buf, *got);
	g->isize += (uint32_t)*got;
	if (ret != Z_OK && ret != Z_BUF_ERROR && ret != Z_STREAM_END)
		return corrupt(g, z, ret, g->s.msg, err);
	/* input left over that zlib took some of: go on */
	*again = g->s.avail_in && g->s.avail_in < in;
	if (ret != Z_STREAM_END)
		return 0;
	next_part(g, P_TRAILER);
	*again = true;
	crc_sync(g);
	r = trailer(g, p + (in - g->s.avail_in), g->s.avail_in, &used, &msg);
	zsrc_raw_take(z, used);
	if (r < 0)
		return corrupt(g, z, Z_DATA_ERROR, msg, err);
	g->in_member = r == 0;
	return 0;
}

/* gzsrc_read, in pieces of piece bytes: a piece that fills while the
 * member goes on is followed by the next, where the read-ahead has more;
 * so the bytes read are those of one inflate into all n. */
static ssize_t read_pieces(struct gzsrc *g, struct zsrc *z, uint8_t *buf,
			   size_t n, size_t piece, int stall_ms,
			   struct gs_err *err)
{
	const char *msg = NULL;
	const uint8_t *p;
	size_t avail, got, used, done = 0;
	bool again, full;
	ssize_t r;
	int k;

	for (;;) {
		avail = zsrc_raw(z, &p);
		if (done && !avail)
			return (ssize_t)done;
		if (!g->in_member && avail)	/* another member, or garbage */
			member(g, zsrc_raw_off(z));
		if (avail && g->part == P_DATA) {
			k = inflate_some(g, z, p, avail, buf + done,
					 n - done < piece ? n - done : piece,
					 &got, &again, &full, err);
			if (k < 0)
				return -1;
			done += got;
			if (full && done < n && g->part == P_DATA)
				continue;
			if (done)
				return (ssize_t)done;
			if (again)
				continue;
		} else if (avail) {
			k = g->part == P_TRAILER ?
				trailer(g, p, avail, &used, &msg) :
				header(g, p, avail, &used, &msg);
			zsrc_raw_take(z, used);
			if (k < 0)
				return corrupt(g, z, Z_DATA_ERROR, msg, err);
			if (k > 0 && g->part == P_DATA)
				inflateReset(&g->s);
			else if (k > 0)
				g->in_member = false;
			if (k > 0)
				continue;
		}
		r = zsrc_raw_more(z, stall_ms, err);
		if (r < 0)
			return r;
		if (r == 0 && g->in_member)
			return gs_fail(err, GS_ERUNTIME, zsrc_name(z),
				       "truncated gzip member at compressed byte %llu",
				       (unsigned long long)zsrc_raw_off(z));
		if (r == 0)
			return 0;
	}
}

ssize_t gzsrc_read(struct gzsrc *g, struct zsrc *z, void *buf, size_t n,
		   int stall_ms, struct gs_err *err)
{
	const uint8_t *p;
	bool pieces;
	ssize_t r;

	if (n == 0)
		return 0;
	/* two pieces at least, from raw bytes at hand that come to one (a
	 * mapped file's): a pipe's read-ahead of 128 KiB would have each
	 * read wait for the thread to check what it inflated */
	pieces = g->threads > 1 && n >= 2 * PIECE && zsrc_raw(z, &p) >= PIECE;
	if (pieces && !g->cc && !(g->cc = gzcrc_new()))
		g->threads = 1;		/* not again */
	g->lend = pieces && g->cc;
	r = read_pieces(g, z, buf, n, g->lend ? PIECE : n, stall_ms, err);
	crc_sync(g);	/* buf is the caller's again */
	g->lend = false;
	return r;
}

bool gzsrc_between(const struct gzsrc *g)
{
	return !g->in_member;
}

const char *gzsrc_version(void)
{
	static char v[64];

	if (!v[0])
		snprintf(v, sizeof(v), "zlib %s%s", zlibVersion(),
			 gzinflate_name());
	return v;
}
