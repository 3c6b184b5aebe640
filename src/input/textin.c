/*
 * textin.c - decimal text to records (see textin.h).
 *
 * A batch is up to np pieces read one after another into the pieces'
 * buffers. A full piece is cut after its last newline or before the
 * separator after its last field, whichever is later; the bytes past the
 * cut (the carry) begin the next piece. The batch is parsed by the pool,
 * each piece on its own into its own output, then handed out in order:
 * only then are line numbers known, so a piece counts its lines and
 * fields relative to its start and the hand-out adds where it began.
 * A line cut in two is checked (-c N) when its second part is handed out.
 *
 * Two batches take turns: while the pool parses one, the caller's thread
 * (the pool's thread 0) reads the next into the other, without waiting on
 * a pipe, then joins the parsing; the parsed one is handed out after.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "textin_impl.h"
#include "textquote.h"

static int batch_fill(struct textin *t, struct batch *b, int stall_ms,
		      struct gs_err *err);

static void batch_work(void *arg, int i, int n)
{
	struct textin *t = arg;
	int k;

	(void)n;
	/* the input is read on this thread only, one batch ahead; a pipe
	 * gives what it has */
	if (i == 0 && t->prefetch)
		t->pre_r = batch_fill(t, t->next, 0, &t->pre_err);
	while ((k = atomic_fetch_add(&t->next_piece, 1)) < t->cur->nb) {
		struct piece *pc = &t->cur->p[k];

		if (pc->err == ERR_LONG)
			continue;
		piece_parse(t, pc);
		if (t->dtype.big_endian && t->tsize > 1)
			piece_swap(t, pc);
	}
}

/* ---- reading a batch ----------------------------------------------------- */

/* Where p[0..n) may be cut: after a newline or before the separator after
 * a field, the last such place, never inside quotes (a newline never is:
 * quotes cannot hold one); 0 for none. *line_start: the rest begins a
 * line. */
static size_t cut_point(const struct textin *t, const char *p, size_t n,
			bool *line_start)
{
	const char *nl = memrchr(p, '\n', n);
	size_t i, from = nl ? (size_t)(nl - p) + 1 : 0;

	/* a quote in the last line: the separators after its fields (p
	 * begins outside quotes, as every cut is) */
	if (!t->keycol && memchr(p + from, '"', n - from)) {
		i = textquote_cut(p, from, n);
		*line_start = i == 0;
		return i ? i : from;
	}
	for (i = n; i > 0; i--) {
		if (p[i - 1] == '\n')
			return *line_start = true, i;
		if (!t->keycol && i < n && is_sep(p[i]) && !is_sep(p[i - 1]))
			return *line_start = false, i;
	}
	return 0;
}

/* Make pc the piece being filled: empty, or beginning with bytes. */
static void piece_begin(struct piece *pc, const char *bytes, size_t n,
			bool line_start, const char *name)
{
	memmove(pc->txt, bytes, n);
	pc->len = n;
	pc->cut = 0;
	pc->line_start = line_start;
	pc->comma_start = false;
	pc->last = false;
	pc->name = name;
	pc->err = ERR_NONE;
	pc->nval = 0;
	pc->nl = pc->head = pc->tail = 0;
}

/* Piece nb of b is done, parsed up to cut; the rest (line_start as said)
 * goes on in the next piece, or stays as the carry when b is full. */
static void piece_end(struct textin *t, struct batch *b, size_t cut,
		      bool line_start, bool comma)
{
	struct piece *pc = &b->p[b->nb];

	pc->cut = cut;
	b->nb++;
	t->cpc = pc;
	t->coff = cut;
	t->clen = pc->len - cut;
	t->cline_start = line_start;
	t->ccomma = comma;
	t->cname = pc->name;
	if (b->nb < t->np) {
		piece_begin(&b->p[b->nb], pc->txt + cut, pc->len - cut,
			    line_start, pc->name);
		b->p[b->nb].comma_start = comma;
		t->cpc = &b->p[b->nb];
		t->coff = 0;
	}
}

