/*
 * readpath.cu - where a page-cached file's bytes can go how fast, on the
 * device machine (the reader, not the kernels, is the limit there).
 * Each way reads the whole FILE with T threads, wall time of that way alone:
 *
 *   small     pread into a private 4 MiB buffer per thread (what 16 dd's do)
 *   pinned    pread into a ring of pinned chunks (gpustat's reader today)
 *   pin+h2d   the same, each chunk copied to the GPU once it is full
 *   reg+h2d   mmap, cudaHostRegister each chunk of the mapping (read-only),
 *             copy it to the GPU from the page cache itself, unregister:
 *             no CPU copy at all
 *   mmap-sum  mmap, each thread sums its pieces as floats (the CPU reading
 *             the page cache in place, no copy)
 *
 *   nvcc -O2 -o build/readpath bench/readpath.cu
 *   build/readpath FILE [THREADS] [CHUNK_MIB]
 *
 * A probe for the next design, not a gpustat path: it prints GB/s per way.
 */
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <atomic>

using std::atomic_fetch_add;
using std::atomic_fetch_sub;
using std::atomic_int;
using std::atomic_load;
using std::atomic_size_t;
using std::atomic_store;

#define PIECE (2u << 20)
#define NSLOT 4

static int fd;
static size_t fsize, chunk;
static int nthreads;
static unsigned char *map;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void die(const char *what, cudaError_t e)
{
	fprintf(stderr, "readpath: %s: %s\n", what, cudaGetErrorString(e));
	exit(1);
}

/* ---- small: each thread its own 4 MiB buffer, one contiguous part ---- */
static void *small_worker(void *arg)
{
	long i = (long)arg;
	size_t part = (fsize + nthreads - 1) / nthreads;
	size_t lo = i * part, hi = lo + part < fsize ? lo + part : fsize;
	unsigned char *buf = (unsigned char *)malloc(4u << 20);

	for (size_t off = lo; off < hi;) {
		size_t n = hi - off < (4u << 20) ? hi - off : (4u << 20);
		ssize_t r = pread(fd, buf, n, off);

		if (r <= 0)
			break;
		off += r;
	}
	free(buf);
	return NULL;
}

/* ---- pinned (+h2d): chunks filled piece by piece by all threads ---- */
static unsigned char *slot[NSLOT];
static atomic_size_t next_piece;	/* pieces of the whole file */
static atomic_int left[NSLOT];		/* pieces still to read per slot */
static atomic_size_t slot_chunk[NSLOT];	/* which chunk a slot holds */
static atomic_int slot_free[NSLOT];	/* 1 when the consumer is done */

static void *pinned_worker(void *arg)
{
	(void)arg;
	size_t per = chunk / PIECE;

	for (;;) {
		size_t p = atomic_fetch_add(&next_piece, 1);
		size_t off = p * PIECE;

		if (off >= fsize)
			break;
		size_t c = p / per;
		int s = c % NSLOT;

		while (!atomic_load(&slot_free[s]) || atomic_load(&slot_chunk[s]) != c)
			sched_yield();	/* the consumer hands the slot over */
		size_t n = fsize - off < PIECE ? fsize - off : PIECE;
		size_t done = 0;

		while (done < n) {
			ssize_t r = pread(fd, slot[s] + (off - c * chunk) + done,
					  n - done, off + done);
			if (r <= 0)
				break;
			done += r;
		}
		atomic_fetch_sub(&left[s], 1);
	}
	return NULL;
}

