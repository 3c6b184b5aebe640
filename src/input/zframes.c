/*
 * zframes.c - see zframes.h.
 *
 * The file is mapped, its frames are listed once (zstd's own frame parser
 * finds each frame's end from its block headers without decoding), and then
 * each batch of up to one frame per thread is decoded with one
 * ZSTD_decompressDCtx per frame on the decode pool, the reader's thread
 * being one of them. A batch holds at most ZF_BATCH_BYTES of decoded data:
 * memory stays bounded whatever the file (each slot's buffer fits its
 * frame). Serving a batch is a copy into the reader's chunks, far quicker
 * than decoding it; the engine computes on its other thread meanwhile.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "pool.h"
#include "zframes.h"
#include "zsrc.h"

#define ZF_THREADS_MAX 16		/* one frame per core, as pzstd -p 16 */
#define ZF_BATCH_BYTES ((uint64_t)1 << 30)	/* decoded bytes in flight */

struct zslot {			/* one frame of the batch, decoded */
	unsigned char *buf;
	size_t cap;
	size_t rc;		/* its size, or zstd's error */
};

struct zframes {
	const unsigned char *map;
	size_t map_len;
	struct zframe *frame;
	size_t nframes;
	int threads;		/* frames decoded at once: -j, at most the pool */
	size_t first, count;	/* the batch: frames [first, first + count) */
	size_t serve;		/* the frame being served, within the batch */
	size_t pos;		/* bytes of it served */
};

/* ---- the decode pool, made once --------------------------------------- */

static pthread_once_t zf_once = PTHREAD_ONCE_INIT;
static struct pool zf_pool;
static bool zf_ok;
static ZSTD_DCtx *zf_dctx[ZF_THREADS_MAX];
static struct zslot zf_slot[ZF_THREADS_MAX];
/* The slots serve one file at a time (dot A B reads two inputs on one
 * thread): a second zframes_open while one is open reads as a stream. */
static bool zf_busy;

static void zf_init(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = cpus < 2 ? 1 : cpus > ZF_THREADS_MAX ? ZF_THREADS_MAX : (int)cpus;

	zf_ok = n > 1 && pool_init(&zf_pool, n) == 0;
}

/* ---- the frame list ------------------------------------------------------ */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Add the frame at map + off (rest bytes to the end) to the list; false
 * when it is not one this path takes. *len: its length. */
static bool add_frame(const unsigned char *map, uint64_t off, uint64_t rest,
		      uint64_t window_max, struct zframe **list, size_t *n,
		      size_t *cap, uint64_t *len)
{
	const unsigned char *p = map + off;
	unsigned long long dsize;
	uint64_t win;
	size_t csize;

	if (rest >= 8 && (le32(p) & 0xFFFFFFF0u) == 0x184D2A50u) {
		*len = 8 + (uint64_t)le32(p + 4);	/* skippable */
		return *len <= rest;
	}
	if (zsrc_frame_window(p, rest, &win) != 1 || win > window_max)
		return false;
	dsize = ZSTD_getFrameContentSize(p, rest);
	csize = ZSTD_findFrameCompressedSize(p, rest);
	if (dsize == ZSTD_CONTENTSIZE_UNKNOWN || dsize == ZSTD_CONTENTSIZE_ERROR ||
	    dsize > ZF_BATCH_BYTES || ZSTD_isError(csize))
		return false;
	if (*n == *cap) {
		struct zframe *l = realloc(*list, (*cap = *cap * 2 + 16) *
					   sizeof(*l));

		if (!l)
			return false;
		*list = l;
	}
	(*list)[(*n)++] = (struct zframe){ off, csize, dsize };
	*len = csize;
	return true;
}

bool zframes_scan(const unsigned char *map, size_t len, uint64_t start,
		  uint64_t window_max, struct zframe **list, size_t *n)
{
	size_t cap = 0;
	uint64_t off = start, k;

	*list = NULL;
	*n = 0;
	while (off < len)
		if (!add_frame(map, off, len - off, window_max, list, n, &cap, &k))
			return false;
		else
			off += k;
	return true;
}

