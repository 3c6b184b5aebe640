/*
 * fuzz_stream.c - the input layer on streams built from the fuzz bytes, so
 * the right answer is known: 1 to 3 operands, each raw bytes, an npy file
 * (version 1-3, any supported dtype and byte order, 0-3 dimensions, the dict
 * spelled in the ways numpy and hand-written files do) or 1-3 concatenated
 * pgm/ppm images (8 or 16 bits, comments, odd white space), each plain or
 * zstd-compressed as 1-3 frames cut anywhere (inside a header too) with
 * skippable and empty frames between them, checksums and content sizes on or
 * off, named "*.zst" or detected by magic; the first operand maybe a pipe on
 * stdin; the last one maybe cut short.
 *
 * Read through input_read with sizes drawn from the data, the stream must be
 * exactly the payloads in order; an operand whose header type contradicts
 * the stream's (the first header's) must be reported and skipped from that
 * header on; probe must name the first operand's format and type, and a
 * size it knows must be the size read. A cut operand must give a prefix of
 * its payload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "fuzz.h"

struct rd {
	const uint8_t *p;
	size_t n, i;
};

static unsigned rd8(struct rd *r)
{
	return r->i < r->n ? r->p[r->i++] : 0;
}

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void reserve(struct buf *b, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		FZ_CHECK(b->p, "out of memory");
	}
}

static void put(struct buf *b, const void *p, size_t n)
{
	reserve(b, n);
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* Payload bytes: the fuzz bytes while they last, then a pattern. */
static void put_data(struct buf *b, struct rd *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t c = r->i < r->n ? r->p[r->i++] : (uint8_t)(i * 31 + 7);

		put(b, &c, 1);
	}
}

/* What the stream has settled so far, as input.c's first header fixes it. */
struct oracle {
	bool typed;
	struct gs_dtype dtype;
	unsigned columns;
	int fails;
};

/* Whether a header of this type goes through; false: the operand fails. */
static bool oracle_header(struct oracle *o, struct gs_dtype dt, unsigned columns)
{
	bool one = type_size(dt.type) == 1;

	if (!o->typed) {
		*o = (struct oracle){ true, dt, columns, o->fails };
		return true;
	}
	if (dt.type != o->dtype.type || (!one && dt.big_endian != o->dtype.big_endian) ||
	    (columns && o->columns && columns != o->columns)) {
		o->fails++;
		return false;
	}
	return true;
}

/* One operand as decoded bytes (ob) and its expected payload (exp). */
struct operand {
	struct buf ob, exp;
	int kind;		/* 0 raw, 1 npy, 2 pnm */
	bool typed;		/* has a header that went through */
	struct gs_dtype dtype;	/* of its first header */
	unsigned columns;
	bool pgm;
};

static void make_raw(struct operand *op, struct rd *r)
{
	size_t n = rd8(r) * 3 + rd8(r) % 3;

	put_data(&op->exp, r, n);
	/* nothing that reads as a magic: first byte 0x08 to 0x0F */
	if (n)
		op->exp.p[0] = (op->exp.p[0] & 0x07) | 0x08;
	put(&op->ob, op->exp.p, n);
}

static const struct { char kind; int size; enum gs_type t; } npy_types[] = {
	{ 'u', 1, GS_U8 }, { 'i', 1, GS_I8 }, { 'u', 2, GS_U16 },
	{ 'i', 2, GS_I16 }, { 'u', 4, GS_U32 }, { 'i', 4, GS_I32 },
	{ 'u', 8, GS_U64 }, { 'i', 8, GS_I64 }, { 'f', 2, GS_F16 },
	{ 'f', 4, GS_F32 }, { 'f', 8, GS_F64 },
};

/* The dict text of an npy header, spelled as the flags say. */
static void npy_dict(struct buf *d, struct rd *r, const char *descr,
		     bool fortran, const unsigned *dims, int ndim)
{
	unsigned f = rd8(r), order = rd8(r) % 6;
	char q = f & 1 ? '"' : '\'', s[64];
	const char *sp = f & 2 ? "" : " ";
	static const int perm[6][3] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
	};

	puts_(d, "{");
	for (int k = 0; k < 3; k++) {
		int key = perm[order][k];

		if (key == 0)
			snprintf(s, sizeof(s), "%c%s%c:%s%c%s%c", q, "descr", q, sp, q, descr, q);
		else if (key == 1)
			snprintf(s, sizeof(s), "%cfortran_order%c:%s%s", q, q, sp,
				 fortran ? "True" : "False");
		else
			snprintf(s, sizeof(s), "%cshape%c:%s(", q, q, sp);
		puts_(d, s);
		for (int i = 0; key == 2 && i < ndim; i++) {
			snprintf(s, sizeof(s), "%s%u%s%s", i ? sp : "", dims[i],
				 f & 4 ? "L" : "", i + 1 < ndim || ndim == 1 ? "," : "");
			puts_(d, s);
		}
		if (key == 2)
			puts_(d, ")");
		if (k < 2 || (f & 8))
			puts_(d, f & 2 ? "," : ", ");
	}
	puts_(d, "}");
}

