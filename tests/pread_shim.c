/*
 * pread_shim.c - an LD_PRELOAD library for tests/test_group_spill.sh:
 * the GS_PREAD_FAIL_AT-th call of pread (counting from 1) fails with EIO,
 * as a spilled table's read back from a failing disk, and every other
 * call reads. GS_PREAD_COUNT set: each call prints its number on
 * stderr (gpustat ends with _exit: no destructor would run), so a test
 * can aim at the last reads (the rows').
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

static unsigned long calls;

static ssize_t shim(int fd, void *buf, size_t n, off_t off, const char *sym)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	const char *s = getenv("GS_PREAD_FAIL_AT");

	if (s && strtoul(s, NULL, 10) == ++calls) {
		errno = EIO;
		return -1;
	}
	if (!s)
		calls++;
	if (getenv("GS_PREAD_COUNT"))
		fprintf(stderr, "pread_shim: %lu\n", calls);
	if (!real)
		real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT,
								       sym);
	return real(fd, buf, n, off);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return shim(fd, buf, n, off, "pread");
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	return shim(fd, buf, n, off, "pread64");
}
