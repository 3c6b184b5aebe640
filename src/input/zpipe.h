/*
 * zpipe.h - independent zstd frames decoded on several threads at once and
 * served in order: the one engine behind every frame-parallel path of the
 * input layer (zframes.h: a multi-frame regular file; zahead.h: .zst
 * operands ahead of the one being read; zfeed.h: frames read from a pipe).
 * Private to the input layer.
 *
 * One zstd frame decodes on one core only, so a file of many frames or many
 * files is decoded a frame per worker. The workers keep decoding the next
 * frames, in order, into a bounded ring of slots while the reader serves
 * earlier ones: a slot is reused as soon as it is served, and its buffer
 * with it (no fresh memory, so no page faults, in steady state). The ring
 * holds twice as many frames as decode at once, plus two, and the decoded
 * buffers the pipe holds never exceed its budget. A frame that does
 * not decode is reported when its turn comes, by where it begins, and none
 * of its bytes are served.
 *
 * A pipe is fed in one of two ways: whole files whose frames are listed
 * from a mapping (zpipe_add), or one frame at a time by a producer that
 * reads the compressed bytes itself (zpipe_reserve ... zpipe_commit).
 * Frames belong to files, each named by an id; ids increase in serving
 * order.
 */
#ifndef ZPIPE_H
#define ZPIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Decoded bytes a pipe holds at most, and the largest frame it takes: four
 * at least are decoded at once, else one core decoding the stream into the
 * reader's own buffer (overlapped with the compute) does as well. */
#define ZPIPE_BYTES ((uint64_t)1 << 30)
#define ZPIPE_FRAME_MAX (ZPIPE_BYTES / 4)

#define ZPIPE_STALL (-2)	/* as ZSRC_STALL */

/* A GZMEMBERS frame's from where no member begins in its span. */
#define ZPIPE_NOWHERE UINT64_MAX

/* Workers to make, instead of one per online core (at most 16): the tests
 * run as many as the device machine has on a machine of two cores. */
#define ZPIPE_WORKERS_ENV "GPUSTAT_ZPIPE_WORKERS"

/* Microseconds a worker waits between seeing work and taking it: the tests
 * widen that window, where the reader may take the last of a copy. */
#define ZPIPE_RACE_ENV "GPUSTAT_ZPIPE_RACE_US"

struct zpipe;

/* What a frame is: a zstd frame, BGZF blocks (gzframes.h), or a span of
 * a file of plain gzip members, decoded from the first member that begins
 * in it (gzmembers.h). */
enum zcodec { ZCODEC_ZSTD, ZCODEC_BGZF, ZCODEC_GZMEMBERS };

/* One frame of a mapped file: where it begins, its compressed bytes, and
 * its decoded bytes, exactly when its header gives them (sized), else at
 * most (pzstd's frames and the seekable format's carry no content size:
 * zstd_bound); and what it is. */
struct zframe {
	uint64_t off, csize, dsize;
	bool sized;
	enum zcodec codec;
};

/* Decoded bytes a frame of no content size yields at most, from its blocks
 * walked so far: a raw or RLE block's size says what it decodes to, a
 * compressed one decodes to at most min(window, 128 KiB) (RFC 8878,
 * Block_Maximum_Size). Adds block header bh's share to *bound. */
static inline void zstd_bound(uint64_t *bound, uint32_t bh, uint64_t window)
{
	uint64_t max = window < (128 << 10) ? window : (128 << 10);

	*bound += (bh >> 1 & 3) == 2 ? max : bh >> 3;
}

/* The decoded size a producer's frame reserves when its header gives none:
 * zpipe_commit takes its bound instead. */
#define ZPIPE_UNSIZED UINT64_MAX

/* A pipe whose frames up to threads workers decode at once, holding at most
 * budget bytes of decoded data (frames over budget fail as out of memory),
 * and as much again of a producer's compressed frames.
 * NULL when threads < 2, when no workers can be had (one core, or out of
 * memory), or while another pipe is open: the workers serve one file at a
 * time (dot A B reads two inputs on one thread). */
struct zpipe *zpipe_open(int threads, uint64_t budget);

/* Wait for the workers to leave the pipe and free it with everything it
 * holds (its buffers, the files added to it). */
void zpipe_close(struct zpipe *p);

/* Wake a producer waiting in zpipe_reserve or zpipe_cbuf (it gets -1 or
 * NULL); zpipe_close follows. */
void zpipe_stop(struct zpipe *p);

/* Queue the n frames list[0..n) of map[0..len) as file id, after every
 * file before it. The pipe owns map and list from now on; it unmaps and
 * frees them once the file is served or dropped. With map NULL, file id is
 * a producer's: its frames come by zpipe_reserve until zpipe_end. 0, or -1
 * when out of memory (map and list are freed). */
