/* nvcomp_probe.cu - nvCOMP's batched zstd decoder measured on its own, from
 * a page-cached .zst file to checked output in device memory (issue 29,
 * item 2: does a GPU zstd decoder pay, and is it safe on bad input).
 *
 *   nvcomp_probe [-b FRAMES] [-r READERS] [--backend default|cuda|hw] FILE
 *       the whole report: each stage on its own (CUDA events), the stages
 *       pipelined on two streams, the file streamed from disk, and every
 *       frame checked against libzstd's decode
 *   nvcomp_probe --e2e [-b FRAMES] [-r READERS] FILE
 *       only the streamed decode, for a wall time with process and GPU start
 *   nvcomp_probe --list FILE          the frames, as the host walk sees them
 *   nvcomp_probe --fuzz [-t SECONDS] FILE
 *       corrupt copies of one frame through nvCOMP (nvcomp_fuzz.h)
 *
 * Frames are listed on the host from their headers (zwalk.h): pzstd's
 * frames have no content size, so each output buffer is sized by its
 * blocks' bound (exact for libzstd's full blocks). A batch of FRAMES frames
 * (default 128: 1 GiB of output in pzstd's 8 MiB frames) is one H2D copy per
 * frame into aligned slots, nvCOMP's size query, its decode, then XXH64 of
 * each output on the GPU (one warp a frame) against the frame's content
 * checksum: nvCOMP's C API does not check it (--fuzz shows it), and its
 * decoder's behaviour on corrupt input is undefined, so a frame is trusted
 * only when its checksum matches. Exit 0, or 1 when a frame failed a check.
 */
#include <cuda_runtime.h>
#include <zstd.h>
#include "nvcomp_lib.h"
#include "zwalk.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <algorithm>
#include <thread>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
	fprintf(stderr, "nvcomp_probe: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
		cudaGetErrorString(e_)); exit(3); } } while (0)
#define NV(call) do { nvcompStatus_t s_ = (call); if (s_ != nvcompSuccess) { \
	fprintf(stderr, "nvcomp_probe: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
		nv->status_string(s_)); exit(4); } } while (0)

static const struct gs_nvcomp *nv;
static nvcompBatchedZstdDecompressOpts_t opts = nvcompBatchedZstdDecompressDefaultOpts;
static size_t align_in = 256, align_out = 256;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static size_t up(size_t x, size_t a) { return (x + a - 1) / a * a; }
static double gbs(double bytes, double s) { return s > 0 ? bytes / s / 1e9 : 0; }

/* ---- XXH64 on the GPU: one warp a frame ----
 * XXH64's four accumulators each take every fourth 8-byte word in order, so
 * four lanes carry them while the whole warp loads the next 1 KiB (32
 * stripes of 32 bytes) into registers; the tail and the merge are lane 0's.
 * Seed 0; zstd's content checksum is the low 32 bits. */
#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

__host__ __device__ __forceinline__ uint64_t rotl64(uint64_t x, int r) { return x << r | x >> (64 - r); }
__host__ __device__ __forceinline__ uint64_t xround(uint64_t acc, uint64_t in)
{
	return rotl64(acc + in * P2, 31) * P1;
}
__host__ __device__ __forceinline__ uint64_t xmerge(uint64_t h, uint64_t v)
{
	return (h ^ xround(0, v)) * P1 + P4;
}

/* xxh64_tail: XXH64 from the merged accumulators h (P5 when len < 32) on:
 * the length, the last len % 32 bytes at r, the avalanche. */
