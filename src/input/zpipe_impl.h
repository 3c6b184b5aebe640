/*
 * zpipe_impl.h - the state of the frame-parallel decoder (zpipe.h), for
 * the two files that make it up: zpipe.c (buffers, workers, opening and
 * feeding a pipe) and zpipe_serve.c (serving and lending its frames in
 * order). Private to the input layer.
 */
#ifndef ZPIPE_IMPL_H
#define ZPIPE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "zpipe.h"

#define ZP_THREADS_MAX 16		/* one frame per core, as pzstd -p 16 */
#define ZP_SLOTS 64			/* frames in the ring, at most */
#define ZP_PAGE ((size_t)2 << 20)	/* buffers are whole huge pages */
#define ZP_PIECE ((size_t)2 << 20)	/* a copy is split in pieces this big */
#define ZP_PIECES 64			/* ...and this many at most per read */

#define ZP_VIEW_SLOTS 8		/* frames lent to the reader at once */
#define ZP_VIEW_MIN ((size_t)4 << 20)	/* a view shorter than the read
					 * asked for: this long at least */

/* SLOT_LENT: served, its buffer still lent to the reader (zpipe_view) */
enum { SLOT_FREE, SLOT_RESERVED, SLOT_QUEUED, SLOT_DECODING, SLOT_DONE,
       SLOT_LENT };

struct zslot {
	int state;
	int file;		/* the id of the file it is part of */
	bool nomem;		/* no buffer could be had: fails so */
	enum zcodec codec;
	uint64_t off;		/* where the frame begins */
	uint64_t bound;		/* decoded bytes at most: its buffer's need, as
				 * counted in pending */
	uint64_t dsize;		/* decoded bytes: the bound until decoded */
	bool sized;		/* its header gave dsize: the bound is exact */
	const unsigned char *src;	/* its compressed bytes */
	size_t csize;
	size_t cmax;		/* bytes readable from src: a mapped file's
				 * to its end (members run past a span) */
	uint64_t from, to;	/* GZMEMBERS: the members decoded, where they
				 * begin and end (from ZPIPE_NOWHERE: none) */
	size_t rc;		/* decoded: dsize, or zstd's error */
	unsigned char *dbuf, *cbuf;	/* decoded and compressed (a producer's) */
	size_t dcap, ccap;
	int lent;		/* views of dbuf not given back */
};

struct zfile {
	int id;
	void *map;		/* mapped frames: the mapping, and their list */
	size_t map_len;
	struct zframe *list;
	size_t n, pushed;	/* frames, and those put in the ring */
	bool ended;		/* no more frames will come */
	struct zfile *next;
};

struct zcopy {			/* one read's copy, split */
	struct zpiece {
		unsigned char *dst;
		const unsigned char *src;
		size_t len;
	} piece[ZP_PIECES];
	int n;
	atomic_int next, done;	/* pieces taken, and copied */
};

struct zpipe {
	int threads;		/* workers at once: -j, at most the pool */
	size_t depth;		/* frames in the ring at most */
	uint64_t budget;
	struct zslot slot[ZP_SLOTS];
	size_t head, count, claimed;
	size_t pos;		/* bytes of the head frame served */
	uint64_t dbytes, cbytes;	/* buffers held, decoded and compressed */
	uint64_t pending;	/* decoded bytes queued, not yet served */
	uint64_t chain;		/* where the next GZMEMBERS frame must begin */
	int busy;		/* workers in it now (decoding or copying) */
	int helpers;		/* of them, copying */
	int drop_below;		/* frames of files before it are not decoded */
	int lent_slots;		/* slots with views out, and their buffers */
	uint64_t lent_bytes;
	struct zfile *files, *last;
	bool stopped;
	bool copy_on;
	struct zcopy copy;
	pthread_cond_t cv;	/* the reader, a producer and close wait here */
};

/* One lock guards the open pipe and the workers' parking (zpipe.c). */
extern pthread_mutex_t zp_lock;
extern pthread_cond_t zp_work;
extern struct zpipe *zp_active;

/* Buffers of a closed pipe still lent to the reader: unmapped when the
 * last view of each is given back. These and the open pipe's lent slots
 * are ZP_VIEW_SLOTS at most, so a closing pipe finds room for its own. */
struct zorphan {
	unsigned char *buf;
	size_t cap;
	int lent;
	struct zpipe *p;	/* the open pipe whose budget holds it, or NULL */
};
extern struct zorphan zp_orphan[ZP_VIEW_SLOTS];
extern int zp_orphans;


static inline struct zslot *ring(struct zpipe *p, size_t k)
{
	return &p->slot[(p->head + k) % ZP_SLOTS];
}

/* zpipe.c's, for serving: a copy's share; the first file unlinked, with
 * whatever of it is left; more frames put in the ring (true when any
 * were); the file of that id, or NULL. All with zp_lock held. */
void zp_copy_pieces(struct zcopy *c);
void zp_file_pop(struct zpipe *p);
bool zp_top_up(struct zpipe *p);
struct zfile *zp_file_find(struct zpipe *p, int id);

#endif
