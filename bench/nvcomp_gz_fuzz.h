/* nvcomp_gz_fuzz.h - nvcomp_gz_probe --fuzz: corrupt copies of one member
 * of the file (the second, the first where there are two) through nvCOMP's
 * decode (the --api chosen) and its CRC32, beside zlib.
 *
 * The cases run in a child process (forked before CUDA starts) with an
 * alarm each: a case that faults (a CUDA error leaves the context unusable),
 * hangs (killed at the alarm) or crashes ends that child, is recorded as
 * such, and a new child goes on from the next case. Each row says what zlib
 * and nvCOMP made of the case and whether the rule "trust a member only when
 * nvCOMP says ok, it decoded to ISIZE bytes and their CRC32 is the
 * trailer's" is safe on it. The output buffer is followed by a guard that
 * must stay untouched. Cases 30-33 are deflate streams written here: a
 * stored block whose length runs past the input, one longer than the
 * output buffer, a match before the first byte, a run of matches past the
 * output buffer. */

#define GZ_NCASES 34
#define GZ_GUARD (64u << 10)

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ z >> 27) * 0x94D049BB133111EBull;
	return z ^ z >> 31;
}

/* zrun: in[0, n) through zlib (wbits -15: raw deflate; 31: a gzip member,
 * its CRC32 and ISIZE checked) into out[0, cap): the bytes, or -1 with
 * zlib's message in msg. */
static long zrun(const uint8_t *in, size_t n, uint8_t *out, size_t cap, int wbits, char *msg,
		 size_t msize)
{
	z_stream s;
	static uint8_t none[1];
	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, wbits) != Z_OK)
		return -1;
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)n;
	s.next_out = cap ? out : none;
	s.avail_out = (uInt)cap;
	int r = inflate(&s, Z_FINISH);
	long got = (long)(cap - s.avail_out);
	snprintf(msg, msize, "%s", r == Z_STREAM_END ? "ok" : s.msg ? s.msg :
		 r == Z_BUF_ERROR ? "truncated or no room" : "error");
	inflateEnd(&s);
	return r == Z_STREAM_END ? got : -1;
}

/* Deflate's fixed Huffman codes (RFC 1951, 3.2.6), written LSB first. */
struct bitw {
	std::vector<uint8_t> &o;
	uint32_t acc;
	int n;
	void put(uint32_t v, int bits)
	{
		acc |= v << n;
		for (n += bits; n >= 8; n -= 8, acc >>= 8)
			o.push_back(acc & 255);
	}
	void huff(uint32_t code, int len)	/* Huffman codes go MSB first */
	{
		uint32_t r = 0;
		for (int i = 0; i < len; i++)
			r |= (code >> i & 1) << (len - 1 - i);
		put(r, len);
	}
	void lit(int v)
	{
		if (v < 144)
			huff(0x30 + v, 8);
		else if (v < 256)
			huff(0x190 + v - 144, 9);
		else if (v < 280)
			huff(v - 256, 7);
		else
			huff(0xC0 + v - 280, 8);
	}
	void flush()
	{
		if (n)
			o.push_back(acc & 255);
		acc = 0;
		n = 0;
	}
};

struct gzcase {
	std::vector<uint8_t> buf;	/* the member as the host has it (and bytes after) */
	size_t start, len;		/* what nvCOMP gets: buf[start, start + len) */
	size_t cap;			/* its output buffer */
	uint32_t want_crc, want_size;	/* what the host's trailer says */
};

/* fuzz_case: case i of member g (its bytes at p, avail bytes from there to
 * the end of the file) into c; false where the case does not apply. */