/* A full piece: cut it, or (one field fills it) an error at hand-out. */
static void piece_full(struct textin *t, struct batch *b)
{
	struct piece *pc = &b->p[b->nb];
	bool ls = false, comma = false;
	size_t cut = cut_point(t, pc->txt, pc->len, &ls), i;

	/* separators alone (a long run of blanks): any place will do, and
	 * the state at the cut is the one the piece began with */
	for (i = 0; cut == 0 && !t->keycol && i < pc->len &&
		    is_sep(pc->txt[i]); i++)
		;
	if (cut == 0 && i == pc->len) {
		cut = pc->len;
		ls = pc->line_start;
		/* "1, <a piece of blanks>,2": the next piece must know of it */
		comma = pc->comma_start || memchr(pc->txt, ',', pc->len);
	}
	if (cut == 0) {
		piece_error(pc, ERR_LONG, 0, 1, pc->txt, pc->len);
		t->eof = true;
		ls = pc->line_start;
	}
	piece_end(t, b, cut, ls, comma);
}

/* One read into the piece being filled, whose bytes ready says may be cut
 * already. Returns 1 to read on, 0 when the batch is to be parsed,
 * INPUT_STALL or -1. */
static int batch_read(struct textin *t, struct batch *b, bool ready,
		      int stall_ms, struct gs_err *err)
{
	struct piece *pc = &b->p[b->nb];
	int wait = !ready ? stall_ms : stall_ms >= 0 ? stall_ms : TEXT_STALL_MS;
	ssize_t r = input_read_operand(t->in, pc->txt + pc->len,
				       TEXT_PIECE - pc->len, wait, err);
	bool ls;
	size_t cut;

	if (r == INPUT_STALL && !ready)
		return INPUT_STALL;
	if (r == INPUT_STALL) {
		if ((cut = cut_point(t, pc->txt, pc->len, &ls)) > 0)
			piece_end(t, b, cut, ls, false);
		return 0;
	}
	if (r < 0)
		return -1;
	if (r > 0)
		pc->name = input_name(t->in);
	pc->len += (size_t)r;
	if (input_operand_ended(t->in)) {
		t->eof = input_ended(t->in);
		if (pc->len || !t->eof) {
			pc->last = true;
			piece_end(t, b, pc->len, true, false);
		}
	} else if (pc->len == TEXT_PIECE) {
		piece_full(t, b);
	}
	return 1;
}

/* Read batch b, beginning with the carry: 1 with pieces in it, 0 at the
 * end, INPUT_STALL or -1. The carry (the text after the last cut, or an
 * unfinished piece) ends where it is to go on. The pieces before the cut
 * it comes from are not touched: they may be being parsed. */
static int batch_fill(struct textin *t, struct batch *b, int stall_ms,
		      struct gs_err *err)
{
	bool ls;
	int r = 1;

	b->nb = 0;
	if (t->cpc != &b->p[0] || t->coff != 0) {
		piece_begin(&b->p[0], t->cpc->txt + t->coff, t->clen,
			    t->cline_start, t->cname);
		b->p[0].comma_start = t->ccomma;
	}
	t->cpc = &b->p[0];
	t->coff = 0;
	while (r == 1 && b->nb < t->np && !t->eof) {
		struct piece *pc = &b->p[b->nb];
		bool ready = b->nb > 0 || cut_point(t, pc->txt, pc->len, &ls) > 0;

		r = batch_read(t, b, ready, stall_ms, err);
	}
	if (b->nb < t->np) {
		t->cpc = &b->p[b->nb];
		t->clen = t->cpc->len;
		t->cline_start = t->cpc->line_start;
		t->ccomma = t->cpc->comma_start;
		t->cname = t->cpc->name;
	}
	if (r == -1 && b->nb > 0) {	/* the pieces before it go out first */
		t->fail = *err;
		t->read_failed = t->eof = true;
	} else if (r < 0 && (r != INPUT_STALL || b->nb == 0)) {
		return r;
	}
	return b->nb > 0;
}