static double run_pinned(bool h2d)
{
	size_t nchunks = (fsize + chunk - 1) / chunk, per = chunk / PIECE;
	cudaStream_t st[NSLOT];
	cudaEvent_t ev[NSLOT];
	void *dev = NULL;
	pthread_t th[64];

	if (h2d) {
		cudaError_t e = cudaMalloc(&dev, chunk * NSLOT);
		if (e)
			die("cudaMalloc", e);
		for (int s = 0; s < NSLOT; s++) {
			cudaStreamCreate(&st[s]);
			cudaEventCreate(&ev[s]);
		}
	}
	atomic_store(&next_piece, 0);
	for (int s = 0; s < NSLOT; s++) {
		size_t c = s;
		size_t pieces = c < nchunks ? (c == nchunks - 1 ?
			(fsize - c * chunk + PIECE - 1) / PIECE : per) : 0;
		atomic_store(&left[s], (int)pieces);
		atomic_store(&slot_chunk[s], c);
		atomic_store(&slot_free[s], 1);
	}
	double t0 = now();
	for (long i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, pinned_worker, (void *)i);
	/* the consumer: chunk c is done when its slot's pieces are read */
	for (size_t c = 0; c < nchunks; c++) {
		int s = c % NSLOT;

		while (atomic_load(&left[s]) > 0)
			sched_yield();
		if (h2d) {
			size_t n = fsize - c * chunk < chunk ? fsize - c * chunk : chunk;
			cudaMemcpyAsync((char *)dev + s * chunk, slot[s], n,
					cudaMemcpyHostToDevice, st[s]);
			cudaEventRecord(ev[s], st[s]);
		}
		/* hand the slot on to chunk c + NSLOT once its copy is done */
		size_t nc = c + NSLOT;
		if (nc < nchunks) {
			if (h2d)
				cudaEventSynchronize(ev[s]);
			size_t pieces = nc == nchunks - 1 ?
				(fsize - nc * chunk + PIECE - 1) / PIECE : per;
			atomic_store(&slot_free[s], 0);
			atomic_store(&left[s], (int)pieces);
			atomic_store(&slot_chunk[s], nc);
			atomic_store(&slot_free[s], 1);
		}
	}
	if (h2d)
		cudaDeviceSynchronize();
	double t = now() - t0;
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	if (h2d) {
		cudaFree(dev);
		for (int s = 0; s < NSLOT; s++) {
			cudaStreamDestroy(st[s]);
			cudaEventDestroy(ev[s]);
		}
	}
	return t;
}

/* ---- reg+h2d: register chunks of the mapping on T threads, copy ---- */
static atomic_size_t next_chunk;
static atomic_int reg_state[4096];	/* 0 none, 1 registered, 2 failed */
static cudaError_t reg_err;

static void *reg_worker(void *arg)
{
	(void)arg;
	size_t nchunks = (fsize + chunk - 1) / chunk;

	for (;;) {
		size_t c = atomic_fetch_add(&next_chunk, 1);

		if (c >= nchunks)
			break;
		size_t n = fsize - c * chunk < chunk ? fsize - c * chunk : chunk;
		cudaError_t e = cudaHostRegister(map + c * chunk, n,
						 cudaHostRegisterReadOnly);
		if (e) {
			reg_err = e;
			atomic_store(&reg_state[c], 2);
		} else {
			atomic_store(&reg_state[c], 1);
		}
	}
	return NULL;
}

static double run_reg(int nreg)
{
	size_t nchunks = (fsize + chunk - 1) / chunk;
	void *dev;
	cudaStream_t st;
	pthread_t th[64];
	cudaError_t e = cudaMalloc(&dev, chunk);

	if (e)
		die("cudaMalloc", e);
	if (nchunks > 4096)
		return -1;
	cudaStreamCreate(&st);
	atomic_store(&next_chunk, 0);
	for (size_t c = 0; c < nchunks; c++)
		atomic_store(&reg_state[c], 0);
	double t0 = now();
	for (long i = 0; i < nreg; i++)
		pthread_create(&th[i], NULL, reg_worker, (void *)i);
	for (size_t c = 0; c < nchunks; c++) {
		while (atomic_load(&reg_state[c]) == 0)
			sched_yield();
		if (atomic_load(&reg_state[c]) == 2) {
			for (int i = 0; i < nreg; i++)
				pthread_join(th[i], NULL);
			fprintf(stderr, "readpath: cudaHostRegister of a file mapping: %s\n",
				cudaGetErrorString(reg_err));
			return -1;
		}
		size_t n = fsize - c * chunk < chunk ? fsize - c * chunk : chunk;
		cudaMemcpyAsync(dev, map + c * chunk, n, cudaMemcpyHostToDevice, st);
	}
	cudaStreamSynchronize(st);
	double t_copy = now() - t0;
	for (int i = 0; i < nreg; i++)
		pthread_join(th[i], NULL);
	for (size_t c = 0; c < nchunks; c++)
		cudaHostUnregister(map + c * chunk);
	double t = now() - t0;
	printf("  (reg+h2d, %d registering threads: copies done at %.3f s, unregistered at %.3f s)\n",
	       nreg, t_copy, t);
	cudaFree(dev);
	cudaStreamDestroy(st);
	return t;
}

