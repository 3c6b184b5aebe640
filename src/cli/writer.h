/*
 * writer.h - the one result writer. A command describes its result (a
 * table of values with its header, the dtype and shape of its array, and
 * the fields of its json object) and writer_put() writes it in the -f
 * format, each format in one file:
 *
 *   text, tsv, csv   wr_table.c   a line per row, the cells between tabs
 *                                 (csv: commas); tsv and csv put a header
 *                                 line first
 *   json             wr_json.c    one object: "command", "type",
 *                                 "columns", then the result's fields
 *   binary, npy      wr_array.c   the table's values as 8-byte numbers,
 *                                 row after row; npy with its header
 *   pgm, png         wr_image.c   the result's image: grey levels, P5 or
 *                                 PNG of 8 or 16 bits
 *
 * --per-file's joining of one result per operand goes by format as well
 * (perfile.h). A new format is one more file and a row of writer.c's
 * table. docs/OUTPUT.md has what each command prints.
 */
#ifndef WRITER_H
#define WRITER_H

#include "cli.h"
#include "report.h"

struct pool;

/* One value, and how each format writes it:
 *
 *   kind     text   json        f8 array     u8, i8 array
 *   W_NONE   ""     null        NaN          an error
 *   W_F64    f      f ("nan")   f            an error: no result
 *   W_U64    u      u           (double)u    u
 *   W_I64    i      i           (double)i    i
 *   W_DEC    s      s           f            s, where it fits
 *   W_STR    s      "s"         (a label: never in an array)
 */
enum wkind { W_NONE, W_F64, W_U64, W_I64, W_DEC, W_STR };

struct wval {
	enum wkind kind;
	double f;		/* W_F64; W_DEC's value rounded */
	uint64_t u;		/* W_U64 */
	int64_t i;		/* W_I64 */
	const char *s;		/* W_DEC's exact digits, W_STR's text */
};

static inline struct wval wv_u64(uint64_t u)
{
	return (struct wval){ .kind = W_U64, .u = u };
}

static inline struct wval wv_f64(double f)
{
	return (struct wval){ .kind = W_F64, .f = f };
}

/* A json field: one value (depth 0), a list of m values (depth 1), n
 * lists of m values each (depth 2), or n lists of mid such lists (depth
 * 3: list j of outer list i is list i * mid + j below). Value j of list i
 * is get(ctx, id, i, j) (false: leave it out), or, without get, the u64
 * at base + j * stride. With len, list i holds len(ctx, i) values. With
 * str, the value is that string. */
struct wfield {
	const char *name;
	int depth;
	uint64_t n, m;
	bool (*get)(void *ctx, int id, uint64_t i, uint64_t j, struct wval *v);
	int id;
	uint64_t (*len)(void *ctx, uint64_t i);
	const void *base;
	size_t stride;
	const char *str;
	uint64_t mid;		/* depth 3 */
	/* With the result's block (below): list i (depth 2, 3) or value i
	 * (depth 1) is row i's, for every row, and get() gives them from
	 * the rows readied: the field is written in one pass over the rows
	 * with the other such fields (the ones after the first kept in a
	 * spool until their turn), each row readied once. */
	bool per_row;
};

struct wresult {
	void *ctx;		/* the command's, for the callbacks */

	/* The table: rows of `cells` values each. row() fills row r's
	 * (asked in order, each once per format written); false leaves the
	 * row out. text prints cells [text_from, cells) of each row, tsv and
	 * csv [table_from, cells) (labels a header explains), binary and npy
	 * [array_from, cells). */
	uint64_t rows;
	unsigned cells, text_from, table_from, array_from;
	bool (*row)(void *ctx, uint64_t r, struct wval *cells);
	/* Where set, the rows are readied a block at a time on the writer's
	 * thread: block(ctx, r0, r1, err) readies rows [r0, r1), at most
	 * block_rows of them, after which row() of those rows (and get() of
	 * a per_row field's values of them) may run on pool's threads at
	 * once, each thread with cells of its own; their text is made in
	 * buffers of each thread's and added to the output in row order.
	 * pool NULL: the writer's thread alone. block returns 0, or -1 with
	 * err where the rows could not be readied (a spilled table read
	 * back short): the writer stops there, none of those rows written. */
	int (*block)(void *ctx, uint64_t r0, uint64_t r1, struct gs_err *err);
	uint64_t block_rows;
	struct pool *pool;
	/* The header (tsv, csv): the first `labels` cells are named by
	 * names[0..labels), the rest, each column's values in turn, by the
	 * other names with "_COLUMN" after them where there are columns. */
	const char *const *names;
	unsigned nnames, labels;

	/* binary, npy: the dtype ("<f8", "<u8" or "<i8") and the shape of
	 * the rows kept; or, where cell_descr is set, a structured dtype of
	 * a field per array cell, named f0, f1, ... as numpy names the
	 * fields of np.dtype('i8,f8'), field j of dtype cell_descr[j] */
	const char *descr;
	const char *const *cell_descr;
	int ndim;
	uint64_t dims[2];
	/* where set (descr "<u8", every row kept), the array itself, its
	 * dims[0] * dims[1] values in C order: written without row(), which
	 * for the 16M bins of a 4096 x 4096 hist2d took longer than the
	 * counting */
	const uint64_t *u64;

