/*
 * oom_shim.c - an LD_PRELOAD library for tests/test_output.sh: realloc()
 * fails for any size above GS_OOM_ABOVE bytes (default 1 MiB), so the
 * output buffer of a large text result cannot grow, as when memory runs
 * out. malloc and calloc are left alone: the run itself still works.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

void *realloc(void *p, size_t n)
{
	static void *(*real)(void *, size_t);
	const char *s = getenv("GS_OOM_ABOVE");
	size_t limit = s ? strtoull(s, NULL, 10) : (size_t)1 << 20;

	if (n > limit) {
		errno = ENOMEM;
		return NULL;
	}
	if (!real)
		real = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	return real(p, n);
}
