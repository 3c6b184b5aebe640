/*
 * spill.c - a pipe copied to an unlinked temporary file (spill.h).
 *
 * The file is reopened through /proc/self/fd/N, which on Linux opens the
 * file itself even once unlinked, so the input layer reads and rewinds it
 * as any regular file; nothing is left on disk when the process ends,
 * however it ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"
#include "spill.h"

#define SPILL_BUF ((size_t)4 << 20)

static int write_all(int fd, const char *p, size_t n, const char *dir,
		     uint64_t done, struct gs_err *err)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return gs_fail(err, GS_ERUNTIME, dir, "cannot keep the piped "
				       "input for a second pass (%s after %llu "
				       "bytes); give a file, or set TMPDIR to a "
				       "disk with room", strerror(errno),
				       (unsigned long long)done);
		p += w;
		n -= (size_t)w;
		done += (uint64_t)w;
	}
	return 0;
}

/* Every payload byte of in into fd; *total: how many. */
static int copy_input(struct input *in, int fd, const char *dir,
		      uint64_t *total, struct gs_err *err)
{
	char *buf = malloc(SPILL_BUF);
	ssize_t n;
	int rc = 0;

	if (!buf)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	*total = 0;
	while (rc == 0 && (n = input_read(in, buf, SPILL_BUF, -1, err)) != 0) {
		if (n < 0)
			rc = -1;
		else if ((rc = write_all(fd, buf, (size_t)n, dir, *total, err)) == 0)
			*total += (uint64_t)n;
	}
	free(buf);
	return rc;
}

/* A stream of no whole number of records, named as the engine names it
 * (the copy would be named /proc/self/fd/N). */
static int whole_records(struct cli *c, uint64_t total, struct gs_err *err)
{
	size_t rec = job_record_size(&c->job), n = (size_t)(total % rec);
	const char *s = n == 1 ? " does" : "s do", *t = type_name(c->job.dtype.type);

	if (!n)
		return 0;
	if (c->job.columns == 1)
		return gs_fail(err, GS_ERUNTIME, input_name(c->in), "trailing "
			       "%zu byte%s not make a whole element (%s is %zu "
			       "bytes)", n, s, t, rec);
	return gs_fail(err, GS_ERUNTIME, input_name(c->in), "trailing %zu "
		       "byte%s not make a whole record (%u x %s is %zu bytes)",
		       n, s, c->job.columns, t, rec);
}

/* The copy as the raw input of the settled type. */
static int reopen(struct cli *c, int fd, struct gs_err *err)
{
	/* the input keeps the list to reopen the file on each rewind */
	static char path[32];
	static char *paths[1] = { path };
	struct input_opts io = { .raw = true, .threads = 1 };
	struct input_info info;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (input_open(&c->in, paths, 1, &io, err) < 0 ||
	    input_probe(c->in, &info, err) < 0)
		return -1;
	input_set_dtype(c->in, c->job.dtype, c->job.columns);
	return 0;
}

int spill_input(struct cli *c, struct gs_err *err)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	uint64_t total = 0;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(tmpl, sizeof(tmpl), "%s/gpustat-spill-XXXXXX", dir);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0)
		return gs_fail(err, GS_ERUNTIME, dir, "cannot make a temporary "
			       "file to keep the piped input: %s", strerror(errno));
	unlink(tmpl);
	if (copy_input(c->in, fd, dir, &total, err) < 0 ||
	    whole_records(c, total, err) < 0) {
		close(fd);
		return -1;
	}
	input_close(c->in);
	c->in = NULL;
	c->input_bytes = (int64_t)total;
	/* fd stays open for the process: /proc/self/fd/N reopens it on each
	 * pass */
	return reopen(c, fd, err);
}
