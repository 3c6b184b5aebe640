/*
 * feedio.c - see feedio.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "feedio.h"

bool feedio_init(struct feedio *io, int fd, const unsigned char *had, size_t n,
		 uint64_t raw_off)
{
	*io = (struct feedio){ .fd = fd, .roff = raw_off, .rlen = n };
	io->stopfd = eventfd(0, EFD_CLOEXEC);
	io->rb = malloc(FEEDIO_READ);
	if (io->stopfd < 0 || !io->rb || n > FEEDIO_READ)
		return false;
	memcpy(io->rb, had, n);
	return true;
}

void feedio_free(struct feedio *io)
{
	if (io->stopfd >= 0)
		close(io->stopfd);
	free(io->rb);
	io->stopfd = -1;
	io->rb = NULL;
}

void feedio_stop(struct feedio *io)
{
	uint64_t one = 1;

	/* an eventfd takes this write: it is far from overflowing */
	if (write(io->stopfd, &one, sizeof(one)) < 0)
		io->stopped = true;
}

ssize_t feedio_read(struct feedio *io, void *buf, size_t n)
{
	for (;;) {
		struct pollfd pf[2] = { { io->fd, POLLIN, 0 },
					{ io->stopfd, POLLIN, 0 } };
		ssize_t r;

		if (poll(pf, 2, -1) < 0 && errno != EINTR) {
			io->err = errno;
			return -1;
		}
		if (pf[1].revents) {
			io->stopped = true;
			return -1;
		}
		if (!pf[0].revents)
			continue;
		r = read(io->fd, buf, n);
		if (r > 0) {
			io->roff += (uint64_t)r;
			return r;
		}
		if (r == 0) {
			io->eof = true;
			return 0;
		}
		/* stdin may have been left non-blocking by another program */
		if (errno != EINTR && errno != EAGAIN) {
			io->err = errno;
			return -1;
		}
	}
}

bool feedio_need(struct feedio *io, size_t k)
{
	while (io->rlen - io->rpos < k) {
		ssize_t r;

		if (io->eof || io->err)
			return false;
		memmove(io->rb, io->rb + io->rpos, io->rlen - io->rpos);
		io->rlen -= io->rpos;
		io->rpos = 0;
		r = feedio_read(io, io->rb + io->rlen, FEEDIO_READ - io->rlen);
		if (r <= 0)
			return false;
		io->rlen += (size_t)r;
	}
	return true;
}