	/* json: "op" after "command" where set, then "type", "columns" and
	 * the fields */
	const char *op;
	const struct wfield *fields;
	unsigned nfields;

	/* pgm, png: an image of width x height grey pixels, row 0 at the
	 * top, of bits (8 or 16; 0: the format's own, 16 for pgm, 8 for png)
	 * per sample; pixel() gives the level of one in 0..maxval (255 at 8
	 * bits, 65535 at 16). NULL: the result is no image. */
	uint64_t width, height;
	unsigned bits;
	unsigned (*pixel)(void *ctx, uint64_t row, uint64_t col,
			  unsigned maxval);
};

/* r in c->format into b; 0, or -1 with err (a value that the binary
 * dtype cannot hold). c->cmd names the command. */
int writer_put(const struct cli *c, const struct wresult *r, struct sbuf *b,
	       struct gs_err *err);

/* The dtype of one 8-byte value of type t's results: "<f8", "<i8", "<u8". */
const char *writer_descr(enum gs_type t);

/* --per-file's joining (perfile.c): each operand's result, as its format
 * writes it, handed on in pieces as it is made, labelled and joined into
 * one output (perfile.h says how for each format), so no result is held
 * whole. The fields after name are the formats' own, freed by perfile. */
struct wjoin {
	const struct cli *c;
	struct sbuf *b;		/* the joined output */
	int n;			/* results in all, the total last */
	int i;			/* this result's place, from 0 */
	const char *name;	/* its operand, or NULL: the total */
	struct sbuf held;	/* bytes held back: a line not yet ended,
				 * json's first ones, npy's header */
	bool past;		/* past the result's opening (a header
				 * line, json's "{", npy's header) */
	size_t newlines;	/* json: line ends held back (a result's
				 * last ones are dropped) */
	struct sbuf label;	/* text, tsv, csv: what ends each line */
	char *descr;		/* npy: the first result's dtype */
	uint64_t dims[4];	/* and shape, which every result's must be */
	int ndim;
};

/* A format: how it writes a result, and how --per-file joins the results:
 * start(j) before result j->i's bytes, add(j, p, n) its next n bytes,
 * end(j) after its last, close(j) after the last result's; each NULL
 * where there is nothing to do; 0, or -1 with err. start NULL and add
 * writer_concat: the results one after another, written straight into
 * the output. */
struct wformat {
	int (*put)(const struct cli *c, const struct wresult *r,
		   struct sbuf *b, struct gs_err *err);
	int (*start)(struct wjoin *j, struct gs_err *err);
	int (*add)(struct wjoin *j, const char *p, size_t n,
		   struct gs_err *err);
	int (*end)(struct wjoin *j, struct gs_err *err);
	int (*close)(struct wjoin *j, struct gs_err *err);
};

/* wr_table.c, wr_json.c, wr_array.c (binary and npy), writer.c (state),
 * wr_image.c (pgm and png) */
extern const struct wformat wr_table, wr_json, wr_binary, wr_npy, wr_state,
	wr_pgm, wr_png;

const struct wformat *writer_format(enum gs_format f);

/* The rows of a table's format (wr_rows.c): one(c, r, i, cells, out,
 * err) writes row i into out (cells: room for its values); in row order
 * into b, or with r->block, a block of rows at a time on r->pool's threads,
 * each thread's text added to b in row order. 0, or the first failing
 * row's -1 with err. */
typedef int (*writer_row_fn)(const struct cli *c, const struct wresult *r,
			     uint64_t i, struct wval *cells, struct sbuf *out,
			     struct gs_err *err);
int writer_rows(const struct cli *c, const struct wresult *r,
		writer_row_fn one, struct sbuf *b, struct gs_err *err);
/* The general pass under writer_rows and json's per_row fields: for each
 * block, fmt(ctx, a, z, cells, bufs, err) writes rows [a, z) into a
 * thread's nbuf buffers, then take(ctx, k, buf, err) is handed buffer k of
 * each thread's share in row order. 0, or -1 with err. */
struct wblocks {
	const struct wresult *r;
	void *ctx;
	unsigned nbuf;
	int (*fmt)(void *ctx, uint64_t a, uint64_t z, struct wval *cells,
		   struct sbuf *bufs, struct gs_err *err);
	int (*take)(void *ctx, unsigned k, const struct sbuf *buf,
		    struct gs_err *err);
};
int writer_blocks(const struct wblocks *w, struct gs_err *err);

/* Helpers of the formats: room for a row's cells; a value as text
 * writes it; each result's bytes one after another (binary, state). */
struct wval *writer_cells(const struct wresult *r, struct gs_err *err);
void writer_add_text(struct sbuf *b, const struct wval *v);
int writer_concat(struct wjoin *j, const char *p, size_t n,
		  struct gs_err *err);

#endif
