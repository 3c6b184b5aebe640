/* nvcomp_gz_probe.cu - nvCOMP's batched deflate and gzip decoders measured
 * on their own, from a page-cached gzip file to CRC32-checked output in
 * device memory (issue 29, item 3: does a GPU gzip decoder pay, and is it
 * safe on bad input). The sibling of nvcomp_probe.cu (zstd), through the
 * same loader (nvcomp_lib.c).
 *
 *   nvcomp_gz_probe [-i SIZES] [-m MIB] [-r READERS] [--api deflate|gzip]
 *                   [--algo naive|lookahead] [--backend default|cuda|hw] FILE
 *       the whole report: each stage on its own (CUDA events), the stages
 *       pipelined on two streams, the file streamed from disk, and every
 *       member checked against zlib's decode
 *   nvcomp_gz_probe --e2e [...] FILE
 *       only the streamed decode, for a wall time with process and GPU start
 *   nvcomp_gz_probe --list [-i SIZES] FILE     the members, as the host walk sees them
 *   nvcomp_gz_probe --fuzz [-t SECONDS] [--api ...] FILE
 *       corrupt copies of one member through nvCOMP (nvcomp_gz_fuzz.h);
 *       --fuzz-dry: the cases through zlib alone, no GPU
 *
 * The members are listed on the host (gzwalk.h): BGZF blocks by their 'BC'
 * subfield, other members by the compressed sizes in SIZES (one a line: a
 * gzip member does not say where it ends). Each non-empty member is one
 * chunk: its deflate data (--api deflate, the default: the host has read the
 * header and knows the output size from ISIZE) or the whole member (--api
 * gzip: nvCOMP parses header and trailer). A batch of about MIB MiB of
 * output (default 256) is one H2D copy of its file bytes, a gather on the
 * GPU into aligned slots where nvCOMP's input alignment asks for it, the
 * decode into slots of ISIZE bytes, nvCOMP's CRC32 of each output, then the
 * results back: a member is trusted only when nvCOMP says ok, it decoded
 * to ISIZE bytes and their CRC32 is the trailer's (nvCOMP's decoders have
 * undefined behaviour on corrupt input: --fuzz shows what that means).
 * Exit 0, or 1 when a member failed a check.
 */
#include <cuda_runtime.h>
#include <zlib.h>
#include "nvcomp_lib.h"
#include <nvcomp/crc32.h>
#include <nvcomp/deflate.h>
#include <nvcomp/gzip.h>
#include "gzwalk.h"

#include <errno.h>
#include <fcntl.h>
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
	fprintf(stderr, "nvcomp_gz_probe: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
		cudaGetErrorString(e_)); exit(3); } } while (0)
#define NV(call) do { nvcompStatus_t s_ = (call); if (s_ != nvcompSuccess) { \
	fprintf(stderr, "nvcomp_gz_probe: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
		nv->status_string(s_)); exit(4); } } while (0)

static const struct gs_nvcomp *nv;
enum { API_DEFLATE, API_GZIP };
static int api = API_DEFLATE;
static nvcompBatchedDeflateDecompressOpts_t dopts = nvcompBatchedDeflateDecompressDefaultOpts;
static nvcompBatchedGzipDecompressOpts_t gopts = nvcompBatchedGzipDecompressDefaultOpts;
static nvcompBatchedCRC32Opts_t copts;
static size_t align_in = 1, align_out = 256;

/* The entry points, looked up by name in the library nvcomp_lib.c opened. */
static struct {
	decltype(&nvcompBatchedDeflateDecompressGetRequiredAlignments) d_align;
	decltype(&nvcompBatchedDeflateDecompressGetTempSize) d_temp;
	decltype(&nvcompBatchedDeflateDecompressAsync) d_dec;
	decltype(&nvcompBatchedGzipDecompressGetRequiredAlignments) g_align;
	decltype(&nvcompBatchedGzipDecompressGetTempSize) g_temp;
	decltype(&nvcompBatchedGzipDecompressAsync) g_dec;
	decltype(&nvcompBatchedCRC32Async) crc;
	decltype(&nvcompBatchedCRC32GetHeuristicConf) crc_conf;
} fn;

