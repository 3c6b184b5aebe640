/* nvcomp_fuzz.h - nvcomp_probe --fuzz: corrupt copies of one frame of the
 * file (the second, the first if there is one) through nvCOMP's size query,
 * decode and the GPU XXH64, beside the host walk and libzstd.
 *
 * The cases run in a child process (forked before CUDA starts) with an
 * alarm each: a case that faults (a CUDA error leaves the context unusable),
 * hangs (killed at the alarm) or crashes ends that child, is recorded as
 * such, and a new child goes on from the next case. Each row says what the
 * host walk, libzstd and nvCOMP made of the case and whether the rule
 * "trust a frame only when nvCOMP says ok and its XXH64 matches" is safe on
 * it. The output buffer is followed by a guard that must stay untouched. */

#define NCASES 32
#define GUARD (64u << 10)

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ z >> 27) * 0x94D049BB133111EBull;
	return z ^ z >> 31;
}

/* fuzz_case: case i of frame f (its bytes at p, avail bytes from there to
 * the end of the file) into buf, with the compressed size and output
 * capacity to give nvCOMP; false where the case does not apply. */
static bool fuzz_case(int i, const uint8_t *p, uint64_t avail, const zw_frame &f,
		      std::vector<uint8_t> &buf, size_t *pass, size_t *cap, char *label, size_t lsize)
{
	uint64_t s = 0x5EEDull * (i + 1);
	size_t n = f.csize, extra = std::min<uint64_t>(4096, avail - n);
	uint8_t d = p[4];
	int fcs_len = (d >> 6) == 0 ? (d >> 5 & 1) : 1 << (d >> 6);
	size_t hdr = 5 + !(d >> 5 & 1) + (d & 3 ? 1 << ((d & 3) - 1) : 0) + fcs_len;
	size_t body = n - (f.has_sum ? 4 : 0) - hdr;

	buf.assign(p, p + n + extra);
	*pass = n;
	*cap = f.bound;
	if (i == 0) {
		snprintf(label, lsize, "intact (control)");
	} else if (i <= 12) {
		int bits = i <= 8 ? 1 : 64;
		for (int k = 0; k < bits; k++) {
			size_t at = hdr + mix(&s) % body;
			buf[at] ^= 1 << (mix(&s) & 7);
		}
		snprintf(label, lsize, "%d bit%s flipped in the blocks", bits, bits > 1 ? "s" : "");
	} else if (i <= 16) {
		size_t at = mix(&s) % (hdr + 3);
		buf[at] ^= 1 << (mix(&s) & 7);
		snprintf(label, lsize, "a bit flipped in header byte %zu", at);
	} else if (i == 17) {
		if (!f.has_sum)
			return false;
		buf[n - 1 - mix(&s) % 4] ^= 1 << (mix(&s) & 7);
		snprintf(label, lsize, "a bit flipped in the checksum");
	} else if (i <= 21) {
		static const int cut[4] = { 1, 4, -2, -7 };	/* bytes off; -k: keep n/2, 7 */
		*pass = cut[i - 18] > 0 ? n - cut[i - 18] : cut[i - 18] == -2 ? n / 2 : 7;
		snprintf(label, lsize, "truncated to %zu of %zu bytes", *pass, n);
	} else if (i == 22) {
		*pass = n + extra;
		snprintf(label, lsize, "size says %zu more bytes (the next)", extra);
	} else if (i == 23 || i == 24) {
		*cap = i == 23 ? f.bound / 2 : f.bound - 1;
		snprintf(label, lsize, "output buffer %s", i == 23 ? "half the content" : "1 byte short");
	} else if (i == 25 || i == 26) {
		for (size_t k = 0; k < 8192 && k < body; k++)
			buf[hdr + body / 2 + k - std::min<size_t>(4096, body / 2)] = i == 25 ? 0 : mix(&s);
		snprintf(label, lsize, "8 KiB %s mid-frame", i == 25 ? "zeroed" : "random");
	} else if (i <= 28) {
		for (size_t k = hdr + 3; k < n; k++)
			buf[k] = mix(&s);
		snprintf(label, lsize, "random bytes after the first block header");
	} else if (i <= 30) {
		/* garbage that passes the walk: compressed blocks' bodies
		 * random, every block header kept */
		size_t at = hdr;
		for (int last = 0; !last;) {
			uint32_t b = buf[at] | buf[at + 1] << 8 | (uint32_t)buf[at + 2] << 16;
			size_t len = (b >> 1 & 3) == 1 ? 1 : b >> 3;
			last = b & 1;
			if ((b >> 1 & 3) == 2)
				for (size_t k = at + 3; k < at + 3 + len; k++)
					buf[k] = mix(&s);
			at += 3 + len;
		}
		snprintf(label, lsize, "random compressed blocks, headers kept");
	} else if (f.fcs >= 0) {
		uint64_t v = f.fcs / 2 - (fcs_len == 2 ? 256 : 0);
		for (int k = 0; k < fcs_len; k++)
			buf[hdr - fcs_len + k] = v >> (8 * k);
		snprintf(label, lsize, "content size field says half");
	} else {
		if (d >> 5 & 1)
			return false;
		buf[5] = 0;
		snprintf(label, lsize, "window descriptor says 1 KiB");
	}
	return true;
}