__host__ __device__ __forceinline__ uint64_t xxh64_tail(uint64_t h, size_t len, const uint8_t *r)
{
	size_t rem = len & 31;
	h += len;
	for (; rem >= 8; r += 8, rem -= 8) {
		uint64_t k;
		memcpy(&k, r, 8);
		h = rotl64(h ^ xround(0, k), 27) * P1 + P4;
	}
	if (rem >= 4) {
		uint32_t k;
		memcpy(&k, r, 4);
		h = rotl64(h ^ (uint64_t)k * P1, 23) * P2 + P3;
		r += 4;
		rem -= 4;
	}
	for (; rem; rem--)
		h = rotl64(h ^ *r++ * P5, 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ h >> 32;
}

/* xxh64_host: the reference, one stripe after another. */
static uint64_t xxh64_host(const uint8_t *p, size_t len)
{
	uint64_t v[4] = { P1 + P2, P2, 0, 0 - P1 }, h = P5;
	size_t ns = len / 32;
	for (size_t s = 0; s < ns; s++)
		for (int k = 0; k < 4; k++) {
			uint64_t w;
			memcpy(&w, p + 32 * s + 8 * k, 8);
			v[k] = xround(v[k], w);
		}
	if (len >= 32) {
		h = rotl64(v[0], 1) + rotl64(v[1], 7) + rotl64(v[2], 12) + rotl64(v[3], 18);
		for (int k = 0; k < 4; k++)
			h = xmerge(h, v[k]);
	}
	return xxh64_tail(h, len, p + ns * 32);
}

__global__ void __launch_bounds__(32) xxh64_frames(void *const *ptrs, const size_t *lens,
						    const size_t *caps, uint64_t *out, int n)
{
	__shared__ uint64_t tile[128];
	int lane = threadIdx.x, f = blockIdx.x;
	if (f >= n)
		return;
	const uint8_t *p = (const uint8_t *)ptrs[f];
	size_t len = lens[f] < caps[f] ? lens[f] : caps[f];	/* a failed frame's length is not to be trusted */
	size_t ns = len / 32;
	const ulonglong2 *q = (const ulonglong2 *)p;
	uint64_t v = lane == 0 ? P1 + P2 : lane == 1 ? P2 : lane == 2 ? 0 : 0 - P1;
	ulonglong2 a = make_ulonglong2(0, 0), b = a;

	if ((size_t)lane < ns) {
		a = q[2 * lane];
		b = q[2 * lane + 1];
	}
	for (size_t t = 0; t < ns; t += 32) {
		tile[lane * 4] = a.x;
		tile[lane * 4 + 1] = a.y;
		tile[lane * 4 + 2] = b.x;
		tile[lane * 4 + 3] = b.y;
		__syncwarp();
		size_t nx = t + 32 + lane;
		if (nx < ns) {
			a = q[2 * nx];
			b = q[2 * nx + 1];
		}
		int m = ns - t < 32 ? (int)(ns - t) : 32;
		if (lane < 4)
			for (int i = 0; i < m; i++)
				v = xround(v, tile[i * 4 + lane]);
		__syncwarp();
	}
	uint64_t v1 = __shfl_sync(~0u, v, 0), v2 = __shfl_sync(~0u, v, 1);
	uint64_t v3 = __shfl_sync(~0u, v, 2), v4 = __shfl_sync(~0u, v, 3);
	if (lane)
		return;
	uint64_t h = P5;
	if (len >= 32) {
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		h = xmerge(xmerge(xmerge(xmerge(h, v1), v2), v3), v4);
	}
	out[f] = xxh64_tail(h, len, p + ns * 32);
}

/* xxh64_selftest: the kernel against xxh64_host on random bytes of
 * lengths around every edge of its tiles and tails; the lengths that
 * differ. */
static int xxh64_selftest(void)
{
	static const size_t lens[] = { 0, 1, 3, 4, 7, 8, 12, 31, 32, 33, 63, 64, 100,
				       1023, 1024, 1025, 1056, 32768 + 17, 1 << 20, (1 << 20) + 29 };
	const int n = sizeof(lens) / sizeof(lens[0]);
	size_t tot = 0;
	for (int i = 0; i < n; i++)
		tot += up(lens[i] + 1, 256);
	std::vector<uint8_t> h(tot);
	uint64_t s = 1;
	for (auto &b : h)
		b = (s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56;
	uint8_t *d;
	void **dp;
	size_t *dl;
	uint64_t *dh, got[n];
	void *ptrs[n];
	size_t ls[n];
	CK(cudaMalloc(&d, tot));
	CK(cudaMalloc(&dp, n * sizeof(void *)));
	CK(cudaMalloc(&dl, n * sizeof(size_t)));
	CK(cudaMalloc(&dh, n * sizeof(uint64_t)));
	CK(cudaMemcpy(d, h.data(), tot, cudaMemcpyHostToDevice));
	for (int i = 0, o = 0; i < n; o += up(lens[i] + 1, 256), i++) {
		ptrs[i] = d + o;
		ls[i] = lens[i];
	}
	CK(cudaMemcpy(dp, ptrs, sizeof(ptrs), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dl, ls, sizeof(ls), cudaMemcpyHostToDevice));
	xxh64_frames<<<n, 32>>>(dp, dl, dl, dh, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, dh, sizeof(got), cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int i = 0, o = 0; i < n; o += up(lens[i] + 1, 256), i++)
		bad += got[i] != xxh64_host(h.data() + o, lens[i]);
	cudaFree(d);
	cudaFree(dp);
	cudaFree(dl);
	cudaFree(dh);
	return bad;
}

/* ---- batches and the two slots that run them ---- */
struct batch {
	long first, n;		/* frames [first, first + n) */
	uint64_t lo, hi;	/* their bytes in the file */
	size_t in_bytes, out_bytes;	/* in the device slots, aligned */
};

enum { EV_START, EV_H2D, EV_SIZE, EV_DEC, EV_HASH, EV_END, NEV };

/* One stream's buffers: device input and output, nvCOMP's temp, and the
 * per-frame arrays (in, then out, in one block each way). */
struct slot {
	cudaStream_t s;
	uint8_t *d_in, *d_out;
	void *d_temp;
	size_t temp;
	void **d_args, **h_args;	/* in ptrs, in bytes, out ptrs, out caps */
	void *d_res, *h_res;		/* actual sizes, queried sizes, statuses, hashes */
	cudaEvent_t ev[NEV];
	uint8_t *stage;			/* pinned: the batch's file bytes (streaming) */
	long busy;			/* the batch in flight, -1: none */
};

static struct zw_frame *fr;
static long nfr;
static std::vector<batch> batches;
static long B = 128;

static void plan(void)
{
	for (long i = 0; i < nfr; i += B) {
		batch b = { i, std::min(B, nfr - i), fr[i].off, 0, 0, 0 };
		for (long j = i; j < i + b.n; j++) {
			b.in_bytes += up(fr[j].csize, align_in);
			b.out_bytes += up(fr[j].bound, align_out);
		}
		b.hi = fr[i + b.n - 1].off + fr[i + b.n - 1].csize;
		batches.push_back(b);
	}
}

#define ARGS(sl, k) ((sl).h_args + (k) * B)
#define RES_ACTUAL(sl) ((size_t *)(sl).h_res)
#define RES_QUERY(sl) ((size_t *)(sl).h_res + B)
#define RES_STATUS(sl) ((nvcompStatus_t *)((size_t *)(sl).h_res + 2 * B))
#define RES_HASH(sl) ((uint64_t *)((size_t *)(sl).h_res + 3 * B))
#define RES_BYTES ((size_t)B * 4 * sizeof(size_t))	/* actual, query, status (in 8), hash */

static void slot_init(slot &sl, bool stage)
{
	size_t in = 0, out = 0, span = 0, maxb = 0, tot = 0;
	for (auto &b : batches) {
		in = std::max(in, b.in_bytes);
		out = std::max(out, b.out_bytes);
		span = std::max(span, (size_t)(b.hi - b.lo));
		tot = std::max(tot, b.out_bytes);
		for (long j = b.first; j < b.first + b.n; j++)
			maxb = std::max(maxb, (size_t)fr[j].bound);
	}
	CK(cudaStreamCreateWithFlags(&sl.s, cudaStreamNonBlocking));
	CK(cudaMalloc(&sl.d_in, in));
	CK(cudaMalloc(&sl.d_out, out));
	NV(nv->zstd_temp_size(B, maxb, opts, &sl.temp, tot, sl.s));
	CK(cudaMalloc(&sl.d_temp, sl.temp ? sl.temp : 1));
	CK(cudaMalloc(&sl.d_args, 4 * B * sizeof(void *)));
	CK(cudaMallocHost(&sl.h_args, 4 * B * sizeof(void *)));
	CK(cudaMalloc(&sl.d_res, RES_BYTES));
	CK(cudaMallocHost(&sl.h_res, RES_BYTES));
	for (auto &e : sl.ev)
		CK(cudaEventCreate(&e));
	sl.stage = NULL;
	if (stage)
		CK(cudaMallocHost(&sl.stage, span));
	sl.busy = -1;
}

static void slot_free(slot &sl)
{
	cudaFree(sl.d_in);
	cudaFree(sl.d_out);
	cudaFree(sl.d_temp);
	cudaFree(sl.d_args);
	cudaFree(sl.d_res);
	cudaFreeHost(sl.h_args);
	cudaFreeHost(sl.h_res);
	if (sl.stage)
		cudaFreeHost(sl.stage);
	for (auto &e : sl.ev)
		cudaEventDestroy(e);
	cudaStreamDestroy(sl.s);
}

/* enqueue: batch bi on slot sl, its file bytes at src (src[0] is file byte
 * base): copies, size query, decode, checksums, results back. */
static void enqueue(slot &sl, long bi, const uint8_t *src, uint64_t base)
{
	const batch &b = batches[bi];
	size_t io = 0, oo = 0;
	void **dargs = sl.d_args;

	for (long j = 0; j < b.n; j++) {
		const zw_frame &f = fr[b.first + j];
		ARGS(sl, 0)[j] = sl.d_in + io;
		((size_t *)ARGS(sl, 1))[j] = f.csize;
		ARGS(sl, 2)[j] = sl.d_out + oo;
		((size_t *)ARGS(sl, 3))[j] = f.bound;
		io += up(f.csize, align_in);
		oo += up(f.bound, align_out);
	}
	CK(cudaEventRecord(sl.ev[EV_START], sl.s));
	for (int k = 0; k < 4; k++)
		CK(cudaMemcpyAsync(dargs + k * B, ARGS(sl, k), b.n * sizeof(void *),
				   cudaMemcpyHostToDevice, sl.s));
	for (long j = 0; j < b.n; j++) {
		const zw_frame &f = fr[b.first + j];
		CK(cudaMemcpyAsync(ARGS(sl, 0)[j], src + (f.off - base), f.csize,
				   cudaMemcpyHostToDevice, sl.s));
	}
	CK(cudaEventRecord(sl.ev[EV_H2D], sl.s));
	size_t *d_actual = (size_t *)sl.d_res, *d_query = d_actual + B;
	nvcompStatus_t *d_status = (nvcompStatus_t *)(d_actual + 2 * B);
	uint64_t *d_hash = (uint64_t *)(d_actual + 3 * B);
	NV(nv->zstd_sizes(dargs, (size_t *)(dargs + B), d_query, b.n, sl.s));
	CK(cudaEventRecord(sl.ev[EV_SIZE], sl.s));
	NV(nv->zstd_decompress(dargs, (size_t *)(dargs + B), (size_t *)(dargs + 3 * B),
			       d_actual, b.n, sl.d_temp, sl.temp, dargs + 2 * B, opts,
			       d_status, sl.s));
	CK(cudaEventRecord(sl.ev[EV_DEC], sl.s));
	xxh64_frames<<<b.n, 32, 0, sl.s>>>(dargs + 2 * B, d_actual, (size_t *)(dargs + 3 * B),
					   d_hash, b.n);
	CK(cudaGetLastError());
	CK(cudaEventRecord(sl.ev[EV_HASH], sl.s));
	CK(cudaMemcpyAsync(sl.h_res, sl.d_res, RES_BYTES, cudaMemcpyDeviceToHost, sl.s));
	CK(cudaEventRecord(sl.ev[EV_END], sl.s));
	sl.busy = bi;
}

struct tally {
	long frames, bad_status, bad_size, bad_query, bad_sum, no_sum;
	double out;
	double ms[NEV];		/* per stage, summed over batches */
};

/* finish: wait for the slot's batch and check each frame's status, size
 * (the header's, else the size query's) and checksum. */
static void finish(slot &sl, tally &t, bool stages)
{
	if (sl.busy < 0)
		return;
	const batch &b = batches[sl.busy];
	CK(cudaEventSynchronize(sl.ev[EV_END]));
	for (long j = 0; j < b.n; j++) {
		const zw_frame &f = fr[b.first + j];
		size_t got = RES_ACTUAL(sl)[j];
		t.frames++;
		t.out += got;
		if (RES_STATUS(sl)[j] != nvcompSuccess) {
			if (t.bad_status++ < 3)
				fprintf(stderr, "frame %ld: %s\n", b.first + j,
					nv->status_string(RES_STATUS(sl)[j]));
			continue;
		}
		if (f.fcs >= 0 ? got != (size_t)f.fcs : got > f.bound)
			t.bad_size++;
		if (RES_QUERY(sl)[j] != got)
			t.bad_query++;
		if (!f.has_sum)
			t.no_sum++;
		else if ((uint32_t)RES_HASH(sl)[j] != f.sum)
			t.bad_sum++;
	}
	if (stages)
		for (int e = 1; e < NEV; e++) {
			float ms;
			CK(cudaEventElapsedTime(&ms, sl.ev[e - 1], sl.ev[e]));
			t.ms[e] += ms;
		}
	sl.busy = -1;
}

/* ---- reading the file ---- */
static int fd;
static uint64_t fsize;
static int readers = 8;

/* pread_all: file bytes [lo, hi) into dst, split among the reader threads. */
static void pread_all(uint8_t *dst, uint64_t lo, uint64_t hi)
{
	uint64_t n = hi - lo, part = up((n + readers - 1) / readers, 1 << 20);
	std::vector<std::thread> th;
	for (uint64_t a = 0; a < n; a += part)
		th.emplace_back([=] {
			uint64_t e = std::min(n, a + part), at = a;
			while (at < e) {
				ssize_t r = pread(fd, dst + at, e - at, lo + at);
				if (r <= 0) {
					fprintf(stderr, "nvcomp_probe: read: %s\n",
						r ? strerror(errno) : "short file");
					exit(2);
				}
				at += r;
			}
		});
	for (auto &x : th)
		x.join();
}

/* stream: the realistic run: each batch read into a pinned stage while the
 * GPU decodes the one before. */
static double stream_file(tally &t)
{
	double t0 = now();
	slot sl[2];
	for (auto &s : sl)
		slot_init(s, true);
	double t1 = now();
	for (size_t bi = 0; bi < batches.size(); bi++) {
		slot &s = sl[bi & 1];
		finish(s, t, false);
		pread_all(s.stage, batches[bi].lo, batches[bi].hi);
		enqueue(s, bi, s.stage, batches[bi].lo);
	}
	for (auto &s : sl)
		finish(s, t, false);
	double t2 = now();
	for (auto &s : sl)
		slot_free(s);
	fprintf(stderr, "  (stream: buffers %.3f s, read+decode %.3f s)\n", t1 - t0, t2 - t1);
	return t2 - t0;
}

static void report_tally(const char *what, const tally &t, double s)
{
	printf("%-34s %8.3f s %8.1f GB/s out   frames %ld: status!=ok %ld, size %ld, "
	       "size query %ld, checksum %ld (none %ld)\n", what, s, gbs(t.out, s), t.frames,
	       t.bad_status, t.bad_size, t.bad_query, t.bad_sum, t.no_sum);
}

static bool tally_ok(const tally &t)
{
	return t.frames == nfr && !t.bad_status && !t.bad_size && !t.bad_sum;
}

#include "nvcomp_check.h"

static void usage(void)
{
	fputs("usage: nvcomp_probe [--e2e|--list|--fuzz] [-b FRAMES] [-r READERS] [-t SECONDS]\n"
	      "                    [--backend default|cuda|hw] FILE\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	double t_main = now();

	setvbuf(stdout, NULL, _IOLBF, 0);	/* in order with stderr in a report file */
	const char *mode = "full", *file = NULL;
	int timeout = 20;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--e2e") || !strcmp(a, "--list") || !strcmp(a, "--fuzz"))
			mode = a + 2;
		else if (!strcmp(a, "-b") && i + 1 < argc)
			B = atol(argv[++i]);
		else if (!strcmp(a, "-r") && i + 1 < argc)
			readers = atoi(argv[++i]);
		else if (!strcmp(a, "-t") && i + 1 < argc)
			timeout = atoi(argv[++i]);
		else if (!strcmp(a, "--backend") && i + 1 < argc) {
			a = argv[++i];
			opts.backend = !strcmp(a, "hw") ? NVCOMP_DECOMPRESS_BACKEND_HARDWARE :
				       !strcmp(a, "cuda") ? NVCOMP_DECOMPRESS_BACKEND_CUDA :
				       NVCOMP_DECOMPRESS_BACKEND_DEFAULT;
		} else if (a[0] == '-' || file)
			usage();
		else
			file = a;
	}
	if (!file || B < 1 || readers < 1)
		usage();

	/* The file's frames, from an mmap of its headers. */
	double t0 = now();
	struct stat st;
	if ((fd = open(file, O_RDONLY)) < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "nvcomp_probe: %s: %s\n", file, strerror(errno));
		return 2;
	}
	fsize = st.st_size;
	const uint8_t *map = fsize ? (const uint8_t *)mmap(NULL, fsize, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (map == MAP_FAILED) {
		perror("nvcomp_probe: mmap");
		return 2;
	}
	long cap = fsize / 12 + 1, skips;
	char err[256];
	fr = (zw_frame *)calloc(cap, sizeof(*fr));
	nfr = zw_file(map, fsize, fr, cap, &skips, err, sizeof(err));
	if (nfr < 0) {
		fprintf(stderr, "nvcomp_probe: %s: %s\n", file, err);
		return 2;
	}
	double t_walk = now() - t0;
	uint64_t outb = 0, inb = 0;
	long nosz = 0;
	for (long i = 0; i < nfr; i++) {
		outb += fr[i].bound;
		inb += fr[i].csize;
		nosz += fr[i].fcs < 0;
	}
	if (!strcmp(mode, "list")) {
		for (long i = 0; i < nfr; i++)
			printf("%6ld off %12llu csize %10llu fcs %10lld bound %10llu blocks %6u sum %s\n",
			       i, (unsigned long long)fr[i].off, (unsigned long long)fr[i].csize,
			       (long long)fr[i].fcs, (unsigned long long)fr[i].bound, fr[i].blocks,
			       fr[i].has_sum ? "yes" : "no");
		printf("%ld frames, %ld skippable, %.1f MiB -> %.1f MiB (bound)\n", nfr, skips,
		       inb / 1048576.0, outb / 1048576.0);
		/* the host XXH64 against the first frame's own checksum */
		if (nfr && fr[0].has_sum) {
			std::vector<uint8_t> o(fr[0].bound + 1);
			size_t r = ZSTD_decompress(o.data(), fr[0].bound, map + fr[0].off, fr[0].csize);
			if (ZSTD_isError(r))
				return 1;
			bool same = (uint32_t)xxh64_host(o.data(), r) == fr[0].sum;
			printf("frame 0: XXH64 (host) %s its checksum\n", same ? "matches" : "DIFFERS from");
			return same ? 0 : 1;
		}
		return 0;
	}
	if (!strcmp(mode, "fuzz"))
		return fuzz(map, timeout);

	/* CUDA and nvCOMP */
	t0 = now();
	CK(cudaFree(0));
	double t_cuda = now() - t0;
	t0 = now();
	char desc[300];
	gs_nvcomp_describe(desc, sizeof(desc));
	if (!(nv = gs_nvcomp_load())) {
		fprintf(stderr, "nvcomp_probe: %s\n", desc);
		return 3;
	}
	nvcompAlignmentRequirements_t al;
	NV(nv->zstd_alignments(opts, &al));
	align_in = std::max(align_in, al.input);
	align_out = std::max(align_out, al.output);
	double t_nv = now() - t0;
	plan();
	if (int bad = xxh64_selftest()) {
		fprintf(stderr, "nvcomp_probe: XXH64 on the GPU differs from the host's for %d lengths\n", bad);
		return 3;
	}

	if (!strcmp(mode, "e2e")) {
		tally t = {};
		double s = stream_file(t);
		report_tally("streamed from the file", t, s);
		printf("in process: %.3f s (walk %.3f, cuda init %.3f, nvcomp load %.3f)\n",
		       now() - t_main, t_walk, t_cuda, t_nv);
		return tally_ok(t) ? 0 : 1;
	}
	return full_report(t_main, t_walk, t_cuda, t_nv, skips, nosz, inb, outb, desc);
}