int zpipe_add(struct zpipe *p, int id, void *map, size_t len,
	      struct zframe *list, size_t n);

/* Where the next ZCODEC_GZMEMBERS frame served must begin: a frame that
 * begins elsewhere is no link of the chain of members (gzmembers.h). The
 * pipe moves it to each served frame's end; the reader sets it where it
 * decoded members itself. */
void zpipe_chain(struct zpipe *p, uint64_t off);
uint64_t zpipe_chain_at(struct zpipe *p);

/* The workers that decode its frames at once. */
int zpipe_threads(const struct zpipe *p);

/* Decoded bytes queued and not yet served. */
uint64_t zpipe_pending(struct zpipe *p);

/* ---- a producer of single frames (one thread) ------------------------------ */

/* A slot for the next frame of file id (added with no map), a frame of
 * codec: off is where it begins, dsize its decoded size, or ZPIPE_UNSIZED
 * when its header gives none (the bound comes with zpipe_commit). Waits
 * for room. Returns the slot, -1 when stopped or -2 when out of memory. */
int zpipe_reserve(struct zpipe *p, int id, enum zcodec codec, uint64_t off,
		  uint64_t dsize);

/* The slot's buffer for the frame's compressed bytes, grown to at least
 * need bytes with the bytes it held kept: NULL when stopped or when need
 * is over the budget or out of memory (then zpipe_cancel). */
unsigned char *zpipe_cbuf(struct zpipe *p, int slot, size_t need);

/* The frame in the slot is whole: csize bytes of its buffer. Decode it.
 * bound: at most the bytes it decodes to, for a slot reserved
 * ZPIPE_UNSIZED (ignored otherwise), which waits here for room for them.
 * Where no buffer can be had for them (mmap failed), the frame is queued
 * to fail as out of memory, or with hand_back it stays reserved and -2 is
 * returned (the producer hands its bytes to the stream). 0, or -1 when
 * stopped (the slot is given back). */
int zpipe_commit(struct zpipe *p, int slot, size_t csize, uint64_t bound,
		 bool hand_back);

/* Give back the slot reserved last, unused. */
void zpipe_cancel(struct zpipe *p, int slot);

/* No more frames will come for file id. */
void zpipe_end(struct zpipe *p, int id);

/* ---- the reader (one thread) ------------------------------------------------- */

/* Up to n > 0 decoded bytes of file id, in order: the count; 0 at the end
 * of the file; ZPIPE_STALL when stall_ms >= 0 and no frame of the file came
 * from its producer for that long; -1 when a frame did not decode: *at is
 * where it begins and *code zstd's error (ZSTD_error_memory_allocation when
 * it had no buffer). Files before id are dropped, whatever is left of them.
 * ZCODEC_GZMEMBERS frames that begin before the chain, or nowhere, are
 * dropped; one that begins past it is -1 with *at the chain (the members
 * from there are the reader's to decode). */
ssize_t zpipe_read(struct zpipe *p, int id, void *buf, size_t n, int stall_ms,
		   uint64_t *at, size_t *code);

/* Whether the head frame of file id, a ZCODEC_GZMEMBERS one, can be read
 * now, without waiting: 1 where it is decoded and begins at the chain,
 * with more than skip bytes (its first skip bytes are then taken as
 * read: the reader decoded them itself); 0 where it is still decoding;
 * -1 where none begins at the chain (frames that begin before it, or
 * nowhere, are dropped on the way). */
int zpipe_link(struct zpipe *p, int id, uint64_t skip);

/* The next bytes of file id in place instead of copied: up to n of them,
 * all in one decoded frame, at *view; the count, or 0 where zpipe_read
 * must serve the next bytes (the file has ended, a frame failed, or what
 * is left of the head frame is short of n and of 4 MiB: a copy gathers
 * small frames into one read; or they lie at an address that is no
 * multiple of align: frames of odd sizes). Waits for the frame to decode; for mapped
 * files only (a producer's frames may stall). Give each view back with
 * zpipe_unview, which also takes views of a pipe closed since. */
ssize_t zpipe_view(struct zpipe *p, int id, size_t n, size_t align,
		   const void **view);

/* Take back the last k bytes read of file id, still in its head frame's
 * buffer, for a later view or read to serve again: false (and nothing
 * taken back) where they are not all there. */
bool zpipe_unread(struct zpipe *p, int id, size_t k);

/* Whether every frame of file id has been served: a read would find its
 * end (or what zsrc finds after its frames). */
bool zpipe_served(struct zpipe *p, int id);

/* Give back a view of zpipe_view: true, or false when view is not one. */
bool zpipe_unview(const void *view);

#endif