static void make_npy(struct operand *op, struct rd *r)
{
	unsigned t = rd8(r) % 11, v = 1 + rd8(r) % 3, ndim = rd8(r) % 4, dims[3];
	unsigned o = rd8(r) % 4, pad = rd8(r);
	char order = "<>|="[o], descr[8];
	uint64_t count = 1, trail = 1;
	struct buf d = { 0 };
	uint8_t pre[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y', (uint8_t)v, 0 };
	size_t plen = v == 1 ? 10 : 12, total;

	if (npy_types[t].size > 1 && order == '|')
		order = '<';
	for (unsigned i = 0; i < ndim; i++) {
		dims[i] = rd8(r) % 6;
		count *= dims[i];
		trail *= i ? dims[i] : 1;
	}
	snprintf(descr, sizeof(descr), "%c%c%d", order, npy_types[t].kind, npy_types[t].size);
	npy_dict(&d, r, descr, ndim <= 1 && (pad & 1), dims, (int)ndim);
	/* numpy pads to 64 bytes; hand-written files need not */
	total = plen + d.n + 1;
	for (size_t k = (pad & 2) ? (64 - total % 64) % 64 : pad % 5; k; k--)
		put(&d, " ", 1);
	put(&d, "\n", 1);
	for (int i = 0; i < 4; i++)
		pre[8 + i] = (uint8_t)(d.n >> (8 * i));
	put(&op->ob, pre, plen);
	put(&op->ob, d.p, d.n);
	free(d.p);
	op->dtype.type = npy_types[t].t;
	op->dtype.big_endian = npy_types[t].size > 1 && order == '>';
	op->columns = ndim >= 2 ? (unsigned)trail : 0;
	put_data(&op->ob, r, count * (size_t)npy_types[t].size);
	put(&op->exp, op->ob.p + op->ob.n - count * npy_types[t].size,
	    count * npy_types[t].size);
}

static void pnm_gap(struct buf *b, struct rd *r)
{
	static const char *const gaps[] = {
		" ", "\n", "\t", "\r\n", "  ", " # comment\n", "\n#\n", "\v", "\f",
		" #x\r",
	};

	puts_(b, gaps[rd8(r) % 10]);
}

static void pnm_number(struct buf *b, struct rd *r, unsigned v)
{
	char s[16];

	pnm_gap(b, r);
	snprintf(s, sizeof(s), "%u", v);
	puts_(b, s);
}

/* One image into ob: its type and columns, and where its payload starts. */
static size_t make_image(struct operand *op, struct rd *r,
			 struct gs_dtype *dt, unsigned *cols)
{
	static const unsigned maxvals[] = { 255, 1, 65535, 256, 100, 1000 };
	bool ppm = rd8(r) & 1;
	unsigned w = 1 + rd8(r) % 8, h = 1 + rd8(r) % 8, mv = maxvals[rd8(r) % 6];
	size_t at;

	*dt = (struct gs_dtype){ mv > 255 ? GS_U16 : GS_U8, mv > 255 };
	*cols = ppm ? 3 : 1;
	puts_(&op->ob, ppm ? "P6" : "P5");
	pnm_number(&op->ob, r, w);
	pnm_number(&op->ob, r, h);
	pnm_number(&op->ob, r, mv);
	put(&op->ob, &"\n \t\r"[rd8(r) % 4], 1);
	at = op->ob.n;
	put_data(&op->ob, r, (size_t)w * h * *cols * (mv > 255 ? 2 : 1));
	/* samples above maxval fail the operand: keep them in range */
	for (size_t i = at, k = mv > 255 ? 2 : 1; i + k <= op->ob.n; i += k) {
		unsigned v = k == 2 ? (unsigned)op->ob.p[i] << 8 | op->ob.p[i + 1]
				    : op->ob.p[i];

		v %= mv + 1;
		op->ob.p[i] = (uint8_t)(k == 2 ? v >> 8 : v);
		op->ob.p[i + k - 1] = (uint8_t)v;
	}
	return at;
}

/* Images, each checked by the oracle: one that contradicts the stream's
 * type fails the operand, and its payload and the rest are not read. */
static void make_pnm(struct operand *op, struct rd *r, struct oracle *o)
{
	int n = 1 + rd8(r) % 3;
	bool failed = false;
	struct gs_dtype dt;
	unsigned cols;
	size_t at;

	for (int i = 0; i < n; i++) {
		at = make_image(op, r, &dt, &cols);
		if (i == 0) {
			op->dtype = dt;
			op->columns = cols;
			op->pgm = cols == 1;
		}
		if (!failed && oracle_header(o, dt, cols))
			put(&op->exp, op->ob.p + at, op->ob.n - at);
		else
			failed = true;
		for (unsigned g = rd8(r) % 4; g; g--)
			put(&op->ob, &" \n\t"[g % 3], 1);
	}
}

static ZSTD_CCtx *cctx;

static void put_frame(struct buf *c, struct rd *r, const uint8_t *p, size_t n)
{
	unsigned f = rd8(r);
	size_t bound = ZSTD_compressBound(n), k;

	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, f & 1 ? 3 : -1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, f >> 1 & 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, f >> 2 & 1);
	reserve(c, bound);
	k = ZSTD_compress2(cctx, c->p + c->n, bound, p, n);
	FZ_CHECK(!ZSTD_isError(k), "ZSTD_compress2: %s", ZSTD_getErrorName(k));
	c->n += k;
}

