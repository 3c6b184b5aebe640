/*
 * tsan_threads.c - state that several threads share, built with
 * ThreadSanitizer by tests/test_tsan.sh (a race it finds ends the run
 * with its report):
 *   cpu_avx2 (src/cpu/cpu_avx2.c), asked by 8 threads at once, as the
 *            workers ask it at their first chunk;
 *   gzcrc    (src/input/gzcrc.c), pieces of a buffer lent one after
 *            another, more than its ring holds, the buffer written again
 *            after each wait, as gzsrc.c lends the caller's chunks; the
 *            CRC32 must be the one computed in place, bit for bit;
 *   textkeys (src/input/textkeys.c), 8 threads interning 150,000 keys
 *            at once, as --by's parse threads do: lookups without the
 *            lock while others add keys and grow the table; every key
 *            one id, each id its key.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acc.h"
#include "gzcrc.h"
#include "gzinflate.h"
#include "textkeys.h"
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

enum { TK_KEYS = 150000, TK_ROUNDS = 200000 };

struct tk_arg {
	struct textkeys *k;
	long seed;
	int64_t *id;		/* [TK_KEYS]: the id each key got, or -1 */
	long bad;
};

static void *tk_work(void *arg)
{
	struct tk_arg *a = arg;
	char b[32];

	for (long i = 0; i < TK_ROUNDS; i++) {
		long x = (i * 7919 + a->seed * 104729) % TK_KEYS;
		int n = snprintf(b, sizeof(b), "key%ld", x);
		int64_t id = textkeys_intern(a->k, b, (size_t)n);

		if (id < 0 || (a->id[x] >= 0 && a->id[x] != id))
			a->bad++;
		a->id[x] = id;
	}
	return NULL;
}

static void textkeys_at_once(void)
{
	struct textkeys *k = textkeys_new();
	struct tk_arg a[8];
	pthread_t t[8];
	bool made[8] = { false };
	int n = 0;

	CHECK(k != NULL);
	if (!k)
		return;
	for (int i = 0; i < 8; i++) {
		a[i] = (struct tk_arg){ .k = k, .seed = i,
					.id = malloc(TK_KEYS * sizeof(int64_t)) };
		for (long x = 0; a[i].id && x < TK_KEYS; x++)
			a[i].id[x] = -1;
		made[i] = a[i].id &&
			  pthread_create(&t[i], NULL, tk_work, &a[i]) == 0;
		n += made[i];
	}
	CHECK(n == 8);
	for (int i = 0; i < 8; i++)
		if (made[i])
			pthread_join(t[i], NULL);
	CHECK(textkeys_count(k) == TK_KEYS);
	for (int i = 0; n == 8 && i < n; i++) {	/* the threads agree on each id */
		CHECKF(a[i].bad == 0, "thread %d: %ld ids changed", i, a[i].bad);
		for (long x = 0; x < TK_KEYS; x++)
			if (a[i].id[x] >= 0 && a[i].id[x] != a[0].id[x]) {
				CHECKF(0, "key%ld: ids %lld and %lld", x,
				       (long long)a[i].id[x],
				       (long long)a[0].id[x]);
				break;
			}
	}
	for (uint64_t i = 0; i < textkeys_count(k); i++) {
		size_t m;
		const char *s = textkeys_str(k, i, &m);

		if (textkeys_intern(k, s, m) != (int64_t)i) {
			CHECKF(0, "id %llu: its key has another id",
			       (unsigned long long)i);
			break;
		}
	}
	for (int i = 0; i < 8; i++)
		free(a[i].id);
	textkeys_free(k);
}

int main(void)
{
	avx2_at_once();
	crc_lent();
	textkeys_at_once();
	UNIT_END();
}
