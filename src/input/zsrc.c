/*
 * zsrc.c - one operand's bytes, from its fd and through zstd when needed.
 *
 * Pipes and terminals are polled before each read so that a silent producer
 * turns into ZSRC_STALL after stall_ms; regular files are never polled.
 * zstd uses the streaming API into the caller's buffer, so decoded data is
 * never copied; the only buffer is the fixed read-ahead of compressed bytes.
 * Where threads may decode frames at once, a regular file of several frames
 * (zframes.h) and a pipe's frames (zfeed.h) are decoded frame-parallel
 * instead, and BGZF blocks (gzframes.h, gzfeed.h) in groups of blocks, and
 * served from the pipe of workers (zpipe.h) until the stream must go on
 * from a frame that path cannot take.
 * Error positions are compressed byte offsets within the operand.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "coldread.h"
#include "gzfeed.h"
#include "gzframes.h"
#include "gzmembers.h"
#include "gzsrc.h"
#include "parread.h"
#include "zfeed.h"
#include "zframes.h"
#include "zpipe.h"
#include "zsrc.h"
#include "zsrc_impl.h"

/* Pipes: a larger pipe buffer means fewer, larger reads and wake-ups. */
#define PIPE_BYTES (1 << 20)

/* zsrc_frames: no more frames in parallel, go on as a stream */
#define ZSRC_STREAM (-3)

#define ZSTD_MAGIC 0xFD2FB528u
#define ZSTD_SKIP_MAGIC 0x184D2A50u	/* low 4 bits are free */

/* Stop serving from a pipe: one opened for the operand is closed, with the
 * memory it holds. */
static void zsrc_unpipe(struct zsrc *z)
{
	if (z->feed)
		zfeed_close(z->feed);
	else if (z->gzfeed)
		gzfeed_close(z->gzfeed);
	else if (z->pipe_owned)
		zpipe_close(z->pipe);
	gzmembers_close(z);
	z->feed = NULL;
	z->gzfeed = NULL;
	z->pipe = NULL;
	z->pipe_owned = false;
}

struct zsrc *zsrc_new(uint64_t window_max, int threads)
{
	struct zsrc *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->fd = -1;
	z->window_max = window_max;
	z->threads = threads;
	z->cap = ZSTD_DStreamInSize();
	z->buf = malloc(z->cap);
	if (!z->buf) {
		free(z);
		return NULL;
	}
	return z;
}

void zsrc_free(struct zsrc *z)
{
	if (!z)
		return;
	zsrc_unpipe(z);
	z->len = z->pos;	/* nothing of the mapping to keep */
	zsrc_unmap_rest(z);
	ZSTD_freeDCtx(z->dctx);
	gzsrc_free(z->gz);
	free(z->buf);
	free(z);
}

void zsrc_start(struct zsrc *z, int fd, bool is_reg, const char *name)
{
	zsrc_unpipe(z);
	z->len = z->pos;	/* the last operand's mapping: nothing kept */
	zsrc_unmap_rest(z);
	z->fd = fd;
	z->is_reg = is_reg;
	z->eof = false;
	z->zstd = false;
	z->gzip = false;
	z->in_frame = false;
	z->name = name;
	z->pos = z->len = 0;
	z->raw_off = 0;
	z->frame_off = 0;
	if (!is_reg)	/* not allowed or not a pipe: reads just stay smaller */
		(void)fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES);
}

/* Wait until fd is readable; ZSRC_STALL after stall_ms of silence. */
static int zsrc_wait(struct zsrc *z, int stall_ms)
{
	struct pollfd p = { .fd = z->fd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, stall_ms);
	while (r < 0 && errno == EINTR);
	return r == 0 ? ZSRC_STALL : 0;	/* poll errors show up in read */
}

static ssize_t zsrc_sysread(struct zsrc *z, void *buf, size_t n, int stall_ms,
			    struct gs_err *err)
{
	ssize_t r;

