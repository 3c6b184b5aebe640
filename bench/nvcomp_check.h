/* nvcomp_check.h - nvcomp_probe's whole report: the file in pinned memory,
 * each stage alone, the stages pipelined, every frame against libzstd, the
 * file streamed; a table. Included once by nvcomp_probe.cu. */

/* check: every batch decoded again, its output brought back and compared
 * byte for byte with libzstd's decode of the same frames (which checks
 * their checksums), on all cores. Returns the frames that differ. */
static long check(slot &sl, const uint8_t *h_file, double *cpu_s, long *cpu_err)
{
	size_t outcap = 0, maxb = 0;
	for (auto &b : batches)
		outcap = std::max(outcap, b.out_bytes);
	for (long i = 0; i < nfr; i++)
		maxb = std::max(maxb, (size_t)fr[i].bound);
	uint8_t *h_out;
	CK(cudaMallocHost(&h_out, outcap));
	int nth = std::max(1u, std::thread::hardware_concurrency());
	long bad = 0;
	*cpu_s = 0;
	*cpu_err = 0;
	for (size_t bi = 0; bi < batches.size(); bi++) {
		const batch &b = batches[bi];
		tally t = {};
		enqueue(sl, bi, h_file, 0);
		finish(sl, t, false);
		CK(cudaMemcpy(h_out, sl.d_out, b.out_bytes, cudaMemcpyDeviceToHost));
		std::vector<size_t> oo(b.n + 1, 0);
		for (long j = 0; j < b.n; j++)
			oo[j + 1] = oo[j] + up(fr[b.first + j].bound, align_out);
		std::vector<long> badj(nth, 0), errj(nth, 0);
		std::vector<std::thread> th;
		double t0 = now();
		for (int k = 0; k < nth; k++)
			th.emplace_back([&, k] {
				ZSTD_DCtx *dc = ZSTD_createDCtx();
				std::vector<uint8_t> dst(maxb ? maxb : 1);
				for (long j = k; j < b.n; j += nth) {
					const zw_frame &f = fr[b.first + j];
					size_t r = ZSTD_decompressDCtx(dc, dst.data(), f.bound,
								       h_file + f.off, f.csize);
					if (ZSTD_isError(r)) {
						errj[k]++;
						continue;
					}
					if (RES_STATUS(sl)[j] != nvcompSuccess ||
					    RES_ACTUAL(sl)[j] != r ||
					    memcmp(dst.data(), h_out + oo[j], r))
						badj[k]++;
				}
				ZSTD_freeDCtx(dc);
			});
		for (auto &x : th)
			x.join();
		*cpu_s += now() - t0;
		for (int k = 0; k < nth; k++) {
			bad += badj[k];
			*cpu_err += errj[k];
		}
	}
	cudaFreeHost(h_out);
	return bad;
}

