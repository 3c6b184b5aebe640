/*
 * unit_groupdev.c - --by's device form (group_dev.h), run on the host: the
 * very fold the GPU runs (cuda/group_kernels.cu), one record at a time,
 * then the table read back through group_gpu_merge and group_absorb,
 * must give the state bytes (group_state_write) of the CPU's own fold
 * (cpu_group.c) of the same records:
 *  - keys of every integer type and of f16/f32/f64 (NaNs of several
 *    payloads, -0 and +0, infinities), one and two key columns;
 *  - values of every type at their edges: NaN, +-inf, -0, subnormals,
 *    integer extremes, the largest and smallest floats, with count, min
 *    and max, sums and sums of squares (cancellation across limbs);
 *  - the table's own arithmetic (no record spilled) and the spill: a
 *    table of 8 slots, and f64 values past its window, folded by the CPU;
 *  - a tenth of the records through the CPU first, as auto's hybrid does;
 *  - the table filled by 4 host threads at once (the same atomics, as
 *    the compiler's builtins): claims of slots and carries racing;
 *  - a spill area that overflows fails the accumulator, named by
 *    acc_error, rather than dropping records;
 *  - the run as the backend makes it: launches of pieces, the spill area
 *    drained into a host accumulator first where a piece could overflow
 *    it (group_gpu_drain, as launch_part), an area of 5 records and
 *    thousands of keys in tables of 8 and 16 slots, the drains folded on
 *    4 host threads; then the used slots compacted on 4 threads
 *    (gd_compact, as read_back), stale slots of an earlier read-back
 *    behind them, merged on 4 host threads.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "cpu_group.h"
#include "group_gpu.h"
#include "auto_plan.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* An element's bits of type t: edges, a few keys (nkeys > 0: one of that
 * many small values), or (wide) any bits. */
static uint64_t elem(enum gs_type t, unsigned nkeys, bool wide)
{
	static const uint64_t f64s[] = { 0, 1ull << 63, 0x7ff0000000000000ull,
		0xfff0000000000000ull, 0x7ff8000000000000ull,
		0xfff8000000000001ull, 1, 0x8000000000000001ull,
		0x3ff0000000000000ull, 0x7fefffffffffffffull,
		0xffefffffffffffffull, 0x3ff0000000000001ull,
		0xbcb0000000000000ull };
	static const uint32_t f32s[] = { 0, 1u << 31, 0x7f800000, 0xff800000,
		0x7fc00000, 0xffc00001, 1, 0x80000001, 0x3f800000, 0x7f7fffff,
		0xff7fffff, 0x3f800001, 0x33800000 };
	static const uint16_t f16s[] = { 0, 0x8000, 0x7c00, 0xfc00, 0x7e00,
		0xfe01, 1, 0x8001, 0x3c00, 0x7bff, 0xfbff, 0x3c01, 0x1400 };
	uint64_t r = rnd(), k = nkeys ? r % nkeys : 0;
	unsigned bits = (unsigned)type_size(t) * 8;
	int edge = rnd() % 4 == 0;
	double d;
	float f;

	if (nkeys && !edge) {
		switch (t) {
		case GS_F64: d = (double)k - 3.5; memcpy(&r, &d, 8); return r;
		case GS_F32: f = (float)k - 3.5f; memcpy(&r, &f, 4); return (uint32_t)r;
		case GS_F16: return 0x3c00 + k;
		case GS_BF16: return 0x3f80 + k;
		default: return k;
		}
	}
	switch (t) {
	case GS_F64:
		if (edge) {
			uint64_t x = f64s[r % 13], be = x >> 52 & 0x7ff;

			/* narrow: the subnormals and the largest out */
			return wide || be == 0x7ff || !(x << 1) ||
			       (be && be < 0x7fe) ? x : 0x3ff0000000000000ull;
		}
		if (!wide)	/* inside the device window: 2^-260..2^100 */
			r = (r & 0x800fffffffffffffull) |
			    (uint64_t)(1023 - 260 + rnd() % 360) << 52;
		return r;
	case GS_F32: return edge ? f32s[r % 13] : (uint32_t)r;
	case GS_F16: return edge ? f16s[r % 13] : (uint16_t)r;
	case GS_BF16: return edge ? f32s[r % 13] >> 16 : (uint16_t)r;
	default:
		if (edge)	/* 0, the extremes of both signs, 1 */
			r = (uint64_t[]){ 0, 1, ~0ull, 1ull << (bits - 1),
					  (1ull << (bits - 1)) - 1 }[r % 5];
		return bits == 64 ? r : r & ((1ull << bits) - 1);
	}
}