/* load: CUDA's context, the library and its entry points; exits 3 where
 * one is missing. */
static void load(void)
{
	CK(cudaFree(0));
	char desc[300];
	gs_nvcomp_describe(desc, sizeof(desc));
	if (!(nv = gs_nvcomp_load())) {
		fprintf(stderr, "nvcomp_gz_probe: %s\n", desc);
		exit(3);
	}
	struct { const char *name; void *dst; } t[] = {
		{ "nvcompBatchedDeflateDecompressGetRequiredAlignments", &fn.d_align },
		{ "nvcompBatchedDeflateDecompressGetTempSize", &fn.d_temp },
		{ "nvcompBatchedDeflateDecompressAsync", &fn.d_dec },
		{ "nvcompBatchedGzipDecompressGetRequiredAlignments", &fn.g_align },
		{ "nvcompBatchedGzipDecompressGetTempSize", &fn.g_temp },
		{ "nvcompBatchedGzipDecompressAsync", &fn.g_dec },
		{ "nvcompBatchedCRC32Async", &fn.crc },
		{ "nvcompBatchedCRC32GetHeuristicConf", &fn.crc_conf },
	};
	for (auto &e : t) {
		void *p = gs_nvcomp_sym(e.name);
		if (!p) {
			fprintf(stderr, "nvcomp_gz_probe: libnvcomp has no %s\n", e.name);
			exit(3);
		}
		memcpy(e.dst, &p, sizeof(p));	/* all entries are function pointers */
	}
	nvcompAlignmentRequirements_t al;
	if (api == API_DEFLATE)
		NV(fn.d_align(dopts, &al));
	else
		NV(fn.g_align(gopts, &al));
	align_in = std::max<size_t>(1, al.input);
	align_out = std::max<size_t>(align_out, al.output);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static size_t up(size_t x, size_t a) { return (x + a - 1) / a * a; }
static double gbs(double bytes, double s) { return s > 0 ? bytes / s / 1e9 : 0; }

/* temp_size: nvCOMP's temp bytes for n chunks of at most maxc output bytes,
 * total in all. */
static size_t temp_size(size_t n, size_t maxc, size_t total, cudaStream_t s)
{
	size_t t = 0;
	if (api == API_DEFLATE)
		NV(fn.d_temp(n, maxc, dopts, &t, total, s));
	else
		NV(fn.g_temp(n, maxc, gopts, &t, total, s));
	return t;
}

/* decode: one batch through the API chosen (device arrays of n each). */
static nvcompStatus_t decode(void *const *in, const size_t *inb, const size_t *caps, size_t *actual,
			     size_t n, void *temp, size_t tb, void *const *out, nvcompStatus_t *st,
			     cudaStream_t s)
{
	if (api == API_DEFLATE)
		return fn.d_dec(in, inb, caps, actual, n, temp, tb, out, dopts, st, s);
	return fn.g_dec(in, inb, caps, actual, n, temp, tb, out, gopts, st, s);
}

/* crc_setup: nvCOMP's CRC32 options (the gzip polynomial) for up to n
 * chunks of at most maxc bytes. */
static void crc_setup(size_t n, size_t maxc)
{
	memset(&copts, 0, sizeof(copts));
	copts.spec = nvcompCRC32;
	NV(fn.crc_conf(nvcompCRC32IgnoredInputChunkBytes, n, &copts.kernel_conf, maxc ? maxc : 1, 0));
}

/* crc_selftest: nvCOMP's CRC32 against zlib's on random bytes of lengths
 * around the edges; the lengths that differ. */
static int crc_selftest(void)
{
	static const size_t lens[] = { 0, 1, 3, 4, 7, 8, 31, 32, 33, 1000, 65280, 65536 + 17,
				       1 << 20, (16 << 20) + 5 };
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
	uint32_t *dc, got[n];
	void *ptrs[n];
	size_t ls[n];
	CK(cudaMalloc(&d, tot));
	CK(cudaMalloc(&dp, n * sizeof(void *)));
	CK(cudaMalloc(&dl, n * sizeof(size_t)));
	CK(cudaMalloc(&dc, n * sizeof(uint32_t)));
	CK(cudaMemcpy(d, h.data(), tot, cudaMemcpyHostToDevice));
	for (int i = 0, o = 0; i < n; o += up(lens[i] + 1, 256), i++) {
		ptrs[i] = d + o;
		ls[i] = lens[i];
	}
	CK(cudaMemcpy(dp, ptrs, sizeof(ptrs), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dl, ls, sizeof(ls), cudaMemcpyHostToDevice));
	crc_setup(n, (16 << 20) + 5);
	NV(fn.crc(dp, dl, n, dc, copts, nvcompCRC32OnlySegment, NULL, 0));
	CK(cudaMemcpy(got, dc, sizeof(got), cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int i = 0, o = 0; i < n; o += up(lens[i] + 1, 256), i++)
		bad += got[i] != (uint32_t)crc32(0, h.data() + o, (uInt)lens[i]);
	cudaFree(d);
	cudaFree(dp);
	cudaFree(dl);
	cudaFree(dc);
	return bad;
}

/* gather: chunk j's len[j] bytes from span + src[j] to dst[j] (aligned
 * slots), a block a chunk. */
__global__ void gather(const uint8_t *span, const size_t *src, void *const *dst, const size_t *len,
		       int n)
{
	int j = blockIdx.x;
	if (j >= n)
		return;
	const uint8_t *p = span + src[j];
	uint8_t *q = (uint8_t *)dst[j];
	for (size_t k = threadIdx.x; k < len[j]; k += blockDim.x)
		q[k] = p[k];
}

/* ---- the members, the chunks nvCOMP gets, their batches ---- */
static struct gw_member *mem;
static long nmem, nempty;

struct chunk {
	uint64_t src;		/* the file offset of the bytes nvCOMP gets */
	size_t len;		/* how many */
	size_t cap;		/* the output: ISIZE */
	uint32_t crc;		/* the trailer's */
	long m;			/* the member */
};
static std::vector<chunk> ch;

struct batch {
	long first, n;		/* chunks [first, first + n) */
	uint64_t lo, hi;	/* their bytes in the file */
	size_t in_bytes, out_bytes, maxc;	/* gathered input and output, aligned; the largest output */
};
static std::vector<batch> batches;
static size_t batch_out = (size_t)256 << 20;
static long maxn;		/* chunks in the largest batch */
static bool need_gather;

static void plan(void)
{
	for (long i = 0; i < nmem; i++) {
		const gw_member &g = mem[i];
		if (!g.isize) {
			nempty++;	/* BGZF's end block: nothing to decode (its CRC32 is 0) */
			continue;
		}
		uint64_t body = g.off + g.hlen, blen = g.csize - g.hlen - GW_TRAILER;
		ch.push_back(api == API_DEFLATE ? chunk{ body, (size_t)blen, g.isize, g.crc, i } :
						  chunk{ g.off, (size_t)g.csize, g.isize, g.crc, i });
	}
	for (size_t i = 0; i < ch.size();) {
		batch b = { (long)i, 0, ch[i].src, 0, 0, 0, 0 };
		size_t out = 0;
		for (; i < ch.size() && (b.n == 0 || out + ch[i].cap <= batch_out); i++, b.n++) {
			out += ch[i].cap;
			b.in_bytes += up(ch[i].len, align_in);
			b.out_bytes += up(ch[i].cap, align_out);
			b.maxc = std::max(b.maxc, ch[i].cap);
			need_gather |= (ch[i].src - b.lo) % align_in != 0;
		}
		b.hi = ch[i - 1].src + ch[i - 1].len;
		maxn = std::max(maxn, b.n);
		batches.push_back(b);
	}
}

enum { EV_START, EV_H2D, EV_GATHER, EV_DEC, EV_CRC, EV_END, NEV };
enum { A_INP, A_INB, A_OUTP, A_CAP, A_SRC, NARGS };

/* One stream's buffers: the batch's file bytes, the gathered input, the
 * output, nvCOMP's temp, the per-chunk arguments (NARGS arrays of maxn
 * 8-byte entries) and results (sizes, CRC32s, statuses). */
struct slot {
	cudaStream_t s;
	uint8_t *d_span, *d_in, *d_out;
	void *d_temp;
	size_t temp;
	uint64_t *d_args, *h_args;
	void *d_res, *h_res;
	cudaEvent_t ev[NEV];
	uint8_t *stage;		/* pinned: the batch's file bytes (streaming) */
	long busy;		/* the batch in flight, -1: none */
};

#define ARG(sl, k) ((sl).h_args + (k) * maxn)
#define DARG(sl, k) ((sl).d_args + (k) * maxn)
#define RES_ACTUAL(p) ((size_t *)(p))
#define RES_CRC(p) ((uint32_t *)((size_t *)(p) + maxn))
#define RES_STATUS(p) ((nvcompStatus_t *)(RES_CRC(p) + maxn))
#define RES_BYTES ((size_t)maxn * (sizeof(size_t) + sizeof(uint32_t) + sizeof(nvcompStatus_t)))

static void slot_init(slot &sl, bool stage)
{
	size_t in = 0, out = 0, span = 0, maxc = 0, tot = 0;
	for (auto &b : batches) {
		in = std::max(in, b.in_bytes);
		out = std::max(out, b.out_bytes);
		span = std::max(span, (size_t)(b.hi - b.lo));
		maxc = std::max(maxc, b.maxc);
		tot = std::max(tot, b.out_bytes);
	}
	CK(cudaStreamCreateWithFlags(&sl.s, cudaStreamNonBlocking));
	CK(cudaMalloc(&sl.d_span, span + 64));
	sl.d_in = NULL;
	if (need_gather)
		CK(cudaMalloc(&sl.d_in, in + 64));
	CK(cudaMalloc(&sl.d_out, out));
	sl.temp = temp_size(maxn, maxc, tot, sl.s);
	CK(cudaMalloc(&sl.d_temp, sl.temp ? sl.temp : 1));
	CK(cudaMalloc(&sl.d_args, NARGS * maxn * sizeof(uint64_t)));
	CK(cudaMallocHost(&sl.h_args, NARGS * maxn * sizeof(uint64_t)));
	CK(cudaMalloc(&sl.d_res, RES_BYTES));
	CK(cudaMallocHost(&sl.h_res, RES_BYTES));
	for (auto &e : sl.ev)
		CK(cudaEventCreate(&e));
	sl.stage = NULL;
	if (stage)
		CK(cudaMallocHost(&sl.stage, span ? span : 1));
	sl.busy = -1;
}

static void slot_free(slot &sl)
{
	cudaFree(sl.d_span);
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
 * base): the copies, the gather, the decode, the CRC32s, results back. */
static void enqueue(slot &sl, long bi, const uint8_t *src, uint64_t base)
{
	const batch &b = batches[bi];
	size_t io = 0, oo = 0;

	for (long j = 0; j < b.n; j++) {
		const chunk &c = ch[b.first + j];
		uint8_t *in = need_gather ? sl.d_in + io : sl.d_span + (c.src - b.lo);
		ARG(sl, A_INP)[j] = (uint64_t)(uintptr_t)in;
		ARG(sl, A_INB)[j] = c.len;
		ARG(sl, A_OUTP)[j] = (uint64_t)(uintptr_t)(sl.d_out + oo);
		ARG(sl, A_CAP)[j] = c.cap;
		ARG(sl, A_SRC)[j] = c.src - b.lo;
		io += up(c.len, align_in);
		oo += up(c.cap, align_out);
	}
	CK(cudaEventRecord(sl.ev[EV_START], sl.s));
	CK(cudaMemcpyAsync(sl.d_args, sl.h_args, NARGS * maxn * sizeof(uint64_t),
			   cudaMemcpyHostToDevice, sl.s));
	CK(cudaMemcpyAsync(sl.d_span, src + (b.lo - base), b.hi - b.lo, cudaMemcpyHostToDevice, sl.s));
	CK(cudaEventRecord(sl.ev[EV_H2D], sl.s));
	void **inp = (void **)DARG(sl, A_INP), **outp = (void **)DARG(sl, A_OUTP);
	size_t *inb = (size_t *)DARG(sl, A_INB), *cap = (size_t *)DARG(sl, A_CAP);
	if (need_gather) {
		gather<<<b.n, 256, 0, sl.s>>>(sl.d_span, (size_t *)DARG(sl, A_SRC), inp, inb, b.n);
		CK(cudaGetLastError());
	}
	CK(cudaEventRecord(sl.ev[EV_GATHER], sl.s));
	NV(decode(inp, inb, cap, RES_ACTUAL(sl.d_res), b.n, sl.d_temp, sl.temp, outp,
		  RES_STATUS(sl.d_res), sl.s));
	CK(cudaEventRecord(sl.ev[EV_DEC], sl.s));
	/* over ISIZE bytes, what a trusted member decodes to, not over the
	 * sizes nvCOMP reports: a failed chunk's are not to be trusted */
	NV(fn.crc(outp, cap, b.n, RES_CRC(sl.d_res), copts,
		  nvcompCRC32OnlySegment, NULL, sl.s));
	CK(cudaEventRecord(sl.ev[EV_CRC], sl.s));
	CK(cudaMemcpyAsync(sl.h_res, sl.d_res, RES_BYTES, cudaMemcpyDeviceToHost, sl.s));
	CK(cudaEventRecord(sl.ev[EV_END], sl.s));
	sl.busy = bi;
}

struct tally {
	long chunks, bad_status, bad_size, bad_crc;
	double out;
	double ms[NEV];		/* per stage, summed over batches */
};

/* finish: wait for the slot's batch and check each chunk's status, size
 * and CRC32. */
static void finish(slot &sl, tally &t, bool stages)
{
	if (sl.busy < 0)
		return;
	const batch &b = batches[sl.busy];
	CK(cudaEventSynchronize(sl.ev[EV_END]));
	for (long j = 0; j < b.n; j++) {
		const chunk &c = ch[b.first + j];
		size_t got = RES_ACTUAL(sl.h_res)[j];
		t.chunks++;
		t.out += std::min(got, c.cap);
		if (RES_STATUS(sl.h_res)[j] != nvcompSuccess) {
			if (t.bad_status++ < 3)
				fprintf(stderr, "member %ld: %s\n", c.m,
					nv->status_string(RES_STATUS(sl.h_res)[j]));
			continue;
		}
		if (got != c.cap)
			t.bad_size++;
		else if (RES_CRC(sl.h_res)[j] != c.crc)
			t.bad_crc++;
	}
	if (stages)
		for (int e = 1; e < NEV; e++) {
			float ms;
			CK(cudaEventElapsedTime(&ms, sl.ev[e - 1], sl.ev[e]));
			t.ms[e] += ms;
		}
	sl.busy = -1;
}

static bool tally_ok(const tally &t)
{
	return t.chunks == (long)ch.size() && !t.bad_status && !t.bad_size && !t.bad_crc;
}

static void report_tally(const char *what, const tally &t, double s)
{
	printf("%-34s %8.3f s %8.1f GB/s out   chunks %ld: status!=ok %ld, size!=ISIZE %ld, "
	       "CRC32 %ld\n", what, s, gbs(t.out, s), t.chunks, t.bad_status, t.bad_size, t.bad_crc);
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
					fprintf(stderr, "nvcomp_gz_probe: read: %s\n",
						r ? strerror(errno) : "short file");
					exit(2);
				}
				at += r;
			}
		});
	for (auto &x : th)
		x.join();
}