/* ---- handing out --------------------------------------------------------- */

static int piece_fail(struct textin *t, const struct piece *pc, int kind,
		      uint64_t line, uint64_t field, uint64_t count)
{
	const char *ty = type_name(t->dtype.type);
	const char *name = pc->name ? pc->name : input_name(t->in);
	unsigned long long l = line, f = field;

	t->failing = true;
	switch (kind) {
	case ERR_INVALID:
		return gs_fail(&t->fail, GS_ERUNTIME, name,
			       "invalid numeric value in line %llu field %llu: '%s'%s",
			       l, f, pc->etok, type_is_float(t->dtype.type) ? "" :
			       " (an integer type: digits only)");
	case ERR_RANGE:
		return gs_fail(&t->fail, GS_ERUNTIME, name,
			       "value out of range for %s in line %llu field %llu: '%s'",
			       t->dtype.boolean ? "bool" : ty, l, f, pc->etok);
	case ERR_EMPTY:
		return gs_fail(&t->fail, GS_ERUNTIME, name,
			       "empty field in line %llu field %llu", l, f);
	case ERR_COUNT:
		return gs_fail(&t->fail, GS_ERUNTIME, name,
			       "line %llu has %llu field%s, not %u (%s%u%s: one record per line)",
			       l, (unsigned long long)count, count == 1 ? "" : "s",
			       t->columns, t->width_from == WIDTH_C ? "-c " : "the ",
			       t->columns, t->width_from == WIDTH_C ? "" :
			       t->width_from == WIDTH_HEADER ? " names of the header"
			       : " fields of the first line");
	case ERR_KEYS:
		return gs_fail(&t->fail, GS_ERUNTIME, name,
			       "--by: more than %llu distinct keys for -t %s "
			       "(key '%s' in line %llu field %llu; -t f64 "
			       "holds 2^53)", (unsigned long long)t->key_max + 1,
			       t->dtype.boolean ? "bool" : ty, pc->etok, l, f);
	case ERR_NOMEM:
		return gs_fail(&t->fail, GS_ERUNTIME, name, "out of memory "
			       "for --by's keys in line %llu", l);
	case ERR_QOPEN:
		return gs_fail(&t->fail, GS_ERUNTIME, name, "unterminated "
			       "quote in line %llu field %llu: '%s' (a quoted "
			       "field ends on its line)", l, f, pc->etok);
	case ERR_QAFTER:
		return gs_fail(&t->fail, GS_ERUNTIME, name, "text after the "
			       "closing quote in line %llu field %llu: '%s'", l,
			       f, pc->etok);
	}
	return gs_fail(&t->fail, GS_ERUNTIME, name,
		       "a %s longer than %zu bytes in line %llu: '%s'",
		       t->keycol ? "line (--by, -F)" : "field", TEXT_PIECE, l,
		       pc->etok);
}

/* Before piece di is handed out: how much of it, and its error. */
static void piece_settle(struct textin *t)
{
	const struct piece *pc = &t->cur->p[t->di];
	uint64_t first = pc->line_start ? 0 : t->fields;
	uint64_t joined = first + pc->head;

	t->settled = true;
	t->dlim = pc->nval * t->tsize;
	if (pc->err && pc->eline == 0 && pc->err != ERR_COUNT)
		piece_fail(t, pc, pc->err, t->line, first + pc->efield, 0);
	else if (!pc->line_start && t->lines && (pc->nl || pc->last) &&
		 joined != t->columns)
		t->dlim = 0, piece_fail(t, pc, ERR_COUNT, t->line, 0, joined);
	else if (pc->err)
		piece_fail(t, pc, pc->err, t->line + pc->eline,
			   pc->efield, pc->eline ? pc->ecount : joined);
}