static void fuzz_child(const uint8_t *map, long v, int start, int wfd, int timeout)
{
	FILE *o = fdopen(wfd, "w");
	setvbuf(o, NULL, _IOLBF, 0);
	CK(cudaFree(0));
	if (!(nv = gs_nvcomp_load())) {
		fprintf(o, "fatal nvCOMP does not load\n");
		exit(3);
	}
	const zw_frame &f = fr[v];
	const uint8_t *p = map + f.off;
	std::vector<uint8_t> truth(f.bound + 1), cpu(f.bound + 1), got(f.bound + GUARD), buf;
	size_t tn = ZSTD_decompress(truth.data(), f.bound, p, f.csize);
	uint8_t *d_in, *d_out;
	void *d_temp, **d_args, *d_res;
	size_t temp;
	cudaStream_t s;
	CK(cudaStreamCreate(&s));
	CK(cudaMalloc(&d_in, f.csize + 8192));
	CK(cudaMalloc(&d_out, f.bound + GUARD));
	NV(nv->zstd_temp_size(1, f.bound, opts, &temp, f.bound, s));
	CK(cudaMalloc(&d_temp, temp ? temp : 1));
	CK(cudaMalloc(&d_args, 4 * sizeof(void *)));
	CK(cudaMalloc(&d_res, 64));
	for (int i = start; i < NCASES; i++) {
		char label[128], walk[96], lz[96], nvt[128];
		size_t pass, cap;
		if (!fuzz_case(i, p, fsize - f.off, f, buf, &pass, &cap, label, sizeof(label)))
			continue;
		fprintf(o, "begin %d %s\n", i, label);
		alarm(timeout);
		zw_frame g;
		const char *w = zw_parse(buf.data(), pass, &g);
		snprintf(walk, sizeof(walk), "%s", w ? w : g.csize != pass ? "ok, frame ends early" : "ok");
		size_t cr = ZSTD_decompress(cpu.data(), cap, buf.data(), pass);
		snprintf(lz, sizeof(lz), "%s", ZSTD_isError(cr) ? ZSTD_getErrorName(cr) :
			 cr == tn && !memcmp(cpu.data(), truth.data(), tn) ? "ok" : "ok, other bytes");

		void *args[4] = { d_in, (void *)pass, d_out, (void *)cap };
		size_t res[8];
		CK(cudaMemcpyAsync(d_in, buf.data(), pass, cudaMemcpyHostToDevice, s));
		CK(cudaMemcpyAsync(d_args, args, sizeof(args), cudaMemcpyHostToDevice, s));
		CK(cudaMemsetAsync(d_out, 0xA5, f.bound + GUARD, s));
		CK(cudaMemsetAsync(d_res, 0xFF, 64, s));
		size_t *d_act = (size_t *)d_res, *d_q = d_act + 1;
		nvcompStatus_t *d_st = (nvcompStatus_t *)(d_act + 2);
		uint64_t *d_h = (uint64_t *)(d_act + 3);
		nvcompStatus_t qs = nv->zstd_sizes(d_args, (size_t *)(d_args + 1), d_q, 1, s);
		nvcompStatus_t ds = nv->zstd_decompress(d_args, (size_t *)(d_args + 1),
							(size_t *)(d_args + 3), d_act, 1, d_temp,
							temp, d_args + 2, opts, d_st, s);
		xxh64_frames<<<1, 32, 0, s>>>(d_args + 2, d_act, (size_t *)(d_args + 3), d_h, 1);
		cudaError_t e = cudaStreamSynchronize(s);
		if (e == cudaSuccess)
			e = cudaMemcpy(res, d_res, 64, cudaMemcpyDeviceToHost);
		if (e == cudaSuccess)
			e = cudaMemcpy(got.data(), d_out, f.bound + GUARD, cudaMemcpyDeviceToHost);
		if (e != cudaSuccess) {
			fprintf(o, "end %d %s\t%s\tCUDA error: %s\tFAULT (context lost)\n", i, walk, lz,
				cudaGetErrorString(e));
			exit(3);
		}
		alarm(0);
		nvcompStatus_t st;
		memcpy(&st, &res[2], sizeof(st));
		size_t act = res[0];
		bool guard_ok = true;
		for (size_t k = cap; k < f.bound + GUARD; k++)
			if (got[k] != 0xA5) {
				guard_ok = false;
				break;
			}
		if (qs || ds)
			snprintf(nvt, sizeof(nvt), "launch: %s", nv->status_string(qs ? qs : ds));
		else if (st != nvcompSuccess)
			snprintf(nvt, sizeof(nvt), "status: %s", nv->status_string(st));
		else
			snprintf(nvt, sizeof(nvt), "ok, %zu bytes (query %zu)", act, res[1]);
		bool right = act == tn && !memcmp(got.data(), truth.data(), tn);
		uint32_t want = !w && g.has_sum ? g.sum : f.sum;
		bool sum_ok = (uint32_t)res[3] == want;
		const char *verdict = !guard_ok ? "UNSAFE: wrote past its output buffer" :
				      qs || ds || st != nvcompSuccess ? "safe: nvCOMP error" :
				      !sum_ok ? (right ? "safe: checksum differs (output right)" :
						"safe: checksum differs") :
				      right ? "safe: output right" :
				      "UNSAFE: wrong output, checksum matches";
		fprintf(o, "end %d %s\t%s\t%s\t%s\n", i, walk, lz, nvt, verdict);
	}
	exit(0);
}