static bool fuzz_case(int i, const uint8_t *p, uint64_t avail, const gw_member &g, gzcase &c,
		      char *label, size_t lsize)
{
	uint64_t s = 0x5EEDull * (i + 1);
	size_t n = g.csize, h = g.hlen, extra = std::min<uint64_t>(4096, avail - n);
	size_t body = n - h - GW_TRAILER;
	bool gz = api == API_GZIP;

	c.buf.assign(p, p + n + extra);
	c.start = gz ? 0 : h;
	c.len = gz ? n : body;
	c.cap = g.isize;
	c.want_crc = g.crc;
	c.want_size = g.isize;
	if (i == 0) {
		snprintf(label, lsize, "intact (control)");
	} else if (i <= 12) {
		int bits = i <= 8 ? 1 : 64;
		for (int k = 0; k < bits; k++)
			c.buf[h + mix(&s) % body] ^= 1 << (mix(&s) & 7);
		snprintf(label, lsize, "%d bit%s flipped in the deflate data", bits, bits > 1 ? "s" : "");
	} else if (i <= 15) {
		size_t at = h + mix(&s) % 3;
		c.buf[at] ^= 1 << (mix(&s) & 7);
		snprintf(label, lsize, "a bit flipped in deflate byte %zu", at - h);
	} else if (i == 16) {
		if (!gz)
			return false;
		size_t at = mix(&s) % 10;
		c.buf[at] ^= 1 << (mix(&s) & 7);
		snprintf(label, lsize, "a bit flipped in gzip header byte %zu", at);
	} else if (i == 17) {
		c.buf[n - 8 + mix(&s) % 4] ^= 1 << (mix(&s) & 7);
		c.want_crc = gw_le32(&c.buf[n - 8]);
		snprintf(label, lsize, "a bit flipped in the CRC32");
	} else if (i == 18) {
		c.buf[n - 4 + mix(&s) % 2] ^= 1 << (mix(&s) & 7);
		c.want_size = gw_le32(&c.buf[n - 4]);
		c.cap = c.want_size;	/* the host sizes the output by it */
		snprintf(label, lsize, "a bit flipped in ISIZE (says %u)", c.want_size);
	} else if (i <= 22) {
		static const int cut[4] = { 1, 4, -2, -7 };	/* bytes off; -2: keep half, -7: keep 7 */
		int k = cut[i - 19];
		c.len = k > 0 ? c.len - k : k == -2 ? c.len / 2 : 7;
		snprintf(label, lsize, "truncated to %zu of %zu bytes", c.len, gz ? n : body);
	} else if (i == 23) {
		c.len += extra;
		snprintf(label, lsize, "size says %zu more bytes (the next)", extra);
	} else if (i == 24 || i == 25) {
		c.cap = i == 24 ? g.isize / 2 : g.isize - 1;
		snprintf(label, lsize, "output buffer %s", i == 24 ? "half the content" : "1 byte short");
	} else if (i == 26 || i == 27) {
		size_t w = std::min<size_t>(8192, body), at = h + (body - w) / 2;
		for (size_t k = 0; k < w; k++)
			c.buf[at + k] = i == 26 ? 0 : mix(&s);
		snprintf(label, lsize, "8 KiB %s mid-member", i == 26 ? "zeroed" : "random");
	} else if (i <= 29) {
		for (size_t k = h + 3; k < n - GW_TRAILER; k++)
			c.buf[k] = mix(&s);
		snprintf(label, lsize, "random deflate data after byte 3");
	} else {
		/* a deflate stream of our own between the header and the trailer */
		std::vector<uint8_t> d;
		bitw w = { d, 0, 0 };
		if (i == 30 || i == 31) {
			size_t len = 65535, have = i == 30 ? 64 : len;
			d.push_back(1);		/* BFINAL, stored */
			d.push_back(len & 255);
			d.push_back(len >> 8);
			d.push_back(~len & 255);
			d.push_back(~len >> 8 & 255);
			for (size_t k = 0; k < have; k++)
				d.push_back(mix(&s));
			c.cap = std::min<size_t>(g.isize, len - 1000);
			snprintf(label, lsize, i == 30 ? "stored block of 65535 bytes, 64 given" :
				 "stored block of 65535 bytes, output %zu", c.cap);
		} else if (i == 32) {
			w.put(1, 1);
			w.put(1, 2);		/* fixed Huffman */
			w.lit(257);		/* length 3 */
			w.huff(29, 5);		/* distance 24577 + 13 bits */
			w.put(8191, 13);	/* = 32768, before the first byte */
			w.lit(256);
			w.flush();
			snprintf(label, lsize, "a match 32768 bytes before the first");
		} else {
			w.put(1, 1);
			w.put(1, 2);
			w.lit('a');
			for (int k = 0; k < 300; k++) {
				w.lit(285);	/* length 258 */
				w.huff(0, 5);	/* distance 1 */
			}
			w.lit(256);
			w.flush();
			c.cap = std::min<size_t>(g.isize, 32768);
			snprintf(label, lsize, "77401 bytes of matches, output %zu", c.cap);
		}
		std::vector<uint8_t> m(p, p + h);
		m.insert(m.end(), d.begin(), d.end());
		m.insert(m.end(), p + n - GW_TRAILER, p + n);
		c.buf = m;
		c.len = gz ? m.size() : d.size();
	}
	return true;
}