/* After piece di was handed out: where the next one begins. */
static void piece_account(struct textin *t)
{
	const struct piece *pc = &t->cur->p[t->di];

	if (pc->nl) {
		t->line += pc->nl;
		t->fields = pc->tail;
	} else {
		t->fields = (pc->line_start ? 0 : t->fields) + pc->tail;
	}
	if (pc->last) {
		t->line = t->first_line;
		t->fields = 0;
	}
	t->di++;
	t->dpos = 0;
	t->settled = false;
}

/* A hand-out's copies: piece outputs to places in the caller's buffer,
 * made by the pool's threads at once where they are many bytes (the pool
 * waits for the next batch meanwhile: one thread copying 16 MiB a batch
 * left 15 idle). */
struct handout {
	unsigned char *to;
	size_t total, n;
	struct { const unsigned char *from; size_t at, len; } c[];
};

#define HANDOUT_SPLIT ((size_t)1 << 20)	/* bytes worth the pool's threads */

static void handout_task(void *arg, int i, int nt)
{
	const struct handout *h = arg;
	size_t lo = h->total / (size_t)nt * (size_t)i;
	size_t hi = i == nt - 1 ? h->total : h->total / (size_t)nt * (size_t)(i + 1);

	for (size_t k = 0; k < h->n; k++) {
		size_t from = lo > h->c[k].at ? lo : h->c[k].at;
		size_t end = hi < h->c[k].at + h->c[k].len ? hi :
			     h->c[k].at + h->c[k].len;

		if (from < end)
			memcpy(h->to + from, h->c[k].from + (from - h->c[k].at),
			       end - from);
	}
}

/* Bytes of the batch into buf, as many as fit, piece after piece: > 0,
 * or 0 when it is all handed out (or the values before an error are). */
static ssize_t batch_deliver(struct textin *t, void *buf, size_t n)
{
	struct handout *h = t->handout;

	h->to = buf;
	h->total = h->n = 0;
	while (t->di < t->cur->nb && h->total < n) {
		const struct piece *pc = &t->cur->p[t->di];
		size_t k;

		if (!t->settled)
			piece_settle(t);
		k = t->dlim - t->dpos < n - h->total ? t->dlim - t->dpos :
		    n - h->total;
		if (k) {
			h->c[h->n].from = pc->out + t->dpos;
			h->c[h->n].at = h->total;
			h->c[h->n].len = k;
			h->n++;
			h->total += k;
			t->dpos += k;
		}
		if (t->dpos < t->dlim)
			break;		/* buf is full */
		/* the values before an error are out: then the error */
		if (t->failing)
			break;
		piece_account(t);
	}
	if (h->total >= HANDOUT_SPLIT && t->pool_up)
		pool_run(&t->pool, handout_task, h);
	else
		handout_task(h, 0, 1);
	return (ssize_t)h->total;
}

/* The next batch to hand out: the one read during the last parse, or one
 * read now. 1, 0 at the end, INPUT_STALL or -1 (err filled). */
static int batch_next(struct textin *t, int stall_ms, struct gs_err *err)
{
	struct batch *b = t->next;
	int r = t->pre_r;

	t->pre_r = 0;
	if (r == -1) {
		*err = t->pre_err;
		return -1;
	}
	if (r == 1) {
		t->next = t->cur;
		t->cur = b;
		return 1;
	}
	if (t->failing || (t->eof && t->read_failed)) {
		*err = t->fail;
		return -1;
	}
	if (t->eof)
		return 0;
	return batch_fill(t, t->cur, stall_ms, err);
}

ssize_t textin_read(struct textin *t, void *buf, size_t n, int stall_ms,
		    struct gs_err *err)
{
	ssize_t r;

	for (;;) {
		r = batch_deliver(t, buf, n);
		if (r > 0)
			return r;
		if (t->failing) {
			*err = t->fail;
			return -1;
		}
		r = batch_next(t, stall_ms, err);
		if (r <= 0)
			return r;
		t->di = 0;
		t->dpos = 0;
		t->settled = false;
		t->prefetch = !t->eof;
		atomic_store(&t->next_piece, 0);
		if (t->pool_up)
			pool_run(&t->pool, batch_work, t);
		else
			batch_work(t, 0, 1);
	}
}