static int fuzz(const uint8_t *map, int timeout)
{
	if (nfr == 0) {
		fprintf(stderr, "nvcomp_probe: no zstd frame to fuzz\n");
		return 2;
	}
	long v = nfr > 1 ? 1 : 0;
	int start = 0, unsafe = 0, faults = 0, hangs = 0, safe = 0;
	char sumcase[160] = "not run";
	printf("fuzz: frame %ld (%llu bytes, content %llu, checksum %s), %d cases, %d s each\n", v,
	       (unsigned long long)fr[v].csize, (unsigned long long)fr[v].bound,
	       fr[v].has_sum ? "yes" : "no", NCASES, timeout);
	printf("%-2s %-42s | %-32s | %-22s | %-38s | %s\n", "#", "case", "host walk", "libzstd",
	       "nvCOMP", "verdict");
	fflush(stdout);
	while (start < NCASES) {
		int pfd[2], was = start;
		if (pipe(pfd))
			return 2;
		pid_t pid = fork();
		if (pid == 0) {
			close(pfd[0]);
			fuzz_child(map, v, start, pfd[1], timeout);
		}
		close(pfd[1]);
		FILE *in = fdopen(pfd[0], "r");
		char line[1024], label[160] = "";
		int cur = -1, i;
		while (fgets(line, sizeof(line), in)) {
			line[strcspn(line, "\n")] = 0;
			int off = 0;
			if (sscanf(line, "begin %d %n", &i, &off) == 1 && off) {
				cur = i;
				snprintf(label, sizeof(label), "%s", line + off);
			} else if (sscanf(line, "end %d %n", &i, &off) == 1 && off) {
				char *f[4] = { line + off };
				for (int k = 1; k < 4; k++) {
					f[k] = strchr(f[k - 1], '\t');
					f[k] = f[k] ? (*f[k] = 0, f[k] + 1) : (char *)"";
				}
				printf("%-2d %-42s | %-32s | %-22s | %-38s | %s\n", i, label, f[0], f[1],
				       f[2], f[3]);
				fflush(stdout);
				unsafe += !strncmp(f[3], "UNSAFE", 6);
				faults += !strncmp(f[3], "FAULT", 5);
				safe += !strncmp(f[3], "safe", 4);
				if (i == 17)
					snprintf(sumcase, sizeof(sumcase), "%s", f[2]);
				cur = -1;
				start = i + 1;
			} else {
				printf("%s\n", line);
			}
		}
		fclose(in);
		int st = 0;
		waitpid(pid, &st, 0);
		if (cur >= 0) {
			char why[64];
			bool hang = WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM;
			if (WIFSIGNALED(st))
				snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(st));
			else
				snprintf(why, sizeof(why), "exit %d", WEXITSTATUS(st));
			printf("%-2d %-42s | %-32s | %-22s | %-38s | %s\n", cur, label, "", "", why,
			       hang ? "HANG (killed at the alarm)" : "CRASH");
			hangs += hang;
			faults += !hang;
			start = cur + 1;
		} else if (start == was && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			printf("fuzz: the case runner failed before its first case (status %d)\n", st);
			return 3;
		} else if (start == was || (WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			break;
		}
	}
	printf("fuzz: %d safe, %d unsafe, %d faults or crashes, %d hangs\n", safe, unsafe, faults, hangs);
	printf("content checksum: a flipped checksum gives nvCOMP \"%s\"; %s\n", sumcase,
	       !strncmp(sumcase, "ok", 2) ? "nvCOMP does not check it: we must (XXH64)" :
	       !strncmp(sumcase, "status", 6) ? "nvCOMP reports it" : "unknown");
	return unsafe || faults || hangs ? 1 : 0;
}