/* stream_file: the realistic run: each batch read into a pinned stage
 * while the GPU decodes the one before. */
static double stream_file(tally &t)
{
	double t0 = now();
	slot sl[2];
	int ns = batches.size() > 1 ? 2 : 1;	/* one batch: no second stage to pin */
	for (int k = 0; k < ns; k++)
		slot_init(sl[k], true);
	double t1 = now();
	for (size_t bi = 0; bi < batches.size(); bi++) {
		slot &s = sl[bi % ns];
		finish(s, t, false);
		pread_all(s.stage, batches[bi].lo, batches[bi].hi);
		enqueue(s, bi, s.stage, batches[bi].lo);
	}
	for (int k = 0; k < ns; k++)
		finish(sl[k], t, false);
	double t2 = now();
	for (int k = 0; k < ns; k++)
		slot_free(sl[k]);
	fprintf(stderr, "  (stream: buffers %.3f s, read+decode %.3f s)\n", t1 - t0, t2 - t1);
	return t2 - t0;
}

/* zinflate: the raw deflate data in[0, n) into out[0, cap) with zlib:
 * the bytes it decodes to, -1 where it does not decode whole into cap. */
static long zinflate(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream s;
	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, -15) != Z_OK)
		return -1;
	static uint8_t none[1];
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)n;
	s.next_out = cap ? out : none;
	s.avail_out = (uInt)cap;
	int r = inflate(&s, Z_FINISH);
	long got = (long)(cap - s.avail_out);
	inflateEnd(&s);
	return r == Z_STREAM_END ? got : -1;
}