/* ---- life ---------------------------------------------------------------- */

static int batch_alloc(struct batch *b, int np)
{
	size_t outcap = ((TEXT_PIECE + 1) / 2 + 1) * sizeof(uint64_t);
	int i;

	b->p = calloc((size_t)np, sizeof(*b->p));
	for (i = 0; b->p && i < np; i++) {
		b->p[i].txt = malloc(TEXT_PIECE);
		b->p[i].out = malloc(outcap);
		if (!b->p[i].txt || !b->p[i].out)
			return -1;
	}
	return b->p ? 0 : -1;
}

static void batch_free(struct batch *b, int np)
{
	int i;

	for (i = 0; b->p && i < np; i++) {
		free(b->p[i].txt);
		free(b->p[i].out);
	}
	free(b->p);
}

struct textin *textin_new(struct input *in, int threads, bool lines)
{
	struct textin *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	threads = threads > 1 ? threads : 1;
	threads = threads < TEXT_THREADS_MAX ? threads : TEXT_THREADS_MAX;
	t->in = in;
	t->lines = lines;
	t->np = threads * TEXT_PIECES_PER_THREAD;
	if (batch_alloc(&t->set[0], t->np) < 0 ||
	    batch_alloc(&t->set[1], t->np) < 0) {
		textin_free(t);
		return NULL;
	}
	/* without a pool the one thread parses alone */
	t->pool_up = threads > 1 && pool_init(&t->pool, threads) == 0;
	t->handout = malloc(sizeof(*t->handout) +
			    (size_t)t->np * sizeof(t->handout->c[0]));
	if (!t->handout) {
		textin_free(t);
		return NULL;
	}
	t->first_line = 1;
	textin_set_type(t, (struct gs_dtype){ .type = GS_F64 }, 1);
	textin_reset(t);
	return t;
}

void textin_set_type(struct textin *t, struct gs_dtype dtype, unsigned columns)
{
	t->dtype = dtype;
	t->columns = columns;
	t->tsize = type_size(dtype.type);
	t->parse = textnum_parser(dtype.type, dtype.boolean);
	t->key_max = textkeys_max(dtype.type, dtype.boolean);
}

int textin_set_keys(struct textin *t, struct textkeys *keys,
		    const uint8_t *keycol, unsigned n)
{
	uint8_t *kc = malloc((n ? n : 1) * sizeof(*kc));

	if (!kc)
		return -1;
	memcpy(kc, keycol, n * sizeof(*kc));
	free(t->keycol);
	t->keycol = kc;
	t->nkeycol = n;
	t->keys = keys;
	return 0;
}

void textin_headline(struct textin *t, bool header)
{
	t->width_from = header ? WIDTH_HEADER : WIDTH_LINE1;
	t->first_line = header ? 2 : 1;
	t->line = t->first_line;
}

void textin_reset(struct textin *t)
{
	if (!t)
		return;
	t->cur = &t->set[0];
	t->next = &t->set[1];
	t->cur->nb = t->next->nb = 0;
	t->prefetch = false;
	t->pre_r = 0;
	t->di = 0;
	t->dpos = t->dlim = 0;
	t->settled = false;
	piece_begin(&t->cur->p[0], "", 0, true, NULL);
	t->cpc = &t->cur->p[0];
	t->coff = t->clen = 0;
	t->cline_start = true;
	t->ccomma = false;
	t->cname = NULL;
	t->line = t->first_line;
	t->fields = 0;
	t->eof = t->failing = t->read_failed = false;
}

void textin_free(struct textin *t)
{
	if (!t)
		return;
	if (t->pool_up)
		pool_release(&t->pool);
	batch_free(&t->set[0], t->np);
	batch_free(&t->set[1], t->np);
	free(t->handout);
	free(t->keycol);
	free(t);
}