struct config {
	const char *types;	/* the record */
	unsigned nkeys, key[2], nvals, val[3];
	unsigned distinct;	/* keys drawn from so many small values; 0 any */
	bool wide;		/* f64 values past the device window */
	uint64_t slots;
};

/* Records folded by one of NTHREADS host threads, interleaved, into one
 * table: its claims and carries racing as the GPU's threads' do. */
#define NTHREADS 4
struct folder {
	unsigned char *buf;
	const unsigned char *data;
	size_t nrec, rs;
	unsigned id;
};

static void *fold_some(void *arg)
{
	struct folder *f = arg;

	for (size_t i = f->id; i < f->nrec; i += NTHREADS)
		gd_fold((struct gd_head *)f->buf, f->buf, f->data + i * f->rs);
	return NULL;
}

static void fold_threads(unsigned char *buf, const unsigned char *data,
			 size_t nrec, size_t rs)
{
	pthread_t th[NTHREADS];
	struct folder f[NTHREADS];
	bool started[NTHREADS];

	for (unsigned t = 0; t < NTHREADS; t++) {
		f[t] = (struct folder){ buf, data, nrec, rs, t };
		started[t] = !pthread_create(&th[t], NULL, fold_some, &f[t]);
		if (!started[t])
			fold_some(&f[t]);	/* no thread: fold here */
	}
	for (unsigned t = 0; t < NTHREADS; t++)
		if (started[t])
			pthread_join(th[t], NULL);
}

struct compactor {
	struct gd_head *h;
	const uint64_t *tab;
	uint64_t *out;
	unsigned id;
};

static void *compact_some(void *arg)
{
	struct compactor *c = arg;

	for (uint64_t i = c->id; i < c->h->slots; i += NTHREADS)
		gd_compact(c->h, c->tab, c->out, &c->h->used, i);
	return NULL;
}

/* The run as the backend makes it (cuda/group_kernels.cu): pieces of
 * chunk records at most, the spill area drained into a host accumulator
 * where a piece could overflow it; at the end the used slots compacted
 * on NTHREADS threads into a host copy whose slots past them are stale
 * (an earlier stream's), merged into *out, the host accumulator after.
 * How many drains it took. */
static unsigned run_backend(const struct gs_job *job, const struct gd_head *h0,
			    size_t bytes, const unsigned char *data,
			    size_t nrec, size_t chunk, struct group_acc *out)
{
	unsigned char *buf = calloc(1, bytes), *hb = calloc(1, bytes);
	struct gd_head *h = (struct gd_head *)buf, *hh = (struct gd_head *)hb;
	uint64_t *tab = (uint64_t *)(buf + h0->table_off);
	uint64_t *ct = (uint64_t *)(hb + h0->table_off);
	struct group_acc part;
	pthread_t th[NTHREADS];
	struct compactor c[NTHREADS];
	unsigned drains = 0;
	size_t rs = h0->rs;
	bool folded = true;

	memcpy(buf, h0, sizeof(*h0));
	group_kernels.acc_init(job, &part);
	for (size_t at = 0, n; at < nrec; at += n) {
		uint64_t sp;

		n = nrec - at < chunk ? nrec - at : chunk;
		n = n < h->spill_cap ? n : (size_t)h->spill_cap;
		if ((sp = group_gpu_drain(h, h->spilled, n))) {
			folded = group_gpu_fold_spill(job, &part,
						      buf + h->spill_off, sp) &&
				 folded;
			h->spilled = 0;
			drains++;
		}
		if (n < 256)	/* small pieces: threads cost more */
			for (size_t i = at; i < at + n; i++)
				gd_fold(h, buf, data + i * rs);
		else
			fold_threads(buf, data + at * rs, n, rs);
	}
	CHECK(folded);
	memcpy(hb, buf, sizeof(*h));
	for (unsigned t = 0; t < NTHREADS; t++) {
		c[t] = (struct compactor){ h, tab, ct, t };
		if (pthread_create(&th[t], NULL, compact_some, &c[t]))
			compact_some(&c[t]), th[t] = 0;
	}
	for (unsigned t = 0; t < NTHREADS; t++)
		if (th[t])
			pthread_join(th[t], NULL);
	CHECKF(h->used == h->keys, "compacted %llu slots of %llu keys",
	       (unsigned long long)h->used, (unsigned long long)h->keys);
	for (uint64_t i = h->used; h->used && i < h->used + 16 &&
				   i < h->slots; i++)
		memcpy(ct + i * h->sw, ct, h->sw * 8);	/* stale */
	hh->compact = 1;
	hh->used = h->keys;
	memcpy(hb + h->spill_off, buf + h->spill_off,
	       (h->spilled < h->spill_cap ? h->spilled : h->spill_cap) * rs);
	group_gpu_merge(job, out, hb);
	group_kernels.acc_merge(job, out, &part);
	group_kernels.acc_free(job, &part);
	free(buf);
	free(hb);
	return drains;
}

