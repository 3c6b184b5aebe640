/* nvcomp_gz_check.h - nvcomp_gz_probe's whole report: the file in pinned
 * memory, each stage alone, the stages pipelined, every member against
 * zlib, the file streamed; a table. Included once by nvcomp_gz_probe.cu. */

/* check: every batch decoded again, its output brought back and compared
 * byte for byte with zlib's inflate of the same members (whose CRC32 is
 * checked too), on all cores. Returns the chunks that differ. */
static long check(slot &sl, const uint8_t *h_file, double *cpu_s, long *cpu_err)
{
	size_t outcap = 0, maxc = 0;
	for (auto &b : batches) {
		outcap = std::max(outcap, b.out_bytes);
		maxc = std::max(maxc, b.maxc);
	}
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
			oo[j + 1] = oo[j] + up(ch[b.first + j].cap, align_out);
		std::vector<long> badj(nth, 0), errj(nth, 0);
		std::vector<std::thread> th;
		double t0 = now();
		for (int k = 0; k < nth; k++)
			th.emplace_back([&, k] {
				std::vector<uint8_t> dst(maxc);
				for (long j = k; j < b.n; j += nth) {
					const chunk &c = ch[b.first + j];
					const gw_member &g = mem[c.m];
					long r = zinflate(h_file + g.off + g.hlen,
							  g.csize - g.hlen - GW_TRAILER, dst.data(), c.cap);
					if (r != (long)c.cap ||
					    (uint32_t)crc32(0, dst.data(), (uInt)r) != c.crc) {
						errj[k]++;
						continue;
					}
					if (RES_STATUS(sl.h_res)[j] != nvcompSuccess ||
					    RES_ACTUAL(sl.h_res)[j] != c.cap ||
					    memcmp(dst.data(), h_out + oo[j], c.cap))
						badj[k]++;
				}
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

static int full_report(const uint8_t *map, double t_main, double t_walk, double t_cuda, double t_nv,
		       int is_bgzf, uint64_t inb, uint64_t outb)
{
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	char desc[300];
	gs_nvcomp_describe(desc, sizeof(desc));
	nvcompDecompressBackend_t be = api == API_DEFLATE ? dopts.backend : gopts.backend;
	printf("%s (%d SMs); %s; api %s%s; backend %s\n", p.name, p.multiProcessorCount, desc,
	       api == API_DEFLATE ? "deflate" : "gzip",
	       api == API_DEFLATE ? "" : gopts.algorithm == NVCOMP_GZIP_DECOMPRESS_ALGORITHM_LOOKAHEAD ?
	       " (lookahead)" : " (naive)",
	       be == NVCOMP_DECOMPRESS_BACKEND_HARDWARE ? "hw" :
	       be == NVCOMP_DECOMPRESS_BACKEND_CUDA ? "cuda" : "default");
	printf("%ld %s members (%ld empty, left to the host); %.3f GiB -> %.3f GiB (x%.2f); "
	       "%zu batches of up to %ld chunks, %.0f MiB out; input alignment %zu: %s\n", nmem,
	       is_bgzf ? "BGZF" : "gzip", nempty, inb / 1073741824.0, outb / 1073741824.0,
	       inb ? (double)outb / inb : 0, batches.size(), maxn, batch_out / 1048576.0, align_in,
	       need_gather ? "gathered on the GPU" : "decoded in place");
	(void)map;

	double t0 = now();
	uint8_t *h_file;
	CK(cudaMallocHost(&h_file, fsize ? fsize : 1));
	double t_alloc = now() - t0;
	int r = readers;
	readers = 1;
	t0 = now();
	pread_all(h_file, 0, fsize);
	double t_read1 = now() - t0;
	readers = r;
	t0 = now();
	pread_all(h_file, 0, fsize);
	double t_read = now() - t0;

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
	fprintf(stderr, "  (first batch %.3f s)\n", t_first);

	t0 = now();
	for (size_t bi = 0; bi < batches.size(); bi++) {
		enqueue(sl[0], bi, h_file, 0);
		finish(sl[0], ts, true);
	}
	double t_ser = now() - t0;
	fprintf(stderr, "  (stages one batch at a time %.3f s: decode %.3f s)\n", t_ser, ts.ms[EV_DEC] * 1e-3);

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
	fprintf(stderr, "  (pipelined %.3f s)\n", t_pipe);
	double cpu_s;
	long cpu_err, bad = check(sl[0], h_file, &cpu_s, &cpu_err);
	fprintf(stderr, "  (checked against zlib: %ld differ)\n", bad);
	for (auto &s : sl)
		slot_free(s);
	cudaFreeHost(h_file);

	double t_str = stream_file(tt);

	double in = inb, out = ts.out, sec = 1e-3;
	printf("\n%-46s %9s %10s\n", "stage", "seconds", "GB/s");
	printf("%-46s %9.4f\n", "walk member headers and trailers (host)", t_walk);
	printf("%-46s %9.4f\n", "CUDA init (cudaFree(0))", t_cuda);
	printf("%-46s %9.4f\n", "nvCOMP load (dlopen, alignments)", t_nv);
	printf("%-46s %9.4f %10.2f\n", "pinned alloc of the whole file", t_alloc, gbs(fsize, t_alloc));
	printf("%-46s %9.4f %10.2f\n", "read into pinned, 1 thread", t_read1, gbs(fsize, t_read1));
	char line[64];
	snprintf(line, sizeof(line), "read into pinned, %d threads", readers);
	printf("%-46s %9.4f %10.2f\n", line, t_read, gbs(fsize, t_read));
	printf("%-46s %9.4f\n", "device buffers, 2 slots (+nvCOMP temp)", t_slots);
	printf("%-46s %9.4f %10.2f\n", "first batch (cold: module load)", t_first, gbs(tw.out, t_first));
	printf("%-46s %9.4f %10.2f  (compressed)\n", "  H2D, a copy per batch", ts.ms[EV_H2D] * sec,
	       gbs(in, ts.ms[EV_H2D] * sec));
	printf("%-46s %9.4f %10.2f  (compressed)\n", need_gather ? "  gather into aligned slots (GPU)" :
	       "  gather (none: aligned in place)", ts.ms[EV_GATHER] * sec, gbs(in, ts.ms[EV_GATHER] * sec));
	printf("%-46s %9.4f %10.2f\n", "  nvCOMP decode", ts.ms[EV_DEC] * sec, gbs(out, ts.ms[EV_DEC] * sec));
	printf("%-46s %9.4f %10.2f\n", "  CRC32 of the output (nvCOMP, GPU)", ts.ms[EV_CRC] * sec,
	       gbs(out, ts.ms[EV_CRC] * sec));
	printf("%-46s %9.4f %10.2f\n", "stages one batch at a time (wall)", t_ser, gbs(out, t_ser));
	printf("%-46s %9.4f %10.2f\n", "pipelined, 2 streams, from pinned (best of 3)", t_pipe,
	       gbs(tp.out, t_pipe));
	printf("%-46s %9.4f %10.2f\n", "streamed from the file (read || GPU)", t_str, gbs(tt.out, t_str));
	snprintf(line, sizeof(line), "zlib inflate+CRC32 on %u threads (the check)",
		 std::max(1u, std::thread::hardware_concurrency()));
	printf("%-46s %9.4f %10.2f\n", line, cpu_s, gbs(out, cpu_s));
	printf("%-46s %9.4f\n", "in process, all of the above", now() - t_main);
	report_tally("\nstages", ts, t_ser);
	report_tally("pipelined", tp, t_pipe);
	report_tally("streamed", tt, t_str);
	printf("check against zlib: %ld of %zu chunks differ; zlib refused %ld\n", bad, ch.size(), cpu_err);
	printf("RATE decode %.2f pipelined %.2f streamed %.2f crc32 %.2f h2d %.2f GB/s\n",
	       gbs(out, ts.ms[EV_DEC] * sec), gbs(tp.out, t_pipe), gbs(tt.out, t_str),
	       gbs(out, ts.ms[EV_CRC] * sec), gbs(in, ts.ms[EV_H2D] * sec));
	return tally_ok(ts) && tally_ok(tp) && tally_ok(tt) && !bad && !cpu_err ? 0 : 1;
}