#include "nvcomp_gz_check.h"
#include "nvcomp_gz_fuzz.h"

static void usage(void)
{
	fputs("usage: nvcomp_gz_probe [--e2e|--list|--fuzz|--fuzz-dry] [-i SIZES] [-m MIB] [-r READERS]\n"
	      "          [-t SECONDS] [--api deflate|gzip] [--algo naive|lookahead]\n"
	      "          [--backend default|cuda|hw] FILE\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	double t_main = now();

	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = "full", *file = NULL, *sizes_file = NULL;
	int timeout = 5;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--e2e") || !strcmp(a, "--list") || !strcmp(a, "--fuzz") ||
		    !strcmp(a, "--fuzz-dry"))
			mode = a + 2;
		else if (!strcmp(a, "-i") && i + 1 < argc)
			sizes_file = argv[++i];
		else if (!strcmp(a, "-m") && i + 1 < argc)
			batch_out = (size_t)atol(argv[++i]) << 20;
		else if (!strcmp(a, "-r") && i + 1 < argc)
			readers = atoi(argv[++i]);
		else if (!strcmp(a, "-t") && i + 1 < argc)
			timeout = atoi(argv[++i]);
		else if (!strcmp(a, "--api") && i + 1 < argc) {
			a = argv[++i];
			api = !strcmp(a, "gzip") ? API_GZIP : !strcmp(a, "deflate") ? API_DEFLATE : -1;
		} else if (!strcmp(a, "--algo") && i + 1 < argc) {
			a = argv[++i];
			gopts.algorithm = !strcmp(a, "lookahead") ? NVCOMP_GZIP_DECOMPRESS_ALGORITHM_LOOKAHEAD :
					  NVCOMP_GZIP_DECOMPRESS_ALGORITHM_NAIVE;
		} else if (!strcmp(a, "--backend") && i + 1 < argc) {
			a = argv[++i];
			nvcompDecompressBackend_t be = !strcmp(a, "hw") ? NVCOMP_DECOMPRESS_BACKEND_HARDWARE :
						       !strcmp(a, "cuda") ? NVCOMP_DECOMPRESS_BACKEND_CUDA :
						       NVCOMP_DECOMPRESS_BACKEND_DEFAULT;
			dopts.backend = be;
			gopts.backend = be;
		} else if (a[0] == '-' || file)
			usage();
		else
			file = a;
	}
	if (!file || batch_out < 1 || readers < 1 || api < 0)
		usage();

	/* the members' sizes, where they are given */
	std::vector<uint64_t> sizes;
	if (sizes_file) {
		FILE *f = fopen(sizes_file, "r");
		unsigned long long v;
		if (!f) {
			fprintf(stderr, "nvcomp_gz_probe: %s: %s\n", sizes_file, strerror(errno));
			return 2;
		}
		while (fscanf(f, "%llu", &v) == 1)
			sizes.push_back(v);
		fclose(f);
	}

	/* the file's members, from an mmap of it */
	double t0 = now();
	struct stat st;
	if ((fd = open(file, O_RDONLY)) < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "nvcomp_gz_probe: %s: %s\n", file, strerror(errno));
		return 2;
	}
	fsize = st.st_size;
	const uint8_t *map = fsize ? (const uint8_t *)mmap(NULL, fsize, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (map == MAP_FAILED) {
		perror("nvcomp_gz_probe: mmap");
		return 2;
	}
	long cap = fsize / 20 + 1;
	int is_bgzf;
	char err[256];
	mem = (gw_member *)calloc(cap, sizeof(*mem));
	nmem = gw_file(map, fsize, sizes.data(), (long)sizes.size(), mem, cap, &is_bgzf, err, sizeof(err));
	if (nmem < 0) {
		fprintf(stderr, "nvcomp_gz_probe: %s: %s\n", file, err);
		return 2;
	}
	double t_walk = now() - t0;
	uint64_t outb = 0, inb = 0;
	for (long i = 0; i < nmem; i++) {
		outb += mem[i].isize;
		inb += mem[i].csize;
	}
	if (!strcmp(mode, "list")) {
		for (long i = 0; i < nmem; i++)
			printf("%8ld off %12llu csize %10llu header %4u isize %10u crc %08x\n", i,
			       (unsigned long long)mem[i].off, (unsigned long long)mem[i].csize,
			       mem[i].hlen, mem[i].isize, mem[i].crc);
		printf("%ld %s members, %.1f MiB -> %.1f MiB\n", nmem, is_bgzf ? "BGZF" : "gzip",
		       inb / 1048576.0, outb / 1048576.0);
		return 0;
	}
	if (!strcmp(mode, "fuzz") || !strcmp(mode, "fuzz-dry"))
		return fuzz(map, timeout, !strcmp(mode, "fuzz-dry"));

	t0 = now();
	CK(cudaFree(0));
	double t_cuda = now() - t0;
	t0 = now();
	load();
	double t_nv = now() - t0;
	plan();
	if (batches.empty()) {
		fprintf(stderr, "nvcomp_gz_probe: %s: no member to decode\n", file);
		return 2;
	}
	/* the full report checks nvCOMP's CRC32 first; --e2e times only what
	 * a reader would do */
	int bad = strcmp(mode, "e2e") ? crc_selftest() : 0;
	if (bad) {
		fprintf(stderr, "nvcomp_gz_probe: nvCOMP's CRC32 differs from zlib's for %d lengths\n", bad);
		return 3;
	}
	crc_setup(maxn, std::max_element(batches.begin(), batches.end(), [](const batch &a, const batch &b) {
		return a.maxc < b.maxc; })->maxc);

	if (!strcmp(mode, "e2e")) {
		tally t = {};
		double s = stream_file(t);
		report_tally("streamed from the file", t, s);
		printf("in process: %.3f s (walk %.3f, cuda init %.3f, nvcomp load %.3f)\n",
		       now() - t_main, t_walk, t_cuda, t_nv);
		return tally_ok(t) ? 0 : 1;
	}
	return full_report(map, t_main, t_walk, t_cuda, t_nv, is_bgzf, inb, outb);
}
