/*
 * unit_pagein.c - memory paged in ahead of its use (pagein.h): areas of
 * the size asked for, rounded up to pages, zeroed and writable, each
 * given once to a request no larger; a request larger than every area, or
 * past the last, gets none; pagein_has knows only the areas given out, and
 * after pagein_give neither that area nor a second pagein_start's.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "pagein.h"

static bool zeroed(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 512)
		if (p[i])
			return false;
	return p[n - 1] == 0;
}

int main(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), want = 3 * page + 5, size = 0;
	void *got[4];
	int local;

	CHECK(pagein_take(1, &size) == NULL);	/* none started */
	pagein_start(want, 3);
	pagein_start(64 * page, 4);		/* once a process */
	CHECK(pagein_take(want + 4 * page, &size) == NULL);
	for (int i = 0; i < 3; i++) {
		size = 0;
		got[i] = pagein_take(i ? want - 100 : want, &size);
		CHECK(got[i] != NULL);
		if (!got[i])
			continue;
		CHECK(size == 4 * page);
		CHECK((uintptr_t)got[i] % page == 0);
		CHECK(zeroed(got[i], size));
		CHECK(pagein_has(got[i]));
		memset(got[i], 0x5a, size);
		for (int j = 0; j < i; j++)
			CHECK(got[i] != got[j]);
	}
	got[3] = pagein_take(1, &size);
	CHECK(got[3] == NULL);
	CHECK(!pagein_has(&local));
	CHECK(!pagein_has(NULL));
	pagein_give(&local);			/* not an area: nothing */
	pagein_give(got[1]);
	CHECK(!pagein_has(got[1]));
	CHECK(pagein_has(got[0]) && pagein_has(got[2]));
	CHECK(((unsigned char *)got[2])[size - 1] == 0x5a);
	pagein_give(got[0]);
	pagein_give(got[2]);
	CHECK(!pagein_has(got[0]) && !pagein_has(got[2]));
	CHECK(pagein_take(1, &size) == NULL);	/* every area given out */
	UNIT_END();
}