/* The end of a run, as the engine ends one: the accumulator merged into
 * the command's, which takes the run's shared table (cpu_group.c), so
 * the next accumulator folds into a table of its own. */
static void end_run(const struct gs_job *job, struct group_acc *a)
{
	struct group_acc r;

	group_kernels.acc_init(job, &r);
	group_kernels.acc_merge(job, &r, a);
	group_kernels.acc_free(job, a);
	*a = r;
}

struct into {
	unsigned char *p;
	size_t at, n;
};

static bool put_into(void *ctx, const void *p, size_t n)
{
	struct into *to = ctx;

	if (to->at + n > to->n)
		return false;
	memcpy(to->p + to->at, p, n);
	to->at += n;
	return true;
}

static size_t state_of(const struct gs_job *job, const struct group_acc *g,
		       unsigned char **p)
{
	size_t n = group_state_bytes(job, g);
	struct into to = { malloc(n ? n : 1), 0, n };
	struct gs_sink sink = { put_into, &to };

	*p = to.p;
	group_state_write(job, g, &sink);
	return to.at == n ? n : 0;	/* every byte the length said */
}

static void check(const struct config *c, enum gs_group_what what)
{
	struct gs_record r;
	size_t bad, badlen, nrec = 20000;
	struct gs_group gr = { c->nkeys, c->nvals, c->key, c->val, what,
			       1ull << 40, NULL, false };
	struct gs_job job;
	struct group_acc cpu, dev;
	struct gd_head h;
	unsigned char *data, *buf, *scratch, *a, *b;
	size_t bytes, na, nb;
	bool spills = (c->slots && c->slots < 64) || (c->wide &&
						      what >= GROUP_SUM);

	if (record_parse(c->types, &r, &bad, &badlen) < 0) {
		CHECKF(0, "%s: no record", c->types);
		return;
	}
	memset(&job, 0, sizeof(job));
	job.cmd = CMD_GROUP;
	job.columns = r.n;
	job.rec = &r;
	job.dtype = r.type[0];
	job.group = &gr;
	data = malloc(nrec * r.size);
	for (size_t i = 0; i < nrec; i++)
		for (unsigned k = 0; k < r.n; k++) {
			bool key = k == c->key[0] || (c->nkeys > 1 && k == c->key[1]);
			uint64_t e = elem(r.type[k].type, key ? c->distinct : 0,
					  c->wide);

			memcpy(data + i * r.size + r.off[k], &e,
			       type_size(r.type[k].type));
		}
	scratch = malloc(group_kernels.scratch_size(&job) + 1);
	group_kernels.acc_init(&job, &cpu);
	group_kernels.cpu_add(&job, &cpu, scratch, data, NULL, nrec);
	end_run(&job, &cpu);

	/* 65536 slots for "the default": room for every record's key, in
	 * far less memory than the GPU's default table */
	bytes = group_gpu_layout(&job, c->slots ? c->slots : 1u << 16, &h);
	if (h.spill_cap > nrec) {	/* room for every record, in less */
		h.spill_cap = nrec;
		bytes = h.spill_off + h.spill_cap * h.rs;
	}
	buf = calloc(1, bytes);
	memcpy(buf, &h, sizeof(h));
	group_kernels.acc_init(&job, &dev);
	/* the first tenth on the CPU, as auto's hybrid starts */
	group_kernels.cpu_add(&job, &dev, scratch, data, NULL, nrec / 10);
	for (size_t i = nrec / 10; i < nrec; i++)
		gd_fold((struct gd_head *)buf, buf, data + i * r.size);
	group_gpu_merge(&job, &dev, buf);
	end_run(&job, &dev);
	{
		struct gs_err err;
		const struct gd_head *hd = (const struct gd_head *)buf;

		CHECKF(!acc_check(&job, &dev, &err), "%s what %d: %s",
		       c->types, what, err.what);
		/* where nothing had to spill, the table's arithmetic alone */
		CHECKF((hd->spilled > 0) == spills, "%s what %d: %llu spilled",
		       c->types, what, (unsigned long long)hd->spilled);
	}
	na = state_of(&job, &cpu, &a);
	nb = state_of(&job, &dev, &b);
	CHECKF(na == nb && !memcmp(a, b, na), "%s keys %u what %d slots %llu: "
	       "the device form's state differs from the CPU's (%zu, %zu bytes)",
	       c->types, c->nkeys, what, (unsigned long long)c->slots, na, nb);
	free(a);
	free(b);
	group_kernels.acc_free(&job, &dev);

	/* the same on NTHREADS threads at once */
	memset(buf, 0, bytes);
	memcpy(buf, &h, sizeof(h));
	group_kernels.acc_init(&job, &dev);
	fold_threads(buf, data, nrec, r.size);
	group_gpu_merge(&job, &dev, buf);
	na = state_of(&job, &cpu, &a);
	nb = state_of(&job, &dev, &b);
	CHECKF(na == nb && !memcmp(a, b, na), "%s keys %u what %d slots %llu: "
	       "%d threads' table differs from the CPU's (%zu, %zu bytes)",
	       c->types, c->nkeys, what, (unsigned long long)c->slots,
	       NTHREADS, na, nb);
	free(b);
	/* the next run's accumulator (--per-file's next operand on the GPU,
	 * where no CPU thread's merge ends the run) has its own keys only */
	{
		struct group_acc next;

		group_kernels.acc_init(&job, &next);
		group_gpu_merge(&job, &next, buf);
		nb = state_of(&job, &next, &b);
		CHECKF(na == nb && !memcmp(a, b, na), "%s keys %u what %d: "
		       "the next run's table holds the last run's keys",
		       c->types, c->nkeys, what);
		free(b);
		group_kernels.acc_free(&job, &next);
	}
	free(a);
	group_kernels.acc_free(&job, &dev);

	/* as the backend runs it: compacted, merged on threads; with a
	 * spill area of 5 records drained before it overflows */
	for (int small = 0; small < 2; small++) {
		struct gd_head hs = h;
		unsigned drains;

		if (small)
			hs.spill_cap = 5;
		else	/* the merge and the drains' folds on 4 threads */
			setenv(GROUP_GPU_THREADS_ENV, "4", 1);
		group_kernels.acc_init(&job, &dev);
		drains = run_backend(&job, &hs, bytes, data, nrec, 997, &dev);
		unsetenv(GROUP_GPU_THREADS_ENV);
		na = state_of(&job, &cpu, &a);
		nb = state_of(&job, &dev, &b);
		CHECKF(na == nb && !memcmp(a, b, na), "%s keys %u what %d "
		       "slots %llu spill %llu: the backend's run differs from "
		       "the CPU's (%zu, %zu bytes)", c->types, c->nkeys, what,
		       (unsigned long long)c->slots,
		       (unsigned long long)hs.spill_cap, na, nb);
		/* where records spill, a small area is drained, never
		 * overflowed */
		CHECKF(!small || !spills || drains > 0, "%s what %d: %u drains",
		       c->types, what, drains);
		free(a);
		free(b);
		group_kernels.acc_free(&job, &dev);
	}

	/* a spill area of 2 records, overflowing: a failure, not a result */
	if (c->slots && c->slots < 64) {
		struct gs_err err;

		memset(buf, 0, bytes);
		h.spill_cap = 2;
		memcpy(buf, &h, sizeof(h));
		group_kernels.acc_init(&job, &dev);
		for (size_t i = 0; i < nrec; i++)
			gd_fold((struct gd_head *)buf, buf, data + i * r.size);
		group_gpu_merge(&job, &dev, buf);
		CHECKF(acc_check(&job, &dev, &err) < 0 &&
		       strstr(err.what, "spill area"), "%s: an overflowing "
		       "spill area was not an error", c->types);
		group_kernels.acc_free(&job, &dev);
	}
	group_kernels.acc_free(&job, &cpu);
	free(buf);
	free(scratch);
	free(data);
}