	if (!z->is_reg && stall_ms >= 0 && zsrc_wait(z, stall_ms) == ZSRC_STALL)
		return ZSRC_STALL;
	for (;;) {
		r = z->is_reg ? parread(z->fd, buf, n, z->threads)
			       : PARREAD_PLAIN;
		if (r == PARREAD_PLAIN)
			r = read(z->fd, buf, n);
		if (r > 0) {
			z->raw_off += (uint64_t)r;
			return r;
		}
		if (r == 0) {
			z->eof = true;
			return 0;
		}
		if (errno == EINTR)
			continue;
		/* stdin may have been left non-blocking by another program */
		if (errno == EAGAIN && !z->is_reg) {
			if (zsrc_wait(z, stall_ms) == ZSRC_STALL)
				return ZSRC_STALL;
			continue;
		}
		return gs_fail(err, GS_ERUNTIME, z->name,
			       "read error at byte %llu: %s",
			       (unsigned long long)z->raw_off, strerror(errno));
	}
}

/* Read more raw bytes into the read-ahead buffer. */
static ssize_t zsrc_fill(struct zsrc *z, int stall_ms, struct gs_err *err)
{
	ssize_t r;

	if (z->map && !zsrc_unmap_rest(z))
		return gs_fail(err, GS_ERUNTIME, z->name, "out of memory");
	if (z->eof)
		return 0;
	if (z->pos == z->len) {
		z->pos = z->len = 0;
	} else if (z->len == z->cap) {
		memmove(z->buf, z->buf + z->pos, z->len - z->pos);
		z->len -= z->pos;
		z->pos = 0;
	}
	r = zsrc_sysread(z, z->buf + z->len, z->cap - z->len, stall_ms, err);
	if (r > 0)
		z->len += (size_t)r;
	return r;
}

int zsrc_named(const char *path)
{
	size_t n = strlen(path);

	if (n >= 4 && strcmp(path + n - 4, ".zst") == 0)
		return ZSRC_ZSTD;
	return n >= 3 && strcmp(path + n - 3, ".gz") == 0 ? ZSRC_GZIP : 0;
}

bool zsrc_magic(const uint8_t *p)
{
	uint32_t m = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[3] << 24;

	return m == ZSTD_MAGIC || (m & ~0xFu) == ZSTD_SKIP_MAGIC;
}

/* Whether the k < 4 bytes at p could still begin a frame magic: a slow
 * producer's first bytes are not held back once they rule it out. */
static bool magic_prefix(const uint8_t *p, size_t k)
{
	static const uint8_t zm[4] = { 0x28, 0xB5, 0x2F, 0xFD };
	static const uint8_t sm[4] = { 0x50, 0x2A, 0x4D, 0x18 };
	bool zs = true, sk = true;

	for (size_t i = 0; i < k; i++) {
		zs = zs && p[i] == zm[i];
		sk = sk && (i ? p[i] == sm[i] : (p[0] & 0xF0) == sm[0]);
	}
	return zs || sk || gzsrc_magic(p, k) < 0;
}

int zsrc_detect(struct zsrc *z, int stall_ms, struct gs_err *err)
{
	ssize_t r;
	size_t k;

	while (z->len - z->pos < 4 && !z->eof &&
	       magic_prefix(z->buf + z->pos, z->len - z->pos)) {
		r = zsrc_fill(z, stall_ms, err);
		if (r < 0)
			return (int)r;
	}
	k = z->len - z->pos;
	if (gzsrc_magic(z->buf + z->pos, k) == 1)
		return ZSRC_GZIP;
	return k >= 4 && zsrc_magic(z->buf + z->pos) ? ZSRC_ZSTD : 0;
}

/* The decoder is made on first use; raw streams never pay for it. Each
 * frame's window is checked against the exact limit (--memory need not be
 * a power of two, see zsrc_window); zstd's own limit, the power of two above
 * it, is the backstop. */
static int zsrc_dctx(struct zsrc *z)
{
	ZSTD_bounds b = ZSTD_dParam_getBounds(ZSTD_d_windowLogMax);
	int top = ZSTD_isError(b.error) || b.upperBound > 31 ? 31 : b.upperBound;
	int wlog = 10;

	while (wlog < top && ((uint64_t)1 << wlog) < z->window_max)
		wlog++;
	z->dctx = ZSTD_createDCtx();
	if (!z->dctx)
		return -1;
	ZSTD_DCtx_setParameter(z->dctx, ZSTD_d_windowLogMax, wlog);
	return 0;
}

