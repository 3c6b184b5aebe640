/*
 * mkzst.c - zstd test data for bench_zstd.sh, made with libzstd (the
 * device machine has no zstd or pzstd command):
 *
 *   mkzst -c LEVEL FRAME_MIB < in > out.zst   independent frames of FRAME_MIB
 *                                             (0: one frame), with content
 *                                             sizes, as pzstd writes them;
 *                                             every core compresses
 *   mkzst -s SPEC < in > out.zst              frames laid out by SPEC, a
 *                                             comma-separated list used in
 *                                             turn until the input ends (the
 *                                             tests' odd layouts):
 *        N[K|M]   a frame of the next N bytes, with its content size
 *        uN[K|M]  the same without it (as `zstd < pipe` writes)
 *        sN[K|M]  a skippable frame of N bytes (no input taken)
 *        e        an empty frame
 *   mkzst -d < in.zst > out                   decode on one core, as
 *                                             `zstd -dc` does (the baseline)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

static size_t read_all(unsigned char **buf)
{
	size_t cap = 1 << 20, len = 0;
	ssize_t r;

	*buf = malloc(cap);
	while (*buf && (r = read(0, *buf + len, cap - len)) > 0)
		if ((len += (size_t)r) == cap)
			*buf = realloc(*buf, cap *= 2);
	if (!*buf)
		exit(2);
	return len;
}

static int compress(int level, size_t frame)
{
	unsigned char *in, *out;
	size_t n = read_all(&in), cap, r;
	ZSTD_CCtx *c = ZSTD_createCCtx();

	if (frame == 0)
		frame = n ? n : 1;
	cap = ZSTD_compressBound(frame);
	out = malloc(cap);
	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(c, ZSTD_c_nbWorkers, (int)sysconf(_SC_NPROCESSORS_ONLN));
	for (size_t at = 0; at < n; at += frame) {
		size_t k = n - at < frame ? n - at : frame;

		r = ZSTD_compress2(c, out, cap, in + at, k);
		if (ZSTD_isError(r) || fwrite(out, 1, r, stdout) != r)
			return 1;
	}
	return fflush(stdout) != 0;
}

/* "64K" -> 65536; exits on anything else. */
static size_t size_arg(const char *s, const char **end)
{
	char *e;
	unsigned long long n = strtoull(s, &e, 10);

	if (e == s)
		exit(2);
	if (*e == 'K')
		n <<= 10, e++;
	else if (*e == 'M')
		n <<= 20, e++;
	*end = e;
	return (size_t)n;
}

static int put_frame(ZSTD_CCtx *c, const unsigned char *in, size_t n, bool sized)
{
	size_t cap = ZSTD_compressBound(n) + 64, r;
	unsigned char *out = malloc(cap);

	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, sized);
	r = ZSTD_compress2(c, out, cap, in, n);
	if (ZSTD_isError(r) || fwrite(out, 1, r, stdout) != r)
		return 1;
	free(out);
	return 0;
}

static int layout(const char *spec)
{
	unsigned char *in;
	size_t n = read_all(&in), at = 0;
	ZSTD_CCtx *c = ZSTD_createCCtx();
	const char *s = spec;

	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	while (at < n) {
		char kind = *s == 'u' || *s == 's' || *s == 'e' ? *s++ : 'n';
		size_t k = kind == 'e' ? 0 : size_arg(s, &s);
		int rc = 0;

		if (kind == 's') {
			unsigned char h[8] = { 0x5E, 0x2A, 0x4D, 0x18, (unsigned char)k,
					       (unsigned char)(k >> 8), (unsigned char)(k >> 16),
					       (unsigned char)(k >> 24) };

			fwrite(h, 1, 8, stdout);
			for (size_t i = 0; i < k; i++)
				putchar(i & 0xFF);
		} else {
			k = k < n - at ? k : n - at;
			rc = put_frame(c, in + at, k, kind != 'u');
			at += k;
		}
		if (rc)
			return 1;
		s = *s == ',' ? s + 1 : *s ? (exit(2), s) : spec;
	}
	return fflush(stdout) != 0;
}

static int decompress(void)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	size_t isz = ZSTD_DStreamInSize(), osz = ZSTD_DStreamOutSize(), r;
	unsigned char *ib = malloc(isz), *ob = malloc(osz);
	ssize_t k;

	while ((k = read(0, ib, isz)) > 0) {
		ZSTD_inBuffer in = { ib, (size_t)k, 0 };

		while (in.pos < in.size) {
			ZSTD_outBuffer out = { ob, osz, 0 };

			r = ZSTD_decompressStream(d, &out, &in);
			if (ZSTD_isError(r) || fwrite(ob, 1, out.pos, stdout) != out.pos)
				return 1;
		}
	}
	return k < 0 || fflush(stdout) != 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "-c"))
		return compress(atoi(argv[2]), (size_t)atoi(argv[3]) << 20);
	if (argc == 3 && !strcmp(argv[1], "-s"))
		return layout(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "-d"))
		return decompress();
	fputs("usage: mkzst -c LEVEL FRAME_MIB | -s SPEC | -d  < in > out\n", stderr);
	return 2;
}
