/*
 * tsan_threads.c - state that several threads share, built with
 * ThreadSanitizer by tests/test_tsan.sh (a race it finds ends the run
 * with its report):
 *   cpu_avx2 (src/cpu/cpu_avx2.c), asked by 8 threads at once, as the
 *            workers ask it at their first chunk;
 *   gzcrc    (src/input/gzcrc.c), pieces of a buffer lent one after
 *            another, more than its ring holds, the buffer written again
 *            after each wait, as gzsrc.c lends the caller's chunks; the
 *            CRC32 must be the one computed in place, bit for bit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acc.h"
#include "gzcrc.h"
#include "gzinflate.h"
#include "unit.h"

static void *ask(void *arg)
{
	*(bool *)arg = cpu_avx2();
	return NULL;
}

static void avx2_at_once(void)
{
	pthread_t t[8];
	bool got[8];
	int n = 0;

	for (int i = 0; i < 8; i++)
		n += pthread_create(&t[i], NULL, ask, &got[i]) == 0;
	CHECK(n == 8);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int i = 1; i < n; i++)
		CHECK(got[i] == got[0] && got[i] == cpu_avx2());
}

static void crc_lent(void)
{
	enum { N = 1 << 20, ROUNDS = 5 };
	unsigned char *buf = malloc(N);
	struct gzcrc *c = gzcrc_new();
	uint32_t want = 0, got = 0;

	CHECK(c != NULL);
	for (int r = 0; c && r < ROUNDS; r++) {
		size_t at = 0, k = 1;

		for (size_t i = 0; i < N; i++)
			buf[i] = (unsigned char)(i * 7 + (size_t)r * 131 + (i >> 9));
		want = gzinflate_crc32(want, buf, N);
		while (at < N) {	/* 1, 2, 3, ... bytes: over 1400 pieces */
			k = k < N - at ? k : N - at;
			gzcrc_add(c, buf + at, k);
			at += k++;
		}
		got = gzcrc_wait(c, got);
		CHECKF(got == want, "round %d: %08x, wanted %08x", r, got, want);
	}
	gzcrc_free(c);
	free(buf);
}

int main(void)
{
	avx2_at_once();
	crc_lent();
	UNIT_END();
}