static void fuzz_child(const uint8_t *map, long v, int start, int wfd, int timeout)
{
	FILE *o = fdopen(wfd, "w");
	setvbuf(o, NULL, _IOLBF, 0);
	load();
	const gw_member &g = mem[v];
	const uint8_t *p = map + g.off;
	char msg[96];
	size_t outalloc = (size_t)g.isize + 65536;
	std::vector<uint8_t> truth(g.isize + 1), cpu(outalloc + 1), got(outalloc + GZ_GUARD);
	long tn = zrun(p + g.hlen, g.csize - g.hlen - GW_TRAILER, truth.data(), g.isize, -15, msg,
		       sizeof(msg));
	if (tn != (long)g.isize) {
		fprintf(o, "fatal member %ld does not decode with zlib: %s\n", v, msg);
		exit(3);
	}
	uint8_t *d_in, *d_out;
	void *d_temp, **d_args, *d_res;
	cudaStream_t s;
	CK(cudaStreamCreate(&s));
	CK(cudaMalloc(&d_in, g.csize + 70000 + 8192));
	CK(cudaMalloc(&d_out, outalloc + GZ_GUARD));
	size_t temp = temp_size(1, outalloc, outalloc, s);
	CK(cudaMalloc(&d_temp, temp ? temp : 1));
	CK(cudaMalloc(&d_args, 4 * sizeof(void *)));
	CK(cudaMalloc(&d_res, 64));
	crc_setup(1, outalloc);
	for (int i = start; i < GZ_NCASES; i++) {
		char label[128], lz[96], nvt[128];
		gzcase c;
		if (!fuzz_case(i, p, fsize - g.off, g, c, label, sizeof(label)))
			continue;
		fprintf(o, "begin %d %s\n", i, label);
		alarm(timeout);
		long cr = api == API_GZIP ? zrun(c.buf.data(), c.len, cpu.data(), c.cap, 31, msg, sizeof(msg)) :
			  zrun(c.buf.data() + c.start, c.len, cpu.data(), c.cap, -15, msg, sizeof(msg));
		bool cpu_ok = cr >= 0 && (size_t)cr == c.want_size &&
			      (uint32_t)crc32(0, cpu.data(), (uInt)cr) == c.want_crc;
		snprintf(lz, sizeof(lz), "%s", cr < 0 ? msg : !cpu_ok ? "size or CRC32 differs" :
			 cr == tn && !memcmp(cpu.data(), truth.data(), tn) ? "ok" : "ok, other bytes");

		double t0 = now();
		void *args[4] = { d_in, (void *)c.len, d_out, (void *)c.cap };
		size_t res[8];
		CK(cudaMemcpyAsync(d_in, c.buf.data() + c.start, c.len, cudaMemcpyHostToDevice, s));
		CK(cudaMemcpyAsync(d_args, args, sizeof(args), cudaMemcpyHostToDevice, s));
		CK(cudaMemsetAsync(d_out, 0xA5, outalloc + GZ_GUARD, s));
		CK(cudaMemsetAsync(d_res, 0xFF, 64, s));
		size_t *d_act = (size_t *)d_res;
		nvcompStatus_t *d_st = (nvcompStatus_t *)(d_act + 2);
		uint32_t *d_crc = (uint32_t *)(d_act + 3);
		nvcompStatus_t ds = decode(d_args, (size_t *)(d_args + 1), (size_t *)(d_args + 3), d_act, 1,
					   d_temp, temp, d_args + 2, d_st, s);
		if (ds == nvcompSuccess)
			ds = fn.crc(d_args + 2, (size_t *)(d_args + 3), 1, d_crc, copts,
				    nvcompCRC32OnlySegment, NULL, s);
		cudaError_t e = cudaStreamSynchronize(s);
		double dt = now() - t0;
		if (e == cudaSuccess)
			e = cudaMemcpy(res, d_res, 64, cudaMemcpyDeviceToHost);
		if (e == cudaSuccess)
			e = cudaMemcpy(got.data(), d_out, outalloc + GZ_GUARD, cudaMemcpyDeviceToHost);
		if (e != cudaSuccess) {
			fprintf(o, "end %d %s\tCUDA error: %s\tFAULT (context lost)\n", i, lz,
				cudaGetErrorString(e));
			exit(3);
		}
		alarm(0);
		nvcompStatus_t st;
		memcpy(&st, &res[2], sizeof(st));
		size_t act = res[0];
		uint32_t crc = (uint32_t)res[3];
		bool guard_ok = true;
		for (size_t k = c.cap; k < outalloc + GZ_GUARD; k++)
			if (got[k] != 0xA5) {
				guard_ok = false;
				break;
			}
		if (ds)
			snprintf(nvt, sizeof(nvt), "launch: %s", nv->status_string(ds));
		else if (st != nvcompSuccess)
			snprintf(nvt, sizeof(nvt), "status: %s (%.2f s)", nv->status_string(st), dt);
		else
			snprintf(nvt, sizeof(nvt), "ok, %zu bytes (%.2f s)", act, dt);
		bool right = (long)act == tn && act <= c.cap && !memcmp(got.data(), truth.data(), tn);
		bool as_zlib = cpu_ok && act == (size_t)cr && !memcmp(got.data(), cpu.data(), act);
		bool trusted = !ds && st == nvcompSuccess && act == c.want_size && act <= c.cap &&
			       crc == c.want_crc;
		const char *verdict = !guard_ok ? "UNSAFE: wrote past its output buffer" :
				      ds || st != nvcompSuccess ? "safe: nvCOMP error" :
				      !trusted ? (right ? "safe: size or CRC32 differs (output right)" :
						  "safe: size or CRC32 differs") :
				      right ? "safe: output right" : as_zlib ? "safe: as zlib" :
				      "UNSAFE: wrong output, CRC32 matches";
		fprintf(o, "end %d %s\t%s\t%s\n", i, lz, nvt, verdict);
	}
	exit(0);
}

