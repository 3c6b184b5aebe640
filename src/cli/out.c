/*
 * out.c - see out.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "out.h"
#include "sig.h"

/* A write past the file size limit (ulimit -f) ends the run as SIGXFSZ
 * would have, with its status, but one line names the file. */
static int write_error(struct out *o, struct gs_err *err)
{
	if (errno == EFBIG)
		return gs_fail(err, GS_ESIGNAL + SIGXFSZ, o->name, "write error: "
			       "%s (the file size limit, ulimit -f)",
			       strerror(errno));
	return gs_fail(err, GS_ERUNTIME, o->name, "write error: %s",
		       strerror(errno));
}

/* stat(2) of an operand, "-" being stdin. */
static int stat_operand(const char *path, struct stat *st)
{
	if (!path || strcmp(path, "-") == 0)
		return fstat(STDIN_FILENO, st);
	return stat(path, st);
}

int out_check_inputs(const char *opt, const char *path, char *const *inputs,
		     int ninputs, struct gs_err *err)
{
	bool to_stdout = !path || strcmp(path, "-") == 0;
	struct stat o, in;
	int i;

	if ((to_stdout ? fstat(STDOUT_FILENO, &o) : stat(path, &o)) != 0 ||
	    !S_ISREG(o.st_mode))
		return 0;	/* nothing there yet, or not a file to destroy */
	for (i = 0; i < (ninputs > 0 ? ninputs : 1); i++) {
		const char *p = ninputs > 0 ? inputs[i] : "-";

		if (stat_operand(p, &in) != 0 || in.st_dev != o.st_dev ||
		    in.st_ino != o.st_ino)
			continue;
		if (to_stdout)
			return gs_fail(err, GS_ERUNTIME, strcmp(p, "-") ? p : "stdin",
				       "input file is the output (stdout); "
				       "refusing to read what is being written");
		return gs_fail(err, GS_ERUNTIME, path, "%s names an input file "
			       "(%s); refusing to overwrite it", opt,
			       strcmp(p, "-") ? p : "stdin");
	}
	return 0;
}

/* DIR/BASE with DIR made absolute and free of links, into buf; false when
 * DIR does not resolve. */
static bool canonical(const char *path, char *buf, size_t n)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], real[PATH_MAX];

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path + 1),
			  path) >= (int)sizeof(dir))
		return false;
	if (!realpath(dir, real))
		return false;
	return snprintf(buf, n, "%s/%s", real, slash ? slash + 1 : path) < (int)n;
}

bool out_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char ca[PATH_MAX], cb[PATH_MAX];

	if (stat(a, &sa) == 0 &&
	    (b ? stat(b, &sb) : fstat(STDOUT_FILENO, &sb)) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	/* one of them is still to be made: compare where they would be */
	return b && canonical(a, ca, sizeof(ca)) && canonical(b, cb, sizeof(cb)) &&
	       strcmp(ca, cb) == 0;
}

/* The mode a new file gets: the old FILE's (without set-id bits, which
 * would move to a file that we own), else 0666 less the umask. */
static mode_t new_mode(const struct stat *old, bool exists)
{
	mode_t mask;

	if (exists)
		return old->st_mode & 0777;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/* "DIR/.BASE.gpustat-XXXXXX" beside target; "DIR/.gpustat-XXXXXX" when
 * BASE is too long to take the 17 more bytes (NAME_MAX is 255). */
static char *tmp_name(const char *target)
{
	const char *slash = strrchr(target, '/');
	size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
	const char *base = target + dirlen;
	size_t n = strlen(target) + 32;
	char *t = malloc(n);

	if (t && strlen(base) + 17 <= 255)
		snprintf(t, n, "%.*s.%s.gpustat-XXXXXX", (int)dirlen, target, base);
	else if (t)
		snprintf(t, n, "%.*s.gpustat-XXXXXX", (int)dirlen, target);
	return t;
}

static void out_free(struct out *o)
{
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
}

/* Open a temporary file that out_close() renames over target. */
static int open_tmp(struct out *o, const char *target, const struct stat *old,
		    bool exists, struct gs_err *err)
{
	o->target = strdup(target);
	o->tmp = tmp_name(target);
	if (!o->target || !o->tmp) {
		out_free(o);
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	}
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		gs_fail(err, GS_ERUNTIME, o->name, "%s", strerror(errno));
		out_free(o);
		return -1;
	}
	errno = 0;
	if (sig_keep_tmp(o->tmp) < 0 || fchmod(o->fd, new_mode(old, exists)) < 0) {
		int e = errno;

		out_abort(o);
		return gs_fail(err, GS_ERUNTIME, o->name, "%s",
			       e ? strerror(e) : "too many outputs");
	}
	return 0;
}

/* The descriptor that -o /dev/stdout, /dev/fd/N or /proc/self/fd/N names,
 * or that is open on the same file (stdout redirected to FILE as well), or
 * -1. Such a file is written in place, where the descriptor stands: a file
 * renamed over it would lose what else is written there. */