static int full_report(double t_main, double t_walk, double t_cuda,
		       double t_nv, long skips, long nosz, uint64_t inb, uint64_t outb,
		       const char *desc)
{
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	printf("%s (%d SMs); %s; backend %s\n", p.name, p.multiProcessorCount, desc,
	       opts.backend == NVCOMP_DECOMPRESS_BACKEND_HARDWARE ? "hw" :
	       opts.backend == NVCOMP_DECOMPRESS_BACKEND_CUDA ? "cuda" : "default");
	printf("%ld zstd frames (%ld without a content size, %ld with no checksum), %ld skippable; "
	       "%.3f GiB -> %.3f GiB (x%.2f); %zu batches of up to %ld frames\n", nfr, nosz,
	       std::count_if(fr, fr + nfr, [](const zw_frame &f) { return !f.has_sum; }),
	       skips, inb / 1073741824.0, outb / 1073741824.0, inb ? (double)outb / inb : 0,
	       batches.size(), B);

	double t0 = now();
	uint8_t *h_file;
	CK(cudaMallocHost(&h_file, fsize ? fsize : 1));
	double t_alloc = now() - t0;
	t0 = now();
	pread_all(h_file, 0, fsize);
	double t_read = now() - t0;
	int r = readers;
	readers = 1;
	t0 = now();
	pread_all(h_file, 0, fsize);
	double t_read1 = now() - t0;
	readers = r;

	slot sl[2];
	t0 = now();
	for (auto &s : sl)
		slot_init(s, false);
	double t_slots = now() - t0;
	tally tw = {}, ts = {}, tp = {}, tt = {};
	t0 = now();
	enqueue(sl[0], 0, h_file, 0);
	finish(sl[0], tw, false);
	double t_first = now() - t0;

	t0 = now();
	for (size_t bi = 0; bi < batches.size(); bi++) {
		enqueue(sl[0], bi, h_file, 0);
		finish(sl[0], ts, true);
	}
	double t_ser = now() - t0;

	double t_pipe = 1e30;
	for (int rep = 0; rep < 3; rep++) {
		tally t = {};
		t0 = now();
		for (size_t bi = 0; bi < batches.size(); bi++) {
			slot &s = sl[bi & 1];
			finish(s, t, false);
			enqueue(s, bi, h_file, 0);
		}
		for (auto &s : sl)
			finish(s, t, false);
		double d = now() - t0;
		if (d < t_pipe) {
			t_pipe = d;
			tp = t;
		}
	}
	double cpu_s;
	long cpu_err, bad = check(sl[0], h_file, &cpu_s, &cpu_err);
	for (auto &s : sl)
		slot_free(s);
	cudaFreeHost(h_file);

	double t_str = stream_file(tt);

	double in = inb, out = ts.out, sec = 1e-3;
	printf("\n%-44s %9s %10s\n", "stage", "seconds", "GB/s");
	printf("%-44s %9.4f\n", "walk frame and block headers (host)", t_walk);
	printf("%-44s %9.4f\n", "CUDA init (cudaFree(0))", t_cuda);
	printf("%-44s %9.4f\n", "nvCOMP load (dlopen, alignments)", t_nv);
	printf("%-44s %9.4f %10.2f\n", "pinned alloc of the whole file", t_alloc, gbs(fsize, t_alloc));
	printf("%-44s %9.4f %10.2f\n", "read into pinned, 1 thread", t_read1, gbs(fsize, t_read1));
	char line[64];
	snprintf(line, sizeof(line), "read into pinned, %d threads", readers);
	printf("%-44s %9.4f %10.2f\n", line, t_read, gbs(fsize, t_read));
	printf("%-44s %9.4f\n", "device buffers, 2 slots (+nvCOMP temp)", t_slots);
	printf("%-44s %9.4f %10.2f\n", "first batch (cold: module load)", t_first, gbs(tw.out, t_first));
	printf("%-44s %9.4f %10.2f  (compressed)\n", "  H2D, a copy per frame", ts.ms[EV_H2D] * sec,
	       gbs(in, ts.ms[EV_H2D] * sec));
	printf("%-44s %9.4f %10.2f\n", "  nvCOMP size query", ts.ms[EV_SIZE] * sec,
	       gbs(out, ts.ms[EV_SIZE] * sec));
	printf("%-44s %9.4f %10.2f\n", "  nvCOMP decode", ts.ms[EV_DEC] * sec, gbs(out, ts.ms[EV_DEC] * sec));
	printf("%-44s %9.4f %10.2f\n", "  XXH64 of the output (GPU)", ts.ms[EV_HASH] * sec,
	       gbs(out, ts.ms[EV_HASH] * sec));
	printf("%-44s %9.4f %10.2f\n", "stages one batch at a time (wall)", t_ser, gbs(out, t_ser));
	printf("%-44s %9.4f %10.2f\n", "pipelined, 2 streams, from pinned (best of 3)", t_pipe,
	       gbs(tp.out, t_pipe));
	printf("%-44s %9.4f %10.2f\n", "streamed from the file (read || GPU)", t_str, gbs(tt.out, t_str));
	snprintf(line, sizeof(line), "libzstd on %u threads (in the check)",
		 std::max(1u, std::thread::hardware_concurrency()));
	printf("%-44s %9.4f %10.2f\n", line, cpu_s, gbs(out, cpu_s));
	printf("%-44s %9.4f\n", "in process, all of the above", now() - t_main);
	report_tally("\nstages", ts, t_ser);
	report_tally("pipelined", tp, t_pipe);
	report_tally("streamed", tt, t_str);
	printf("check against libzstd: %ld of %ld frames differ; libzstd refused %ld\n", bad, nfr,
	       cpu_err);
	return tally_ok(ts) && tally_ok(tp) && tally_ok(tt) && !bad && !cpu_err ? 0 : 1;
}

#include "nvcomp_fuzz.h"