/* Whether the frame at p[0..n) is one that no thread could take from a
 * pipe, so that the stream decodes it here as -j 1 does, without a feeding
 * thread and its workers being started for nothing: its header, whole in
 * p, gives a content size over ZPIPE_FRAME_MAX (one frame of a whole
 * dataset). A frame of no content size (zstd < pipe writes none, nor do
 * pzstd and the seekable format) goes to the feeding thread, which reads
 * no more than ZFEED_UNSIZED_MAX of it to find that it is one frame of a
 * whole stream. The feeding thread stops at the first frame it cannot take
 * and never resumes, so nothing after it is lost. */
static bool one_stream(const uint8_t *p, size_t n)
{
	unsigned long long dsize;

	if (n < 5 || p[0] != 0x28 || !zsrc_magic(p) ||
	    n < zsrc_header_size(p[4]))
		return false;
	dsize = ZSTD_getFrameContentSize(p, n);
	return dsize != ZSTD_CONTENTSIZE_ERROR &&
	       dsize != ZSTD_CONTENTSIZE_UNKNOWN && dsize > ZPIPE_FRAME_MAX;
}

/* Serve p's file 0, fed by a thread that took the bytes read ahead. */
static void zsrc_fed(struct zsrc *z, struct zpipe *p)
{
	z->pipe = p;
	z->dec.threads = zpipe_threads(p);
	z->pipe_file = 0;
	z->base = 0;
	z->pos = z->len = 0;
}

/* Where a regular file's first unread byte lies, by absolute offset (stdin
 * may begin past 0; frames are found so): false where it cannot be told.
 * base turns such an offset back into one within the operand. */
static bool zsrc_file_from(struct zsrc *z, uint64_t *from)
{
	off_t at = lseek(z->fd, 0, SEEK_CUR);

	if (at < 0)
		return false;
	z->base = (uint64_t)at - z->raw_off;
	*from = z->base + z->raw_off - z->len + z->pos;
	return true;
}

/* Serve the operand from p, a pipe opened for it (NULL: as a stream). */
static void zsrc_own(struct zsrc *z, struct zpipe *p)
{
	z->pipe = p;
	z->pipe_file = 0;
	z->pipe_owned = p != NULL;
	if (p)
		z->dec.threads = zpipe_threads(p);
}

int zsrc_use_zstd(struct zsrc *z)
{
	if (!z->dctx && zsrc_dctx(z) < 0)
		return -1;
	z->zstd = true;
	z->dec.codec = "zstd";
	z->in_frame = false;
	z->dry = false;
	ZSTD_DCtx_reset(z->dctx, ZSTD_reset_session_only);
	if (z->threads < 2)
		return 0;
	if (!z->is_reg) {	/* a pipe: its frames are read on a thread */
		if (one_stream(z->buf + z->pos, z->len - z->pos))
			return 0;
		z->feed = zfeed_open(z->fd, z->buf + z->pos, z->len - z->pos,
				     z->raw_off, z->window_max, z->threads);
		if (z->feed)
			zsrc_fed(z, zfeed_pipe(z->feed));
		return 0;
	}
	uint64_t from;

	if (zsrc_file_from(z, &from))
		zsrc_own(z, zframes_open(z->fd, from, z->window_max, z->threads));
	return 0;
}

/* BGZF blocks go to a pipe of workers, a regular file's listed first
 * (gzframes.h), a pipe's read on a thread (gzfeed.h); a regular file's
 * other members are decoded on the workers in spans (gzmembers.h), a
 * pipe's as a stream. */
static int zsrc_use_gzip(struct zsrc *z)
{
	if (!z->gz && !(z->gz = gzsrc_new(z->threads)))
		return -1;
	z->gzip = true;
	z->dec.codec = "gzip";
	gzsrc_start(z->gz);
	if (z->threads < 2)
		return 0;
	if (!z->is_reg) {
		z->gzfeed = gzfeed_open(z->fd, z->buf + z->pos, z->len - z->pos,
					z->raw_off, z->threads);
		if (z->gzfeed)
			zsrc_fed(z, gzfeed_pipe(z->gzfeed));
		return 0;
	}
	uint64_t from;

	if (zsrc_file_from(z, &from))
		zsrc_own(z, gzframes_open(z->fd, from, z->threads));
	if (!z->pipe && zsrc_file_from(z, &from))
		gzmembers_use(z, from);
	return 0;
}