/* fuzz_dry: the cases and zlib's answer to each, no GPU (--fuzz-dry: a
 * check of the cases themselves, on any machine). */
static int fuzz_dry(const uint8_t *map, long v)
{
	const gw_member &g = mem[v];
	std::vector<uint8_t> out((size_t)g.isize + 65536 + 1);
	char label[128], msg[96];
	for (int i = 0; i < GZ_NCASES; i++) {
		gzcase c;
		if (!fuzz_case(i, map + g.off, fsize - g.off, g, c, label, sizeof(label)))
			continue;
		long cr = api == API_GZIP ? zrun(c.buf.data(), c.len, out.data(), c.cap, 31, msg, sizeof(msg)) :
			  zrun(c.buf.data() + c.start, c.len, out.data(), c.cap, -15, msg, sizeof(msg));
		bool ok = cr >= 0 && (size_t)cr == c.want_size &&
			  (uint32_t)crc32(0, out.data(), (uInt)cr) == c.want_crc;
		printf("%-2d %-44s | %zu bytes from %zu, output %zu | zlib %s (%ld)%s\n", i, label, c.len,
		       c.start, c.cap, msg, cr, cr >= 0 && !ok ? ", size or CRC32 differs" : "");
	}
	return 0;
}

static int fuzz(const uint8_t *map, int timeout, bool dry)
{
	long v = -1;
	for (long i = nmem > 2 ? 1 : 0; i < nmem && v < 0; i++)	/* one with bytes after it */
		if (mem[i].isize)
			v = i;
	if (v < 0) {
		fprintf(stderr, "nvcomp_gz_probe: no member to fuzz\n");
		return 2;
	}
	if (dry)
		return fuzz_dry(map, v);
	int start = 0, unsafe = 0, faults = 0, hangs = 0, safe = 0;
	char crccase[160] = "not run";
	printf("fuzz: member %ld (%llu bytes, header %u, content %u), api %s, %d cases, %d s each\n", v,
	       (unsigned long long)mem[v].csize, mem[v].hlen, mem[v].isize,
	       api == API_GZIP ? (gopts.algorithm ? "gzip (lookahead)" : "gzip (naive)") : "deflate",
	       GZ_NCASES, timeout);
	printf("%-2s %-44s | %-24s | %-40s | %s\n", "#", "case", "zlib", "nvCOMP", "verdict");
	fflush(stdout);
	while (start < GZ_NCASES) {
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
				char *f[3] = { line + off };
				for (int k = 1; k < 3; k++) {
					f[k] = strchr(f[k - 1], '\t');
					f[k] = f[k] ? (*f[k] = 0, f[k] + 1) : (char *)"";
				}
				printf("%-2d %-44s | %-24s | %-40s | %s\n", i, label, f[0], f[1], f[2]);
				fflush(stdout);
				unsafe += !strncmp(f[2], "UNSAFE", 6);
				faults += !strncmp(f[2], "FAULT", 5);
				safe += !strncmp(f[2], "safe", 4);
				if (i == 17)
					snprintf(crccase, sizeof(crccase), "%s", f[1]);
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
			printf("%-2d %-44s | %-24s | %-40s | %s\n", cur, label, "", why,
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
	printf("CRC32: a flipped trailer CRC32 gives nvCOMP \"%s\"; %s\n", crccase,
	       api == API_DEFLATE ? "(the deflate API never sees the trailer: we check it)" :
	       !strncmp(crccase, "ok", 2) ? "its gzip decoder does not check it: we must" :
	       !strncmp(crccase, "status", 6) ? "its gzip decoder reports it" : "unknown");
	return unsafe || faults || hangs ? 1 : 0;
}