static int open_descriptor(const char *path, const struct stat *st, bool exists)
{
	struct stat so;
	unsigned n;
	char end;

	if (!strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	if ((sscanf(path, "/dev/fd/%u%c", &n, &end) == 1 ||
	     sscanf(path, "/proc/self/fd/%u%c", &n, &end) == 1) && n < 1024)
		return (int)n;
	if (exists && fstat(STDOUT_FILENO, &so) == 0 && so.st_dev == st->st_dev &&
	    so.st_ino == st->st_ino)
		return STDOUT_FILENO;
	return -1;
}

/* Where a symlink points, through a chain of them and a dangling end
 * included (each made relative to its link's directory), into buf; or
 * path itself. */
static const char *link_target(const char *path, char *buf, size_t n)
{
	char cur[PATH_MAX], link[PATH_MAX];
	struct stat lst;
	const char *slash;
	ssize_t k;
	int hops;

	if (lstat(path, &lst) != 0 || !S_ISLNK(lst.st_mode))
		return path;
	if (realpath(path, buf))
		return buf;
	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
		return path;
	/* 40 links, as Linux follows at most */
	for (hops = 0; hops < 40 && lstat(cur, &lst) == 0 &&
		       S_ISLNK(lst.st_mode); hops++) {
		k = readlink(cur, link, sizeof(link) - 1);
		if (k <= 0)
			return path;
		link[k] = '\0';
		slash = strrchr(cur, '/');
		if (link[0] == '/' || !slash)
			k = snprintf(buf, n, "%s", link);
		else
			k = snprintf(buf, n, "%.*s/%s", (int)(slash - cur), cur, link);
		if (k < 0 || (size_t)k >= n || (size_t)k >= sizeof(cur))
			return path;
		memcpy(cur, buf, (size_t)k + 1);
	}
	return buf;
}

static int open_file(struct out *o, const char *path, struct gs_err *err)
{
	char real[PATH_MAX];
	struct stat st;
	bool exists = stat(path, &st) == 0;
	int fd = open_descriptor(path, &st, exists);

	o->name = path;
	if (fd >= 0) {
		o->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		return o->fd < 0 ? gs_fail(err, GS_ERUNTIME, path, "%s",
					   strerror(errno)) : 0;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* a device or FIFO: there is nothing to rename over */
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		return o->fd < 0 ? gs_fail(err, GS_ERUNTIME, path, "%s",
					   strerror(errno)) : 0;
	}
	/* a file that `>` could not write is not replaced either */
	if (exists && access(path, W_OK) != 0)
		return gs_fail(err, GS_ERUNTIME, path, "%s", strerror(errno));
	/* a symlink's target is replaced, not the link */
	return open_tmp(o, link_target(path, real, sizeof(real)), &st, exists,
			err);
}

int out_open(struct out *o, const char *path, struct gs_err *err)
{
	struct stat st;
	int fl;

	memset(o, 0, sizeof(*o));
	if (path && strcmp(path, "-") != 0) {
		if (open_file(o, path, err) < 0)
			return -1;
	} else {
		o->fd = STDOUT_FILENO;
		o->name = "stdout";
	}
	o->is_tty = isatty(o->fd);
	fl = fcntl(o->fd, F_GETFL);
	o->seekable = fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode) &&
		      fl >= 0 && !(fl & O_APPEND);
	if (o->seekable) {
		off_t at = lseek(o->fd, 0, SEEK_CUR);

		o->seekable = at >= 0;
		o->start = at >= 0 ? (uint64_t)at : 0;
	}
	return 0;
}

/* Write all n bytes, at offset off past where our output began or, with
 * off < 0, where the file offset is. */
static int write_all(struct out *o, const void *buf, size_t n, int64_t off,
		     struct gs_err *err)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = off < 0 ? write(o->fd, p, n)
				    : pwrite(o->fd, p, n, (off_t)(o->start + off));

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return write_error(o, err);
		}
		p += w;
		n -= (size_t)w;
		if (off >= 0)
			off += w;
		else
			o->written += (uint64_t)w;
	}
	return 0;
}

int out_write(struct out *o, const void *buf, size_t n, struct gs_err *err)
{
	return write_all(o, buf, n, -1, err);
}

int out_pwrite(struct out *o, const void *buf, size_t n, uint64_t off,
	       struct gs_err *err)
{
	return write_all(o, buf, n, (int64_t)off, err);
}

int out_close(struct out *o, struct gs_err *err)
{
	/* every write(2) was checked already; close() of a file can still
	 * report a delayed error (NFS, quota) */
	if (o->fd == STDOUT_FILENO)
		return 0;
	if (close(o->fd) < 0) {
		o->fd = -1;
		write_error(o, err);
		out_abort(o);
		return -1;
	}
	o->fd = -1;
	if (o->tmp) {
		sig_hold();	/* a replaced FILE means success */
		if (rename(o->tmp, o->target) < 0) {
			gs_fail(err, GS_ERUNTIME, o->name, "%s", strerror(errno));
			out_abort(o);
			return -1;
		}
		/* renamed first: a signal in between finds nothing to remove */
		sig_forget_tmp(o->tmp);
	}
	out_free(o);
	return 0;
}

int out_cut(struct out *o, uint64_t keep)
{
	off_t end = (off_t)(o->start + o->written);
	struct stat st;

	if (!o->seekable || o->written <= keep)
		return 0;
	/* a file that others write too (`{ ...; gpustat; } > f`, 2>&1):
	 * where they wrote after our bytes, or moved the offset we share
	 * with them, cutting would take theirs too */
	if (lseek(o->fd, 0, SEEK_CUR) != end || fstat(o->fd, &st) < 0 ||
	    st.st_size != end)
		return 0;
	if (ftruncate(o->fd, (off_t)(o->start + keep)) < 0 ||
	    lseek(o->fd, (off_t)(o->start + keep), SEEK_SET) < 0)
		return -1;
	o->written = keep;
	return 0;
}

void out_abort(struct out *o)
{
	/* a file written in place keeps nothing of a failed result */
	if (!o->tmp)
		(void)out_cut(o, 0);
	if (o->fd > STDOUT_FILENO)
		close(o->fd);
	o->fd = -1;
	if (o->tmp) {
		unlink(o->tmp);
		sig_forget_tmp(o->tmp);
	}
	out_free(o);
}
