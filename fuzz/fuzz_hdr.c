/*
 * fuzz_hdr.c - the npy and pgm/ppm header parsers (npy.c, pnm.c) on
 * arbitrary bytes, checked the way the stream uses them: it calls a parser
 * on what it has peeked so far and calls again with more bytes while the
 * answer is "need more" (0). So besides not crashing, a parser must
 *
 *   - on success, claim no more bytes than it was given, fill a valid type,
 *     and give the same header for every longer prefix of the bytes;
 *   - answer 0 (not an error, not a header) for every prefix shorter than
 *     the header it finds, and not -1 for a prefix that ends before the offending byte;
 *   - report an error position inside the bytes it was given;
 *   - pnm: find no header where pnm_magic finds no magic (npy_parse
 *     leaves the magic to npy_magic, as the stream calls it first).
 *
 * The first byte picks the parser; prefixes tried are the boundary ones
 * and a few drawn from the data.
 */
#include <string.h>
#include "fmthdr.h"
#include "fuzz.h"

typedef int (*parse_fn)(const uint8_t *p, size_t n, struct fmt_header *h);

static void check_ok(const struct fmt_header *h, size_t n)
{
	FZ_CHECK(h->len > 0 && h->len <= n, "header of %zu bytes in %zu", h->len, n);
	FZ_CHECK(h->len <= FMT_HEADER_MAX, "header of %zu bytes", h->len);
	FZ_CHECK(h->dtype.type < GS_NTYPES, "type %d", h->dtype.type);
	FZ_CHECK(h->payload % type_size(h->dtype.type) == 0,
		 "payload %llu not whole %s", (unsigned long long)h->payload,
		 type_name(h->dtype.type));
	if (h->columns)
		FZ_CHECK(h->payload % ((uint64_t)h->columns * type_size(h->dtype.type)) == 0,
			 "payload %llu not whole records of %u columns",
			 (unsigned long long)h->payload, h->columns);
}

/* The parse of the first k bytes, against the parse of all n. */
static void check_prefix(parse_fn parse, const uint8_t *p, size_t k, int full,
			 const struct fmt_header *fh)
{
	struct fmt_header h;
	int r;

	memset(&h, 0, sizeof(h));
	r = parse(p, k, &h);
	if (full == 1 && k < fh->len)
		FZ_CHECK(r == 0, "prefix of %zu of a %zu-byte header: %d (%s)", k,
			 fh->len, r, h.msg);
	if (full == 1 && k >= fh->len)
		FZ_CHECK(r == 1 && h.len == fh->len && h.payload == fh->payload &&
			 h.columns == fh->columns && h.dtype.type == fh->dtype.type &&
			 h.dtype.big_endian == fh->dtype.big_endian,
			 "prefix of %zu: %d, another header", k, r);
	if (full == -1)
		FZ_CHECK(r != 1, "prefix of %zu parses, all %s", k, fh->msg);
	if (full == -1 && k < fh->errpos)
		FZ_CHECK(r == 0, "prefix of %zu fails before the error at %zu: %s",
			 k, fh->errpos, h.msg);
	if (full == 0)
		FZ_CHECK(r == 0, "prefix of %zu: %d where all need more", k, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const parse_fn parsers[2] = { npy_parse, pnm_parse };
	struct fmt_header fh;
	const uint8_t *p = data + 1;
	size_t n = size - 1, k;
	parse_fn parse;
	int r, magic;

	if (size < 1)
		return 0;
	parse = parsers[data[0] & 1];
	magic = (data[0] & 1 ? pnm_magic : npy_magic)(p, n);
	memset(&fh, 0, sizeof(fh));
	r = parse(p, n, &fh);
	FZ_CHECK(r >= -1 && r <= 1, "parser returned %d", r);
	if (r == 1)
		check_ok(&fh, n);
	if (r == -1)
		FZ_CHECK(fh.errpos <= n && fh.msg[0], "error at %zu of %zu: '%s'",
			 fh.errpos, n, fh.msg);
	if (magic == 0 && (data[0] & 1))
		FZ_CHECK(r != 1, "pnm header without magic");
	check_prefix(parse, p, 0, r, &fh);
	check_prefix(parse, p, n, r, &fh);
	if (r == 1 && fh.len)
		check_prefix(parse, p, fh.len - 1, r, &fh);
	if (r == -1 && fh.errpos)
		check_prefix(parse, p, fh.errpos - 1, r, &fh);
	for (int i = 0; i < 6 && n; i++) {
		k = (p[i % n] * 131u + p[(i * 7 + 3) % n] * 7u + (unsigned)i * 977u) % (n + 1);
		check_prefix(parse, p, k, r, &fh);
	}
	return 0;
}