/* auto plans the GPU for a group-by of 8 GiB where its values always fit
 * (no f64 sums); keys not bounded by their types below the table's only
 * from that plan (their keys past the table folded on the CPU), never
 * from a revision (watch); -v's reason says so. */
static void check_auto(const char *types, enum gs_group_what what, bool want,
		       bool watch, const char *says)
{
	static const unsigned key[] = { 0 }, val[] = { 1 };
	struct gs_group gr = { 1, 1, key, val, what, 1ull << 40, NULL, false };
	struct gs_record r;
	struct gs_job job;
	size_t bad, badlen;
	char why[300] = "";
	bool gpu;

	record_parse(types, &r, &bad, &badlen);
	memset(&job, 0, sizeof(job));
	job.cmd = CMD_GROUP;
	job.columns = r.n;
	job.rec = &r;
	job.dtype = r.type[0];
	job.group = &gr;
	gpu = auto_plan_gpu(&job, 8ll << 30, false, 16, why, sizeof(why));
	CHECKF(gpu == want && strstr(why, says), "%s what %d: %s, \"%s\"",
	       types, what, gpu ? "the GPU" : "the CPU", why);
	CHECKF(auto_plan_watch(&job, 8ll << 30, false) == watch,
	       "%s: watched for a late GPU start", types);
}

