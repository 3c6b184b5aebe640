/*
 * unit_gzmembers.c - a span's members on a worker (gzmembers_decode,
 * src/input/gzmembers.c), on members made here with zlib: the members
 * from the span's first member boundary, to the span's end; a whole gzip
 * member inside a stored member's data is passed over for the boundary
 * after it; a member that does not fit ends the run at its start (whole),
 * the first that does not fit is no start; a wrong FHCRC makes no member
 * (the run before it is kept where no other runs to the end); a span with
 * no member header begins nowhere. The served bytes are what was
 * compressed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "gzmembers.h"
#include "unit.h"
#include "zpipe.h"

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void add(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

/* data[0..n) as one member at level (0: stored), FHCRC when hcrc (wrong
 * when bad); where it begins in b. */
static size_t member(struct buf *b, const unsigned char *data, size_t n,
		     int level, bool hcrc, bool bad)
{
	unsigned char h[12] = { 0x1f, 0x8b, 8, hcrc ? 2 : 0, 0, 0, 0, 0, 0, 255 };
	size_t at = b->len, cap = compressBound((uLong)n) + 64;
	unsigned char *out = malloc(cap), t[8];
	z_stream s = { 0 };

	add(b, h, 10);
	if (hcrc) {
		uint32_t c = (uint32_t)crc32(0, h, 10) ^ (bad ? 1 : 0);

		h[10] = (unsigned char)c;
		h[11] = (unsigned char)(c >> 8);
		add(b, h + 10, 2);
	}
	deflateInit2(&s, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
	s.next_in = (Bytef *)data;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	deflate(&s, Z_FINISH);
	add(b, out, cap - s.avail_out);
	deflateEnd(&s);
	le32(t, (uint32_t)crc32(0, data, (uInt)n));
	le32(t + 4, (uint32_t)n);
	add(b, t, 8);
	free(out);
	return at;
}

int main(void)
{
	enum { NA = 100000, NB = 50000, NC = 10000, NF = 8 };
	unsigned char *a = malloc(NA), b[NB], c[NC], f[NF] = "fake!!!";
	unsigned char *dst = malloc(1 << 20);
	struct buf fake = { 0 }, file = { 0 }, bad = { 0 };
	uint64_t from, to;
	size_t sa, sb, sc, got;

	srand(29);
	for (size_t i = 0; i < NA; i++)
		a[i] = (unsigned char)rand();
	for (size_t i = 0; i < NB; i++)
		b[i] = (unsigned char)(rand() % 7);
	for (size_t i = 0; i < NC; i++)
		c[i] = (unsigned char)(i * 13);
	/* A's data holds a whole gzip member at 40000, and stored, so do its
	 * compressed bytes */
	member(&fake, f, NF, 6, false, false);
	memcpy(a + 40000, fake.p, fake.len);
	sa = member(&file, a, NA, 0, false, false);
	sb = member(&file, b, NB, 6, true, false);
	sc = member(&file, c, NC, 9, false, false);

	CHECK(memmem(file.p, sb, fake.p, fake.len) != NULL);

	/* from the start to the end: every member */
	got = gzmembers_decode(file.p, file.len, file.len, dst, 1 << 20,
			       &from, &to);
	CHECK(from == sa && to == file.len && got == NA + NB + NC);
	CHECK(memcmp(dst, a, NA) == 0 && memcmp(dst + NA, b, NB) == 0 &&
	      memcmp(dst + NA + NB, c, NC) == 0);

	/* a span from inside A: its fake member is passed over for B */
	got = gzmembers_decode(file.p + 1, sb + 10 - 1, file.len - 1, dst,
			       1 << 20, &from, &to);
	CHECKF(from + 1 == sb && to + 1 == sc && got == NB,
	       "from %llu to %llu got %zu", (unsigned long long)from,
	       (unsigned long long)to, got);
	CHECK(memcmp(dst, b, NB) == 0);

	/* B does not fit after A: the run ends where B begins */
	got = gzmembers_decode(file.p, file.len, file.len, dst, NA + NB - 1,
			       &from, &to);
	CHECK(from == sa && to == sb && got == NA);

	/* A does not fit at all: B's run is the span's */
	got = gzmembers_decode(file.p, file.len, file.len, dst, NA - 1,
			       &from, &to);
	CHECK(from == sb && to == file.len && got == NB + NC);

	/* a wrong FHCRC: B is no member, A's run stops before it and is kept */
	member(&bad, a, NA, 0, false, false);
	sb = member(&bad, b, NB, 6, true, true);
	got = gzmembers_decode(bad.p, sb + 1, bad.len, dst, 1 << 20, &from, &to);
	CHECKF(from == 0 && to == sb && got == NA, "from %llu to %llu",
	       (unsigned long long)from, (unsigned long long)to);

	/* no member header in the span */
	memset(dst, 0x20, 4096);
	got = gzmembers_decode(dst, 4096, 4096, dst + 4096, 4096, &from, &to);
	CHECK(from == ZPIPE_NOWHERE && got == 0);

	free(a);
	free(dst);
	free(fake.p);
	free(file.p);
	free(bad.p);
	UNIT_END();
}