/* ---- mmap-sum: the CPU reads the mapping in place ---- */
static volatile double sums[64];	/* kept, so the sums are not optimized away */
static void *msum_worker(void *arg)
{
	long i = (long)arg;
	double s = 0;

	for (;;) {
		size_t p = atomic_fetch_add(&next_piece, 1);
		size_t off = p * PIECE;

		if (off >= fsize)
			break;
		size_t n = (fsize - off < PIECE ? fsize - off : PIECE) / 4;
		const float *f = (const float *)(map + off);
		float a = 0, b = 0, c = 0, d = 0;

		for (size_t k = 0; k + 4 <= n; k += 4) {
			a += f[k];
			b += f[k + 1];
			c += f[k + 2];
			d += f[k + 3];
		}
		s += (double)a + b + c + d;
	}
	sums[i] = s;
	return NULL;
}

static double run_msum(void)
{
	pthread_t th[64];

	atomic_store(&next_piece, 0);
	double t0 = now();
	for (long i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, msum_worker, (void *)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return now() - t0;
}

static double run_small(void)
{
	pthread_t th[64];
	double t0 = now();

	for (long i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, small_worker, (void *)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return now() - t0;
}

static void row(const char *name, double t)
{
	if (t < 0)
		printf("%-34s %8s\n", name, "failed");
	else
		printf("%-34s %8.3f %8.2f\n", name, t, fsize / t / 1e9);
}

int main(int argc, char **argv)
{
	struct stat sb;

	if (argc < 2) {
		fprintf(stderr, "usage: readpath FILE [THREADS] [CHUNK_MIB]\n");
		return 2;
	}
	nthreads = argc > 2 ? atoi(argv[2]) : 16;
	chunk = (size_t)(argc > 3 ? atoi(argv[3]) : 64) << 20;
	if (nthreads < 1 || nthreads > 64 || chunk % PIECE)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &sb) < 0)
		return perror(argv[1]), 1;
	fsize = sb.st_size;
	map = (unsigned char *)mmap(NULL, fsize, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return perror("mmap"), 1;

	double t0 = now();
	cudaError_t e = cudaFree(0);
	if (e)
		die("context", e);
	printf("context start %.3f s\n", now() - t0);
	t0 = now();
	for (int s = 0; s < NSLOT; s++)
		if ((e = cudaHostAlloc((void **)&slot[s], chunk, cudaHostAllocDefault)))
			die("cudaHostAlloc", e);
	printf("pinning %d x %zu MiB: %.3f s\n", NSLOT, chunk >> 20, now() - t0);
	printf("%-34s %8s %8s   (%zu bytes, %d threads, %zu MiB chunks)\n",
	       "way", "s", "GB/s", fsize, nthreads, chunk >> 20);
	for (int rep = 0; rep < 2; rep++) {
		row("small (pread, 4 MiB buffers)", run_small());
		row("pinned (pread into pinned)", run_pinned(false));
		row("pin+h2d", run_pinned(true));
		row("reg+h2d (1 registering thread)", run_reg(1));
		row("reg+h2d (4 registering threads)", run_reg(4));
		row("mmap-sum (float sums in place)", run_msum());
	}
	return 0;
}
