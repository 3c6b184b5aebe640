/*
 * maplock.c - how long an mmap waits while other threads populate fresh
 * buffers with MADV_POPULATE_WRITE (as zpipe's workers do before decoding
 * a frame), populated in one call or in pieces. The call holds the
 * process's mapping lock for reading while it clears the pages; mmap and
 * munmap need it for writing. bench/RESULTS.md says what it found.
 *
 *   cc -O2 -pthread bench/maplock.c -o build/maplock
 *   build/maplock PIECE_MIB THREADS     (buffers of 256 MiB)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define LEN ((size_t)256 << 20)

static size_t piece;
static volatile int stop;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void *populater(void *v)
{
	(void)v;
	while (!stop) {
		char *b = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (b == MAP_FAILED)
			return NULL;
		madvise(b, LEN, MADV_HUGEPAGE);
		for (size_t a = 0; a < LEN; a += piece)
			madvise(b + a, piece, MADV_POPULATE_WRITE);
		munmap(b, LEN);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	double worst = 0, total = 0, end;
	int n, k = 0;

	if (argc != 3 || (piece = strtoul(argv[1], NULL, 10) << 20) == 0 ||
	    (n = atoi(argv[2])) < 1 || n > 64) {
		fprintf(stderr, "usage: maplock PIECE_MIB THREADS\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, populater, NULL);
	usleep(100000);
	for (end = now() + 2; now() < end; k++) {
		double a = now(), d;
		void *m = mmap(NULL, 1 << 20, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		d = now() - a;
		munmap(m, 1 << 20);
		worst = d > worst ? d : worst;
		total += d;
		usleep(1000);
	}
	stop = 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("populated %s MiB at a time on %d threads: an mmap waited "
	       "%.3f ms on average, %.2f at most (%d mmaps)\n", argv[1], n,
	       total / k * 1e3, worst * 1e3, k);
	return 0;
}
