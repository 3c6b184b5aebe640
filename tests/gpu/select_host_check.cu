/*
 * select_host_check.cu - quantile's GPU passes (cuda/select_kernels.cu),
 * replayed on the host against src/cpu/cpu_select.c. What a thread does is
 * select_kernels.cuh's __host__ __device__ code; this file plays the
 * launches around it: the device accumulator and its tables as init_dev
 * lays them out (select_dev_of), pieces of a chunk, blocks and warps in a
 * shuffled order (the GPU runs them in any), each warp's trips with its
 * lanes' slots grouped as __match_any_sync groups them (the lowest lane
 * adds the group; a collect's group takes consecutive places in lane
 * order), a block's shared counters flushed from nan[] on, block 0 adding
 * the records, chunks round-robin over streams, then select_merge_host's
 * merge (the CPU's own) into an accumulator from acc_init.
 *
 *   1. keys: select_key_of<T>::key against cpu_select.c's select_key, every
 *      8/16-bit pattern and random and special 32/64-bit ones;
 *   2. select passes: every type, first passes of every digit width (4 to
 *      16 bits; mode's whole 8/16-bit key), later passes with prefixes
 *      taken from the data and made up, narrow and wide digits, 1 to 9
 *      columns (some with no prefixes), shared and global counting, many
 *      grids, chunkings and streams: the accumulator must equal one
 *      cpu_add over the whole input, every word;
 *   3. collect passes (32/64-bit types): counts, NaNs and fills equal, and
 *      each bucket's keys, sorted, equal the CPU's (a bucket with less room
 *      than keys, an input that changed, only by its fill).
 *
 * Build and run from the repository root, after make:
 *   sh tests/gpu/select_host_check.sh
 * The last line reads "select_host_check: N checks, F failed" (exit 1 if F).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>
/* the replay's lambdas are host code that select_walk, __host__
 * __device__, calls: host-only here, as meant */
#pragma nv_diag_suppress 20013
#include "select_kernels.cuh"

typedef unsigned long long u64;

static u64 checks, fails;

#define EXPECT(cond, ...) do {                                            \
	checks++;                                                         \
	if (!(cond) && fails++ < 30) {                                    \
		printf("FAIL %s:%d: ", __FILE__, __LINE__);               \
		printf(__VA_ARGS__);                                      \
		printf("\n");                                             \
	}                                                                 \
} while (0)

static u64 rng_state = 0x9e3779b97f4a7c15ull;