int zsrc_use(struct zsrc *z, int codec)
{
	int r = codec == ZSRC_GZIP ? zsrc_use_gzip(z) : zsrc_use_zstd(z);

	if (r == 0 && !z->pipe)		/* one stream, on this thread */
		zsrc_map_rest(z);
	return r;
}

bool zsrc_serve(struct zsrc *z, struct zpipe *p, int file, int codec)
{
	if (codec == ZSRC_GZIP && !z->gz && !(z->gz = gzsrc_new(z->threads)))
		return false;
	/* a frame or group that fails is decoded again, as a stream */
	if (codec != ZSRC_GZIP && !z->dctx && zsrc_dctx(z) < 0)
		return false;
	if (codec == ZSRC_GZIP)
		gzsrc_start(z->gz);
	else
		ZSTD_DCtx_reset(z->dctx, ZSTD_reset_session_only);
	z->gzip = codec == ZSRC_GZIP;
	z->zstd = !z->gzip;
	z->dec.codec = zsrc_codec(z);
	z->pipe = p;
	z->pipe_file = file;
	z->pipe_owned = false;
	z->base = 0;
	z->dec.threads = zpipe_threads(p);
	return true;
}

void zsrc_decoded(const struct zsrc *z, struct zsrc_decoded *d)
{
	*d = z->dec;
}

bool zsrc_parallel(const struct zsrc *z)
{
	return z->pipe != NULL;
}

bool zsrc_compressed(const struct zsrc *z)
{
	return z->zstd || z->gzip;
}

const char *zsrc_codec(const struct zsrc *z)
{
	return z->gzip ? "gzip" : z->zstd ? "zstd" : NULL;
}

static ssize_t zsrc_plain(struct zsrc *z, void *buf, size_t n, int stall_ms,
			  struct gs_err *err)
{
	size_t k = z->len - z->pos;

	if (k) {
		k = k < n ? k : n;
		memcpy(buf, z->buf + z->pos, k);
		z->pos += k;
		return (ssize_t)k;
	}
	if (z->eof)
		return 0;
	return zsrc_sysread(z, buf, n, stall_ms, err);
}

ssize_t zsrc_view(struct zsrc *z, size_t n, size_t align, const void **p,
		  struct gs_err *err)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t at, delta;
	struct stat st;
	enum cold_how how;
	void *m;

	/* a regular file's frames: in the buffer they were decoded into */
	if (z->pipe && !z->feed && !z->gzfeed) {
		ssize_t r = n ? zpipe_view(z->pipe, z->pipe_file, n, align, p)
			      : 0;

		z->dec.parallel += r > 0 ? (uint64_t)r : 0;
		return r;
	}
	if (!z->is_reg || zsrc_compressed(z) || z->pipe || z->len > z->pos ||
	    z->eof ||
	    page <= 0)
		return 0;
	at = lseek(z->fd, 0, SEEK_CUR);
	if (at < 0 || fstat(z->fd, &st) < 0 || st.st_size < at ||
	    (uint64_t)(st.st_size - at) < n)
		return 0;	/* zsrc_read reads the end, or finds the error */
	if (align > 1 && at % (off_t)align)
		return 0;	/* the mapping would hold them misaligned */
	how = coldread_plan(z->fd, at, n, true);
	if (how == COLD_DIRECT || how == COLD_COPY)
		return 0;	/* read by parread, not faulted in */
	delta = at % page;
	/* Private and writable: a backend that swaps bytes in place writes
	 * its own copy of a page, never the file. */
	m = mmap(NULL, n + (size_t)delta, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 z->fd, at - delta);
	if (m == MAP_FAILED)
		return 0;
	if (lseek(z->fd, at + (off_t)n, SEEK_SET) < 0) {
		munmap(m, n + (size_t)delta);
		return gs_fail(err, GS_ERUNTIME, z->name, "cannot seek: %s",
			       strerror(errno));
	}
	/* a cold range: queued for the disk now, before the threads fault
	 * on it a readahead window at a time */
	if (how == COLD_SEQ)
		(void)madvise(m, n + (size_t)delta, MADV_SEQUENTIAL);
	else if (how == COLD_AHEAD)
		coldread_ahead(z->fd, at, n);
	z->raw_off += n;
	*p = (const unsigned char *)m + delta;
	return (ssize_t)n;
}

