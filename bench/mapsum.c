/*
 * mapsum.c - how fast T threads can read a page-cached file in place, by
 * the way its chunks reach them. Each thread sums its slice of every chunk
 * as floats (a loop far faster than any exact kernel), so the figure is
 * what the mapping costs, not the arithmetic:
 *
 *   chunk     each chunk mapped (MAP_PRIVATE, writable, as gpustat's views
 *             are), the threads fault its pages in, unmapped after
 *   shared    the same with MAP_SHARED, read-only
 *   populate  "shared" mapped with MAP_POPULATE by the one mapping thread
 *             (a writable private mapping populates by copying: 2 GB/s)
 *   madvise   the same, each thread MADV_POPULATE_READ on its slice first
 *   keep      chunks mapped as in "chunk" but unmapped only at the end
 *   whole     the whole file mapped once (faulted in on the first round)
 *   pread     each thread preads its slice into its own 2 MiB buffer
 *             (MAPSUM_BUF_KIB=N: N KiB; 256 stays in L2, as dd's copies
 *             do not quite)
 *   split     as "chunk", every other slice given MADV_RANDOM so that each
 *             thread faults in a mapping (VMA) of its own
 *   own       each thread maps its slice itself (read-only), unmaps it
 *
 *   cc -O2 -pthread bench/mapsum.c -o build/mapsum
 *   build/mapsum FILE [THREADS] [CHUNK_MIB]
 *
 * A probe for gpustat's CPU path, not a gpustat path: bench/RESULTS.md
 * says what it found.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
static size_t BUF = 2u << 20;	/* pread's buffer: MAPSUM_BUF_KIB */

enum mode { CHUNK, SHARED, POPULATE, MADVISE, KEEP, WHOLE, PREAD, SPLIT, OWN,
	    NMODES };
static const char *names[NMODES] = { "chunk", "shared", "populate",
				     "madvise", "keep", "whole", "pread",
				     "split", "own" };

static int fd, nthreads;
static size_t fsize, chunk;
static enum mode mode;
static const unsigned char *cur;	/* the chunk's bytes (mapped modes) */
static size_t cur_off, cur_len;
static unsigned char *whole;
static pthread_barrier_t bar;
static atomic_int done;
static volatile float sink[64];

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static float sum(const float *v, size_t n)
{
	float a[16] = { 0 };

	for (size_t i = 0; i + 16 <= n; i += 16)
		for (int j = 0; j < 16; j++)
			a[j] += v[i + j];
	for (int j = 1; j < 16; j++)
		a[0] += a[j];
	return a[0];
}

static void *worker(void *arg)
{
	long t = (long)arg;
	unsigned char *buf = malloc(BUF);
	float s = 0;

	for (;;) {
		pthread_barrier_wait(&bar);	/* a chunk is ready */
		if (atomic_load(&done))
			break;
		size_t lo = cur_len * (size_t)t / (size_t)nthreads;
		size_t hi = cur_len * (size_t)(t + 1) / (size_t)nthreads;

		lo &= ~(size_t)63;
		hi = t == nthreads - 1 ? cur_len : hi & ~(size_t)63;
		if (mode == OWN) {
			size_t a = (cur_off + lo) & ~(size_t)4095;
			size_t len = cur_off + hi - a;
			unsigned char *m = mmap(NULL, len, PROT_READ, MAP_SHARED,
						fd, (off_t)a);

			if (m == MAP_FAILED)
				abort();
			s += sum((const float *)(m + (cur_off + lo - a)),
				 (hi - lo) / 4);
			munmap(m, len);
		} else if (mode == PREAD) {
			for (size_t at = lo; at < hi; at += BUF) {
				size_t n = hi - at < BUF ? hi - at : BUF;

				if (pread(fd, buf, n, (off_t)(cur_off + at)) !=
				    (ssize_t)n)
					abort();
				s += sum((const float *)buf, n / 4);
			}
		} else {
			if (mode == MADVISE) {
				uintptr_t a = (uintptr_t)(cur + lo) & ~(uintptr_t)4095;

				(void)madvise((void *)a, (uintptr_t)(cur + hi) - a,
					      MADV_POPULATE_READ);
			}
			s += sum((const float *)(cur + lo), (hi - lo) / 4);
		}
		pthread_barrier_wait(&bar);	/* the chunk is done */
	}
	sink[t] = s;
	free(buf);
	return NULL;
}

static double run(void)
{
	void **maps = calloc(fsize / chunk + 2, sizeof *maps);
	size_t nmaps = 0;
	double t0 = now();

	for (size_t off = 0; off < fsize; off += chunk) {
		size_t n = fsize - off < chunk ? fsize - off : chunk;
		void *m = NULL;

		cur_off = off;
		cur_len = n;
		switch (mode) {
		case CHUNK:
		case MADVISE:
		case KEEP:
			m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE,
				 fd, (off_t)off);
			break;
		case SPLIT:
			m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE,
				 fd, (off_t)off);
			for (int t = 1; m != MAP_FAILED && t < nthreads; t += 2) {
				size_t a = (n * (size_t)t / (size_t)nthreads) & ~(size_t)4095;
				size_t b = (n * (size_t)(t + 1) / (size_t)nthreads) & ~(size_t)4095;

				(void)madvise((unsigned char *)m + a, b - a, MADV_RANDOM);
			}
			break;
		case SHARED:
			m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, (off_t)off);
			break;
		case POPULATE:
			m = mmap(NULL, n, PROT_READ, MAP_SHARED | MAP_POPULATE,
				 fd, (off_t)off);
			break;
		default:
			break;
		}
		if (m == MAP_FAILED)
			abort();
		cur = mode == WHOLE ? whole + off : m;
		pthread_barrier_wait(&bar);
		pthread_barrier_wait(&bar);
		if (m && mode == KEEP)
			maps[nmaps++] = m;
		else if (m)
			munmap(m, n);
	}
	for (size_t i = 0; i < nmaps; i++)
		munmap(maps[i], chunk);
	free(maps);
	return now() - t0;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	struct stat st;

	if (argc < 2)
		return fprintf(stderr, "usage: mapsum FILE [THREADS] [CHUNK_MIB]\n"), 2;
	if (getenv("MAPSUM_BUF_KIB"))
		BUF = (size_t)atoi(getenv("MAPSUM_BUF_KIB")) << 10;
	nthreads = argc > 2 ? atoi(argv[2]) : 16;
	chunk = (size_t)(argc > 3 ? atoi(argv[3]) : 64) << 20;
	if (nthreads < 1 || nthreads > 64 || (fd = open(argv[1], O_RDONLY)) < 0 ||
	    fstat(fd, &st) < 0)
		return perror(argv[1]), 1;
	fsize = (size_t)st.st_size & ~(size_t)4095;
	whole = mmap(NULL, fsize, PROT_READ, MAP_SHARED, fd, 0);
	if (whole == MAP_FAILED)
		return perror("mmap"), 1;
	pthread_barrier_init(&bar, NULL, (unsigned)nthreads + 1);
	for (long t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	printf("%d threads, %zu MiB chunks, %.2f GB\n", nthreads, chunk >> 20,
	       fsize / 1e9);
	for (int round = 0; round < 2; round++)
		for (mode = 0; mode < NMODES; mode++) {
			double s = run();

			printf("round %d  %-9s %7.3f s %7.1f GB/s\n", round,
			       names[mode], s, fsize / s / 1e9);
			fflush(stdout);
		}
	atomic_store(&done, 1);
	pthread_barrier_wait(&bar);
	for (int t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	return 0;
}