static u64 rnd(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static u64 below(u64 n)
{
	return n ? rnd() % n : 0;
}

static const enum gs_type all_types[] = {
	GS_U8, GS_I8, GS_U16, GS_I16, GS_U32, GS_I32, GS_U64, GS_I64,
	GS_F16, GS_BF16, GS_F32, GS_F64,
};

/* ---- data ----------------------------------------------------------------- */

/* An element's bits of w bytes: random, or a float's edges (zeros, inf,
 * NaNs quiet and signalling, subnormals, the largest), or one of a few
 * values (runs of equal keys, one bucket). */
static u64 special_bits(unsigned w)
{
	unsigned mb = w == 2 ? 10 : w == 4 ? 23 : 52;	/* f16's; bf16 below */
	unsigned eb = w * 8 - 1 - mb;
	u64 s = 1ull << (w * 8 - 1), e = ((1ull << eb) - 1) << mb;
	u64 m = (1ull << mb) - 1;
	u64 v[] = { 0, s, e, e | s, e | 1, e | m | s, e | (m >> 1) + 1, 1, m,
		    s | 1, e - 1, (e - 1) | s, 1ull << mb, s | m };

	return v[below(sizeof(v) / sizeof(v[0]))];
}

static std::vector<unsigned char> make_data(enum gs_type t, size_t nelem,
					    int kind)
{
	unsigned w = (unsigned)type_size(t);
	std::vector<unsigned char> d(nelem * w);
	u64 few[4] = { rnd(), rnd(), rnd(), rnd() };

	for (size_t i = 0; i < nelem; i++) {
		u64 b = rnd();

		if (kind == 1 && w > 1 && below(3) == 0)
			b = special_bits(w);
		else if (kind == 1 && t == GS_BF16 && below(3) == 0)
			b = (u64)(uint16_t)(special_bits(4) >> 16);
		else if (kind == 2)
			b = few[below(4)];
		else if (kind == 3)
			b = few[0] ^ below(1u << 10);	/* one region */
		else if (kind == 4)	/* u64's and i64's key 2^64 - 1 */
			b = below(3) ? few[below(2)] : below(2) ? ~0ull
							       : ~0ull >> 1;
		memcpy(&d[i * w], &b, w);	/* little-endian: the low bytes */
	}
	return d;
}

/* ---- a pass's plan ---------------------------------------------------------- */

struct plan_box {
	struct select_plan pl;
	std::vector<uint64_t> prefix, first_of, coff;
	struct gs_job job;
};

/* The keys of column k of data, by cpu_select.c's select_key. */
static std::vector<uint64_t> column_keys(const struct gs_job *job,
					 const std::vector<unsigned char> &d,
					 unsigned k)
{
	size_t w = type_size(job->dtype.type), n = d.size() / w;
	std::vector<uint64_t> keys;
	uint64_t key;

	for (size_t e = k; e < n; e += job->columns)
		if (select_key(job->dtype.type, &d[e * w], &key))
			keys.push_back(key);
	return keys;
}

/* Prefixes of `bits` bits for each column: some of its keys', some made
 * up, sorted and distinct; a column may have none. coff: how many keys of
 * each bucket the data holds (room), less one or more sometimes. */
static void make_plan(struct plan_box &b, const std::vector<unsigned char> &d,
		      unsigned known, unsigned digit, bool collect)
{
	struct select_plan &pl = b.pl;
	unsigned kb = select_key_bits(b.job.dtype.type), C = b.job.columns;

	memset(&pl, 0, sizeof(pl));
	pl.key_bits = kb;
	pl.first = known == 0;
	pl.digit_bits = collect ? 0 : digit;
	pl.shift = kb - known - pl.digit_bits;
	b.prefix.clear();
	b.first_of.assign(1, 0);
	b.coff.assign(1, 0);
	for (unsigned k = 0; k < C && !pl.first; k++) {
		std::vector<uint64_t> keys = column_keys(&b.job, d, k), mine;
		unsigned want = (unsigned)below(6);
		uint64_t top = known == 64 ? ~0ull : (1ull << known) - 1;

		for (unsigned i = 0; i < want; i++)
			mine.push_back(keys.size() && below(4)
				       ? keys[below(keys.size())] >> (kb - known)
				       : rnd() & top);
		std::sort(mine.begin(), mine.end());
		mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
		for (uint64_t p : mine) {
			uint64_t in = 0;

			for (uint64_t key : keys)
				in += key >> (kb - known) == p;
			if (in && below(5) == 0)
				in -= 1 + below(in);	/* too little room */
			else if (below(5) == 0)
				in += below(3);
			b.prefix.push_back(p);
			b.coff.push_back(b.coff.back() + in);
		}
		b.first_of.push_back(b.prefix.size());
	}
	pl.nhist = pl.first ? C : b.prefix.size();
	pl.prefix = b.prefix.data();
	pl.first_of = b.first_of.data();
	pl.coff = b.coff.data();
	b.job.select = &pl;
	b.job.cmd = collect ? CMD_COLLECT : CMD_SELECT;
}

/* The CPU's kernels of the pass, and one cpu_add over the whole input. */
static const struct acc_kernels *kernels_of(const struct gs_job *job)
{
	return job->cmd == CMD_COLLECT ? &collect_kernels :
	       job->cmd == CMD_MODECOUNT ? &mode_kernels : &select_kernels;
}

static std::vector<uint64_t> cpu_run(const struct gs_job *job,
				     const std::vector<unsigned char> &d)
{
	const struct acc_kernels *ak = kernels_of(job);
	std::vector<uint64_t> acc(ak->acc_size(job) / 8);

	ak->acc_init(job, acc.data());
	ak->cpu_add(job, acc.data(), NULL, d.data(), NULL,
		    d.size() / job_record_size(job));
	return acc;
}

/* ---- the launches, replayed ------------------------------------------------ */

struct grid {
	unsigned blocks, threads;
	bool shared;		/* a select's shared counters, where they fit */
	size_t piece;		/* records per launch */
};

/* One warp's trips: each lane's slots (and keys) in trip order. */
template <typename K>
static void warp_slots(const struct select_dev &dv, bool collect,
		       const typename K::raw *p, size_t nelem, size_t t0,
		       size_t stride, std::vector<uint64_t> *slot,
		       std::vector<uint64_t> *key)
{
	for (unsigned lane = 0; lane < 32; lane++) {
		slot[lane].clear();
		key[lane].clear();
		select_walk(nelem, dv.columns, t0 + lane, stride,
			    [&](size_t e, unsigned col, bool live) {
				    uint64_t k = 0, s = SELECT_NO_SLOT;

				    if (live && collect)
					    s = collect_slot<K>(dv, p[e], col, &k);
				    else if (live)
					    s = select_slot<K>(dv, p[e], col);
				    slot[lane].push_back(s);
				    key[lane].push_back(k);
			    });
	}
}

/* One trip of a warp: a shared counter per lane; else each group of
 * equal slots (its lowest lane) adds its size to the counter, and a
 * collect's lanes take the counter's old value on, in lane order. */
static void replay_trip(const struct select_dev &dv, bool collect,
			uint64_t *acc, std::vector<uint32_t> &sh, size_t trip,
			const std::vector<uint64_t> *slot,
			const std::vector<uint64_t> *key)
{
	for (unsigned lane = 0; lane < 32; lane++) {
		uint64_t s = slot[lane][trip], at;
		bool leader = true;

		for (unsigned o = 0; o < lane; o++)
			leader &= slot[o][trip] != s;
		if (s == SELECT_NO_SLOT)
			continue;
		if (sh.size()) {
			sh[s]++;
			continue;
		}
		if (!leader)
			continue;
		at = acc[s];
		for (unsigned o = lane; o < 32; o++)
			if (slot[o][trip] == s) {
				acc[s]++;
				if (collect)
					collect_store(dv, acc, s, at++, key[o][trip]);
			}
	}
}

/* One launch of a piece of m records at p into the device accumulator
 * acc, as select_launch_t's kernels do it. */
template <typename K>
static void replay_launch(const struct gs_job *job, uint64_t *acc,
			  const typename K::raw *p, size_t m, const grid &g)
{
	struct select_dev dv = select_dev_of(job, acc);
	bool collect = job->cmd == CMD_COLLECT;
	unsigned C = job->columns, nslots = g.shared ? select_shared_slots(job) : 0;
	size_t nelem = m * C, stride = (size_t)g.blocks * g.threads;
	unsigned warps = g.threads / 32;
	std::vector<unsigned> order(g.blocks);
	std::vector<uint64_t> slot[32], key[32];

	for (unsigned k = 0; k < C; k++)	/* block 0's add_records */
		acc[k] += m;
	for (unsigned b = 0; b < g.blocks; b++) {	/* any order */
		unsigned o = (unsigned)below(b + 1);

		order[b] = order[o];
		order[o] = b;
	}
	for (unsigned b : order) {
		std::vector<uint32_t> sh(nslots, 0);

		for (unsigned w = 0; w < warps; w++) {
			warp_slots<K>(dv, collect, p, nelem,
				      (size_t)b * g.threads + 32 * w, stride,
				      slot, key);
			for (size_t trip = 0; trip < slot[0].size(); trip++)
				replay_trip(dv, collect, acc, sh, trip, slot, key);
		}
		for (unsigned s = C; s < nslots; s++)
			acc[s] += sh[s];
	}
}

/* A whole run: chunks of `chunk` records round-robin over `streams` device
 * accumulators (each laid out by init_dev), launched in pieces; then each
 * merged into an accumulator from acc_init. */
template <typename T>
static std::vector<uint64_t> replay_run(const struct gs_job *job,
					const std::vector<unsigned char> &d,
					size_t chunk, unsigned streams,
					const grid &g)
{
	typedef select_key_of<T> K;
	typedef typename K::raw R;
	const struct acc_kernels *ak = kernels_of(job);
	size_t words = select_host_acc_bytes(job) / 8;
	size_t nrec = d.size() / sizeof(R) / job->columns;
	std::vector<std::vector<uint64_t>> dacc(streams);
	std::vector<uint64_t> acc(words);
	std::vector<R> data(d.size() / sizeof(R));
	struct select_table_part part[3];
	unsigned np = select_table_parts(job, part);

	memcpy(data.data(), d.data(), d.size());
	for (auto &a : dacc) {	/* select_init_dev */
		a.assign(words + select_table_words(job), 0);
		uint64_t *t = a.data() + words;

		for (unsigned i = 0; i < np; t += part[i].words, i++)
			if (part[i].words)
				memcpy(t, part[i].src, part[i].words * 8);
	}
	for (size_t r0 = 0, c = 0; r0 < nrec; r0 += chunk, c++) {
		size_t n = std::min(chunk, nrec - r0);

		for (size_t q = 0; q < n; q += g.piece)
			replay_launch<K>(job, dacc[c % streams].data(),
					 data.data() + (r0 + q) * job->columns,
					 std::min(g.piece, n - q), g);
	}
	ak->acc_init(job, acc.data());
	for (auto &a : dacc)
		select_merge(job, acc.data(), a.data());
	return acc;
}

/* ---- mode's tables, replayed ------------------------------------------------- */

/* One launch of mode's kernel: each trip's groups of lanes of one column
 * and key (or NaN) add their size once, through mode_dev_insert. */
template <typename K>
static void replay_mode_launch(const struct gs_job *job, uint64_t *acc,
			       const typename K::raw *p, size_t m, const grid &g)
{
	struct mode_dev d = mode_dev_of(job, acc);
	unsigned C = job->columns;
	size_t nelem = m * C, stride = (size_t)g.blocks * g.threads;
	std::vector<unsigned> order(g.blocks);
	std::vector<uint64_t> key[32], what[32];	/* what: col * 4 + kind */

	for (unsigned k = 0; k < C; k++)
		((struct mode_col *)(d.acc + k * d.col_bytes))->count += m;
	for (unsigned b = 0; b < g.blocks; b++) {
		unsigned o = (unsigned)below(b + 1);

		order[b] = order[o];
		order[o] = b;
	}
	for (unsigned b : order)
		for (unsigned w = 0; w < g.threads / 32; w++) {
			for (unsigned lane = 0; lane < 32; lane++) {
				key[lane].clear();
				what[lane].clear();
				select_walk(nelem, C, (size_t)b * g.threads + 32 * w + lane,
					    stride, [&](size_t e, unsigned col, bool live) {
					uint64_t k = 0;
					unsigned kind = !live ? 0 : K::key(p[e], &k) ? 2 : 1;

					key[lane].push_back(k);
					what[lane].push_back((uint64_t)col * 4 + kind);
				});
			}
			for (size_t trip = 0; trip < key[0].size(); trip++)
				for (unsigned lane = 0; lane < 32; lane++) {
					uint64_t k = key[lane][trip], wh = what[lane][trip];
					unsigned n = 0, lead = 32;

					for (unsigned o = 0; o < 32; o++)
						if (key[o][trip] == k && what[o][trip] == wh) {
							n++;
							lead = lead < 32 ? lead : o;
						}
					if (wh % 4 == 0 || lead != lane)
						continue;
					if (wh % 4 == 1)
						((struct mode_col *)(d.acc + wh / 4 *
							d.col_bytes))->nan += n;
					else
						mode_dev_insert(d, (unsigned)(wh / 4), k, n);
				}
		}
}

/* A whole mode run over streams, each table made as init_dev makes it. */
template <typename T>
static std::vector<uint64_t> replay_mode_run(const struct gs_job *job,
					     const std::vector<unsigned char> &d,
					     size_t chunk, unsigned streams,
					     const grid &g)
{
	typedef select_key_of<T> K;
	typedef typename K::raw R;
	size_t bytes = mode_kernels.acc_size(job) + job->columns * (size_t)8;
	size_t nrec = d.size() / sizeof(R) / job->columns;
	std::vector<std::vector<uint64_t>> dacc(streams);
	std::vector<uint64_t> acc(mode_kernels.acc_size(job) / 8);
	std::vector<R> data(d.size() / sizeof(R));

	memcpy(data.data(), d.data(), d.size());
	for (auto &a : dacc) {	/* zeroes, then mode_free_kernel */
		a.assign(bytes / 8, 0);
		struct mode_dev md = mode_dev_of(job, a.data());

		for (unsigned k = 0; k < job->columns; k++)
			for (uint64_t i = 0; i < md.cap; i++)
				((struct mode_slot *)(md.acc + k * md.col_bytes +
					sizeof(struct mode_col)))[i].key = MODE_FREE;
	}
	for (size_t r0 = 0, c = 0; r0 < nrec; r0 += chunk, c++)
		replay_mode_launch<K>(job, dacc[c % streams].data(),
				      data.data() + r0 * job->columns,
				      std::min(chunk, nrec - r0), g);
	mode_kernels.acc_init(job, acc.data());
	for (auto &a : dacc)
		select_merge(job, acc.data(), a.data());
	return acc;
}

/* The same counts, NaNs and refusal (full) per column, and where not
 * refused the same (key, count) pairs. */
static bool same_mode(const struct gs_job *job, std::vector<uint64_t> &a,
		      std::vector<uint64_t> &b)
{
	for (unsigned k = 0; k < job->columns; k++) {
		struct mode_col *x = mode_col(a.data(), job, k);
		struct mode_col *y = mode_col(b.data(), job, k);
		std::vector<std::pair<uint64_t, uint64_t>> px, py;

		if (x->count != y->count || x->nan != y->nan ||
		    !x->full != !y->full)
			return false;
		for (uint64_t i = 0; i < job->select->cap && !x->full; i++) {
			if (mode_slots(x)[i].count)
				px.push_back({ mode_slots(x)[i].key, mode_slots(x)[i].count });
			if (mode_slots(y)[i].count)
				py.push_back({ mode_slots(y)[i].key, mode_slots(y)[i].count });
		}
		std::sort(px.begin(), px.end());
		std::sort(py.begin(), py.end());
		if (px != py)
			return false;
	}
	return true;
}

/* Mode of a 32/64-bit input: small tables (refused columns), and tables
 * sized as cmd_mode.c sizes them, over every grid. */
template <typename T>
static void check_mode(enum gs_type t, unsigned C, size_t nrec, int kind)
{
	static const grid grids[] = {
		{ 1, 32, false, 0 }, { 3, 64, false, 0 }, { 7, 256, false, 0 },
	};
	std::vector<unsigned char> d = make_data(t, nrec * C, kind);
	struct select_plan pl;
	struct gs_job job = {};
	uint64_t caps[3] = { 64, 1024, 1024 };

	while (caps[2] < nrec / 3 * 4 + 2)
		caps[2] <<= 1;
	job.cmd = CMD_MODECOUNT;
	job.dtype.type = t;
	job.columns = C;
	job.select = &pl;
	for (uint64_t cap : caps) {
		memset(&pl, 0, sizeof(pl));
		pl.key_bits = select_key_bits(t);
		pl.cap = cap;
		std::vector<uint64_t> want = cpu_run(&job, d);

		for (const grid &g : grids) {
			size_t chunk = 1 + below(nrec + 1);
			unsigned streams = 1 + (unsigned)below(3);
			std::vector<uint64_t> got = replay_mode_run<T>(&job, d, chunk,
								       streams, g);

			EXPECT(same_mode(&job, got, want), "mode %s, %u columns, %zu "
			       "records, kind %d, cap %llu; %u blocks of %u, chunk "
			       "%zu, %u streams", type_name(t), C, nrec, kind,
			       (unsigned long long)cap, g.blocks, g.threads, chunk,
			       streams);
		}
	}
}

/* ---- the comparisons ------------------------------------------------------- */

static bool same_collect(const struct gs_job *job, std::vector<uint64_t> &a,
			 std::vector<uint64_t> &b)
{
	const struct select_plan *pl = job->select;
	size_t head = 2 * (size_t)job->columns + pl->nhist;

	if (memcmp(a.data(), b.data(), head * 8))
		return false;
	for (uint64_t h = 0; h < pl->nhist; h++) {
		uint64_t room = pl->coff[h + 1] - pl->coff[h];
		uint64_t *x = &a[head + pl->coff[h]], *y = &b[head + pl->coff[h]];

		if (a[2 * job->columns + h] > room)
			continue;	/* which keys stayed depends on order */
		std::sort(x, x + a[2 * job->columns + h]);
		std::sort(y, y + a[2 * job->columns + h]);
		if (!std::equal(x, x + a[2 * job->columns + h], y))
			return false;
	}
	return true;
}

static const char *what_of(const struct gs_job *job)
{
	return job->cmd == CMD_COLLECT ? "collect" : "select";
}

/* Every grid, chunking and stream count of one plan over d. */
template <typename T>
static void check_plan(const struct gs_job *job,
		       const std::vector<unsigned char> &d)
{
	static const grid grids[] = {
		{ 1, 32, false, (size_t)1 << 40 }, { 3, 64, true, (size_t)1 << 40 },
		{ 7, 256, false, 1000 }, { 5, 96, true, 333 },
		{ 16, 256, true, (size_t)1 << 40 }, { 2, 256, false, 7 },
	};
	std::vector<uint64_t> want = cpu_run(job, d);
	size_t nrec = d.size() / job_record_size(job);

	for (const grid &g : grids) {
		size_t chunk = below(3) == 0 ? nrec + 1 : 1 + below(nrec + 1);
		unsigned streams = 1 + (unsigned)below(3);
		std::vector<uint64_t> got = replay_run<T>(job, d, chunk, streams, g);
		bool same = job->cmd == CMD_COLLECT ? same_collect(job, got, want)
						    : got == want;

		EXPECT(same, "%s %s, %u columns, %zu records, digit %u shift %u "
		       "first %d, %llu buckets; %u blocks of %u, shared %d, "
		       "piece %zu, chunk %zu, %u streams", what_of(job),
		       type_name(job->dtype.type), job->columns, nrec,
		       job->select->digit_bits, job->select->shift,
		       (int)job->select->first,
		       (unsigned long long)job->select->nhist, g.blocks,
		       g.threads, (int)g.shared, g.piece, chunk, streams);
	}
}

/* Plans of every kind over one input of type T. */
template <typename T>
static void check_input(enum gs_type t, unsigned C, size_t nrec, int kind)
{
	unsigned kb = select_key_bits(t);
	std::vector<unsigned char> d = make_data(t, nrec * C, kind);
	struct plan_box b;
	static const unsigned digits[] = { 4, 8, 12, 16 };

	b.job = {};
	b.job.dtype.type = t;
	b.job.columns = C;
	for (unsigned dg : digits) {
		if (dg > kb)
			continue;
		make_plan(b, d, 0, dg, false);	/* first passes */
		check_plan<T>(&b.job, d);
		for (unsigned known = 4; known + dg <= kb; known += 4 + 4 * (unsigned)below(3)) {
			make_plan(b, d, known, dg, false);
			check_plan<T>(&b.job, d);
		}
	}
	if (kb <= 16) {		/* mode: the whole key */
		make_plan(b, d, 0, kb, false);
		check_plan<T>(&b.job, d);
		return;
	}
	for (unsigned known = 4; known < kb; known += 4 + (unsigned)below(12)) {
		make_plan(b, d, known, 0, true);
		check_plan<T>(&b.job, d);
	}
}

/* ---- keys ------------------------------------------------------------------ */

template <typename T>
static void check_keys(enum gs_type t)
{
	typedef select_key_of<T> K;
	typedef typename K::raw R;
	unsigned w = (unsigned)type_size(t);
	u64 n = w <= 2 ? 1ull << (8 * w) : 200000, bad = 0;

	for (u64 i = 0; i < n; i++) {
		u64 b = w <= 2 ? i : below(2) ? rnd() : special_bits(w);
		R r;
		uint64_t k1 = 0, k2 = 0;

		memcpy(&r, &b, sizeof(r));
		bool a1 = K::key(r, &k1), a2 = select_key(t, &r, &k2);

		bad += a1 != a2 || (a1 && k1 != k2);
	}
	EXPECT(bad == 0, "keys of %s: %llu differ from select_key", type_name(t),
	       bad);
}

static const unsigned cols[] = { 1, 2, 3, 9 };
static const size_t sizes[] = { 0, 1, 31, 33, 1000, 4099 };

int main(void)
{
	for (enum gs_type t : all_types)
		dtype_dispatch(t, [&](auto tag) {
			check_keys<DTYPE_OF(tag)>(t);
			for (unsigned C : cols)
				for (size_t n : sizes)
					check_input<DTYPE_OF(tag)>(t, C, n,
						(int)below(4));
			check_input<DTYPE_OF(tag)>(t, 2, 30000, 1);
			for (unsigned C = 1; C <= 3 && type_size(t) >= 4; C++)
				for (size_t n : sizes)
					for (int kind = 0; kind < 5; kind++)
						check_mode<DTYPE_OF(tag)>(t, C, n, kind);
			return cudaSuccess;
		});
	printf("select_host_check: %llu checks, %llu failed\n", checks, fails);
	return fails != 0;
}