static void put_skippable(struct buf *c, struct rd *r)
{
	unsigned len = rd8(r) % 9;
	uint8_t h[8] = { (uint8_t)(0x50 | (rd8(r) & 0xF)), 0x2A, 0x4D, 0x18,
			 (uint8_t)len, 0, 0, 0 };

	put(c, h, 8);
	put_data(c, r, len);
}

/* ob as 1 to 3 frames cut anywhere, maybe with skippable and empty frames
 * before and between them. */
static void make_zstd(struct buf *c, const struct buf *ob, struct rd *r)
{
	int frames = 1 + rd8(r) % 3;
	size_t at = 0, next;

	for (int i = 0; i < frames; i++) {
		unsigned f = rd8(r);

		next = i + 1 == frames ? ob->n : at + (ob->n - at) * rd8(r) / 256;
		if (f & 1)
			put_skippable(c, r);
		if (f & 2)
			put_frame(c, r, NULL, 0);
		put_frame(c, r, ob->p + at, next - at);
		at = next;
	}
	if (rd8(r) & 1)
		put_skippable(c, r);
}

struct plan {
	int nops;
	bool pipe, cut;
	struct operand op[3];
	struct buf file[3];	/* as written */
	bool zst_name[3], zstd[3];
	struct oracle o;
	struct buf exp;		/* the whole stream */
	size_t exp_before_last;	/* of exp, before the last operand */
};

static void plan_free(struct plan *pl)
{
	for (int i = 0; i < 3; i++) {
		free(pl->op[i].ob.p);
		free(pl->op[i].exp.p);
		free(pl->file[i].p);
	}
	free(pl->exp.p);
}

static void make_operand(struct plan *pl, int i, struct rd *r)
{
	struct operand *op = &pl->op[i];
	unsigned f = rd8(r);

	/* never NULL, so pointer arithmetic on an empty one is defined */
	reserve(&op->ob, 1);
	reserve(&op->exp, 1);
	reserve(&pl->file[i], 1);
	reserve(&pl->exp, 1);
	op->kind = f % 3;
	if (op->kind == 0) {
		make_raw(op, r);
	} else if (op->kind == 1) {
		make_npy(op, r);
		if (!oracle_header(&pl->o, op->dtype, op->columns))
			op->exp.n = 0;
	} else {
		make_pnm(op, r, &pl->o);
	}
	pl->zstd[i] = f & 4;
	pl->zst_name[i] = pl->zstd[i] && (f & 8) && !(i == 0 && pl->pipe);
	if (pl->zstd[i])
		make_zstd(&pl->file[i], &op->ob, r);
	else
		put(&pl->file[i], op->ob.p, op->ob.n);
	if (i + 1 == pl->nops)
		pl->exp_before_last = pl->exp.n;
	put(&pl->exp, op->exp.p, op->exp.n);
}

/* What input_probe must say: the first operand's format and type. */
static void check_probe(const struct plan *pl, const struct input_info *info)
{
	static const char *const names[] = { "raw", "npy", "pgm", "ppm" };
	const struct operand *op = &pl->op[0];
	char want[32];
	int k = op->kind == 2 ? 2 + !op->pgm : op->kind;

	if (pl->cut && pl->nops == 1)
		return;
	snprintf(want, sizeof(want), "%s%s", names[k], pl->zstd[0] ? " (zstd)" : "");
	FZ_CHECK(!strcmp(info->format, want), "probe: %s, not %s", info->format, want);
	FZ_CHECK(info->has_type == (op->kind != 0), "probe: has_type %d", info->has_type);
	if (op->kind)
		FZ_CHECK(info->dtype.type == op->dtype.type &&
			 (type_size(op->dtype.type) == 1 ||
			  info->dtype.big_endian == op->dtype.big_endian) &&
			 info->columns == op->columns, "probe: %s, %u columns",
			 type_name(info->dtype.type), info->columns);
}

