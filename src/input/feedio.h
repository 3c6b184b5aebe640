/*
 * feedio.h - a pipe read on a producer thread of its own (zfeed.h: zstd
 * frames, gzfeed.h: BGZF blocks): a read-ahead buffer, and reads that wait
 * in poll() on the fd and on an eventfd, so that the thread can be stopped
 * while the writer is silent. Private to the input layer.
 */
#ifndef FEEDIO_H
#define FEEDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FEEDIO_READ ((size_t)1 << 20)	/* read-ahead: the pipe's own size */

struct feedio {
	int fd, stopfd;
	unsigned char *rb;	/* read-ahead: [rpos, rlen) unread */
	size_t rpos, rlen;
	uint64_t roff;		/* bytes of the operand read in all */
	bool eof, stopped;
	int err;		/* the read error, an errno */
};

/* Read fd from here on, beginning with had[0..n) (n <= FEEDIO_READ, read
 * already: raw_off bytes of the operand are read): false when out of memory
 * or no eventfd can be had (feedio_free follows either way). */
bool feedio_init(struct feedio *io, int fd, const unsigned char *had, size_t n,
		 uint64_t raw_off);
void feedio_free(struct feedio *io);

/* Wake a read waiting for the writer: it and every later one fail. */
void feedio_stop(struct feedio *io);

/* Up to n bytes into buf once the fd is readable: the count, 0 at the end,
 * -1 on a read error (err) or when stopped. */
ssize_t feedio_read(struct feedio *io, void *buf, size_t n);

/* At least k <= FEEDIO_READ unread bytes in the read-ahead: false at the end
 * before them, on a read error or when stopped. */
bool feedio_need(struct feedio *io, size_t k);

#endif
