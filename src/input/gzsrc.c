/*
 * gzsrc.c - see gzsrc.h.
 *
 * zlib's gzip wrapper (windowBits 15 + 16) parses a member's header and
 * checks its trailer; at Z_STREAM_END the next member, if any bytes follow,
 * starts with inflateReset. zlib needs no window of its own while a call's
 * output holds the whole member, and allocates one at the first call that
 * does not, kept across members and operands.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "gzframes.h"
#include "gzsrc.h"
#include "zsrc.h"

struct gzsrc {
	z_stream s;
	bool in_member;		/* inside a member: the end now is truncation */
	uint64_t member_off;	/* where it began */
};

int gzsrc_magic(const uint8_t *p, size_t n)
{
	static const uint8_t m[3] = { 0x1f, 0x8b, 0x08 };

	if (memcmp(p, m, n < 3 ? n : 3) != 0)
		return 0;
	return n < 3 ? -1 : 1;
}

struct gzsrc *gzsrc_new(void)
{
	struct gzsrc *g = calloc(1, sizeof(*g));

	if (g && inflateInit2(&g->s, 15 + 16) != Z_OK) {
		free(g);
		g = NULL;
	}
	return g;
}

void gzsrc_free(struct gzsrc *g)
{
	if (!g)
		return;
	inflateEnd(&g->s);
	free(g);
}

void gzsrc_start(struct gzsrc *g)
{
	g->in_member = false;
}

static int corrupt(struct gzsrc *g, struct zsrc *z, int ret,
		   struct gs_err *err)
{
	if (ret == Z_MEM_ERROR)
		return gs_fail(err, GS_ERUNTIME, zsrc_name(z),
			       "out of memory inflating the gzip member at compressed byte %llu",
			       (unsigned long long)g->member_off);
	return gs_fail(err, GS_ERUNTIME, zsrc_name(z),
		       "corrupt gzip member at compressed byte %llu: %s",
		       (unsigned long long)g->member_off,
		       g->s.msg ? g->s.msg : "inflate failed");
}

ssize_t gzsrc_read(struct gzsrc *g, struct zsrc *z, void *buf, size_t n,
		   int stall_ms, struct gs_err *err)
{
	const uint8_t *p;
	size_t avail, got;
	ssize_t r;
	int ret;

	if (n == 0)
		return 0;
	for (;;) {
		avail = zsrc_raw(z, &p);
		if (!g->in_member && avail) {	/* another member, or garbage */
			g->member_off = zsrc_raw_off(z);
			g->in_member = true;
			inflateReset(&g->s);
		}
		if (g->in_member && avail) {
			uInt in = avail > UINT_MAX ? UINT_MAX : (uInt)avail;

			g->s.next_in = (Bytef *)p;
			g->s.avail_in = in;
			g->s.next_out = buf;
			g->s.avail_out = n > UINT_MAX ? UINT_MAX : (uInt)n;
			got = g->s.avail_out;
			ret = inflate(&g->s, Z_NO_FLUSH);
			zsrc_raw_take(z, in - g->s.avail_in);
			got -= g->s.avail_out;
			if (ret == Z_STREAM_END)
				g->in_member = false;
			else if (ret != Z_OK && ret != Z_BUF_ERROR)
				return corrupt(g, z, ret, err);
			if (got)
				return (ssize_t)got;
			/* input left over that zlib took some of: go on */
			if (ret == Z_STREAM_END ||
			    (g->s.avail_in && g->s.avail_in < in))
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

const char *gzsrc_version(void)
{
	static char v[64];

	if (!v[0])
		snprintf(v, sizeof(v), "zlib %s%s", zlibVersion(),
			 gzframes_inflater());
	return v;
}