/* The default table: 2^21 slots for a sum of one f32 column, fewer for
 * wide slots (stats of 8 f64 columns), within 1 GiB. */
static void check_layout(const char *types, unsigned nvals,
			 enum gs_group_what what, uint64_t want_slots)
{
	static const unsigned key[] = { 0 }, val[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct gs_group gr = { 1, nvals, key, val, what, 1ull << 40, NULL, false };
	struct gs_record r;
	struct gs_job job;
	struct gd_head h;
	size_t bad, badlen, bytes;

	record_parse(types, &r, &bad, &badlen);
	memset(&job, 0, sizeof(job));
	job.cmd = CMD_GROUP;
	job.columns = r.n;
	job.rec = &r;
	job.group = &gr;
	bytes = group_gpu_layout(&job, 0, &h);
	CHECKF(h.slots == want_slots && h.max_keys == h.slots / 2 &&
	       h.slots * h.sw * 8 <= (1ull << 30) &&
	       bytes == h.spill_off + h.spill_cap * h.rs, "%s: %llu slots of "
	       "%llu words", types, (unsigned long long)h.slots,
	       (unsigned long long)h.sw);
}

int main(void)
{
	check_layout("i32,f32", 1, GROUP_SUM, 1ull << 21);
	check_layout("i32,f64,f64,f64,f64,f64,f64,f64,f64", 8, GROUP_STATS,
		     1ull << 18);
	check_auto("u16,f32", GROUP_SUM, true, true, "a group-by of");
	check_auto("i8,i64", GROUP_STATS, true, true, "a group-by of");
	check_auto("i32,f32", GROUP_SUM, true, false, "keys past the GPU's");
	check_auto("f32,f32", GROUP_SUM, true, false, "keys past the GPU's");
	check_auto("u16,f64", GROUP_SUM, false, false, "f64 values");
	check_auto("u16,f64", GROUP_COUNT, true, true, "a group-by of");

	static const struct config cs[] = {
		{ "i32,f32", 1, { 0 }, 1, { 1 }, 1000, false, 0 },
		{ "i32,f32", 1, { 0 }, 1, { 1 }, 1000, false, 8 },
		{ "u8,f64,i64", 1, { 0 }, 2, { 1, 2 }, 0, false, 0 },
		{ "u8,f64,i64", 1, { 0 }, 2, { 1, 2 }, 0, true, 0 },
		{ "i8,u64,f16,bf16", 2, { 3, 0 }, 2, { 1, 2 }, 5, false, 0 },
		{ "f32,i16,u16", 1, { 0 }, 2, { 1, 2 }, 0, false, 0 },
		{ "f64,u32,i32,u8", 2, { 0, 3 }, 2, { 1, 2 }, 9, false, 0 },
		{ "f16,f32", 1, { 0 }, 1, { 1 }, 0, false, 0 },
		{ "u16,f32", 1, { 0 }, 1, { 1 }, 0, false, 8 },
		{ "i64,f64", 1, { 0 }, 1, { 1 }, 50, false, 0 },
		{ "u64,f64,u64", 1, { 0 }, 2, { 1, 2 }, 0, true, 16 },
	};

	for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
		for (int w = GROUP_COUNT; w <= GROUP_STATS; w++)
			check(&cs[i], (enum gs_group_what)w);
	UNIT_END();
}