bool zsrc_unread(struct zsrc *z, size_t k)
{
	if (!z->pipe || z->feed || z->gzfeed ||
	    !zpipe_unread(z->pipe, z->pipe_file, k))
		return false;
	z->dec.parallel -= k;
	return true;
}

bool zsrc_served(struct zsrc *z)
{
	return z->pipe && !z->feed && !z->gzfeed &&
	       zpipe_served(z->pipe, z->pipe_file);
}

void zsrc_unview(const void *p, size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t delta = (uintptr_t)p % (size_t)page;

	if (zpipe_unview(p))
		return;
	munmap((unsigned char *)p - delta, n + delta);
}

/* "128 MiB", "1000 KiB" or "1500 bytes". */
static const char *size_str(uint64_t n, char *buf, size_t size)
{
	if (n % (1u << 20) == 0)
		snprintf(buf, size, "%llu MiB", (unsigned long long)(n >> 20));
	else if (n % 1024 == 0)
		snprintf(buf, size, "%llu KiB", (unsigned long long)(n >> 10));
	else
		snprintf(buf, size, "%llu bytes", (unsigned long long)n);
	return buf;
}

/* RFC 8878, 3.1.1.1. */
size_t zsrc_header_size(unsigned fhd)
{
	static const size_t dict_len[4] = { 0, 1, 2, 4 };
	unsigned fcs = fhd >> 6, single = fhd >> 5 & 1;

	return 5 + !single + dict_len[fhd & 3] +
	       (fcs ? (size_t)1 << fcs : single);
}

/* RFC 8878, 3.1.1.1 (a skippable frame has no window: -1; zstd judges
 * anything else). */
int zsrc_frame_window(const uint8_t *p, size_t n, uint64_t *win)
{
	static const size_t dict_len[4] = { 0, 1, 2, 4 };
	static const size_t fcs_len[4] = { 1, 2, 4, 8 };
	uint64_t base;
	size_t at, k;
	uint8_t fhd;

	if (n < 6)
		return 0;
	if (!zsrc_magic(p) || p[0] != 0x28)
		return -1;
	fhd = p[4];
	if (!(fhd & 0x20)) {	/* a window descriptor */
		base = (uint64_t)1 << (10 + (p[5] >> 3));
		*win = base + base / 8 * (p[5] & 7);
		return 1;
	}
	/* single segment: the window is the content size */
	at = 5 + dict_len[fhd & 3];
	if (n < at + fcs_len[fhd >> 6])
		return 0;
	*win = 0;
	for (k = fcs_len[fhd >> 6]; k-- > 0;)
		*win = *win << 8 | p[at + k];
	*win += fhd >> 6 == 1 ? 256 : 0;
	return 1;
}

static int window_fail(struct zsrc *z, uint64_t win, struct gs_err *err)
{
	unsigned long long at = z->frame_off;
	char need[32], lim[32];

	if (win > ((uint64_t)1 << 31))
		return gs_fail(err, GS_ERUNTIME, z->name,
			       "zstd frame at compressed byte %llu needs a %s window, over the 2 GiB that gpustat decodes",
			       at, size_str(win, need, sizeof(need)));
	return gs_fail(err, GS_ERUNTIME, z->name,
		       "zstd frame at compressed byte %llu needs a %s window, over the %s limit (--long=31 or --memory=%lluM allows it)",
		       at, size_str(win, need, sizeof(need)),
		       size_str(z->window_max, lim, sizeof(lim)),
		       (unsigned long long)((win + (1u << 20) - 1) >> 20));
}

/* Check the header of the frame that starts at pos before zstd sizes its
 * window: 0 to go on, -1 (err filled) when it asks for too much, or
 * ZSRC_STALL. A header cut short by the end is left for zstd to call
 * truncated. */
