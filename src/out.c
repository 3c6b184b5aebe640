/*
 * out.c - see out.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "out.h"

static int write_error(struct out *o, struct gs_err *err)
{
	return gs_fail(err, GS_ERUNTIME, o->name, "write error: %s",
		       strerror(errno));
}

int out_open(struct out *o, const char *path, struct gs_err *err)
{
	struct stat st;

	if (path && strcmp(path, "-") != 0) {
		o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		o->name = path;
		if (o->fd < 0)
			return gs_fail(err, GS_ERUNTIME, path, "%s",
				       strerror(errno));
	} else {
		o->fd = STDOUT_FILENO;
		o->name = "stdout";
	}
	o->is_tty = isatty(o->fd);
	o->seekable = fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode);
	return 0;
}

int out_write(struct out *o, const void *buf, size_t n, struct gs_err *err)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(o->fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return write_error(o, err);
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int out_pwrite(struct out *o, const void *buf, size_t n, uint64_t off,
	       struct gs_err *err)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = pwrite(o->fd, p, n, (off_t)off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return write_error(o, err);
		}
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

int out_close(struct out *o, struct gs_err *err)
{
	/* every write(2) was checked already; close() of a file can still
	 * report a delayed error (NFS, quota) */
	if (o->fd == STDOUT_FILENO)
		return 0;
	if (close(o->fd) < 0)
		return write_error(o, err);
	return 0;
}