static bool is_prefix(const uint8_t *p, size_t n, const struct buf *b)
{
	return n <= b->n && (!n || !memcmp(p, b->p, n));
}

/* The operands before the cut one are whole; the cut one gives a prefix of
 * its payload, or its first bytes as raw data when too few are left to
 * tell a magic (a file of "P5", "\x93NU" or "\x28\xb5" is raw, by the
 * rules). */
static void check_cut(const struct plan *pl, const struct fz_run *run)
{
	const struct operand *op = &pl->op[pl->nops - 1];
	const uint8_t *tail = run->out + pl->exp_before_last;
	size_t k = run->len - pl->exp_before_last;

	FZ_CHECK(run->len >= pl->exp_before_last &&
		 (!pl->exp_before_last || !memcmp(run->out, pl->exp.p, pl->exp_before_last)),
		 "cut stream: the whole operands differ");
	FZ_CHECK(is_prefix(tail, k, &op->exp) || (k < 6 && is_prefix(tail, k, &op->ob)) ||
		 (k < 4 && is_prefix(tail, k, &pl->file[pl->nops - 1])),
		 "cut operand: %zu bytes, not a prefix of its %zu", k, op->exp.n);
}

static void check_run(const struct plan *pl, const struct fz_run *run,
		      const struct input_info *info)
{
	FZ_CHECK(run->ended, "stream of %zu bytes not ended", run->len);
	if (pl->cut) {
		check_cut(pl, run);
		return;
	}
	FZ_CHECK(run->len == pl->exp.n &&
		 (!run->len || !memcmp(run->out, pl->exp.p, run->len)),
		 "stream of %zu bytes, not the %zu expected", run->len, pl->exp.n);
	FZ_CHECK(run->nwarn == pl->o.fails, "%d operand errors, not %d (%s)",
		 run->nwarn, pl->o.fails, run->nwarn ? run->warn[0].what : "");
	for (int i = 0; i < run->nwarn && i < 8; i++)
		FZ_CHECK(strstr(run->warn[i].what, "match the stream"),
			 "operand error: %s", run->warn[i].what);
	/* the size is counted before reading: it includes what fails later */
	if (info->total_bytes >= 0 && !pl->o.fails)
		FZ_CHECK((uint64_t)info->total_bytes == pl->exp.n,
			 "probe said %lld bytes, stream has %zu",
			 (long long)info->total_bytes, pl->exp.n);
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	static struct fz_run run;
	struct rd r = { p, n, 0 };
	struct plan pl = { 0 };
	unsigned f = rd8(&r);
	struct fz_sizes z = { 0x9E3779B97F4A7C15ull ^ n, f >> 3 & 3 };
	struct input_opts o = fz_opts(&run, false);
	struct input_info info;
	struct input *in;
	struct gs_err err;
	char *paths[3];

	if (!cctx)
		cctx = ZSTD_createCCtx();
	FZ_CHECK(cctx, "ZSTD_createCCtx");
	pl.nops = 1 + f % 3;
	pl.pipe = f & 4;
	pl.cut = f & 0x20;
	for (int i = 0; i < pl.nops; i++)
		make_operand(&pl, i, &r);
	if (pl.cut) {
		struct buf *last = &pl.file[pl.nops - 1];

		last->n = last->n * rd8(&r) / 256;
	}
	for (int i = 0; i < pl.nops; i++) {
		if (i == 0 && pl.pipe && fz_stdin(pl.file[0].p, pl.file[0].n) == 0)
			paths[i] = "-";
		else
			paths[i] = (char *)fz_file(i, pl.file[i].p, pl.file[i].n,
						   pl.zst_name[i]);
	}
	if (getenv("FZ_DEBUG"))
		for (int i = 0; i < pl.nops; i++)
			fprintf(stderr, "op %d: kind %d zstd %d, %zu bytes, payload %zu, fails so far %d\n",
				i, pl.op[i].kind, pl.zstd[i], pl.file[i].n,
				pl.op[i].exp.n, pl.o.fails);
	fz_run_init(&run);
	FZ_CHECK(input_open(&in, paths, pl.nops, &o, &err) == 0, "input_open: %s",
		 err.what);
	FZ_CHECK(input_probe(in, &info, &err) == 0, "input_probe: %s", err.what);
	check_probe(&pl, &info);
	fz_read(in, &run, &z, f & 0x40 ? 0 : -1);
	input_close(in);
	check_run(&pl, &run, &info);
	plan_free(&pl);
	return 0;
}
