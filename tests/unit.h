/*
 * unit.h - the smallest test harness: CHECK() counts, prints failures with
 * file:line, and UNIT_END() prints "unit: P passed, F failed" for
 * tests/run.sh to add up. Exit status is 1 when anything failed.
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>

static int unit_passed, unit_failed;

#define CHECK(cond) do {                                                  \
	if (cond) {                                                       \
		unit_passed++;                                            \
	} else {                                                          \
		unit_failed++;                                            \
		printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);    \
	}                                                                 \
} while (0)

/* CHECK with a printf-style explanation on failure. */
#define CHECKF(cond, ...) do {                                            \
	if (cond) {                                                       \
		unit_passed++;                                            \
	} else {                                                          \
		unit_failed++;                                            \
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);    \
		printf(__VA_ARGS__);                                      \
		printf("\n");                                             \
	}                                                                 \
} while (0)

#define UNIT_END() do {                                                   \
	printf("unit: %d passed, %d failed\n", unit_passed, unit_failed); \
	return unit_failed ? 1 : 0;                                       \
} while (0)

#endif