static int zsrc_window(struct zsrc *z, int stall_ms, struct gs_err *err)
{
	uint64_t win;
	ssize_t r;
	int k;

	while ((k = zsrc_frame_window(z->buf + z->pos, z->len - z->pos, &win)) == 0) {
		if (z->eof)
			return 0;
		r = zsrc_fill(z, stall_ms, err);
		if (r < 0)
			return (int)r;
	}
	if (k == 1 && win > z->window_max) {
		z->frame_off = z->raw_off - z->len + z->pos;
		return window_fail(z, win, err);
	}
	return 0;
}

/* A corrupt frame is named by where it begins: how far zstd reads into
 * it before it notices depends on the caller's buffer size (it decodes
 * straight into a large enough buffer, through its own otherwise), and
 * an error must not depend on the chunk size. */
static int zsrc_corrupt(struct zsrc *z, size_t ret, struct gs_err *err)
{
	unsigned long long at = z->frame_off;
	char lim[32];

	/* zsrc_window saw the header first; this is the backstop */
	if (ZSTD_getErrorCode(ret) == ZSTD_error_frameParameter_windowTooLarge)
		return gs_fail(err, GS_ERUNTIME, z->name,
			       "zstd frame at compressed byte %llu needs a window over the %s limit (--long=31 or --memory=SIZE allows up to 2 GiB)",
			       at, size_str(z->window_max, lim, sizeof(lim)));
	/* Output is never short (the stream decoder's calls have room; a
	 * worker decodes into the size the frame's header gives): a frame
	 * that decodes past that size is corrupt. zstd calls it too small a
	 * destination where the frame is one segment and the destination no
	 * larger (a worker's, or the stream decoder's buffer kept from an
	 * earlier operand), and corruption otherwise: the message would
	 * depend on -j and on the operands before. */
	if (ZSTD_getErrorCode(ret) == ZSTD_error_dstSize_tooSmall)
		ret = (size_t)-ZSTD_error_corruption_detected;
	return gs_fail(err, GS_ERUNTIME, z->name,
		       "corrupt zstd frame at compressed byte %llu: %s", at,
		       ZSTD_getErrorName(ret));
}

/* Decode until some output appears; in_frame follows only calls that made
 * progress, since zstd answers a call with no input at a frame boundary
 * with a non-zero size hint. Once zstd has taken all input and has no
 * output left, it is not called again before more input comes: a stalled
 * pipe returns here again and again, and zstd calls 16 calls in a row
 * without progress an error. */
static ssize_t zsrc_decode(struct zsrc *z, void *buf, size_t n, int stall_ms,
			   struct gs_err *err)
{
	ssize_t r;
	size_t ret, before;

	for (;;) {
		ZSTD_outBuffer out = { buf, n, 0 };
		ZSTD_inBuffer in;

		if (z->dry && z->pos == z->len)
			goto fill;
		/* may read on, so the input is taken after it */
		if (!z->in_frame && (r = zsrc_window(z, stall_ms, err)) < 0)
			return r;
		in = (ZSTD_inBuffer){ z->buf, z->len, z->pos };
		before = z->pos;
		if (!z->in_frame)	/* a call starts at most one frame */
			z->frame_off = z->raw_off - z->len + z->pos;
		ret = ZSTD_decompressStream(z->dctx, &out, &in);
		z->pos = in.pos;
		if (ZSTD_isError(ret))
			return zsrc_corrupt(z, ret, err);
		z->dry = out.pos < out.size && in.pos == in.size;
		if (out.pos || in.pos != before)
			z->in_frame = ret != 0;
		if (out.pos)
			return (ssize_t)out.pos;
		if (z->pos < z->len && z->pos != before)
			continue;
fill:
		r = zsrc_fill(z, stall_ms, err);
		if (r < 0)
			return r;
		if (r == 0 && z->in_frame)
			return gs_fail(err, GS_ERUNTIME, z->name,
				       "truncated zstd frame at compressed byte %llu",
				       (unsigned long long)z->raw_off);
		if (r == 0)
			return 0;
	}
}

/* The pipe's frames are done with (zpipe_read said r == 0), or a pipe's
 * BGZF group at byte at did not decode (r < 0): the operand's end, or the
 * stream goes on from where the thread stopped or the group began. */
static ssize_t zsrc_pipe_end(struct zsrc *z, ssize_t r, uint64_t at,
			     struct gs_err *err)
{
	struct zfeed_end e;

