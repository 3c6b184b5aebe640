/*
 * informat.c - the table of input formats (see informat.h): those read,
 * then those refused, each recognised by its first bytes. No two magics
 * overlap, so the order of the rows does not matter. The sizes the headers
 * give, before the stream is read (informat_total), come from the same rows.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gzsrc.h"
#include "informat.h"
#include "zsrc.h"

/* What may follow "P1" ... "Pf": Netpbm white space. */
#define PNM_WS " \t\n\v\f\r"

/* A magic given as a string literal and its length (it may hold NULs). */
#define SIG(s) .sig = s, .len = sizeof(s) - 1

#define TO_IMAGE "convert it to pgm, ppm or npy first"
#define TO_PGM "convert it to pgm first, e.g. with pbmtopgm"

const struct in_format informat_raw = { .name = "raw" };

static const struct in_format formats[] = {
	{ .name = "npy", .magic = npy_magic,
	  .parse = npy_parse },
	{ .name = "pgm", .magic = pgm_magic,
	  .parse = pnm_parse, .gap = pnm_space },
	{ .name = "ppm", .magic = ppm_magic,
	  .parse = pnm_parse, .gap = pnm_space },

	{ "bzip2 data", SIG("BZh"), .next = "123456789",
	  .refuse = "read it through bzip2 -dc" },
	{ "xz data", SIG("\xfd" "7zXZ\0"), .refuse = "read it through xz -dc" },
	{ "lz4 data", SIG("\x04\x22\x4d\x18"), .refuse = "read it through lz4 -dc" },
	{ "lz4 data", SIG("\x02\x21\x4c\x18"), .refuse = "read it through lz4 -dc" },
	{ "a zip archive (an .npz?)", SIG("PK\x03\x04"),
	  .refuse = "np.load it and np.save each array, or unzip it first" },
	{ "an HDF5 file", SIG("\x89HDF\r\n\x1a\n"),
	  .refuse = "save the dataset with np.save first" },
	{ "a GIF image", SIG("GIF87a"), .refuse = TO_IMAGE },
	{ "a GIF image", SIG("GIF89a"), .refuse = TO_IMAGE },
	{ "a TIFF image", SIG("II*\0"), .refuse = TO_IMAGE },
	{ "a TIFF image", SIG("MM\0*"), .refuse = TO_IMAGE },
	{ "a PNG image", SIG("\x89PNG\r\n\x1a\n"), .refuse = TO_IMAGE },
	/* the first marker: APPn, DQT, SOFn, DHT or COM */
	{ "a JPEG image", SIG("\xff\xd8\xff"),
	  .next = "\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xeb"
		  "\xec\xed\xee\xef\xdb\xc0\xc1\xc2\xc4\xfe",
	  .refuse = TO_IMAGE },
	{ "a plain pbm bitmap (P1)", SIG("P1"), .next = PNM_WS, .refuse = TO_PGM },
	{ "a pbm bitmap (P4)", SIG("P4"), .next = PNM_WS, .refuse = TO_PGM },
	{ "a pam image (P7)", SIG("P7"), .next = PNM_WS,
	  .refuse = "convert it to pgm or ppm first, e.g. with pamtopnm" },
	{ "a pfm float image (PF)", SIG("PF"), .next = PNM_WS,
	  .refuse = "convert it to npy or raw f32 first" },
	{ "a pfm float image (Pf)", SIG("Pf"), .next = PNM_WS,
	  .refuse = "convert it to npy or raw f32 first" },
};

/* A magic given as bytes: 1 when p holds it, 0 when it cannot, -1 when n
 * is too short to tell. */
static int sig_match(const struct in_format *f, const uint8_t *p, size_t n)
{
	size_t need = f->len + (f->next != NULL);

	if (memcmp(p, f->sig, n < f->len ? n : f->len) != 0)
		return 0;
	if (n < need)
		return -1;
	return !f->next || (p[f->len] && strchr(f->next, p[f->len]));
}

const struct in_format *informat_find(const uint8_t *p, size_t n, bool *more)
{
	const struct in_format *f;
	int m;

	for (f = formats; f < formats + sizeof(formats) / sizeof(formats[0]); f++) {
		m = f->magic ? f->magic(p, n) : sig_match(f, p, n);
		if (m == 1)
			return f;
		*more |= m < 0;
	}
	return NULL;
}

/* Payload bytes of a file of file_size bytes that begins with p[0..n), from
 * its header: file_size for raw data, -1 when the header does not tell. */
static int64_t header_size(const uint8_t *p, size_t n, int64_t file_size)
{
	bool more = false;
	const struct in_format *f = informat_find(p, n, &more);
	struct fmt_header h;

	/* raw data; a refused format fails when it is read */
	if (!f || !f->parse)
		return file_size;
	memset(&h, 0, sizeof(h));
	if (f->parse(p, n, &h) != 1)
		return -1;
	/* images that may follow one another: only the first header is looked
	 * at, so it tells the size only of a file that holds one image; a
	 * plain one holds one image whose size its text does not tell */
	if (!f->gap || h.plain || h.len + h.payload == (uint64_t)file_size)
		return (int64_t)h.payload;
	return -1;
}

/* Payload bytes of one operand (tmp: FMT_HEADER_MAX bytes), or -1. */
static int64_t operand_size(const char *path, bool raw, off_t stdin_start,
			    uint8_t *tmp)
{
	bool is_stdin = strcmp(path, "-") == 0;
	off_t start = is_stdin ? stdin_start : 0;
	/* O_NONBLOCK: a FIFO whose writer has gone would block the open */
	int fd = is_stdin ? STDIN_FILENO
			  : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat sb;
	int64_t size = -1;
	ssize_t k;

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && start >= 0 &&
	    sb.st_size >= start)
		size = sb.st_size - start;
	k = size < 0 || raw ? 0 : pread(fd, tmp, FMT_HEADER_MAX, start);
	if (!is_stdin)
		close(fd);
	if (size < 0 || raw)
		return size;
	if (k < 0 || zsrc_named(path) || (k >= 4 && zsrc_magic(tmp)) ||
	    gzsrc_magic(tmp, (size_t)k) == 1)
		return -1;
	return header_size(tmp, (size_t)k, size);
}

int64_t informat_total(char *const *paths, int npaths, bool raw,
		       off_t stdin_start)
{
	uint8_t *tmp = malloc(FMT_HEADER_MAX);
	int64_t sum = 0, s;
	bool stdin_seen = false;
	int i;

	for (i = 0; tmp && i < npaths; i++) {
		bool is_stdin = strcmp(paths[i], "-") == 0;

		/* stdin is read once; a second "-" finds it at its end */
		if (is_stdin && stdin_seen)
			continue;
		stdin_seen |= is_stdin;
		if ((s = operand_size(paths[i], raw, stdin_start, tmp)) < 0)
			break;
		sum += s;
	}
	free(tmp);
	return tmp && i == npaths ? sum : -1;
}
