/*
 * calloc_shim.c - an LD_PRELOAD library for tests/test_faults.sh: calloc()
 * of more than GS_CALLOC_ABOVE bytes fails after the first GS_CALLOC_SKIP
 * such calls succeed, so a backend's accumulators can be made in part (a
 * thread's made, the next one's not), as when memory runs out midway.
 * Without GS_CALLOC_ABOVE it is calloc. glibc's own __libc_calloc does
 * the work: dlsym would call calloc before it had the real one.
 */
#include <errno.h>
#include <stdlib.h>

extern void *__libc_calloc(size_t n, size_t size);

void *calloc(size_t n, size_t size)
{
	static int seen;
	const char *above = getenv("GS_CALLOC_ABOVE");
	const char *skip = getenv("GS_CALLOC_SKIP");

	if (above && n * size > strtoull(above, NULL, 10) &&
	    ++seen > (skip ? atoi(skip) : 0)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}