	if (!z->feed && !z->gzfeed) {	/* leave a shared stdin at its end */
		zsrc_unpipe(z);
		lseek(z->fd, 0, SEEK_END);
		z->eof = true;
		z->pos = z->len = 0;
		return 0;
	}
	if (z->feed)
		zfeed_finish(z->feed, &e);
	else if (r == 0)
		gzfeed_finish(z->gzfeed, &e);
	else
		gzfeed_rewind(z->gzfeed, at, &e);
	z->feed = NULL;
	z->gzfeed = NULL;
	z->pipe = NULL;
	z->raw_off = e.raw_off;
	z->eof = e.eof;
	z->pos = z->len = 0;
	if (e.how == ZFEED_ERROR)
		return gs_fail(err, GS_ERUNTIME, z->name,
			       "read error at byte %llu: %s",
			       (unsigned long long)e.raw_off, strerror(e.err));
	if (e.how == ZFEED_EOF)
		return 0;
	free(z->buf);
	z->buf = e.buf;
	z->cap = e.cap;
	z->len = e.len;
	return ZSRC_STREAM;
}

/* The frames decoded in parallel, or ZSRC_STREAM to go on as a stream
 * (from a frame that could not be decoded for want of memory, or where the
 * feeding thread stopped). */
static ssize_t zsrc_frames(struct zsrc *z, void *buf, size_t n, int stall_ms,
			   struct gs_err *err)
{
	uint64_t resume = 0;
	size_t code;
	ssize_t r = zpipe_read(z->pipe, z->pipe_file, buf, n, stall_ms,
			       &resume, &code);

	if (r > 0 || r == ZPIPE_STALL)
		return r;
	/* a gzip group failed: the stream decodes it again from where it
	 * begins, serves its good blocks and says what is wrong with the bad
	 * one, as -j 1 does (a pipe's bytes from there on are handed back) */
	if (r == 0 || z->gzfeed)
		return zsrc_pipe_end(z, r, resume, err);
	zsrc_unpipe(z);
	z->frame_off = resume - z->base;
	if (!z->gzip && ZSTD_getErrorCode(code) != ZSTD_error_memory_allocation)
		return zsrc_corrupt(z, code, err);
	if (lseek(z->fd, (off_t)resume, SEEK_SET) < 0)
		return gs_fail(err, GS_ERUNTIME, z->name, "cannot seek to "
			       "byte %llu: %s", (unsigned long long)resume,
			       strerror(errno));
	z->eof = false;
	z->pos = z->len = 0;
	z->raw_off = resume - z->base;
	return ZSRC_STREAM;
}

ssize_t zsrc_read(struct zsrc *z, void *buf, size_t n, int stall_ms,
		  struct gs_err *err)
{
	ssize_t r;

	if (n == 0)	/* gzmembers_read would spin on a span */
		return 0;
	if (z->pipe && (r = zsrc_frames(z, buf, n, stall_ms, err)) != ZSRC_STREAM) {
		z->dec.parallel += r > 0 ? (uint64_t)r : 0;
		return r;
	}
	if (z->gzm) {
		r = gzmembers_read(z, buf, n, stall_ms, err);
		zsrc_map_progress(z);
		return r;
	}
	if (z->gzip || z->zstd) {
		r = z->gzip ? gzsrc_read(z->gz, z, buf, n, stall_ms, err)
			    : zsrc_decode(z, buf, n, stall_ms, err);
		z->dec.stream += r > 0 ? (uint64_t)r : 0;
		zsrc_map_progress(z);
		return r;
	}
	return zsrc_plain(z, buf, n, stall_ms, err);
}

/* ---- the raw bytes, for gzsrc.c ------------------------------------------ */

size_t zsrc_raw(struct zsrc *z, const uint8_t **p)
{
	*p = z->buf + z->pos;
	return z->len - z->pos;
}

void zsrc_raw_take(struct zsrc *z, size_t k)
{
	z->pos += k;
}

ssize_t zsrc_raw_more(struct zsrc *z, int stall_ms, struct gs_err *err)
{
	return zsrc_fill(z, stall_ms, err);
}

uint64_t zsrc_raw_off(const struct zsrc *z)
{
	return z->raw_off - z->len + z->pos;
}

const char *zsrc_name(const struct zsrc *z)
{
	return z->name;
}