struct zframes *zframes_open(int fd, uint64_t start, uint64_t window_max,
			     int threads)
{
	struct zframes *f;
	struct stat st;
	void *map;

	pthread_once(&zf_once, zf_init);
	if (!zf_ok || zf_busy || fstat(fd, &st) < 0 ||
	    (uint64_t)st.st_size <= start)
		return NULL;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (f) {
		f->map = map;
		f->map_len = (size_t)st.st_size;
		f->threads = threads < zf_pool.n ? threads : zf_pool.n;
	}
	if (!f || !zframes_scan(f->map, f->map_len, start, window_max,
				&f->frame, &f->nframes) || f->nframes < 2) {
		zframes_close(f);
		if (!f)
			munmap(map, (size_t)st.st_size);
		return NULL;
	}
	madvise(map, f->map_len, MADV_SEQUENTIAL);
	zf_busy = true;
	return f;
}

void zframes_close(struct zframes *f)
{
	if (!f)
		return;
	munmap((void *)f->map, f->map_len);
	free(f->frame);
	/* the slots hold up to a batch of decoded frames: not kept */
	for (int i = 0; i < ZF_THREADS_MAX && f->map; i++) {
		free(zf_slot[i].buf);
		zf_slot[i].buf = NULL;
		zf_slot[i].cap = 0;
	}
	zf_busy = false;
	free(f);
}

/* ---- decoding a batch -------------------------------------------------- */

/* Frame i of the batch into slot i: its size, or zstd's error. */
static size_t slot_decode(const struct zframes *f, int i)
{
	const struct zframe *fr = &f->frame[f->first + (size_t)i];
	struct zslot *s = &zf_slot[i];
	size_t got;

	if (!zf_dctx[i] && !(zf_dctx[i] = ZSTD_createDCtx()))
		return (size_t)-ZSTD_error_memory_allocation;
	/* a buffer fits its frame: bounded by the batch, not by history */
	if (s->cap < fr->dsize || s->cap > 2 * fr->dsize + 4096) {
		free(s->buf);
		s->buf = malloc(fr->dsize ? fr->dsize : 1);
		s->cap = s->buf ? fr->dsize : 0;
		if (!s->buf)
			return (size_t)-ZSTD_error_memory_allocation;
	}
	got = ZSTD_decompressDCtx(zf_dctx[i], s->buf, fr->dsize,
				  f->map + fr->off, fr->csize);
	/* the header promised dsize: zstd checks it, this is the backstop */
	return ZSTD_isError(got) || got == fr->dsize ? got
	       : (size_t)-ZSTD_error_corruption_detected;
}

static void batch_task(void *v, int i, int nthreads)
{
	const struct zframes *f = v;

	if ((size_t)i < f->count)
		zf_slot[i].rc = slot_decode(f, i);
}

/* The next batch: a frame per thread, within ZF_BATCH_BYTES. */
static void next_batch(struct zframes *f)
{
	uint64_t bytes = 0;

	f->first += f->count;
	f->count = 0;
	while (f->first + f->count < f->nframes && f->count < (size_t)f->threads &&
	       (f->count == 0 ||
		bytes + f->frame[f->first + f->count].dsize <= ZF_BATCH_BYTES))
		bytes += f->frame[f->first + f->count++].dsize;
	f->serve = f->pos = 0;
	if (f->count)
		pool_run(&zf_pool, batch_task, f);
}

ssize_t zframes_read(struct zframes *f, void *buf, size_t n, uint64_t *at,
		     size_t *code)
{
	for (;;) {
		if (f->serve == f->count) {
			next_batch(f);
			if (f->count == 0)
				return 0;
		}
		const struct zframe *fr = &f->frame[f->first + f->serve];

		if (ZSTD_isError(zf_slot[f->serve].rc)) {
			*at = fr->off;
			*code = zf_slot[f->serve].rc;
			return -1;
		}
		if (f->pos < fr->dsize) {
			size_t k = fr->dsize - f->pos < n ? fr->dsize - f->pos : n;

			memcpy(buf, zf_slot[f->serve].buf + f->pos, k);
			f->pos += k;
			return (ssize_t)k;
		}
		f->serve++;
		f->pos = 0;
	}
}
