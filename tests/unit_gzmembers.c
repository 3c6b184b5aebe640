/*
 * unit_gzmembers.c - a span's members on a worker (gzmembers_decode,
 * src/input/gzmembers.c), on members made here with zlib: the members
 * from the span's first member boundary, to the span's end; a whole gzip
 * member inside a stored member's data is passed over for the boundary
 * after it; a member that does not fit ends the run at its start (whole),
 * the first that does not fit is no start; a wrong FHCRC makes no member
 * (the run before it is kept where no other runs to the end); a span with
 * no member header begins nowhere. The served bytes are what was
 * compressed. Many small members before garbage are found in time linear
 * in their number (each was run from again; the alarm ends a run that
 * takes minutes). A file of members read through zsrc, decoded on the
 * workers: a read of 0 bytes gives 0 (it spun in the pipe) and the file
 * reads whole after it.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "gzmembers.h"
#include "unit.h"
#include "zpipe.h"
#include "zsrc_impl.h"

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

/* N members of 8 bytes each, then bytes that are no member: the span's
 * members are those before them, found in one run (the N runs from each
 * header inflated N^2/2 members: minutes for these, a few ms now). */
static void small_members(void)
{
	enum { N = 80000, V = 251 };
	struct buf file = { 0 }, one[V] = { { 0 } };
	unsigned char d[8], *dst = malloc((size_t)N * 8);
	uint64_t from = 1, to = 0;
	size_t got;
	bool same = true;

	for (size_t v = 0; v < V; v++) {
		memset(d, (int)v, 8);
		member(&one[v], d, 8, 6, false, false);
	}
	for (size_t i = 0; i < N; i++)
		add(&file, one[i % V].p, one[i % V].len);
	add(&file, "garbage!", 8);
	got = gzmembers_decode(file.p, file.len, file.len, dst, (size_t)N * 8,
			       &from, &to);
	CHECKF(from == 0 && to == file.len - 8 && got == (size_t)N * 8,
	       "from %llu to %llu got %zu", (unsigned long long)from,
	       (unsigned long long)to, got);
	for (size_t i = 0; i < got; i++)
		same &= dst[i] == (unsigned char)(i / 8 % V);
	CHECK(same);
	for (size_t v = 0; v < V; v++)
		free(one[v].p);
	free(dst);
	free(file.p);
}

/* A file of members read through zsrc on 4 workers, by the stream and by
 * the workers: reads of 7000 until the end give the data, each after a
 * read of 0 bytes that gives 0. */
static void zero_read(void)
{
	enum { M = 12, K = 40000 };
	char path[] = "/tmp/unit_gzmembers.XXXXXX";
	unsigned char *data = malloc((size_t)M * K), *back = malloc((size_t)M * K + 7000);
	struct buf file = { 0 };
	struct gs_err err = { 0 };
	struct zsrc *z = zsrc_new((uint64_t)1 << 27, 4);
	size_t have = 0, zeros = 0, reads = 0;
	ssize_t r;
	int fd = mkstemp(path);

	for (size_t i = 0; i < (size_t)M * K; i++)
		data[i] = (unsigned char)rand();
	for (size_t m = 0; m < M; m++)
		member(&file, data + m * K, K, 6, false, false);
	CHECK(fd >= 0 && write(fd, file.p, file.len) == (ssize_t)file.len);
	unlink(path);
	lseek(fd, 0, SEEK_SET);
	zsrc_start(z, fd, true, "members.gz");
	CHECK(zsrc_detect(z, -1, &err) == ZSRC_GZIP);
	CHECK(zsrc_use(z, ZSRC_GZIP) == 0 && z->gzm != NULL);
	do {
		zeros += zsrc_read(z, back + have, 0, -1, &err) == 0;
		reads++;
		r = zsrc_read(z, back + have, 7000, -1, &err);
		have += r > 0 ? (size_t)r : 0;
	} while (r > 0);
	CHECKF(r == 0 && have == (size_t)M * K, "r %zd have %zu: %s",
	       r, have, err.what);
	CHECK(zeros == reads && z->dec.parallel > 0);
	CHECK(memcmp(back, data, (size_t)M * K) == 0);
	zsrc_free(z);
	close(fd);
	free(data);
	free(back);
	free(file.p);
}

int main(void)
{
	enum { NA = 100000, NB = 50000, NC = 10000, NF = 8 };
	unsigned char *a = malloc(NA), b[NB], c[NC], f[NF] = "fake!!!";
	unsigned char *dst = malloc(1 << 20);
	struct buf fake = { 0 }, file = { 0 }, bad = { 0 };
	uint64_t from, to;
	size_t sa, sb, sc, got;

	alarm(60);	/* a quadratic search, or a read that spins */
	setenv(ZPIPE_WORKERS_ENV, "4", 1);
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

	small_members();
	zero_read();

	free(a);
	free(dst);
	free(fake.p);
	free(file.p);
	free(bad.p);
	UNIT_END();
}
