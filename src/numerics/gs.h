/*
 * gs.h - the few types every part of gpustat shares: element types, the
 * error value that libraries return instead of printing, and the job that
 * the CLI hands to the engine and the engine to a backend.
 *
 * Nothing here prints or exits: only main.c and cli.c do, so that a caller
 * can fall back (the GPU to the CPU), clean up and be tested.
 */
#ifndef GS_H
#define GS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GS_VERSION "0.1.0"

/* ---- element types ---------------------------------------------------- */

enum gs_type {
	GS_U8, GS_I8, GS_U16, GS_I16, GS_U32, GS_I32, GS_U64, GS_I64,
	GS_F16, GS_BF16, GS_F32, GS_F64,
	GS_NTYPES
};

/* An element type as found in data: the type and its byte order. */
struct gs_dtype {
	enum gs_type type;
	bool big_endian;
	bool boolean;		/* numpy's bool: u8 bytes, a nonzero one reads as 1 */
};

size_t type_size(enum gs_type t);
bool type_is_float(enum gs_type t);
bool type_is_signed(enum gs_type t);	/* true for iN and every float */
const char *type_name(enum gs_type t);	/* "u8", "f32", ... */
/* Parse "f32", "float32", "<f4", ">i2", "|u1", "bfloat16", and numpy's names
 * and codes with numpy's meanings ("float" and "d" f64, "int" i64, "bool" u8)
 * ... Returns 0 or -1. Sets *explicit_endian when the spelling carried a byte
 * order ('<', '>' or '=', never for a one-byte type). */
int type_parse(const char *s, struct gs_dtype *out, bool *explicit_endian);
/* The spellings type_parse accepts, on one line, into buf (truncated to fit
 * n bytes); returns the length written. */
size_t type_list(char *buf, size_t n);
/* The spellings type_parse accepts without a byte order, at most max of
 * them into names (for a "did you mean"); returns their count. */
size_t type_spellings(const char **names, size_t max);

/* Records whose columns have types of their own (-t i32,f32, a .npy of a
 * structured dtype): each column's type and byte offset in the record, and
 * the record's size, padding included (numpy's aligned dtypes have some).
 * n == 0: not such a record. */
#define GS_RECORD_MAX 256
struct gs_record {
	unsigned n;
	size_t size;
	struct gs_dtype type[GS_RECORD_MAX];
	size_t off[GS_RECORD_MAX];
	bool endian[GS_RECORD_MAX];	/* the spelling named a byte order */
};
/* Parse "i32,f32" (each a spelling type_parse takes) into r, packed
 * (offsets one after another, no padding). Returns 0, or -1 with the
 * failing name's offset and length in *bad, *badlen. */
int record_parse(const char *s, struct gs_record *r, size_t *bad,
		 size_t *badlen);
/* "i32,f32" (">" before a big-endian column of more than a byte) into buf. */
const char *record_name(const struct gs_record *r, char *buf, size_t n);
/* Whether the columns of a and b have the same types, byte orders and
 * offsets, and the records the same size. */
bool record_same(const struct gs_record *a, const struct gs_record *b);

/* Exact conversions of the half types to float (every value is exact). */
float f16_to_f32(uint16_t h);
float bf16_to_f32(uint16_t h);

/* ---- errors ------------------------------------------------------------- */

enum { GS_OK = 0, GS_ERUNTIME = 1, GS_EUSAGE = 2 };

/* An error as a value: the CLI prints "gpustat: WHERE: WHAT" and exits with
 * code. where may be empty (then it is "gpustat: WHAT"); an empty what is an
 * error whose cause was reported already (nothing more is printed). */
struct gs_err {
	int code;
	char where[256];
	char what[512];
};

/* Fill err and return -1, so callers can write `return gs_fail(...)`. */
int gs_fail(struct gs_err *err, int code, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- the job ----------------------------------------------------------- */

/* The accumulating operation of a pass, one per row of ops.def (which
 * registers each everywhere it is needed). Commands (cmd/) choose them:
 * stats and count run CMD_STATS, a ranged hist without --range CMD_MINMAX
 * and then CMD_HIST, quantile and median CMD_SELECT passes (and one
 * CMD_COLLECT), mode CMD_SELECT or CMD_MODECOUNT. */
enum gs_cmd {
#define OPERATION(id, ...) CMD_##id,
#include "ops.def"
#undef OPERATION
	GS_NCMDS
};

enum gs_op { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR };

/* "sum", "prod", ... (numerics/types.c); parse_op returns 0 or -1. */
const char *op_name(enum gs_op op);
int parse_op(const char *s, enum gs_op *op);

/* FMT_PGM, FMT_PNG: images (hist2d) */
enum gs_format { FMT_TEXT, FMT_TSV, FMT_CSV, FMT_JSON, FMT_BINARY, FMT_NPY,
		 FMT_STATE, FMT_PGM, FMT_PNG, GS_NFORMATS };

struct select_plan;	/* cpu/select.h */

/* --algorithm: which kernel computes a pass (ops/algorithm.c has the
 * names and which command and backend has which). Every one gives the
 * default's bits: the accumulators are exact in any grouping. */
enum gs_algo {
	ALGO_DEFAULT,		/* the backend's own kernels */
	ALGO_CPU,		/* hist: the CPU loop (--backend cpu's kernel) */
	ALGO_GLOBAL_ATOMIC,	/* hist: atomics on the global counts */
	ALGO_SHARED_ATOMIC,	/* hist: per-block shared counts, merged */
	ALGO_SORT,		/* hist: radix sort of the bins, run lengths */
	ALGO_ATOMIC,		/* sum/reduce/dot: threads into one global state */
	ALGO_BLOCK_TREE,	/* sum/reduce/dot: shared tree, then blocks */
	ALGO_HILLIS_STEELE,	/* scan: step-doubling per block */
	ALGO_BLELLOCH,		/* scan: up-sweep and down-sweep per block */
	GS_NALGOS
};

/* --by COLS (a group-by, cpu_group.c): the key columns and the value
 * columns of each record (0-based, of the records the job reads, after
 * -F), what each key keeps per value column, and the bytes its tables may
 * hold in all (the accumulators' limit). */
enum gs_group_what { GROUP_COUNT, GROUP_MINMAX, GROUP_SUM, GROUP_STATS };
struct textkeys;
struct gs_group {
	unsigned nkeys, nvals;
	const unsigned *key, *val;
	enum gs_group_what what;
	uint64_t limit;
	/* text input: every key column holds ids of strings, those of this
	 * dictionary (input's textkeys.h); NULL where keys are numbers */
	const struct textkeys *text;
	/* quantile and median (CMD_GVALS): the result reads each key's values
	 * at some ranks alone, which a device holding them answers (auto may
	 * take the GPU); mode reads every value */
	bool ranks;
};

/* Everything a backend needs to know to compute a command. The CLI fills it;
 * the engine completes type and columns from the input's header. */
struct gs_job {
	enum gs_cmd cmd;
	struct gs_dtype dtype;
	unsigned columns;	/* values per record, >= 1 */
	enum gs_op op;		/* reduce, scan */
	bool exclusive;		/* scan */
	enum gs_type out_type;	/* scan output type */
	bool ranged;		/* hist: --bins/--range binning */
	uint64_t bins;
	double lo, hi;		/* hist range, already validated */
	/* hist without --range: lo and hi are the data's min and max, and the
	 * edges and bins follow numpy's default range, whose arithmetic is in
	 * the bin type (cpu_hist.c); span is max - min of integer data, exact
	 * before its one rounding to double (0 for floats or max == min) */
	bool data_range;
	double span;
	/* hist2d: the y axis's bins and range (x's are bins, lo and hi; both
	 * axes take data_range) */
	uint64_t ybins;
	double ylo, yhi;
	/* hist --weights: column wcol of the job's records is each record's
	 * weight, the others are its values (cpu_hist_w.c); with records of
	 * mixed types, dtype is then the value columns' type */
	bool weighted;
	unsigned wcol;
	bool two_inputs;	/* dot A B: records come as two parallel streams */
	/* the input is a file mostly on disk, not in the page cache: it comes
	 * at the disk's rate, unknown beforehand (auto plans it as a pipe's) */
	bool cold_input;
	const struct select_plan *select;	/* CMD_SELECT, _COLLECT, _MODECOUNT */
	enum gs_algo algo;	/* --algorithm (hist, sum, reduce, dot, scan) */
	/* Records of mixed types, or NULL: then columns == rec->n, each
	 * column's type is rec->type[k] and dtype is u8, so that nothing
	 * reads a mixed record as elements of one type (cpu_mixed.c runs
	 * each column through its type's kernels). */
	const struct gs_record *rec;
	const struct gs_group *group;	/* CMD_GROUP: --by's columns */
};

/* The type of column k of job's records. */
static inline struct gs_dtype job_col_dtype(const struct gs_job *job,
					    unsigned k)
{
	return job->rec ? job->rec->type[k] : job->dtype;
}

/* The job of column k of job's mixed records alone: what `-t T` runs on
 * that column extracted, its elements in native byte order (cpu_mixed.c
 * gathers them so). */
static inline struct gs_job job_column(const struct gs_job *job, unsigned k)
{
	struct gs_job c = *job;

	c.rec = NULL;
	c.columns = 1;
	c.dtype.type = job->rec->type[k].type;	/* C++ too: cuda/ includes it */
	c.dtype.big_endian = false;
	c.dtype.boolean = false;
	return c;
}

/* Size in bytes of one record of job (columns elements). */
static inline size_t job_record_size(const struct gs_job *job)
{
	return job->rec ? job->rec->size
			: type_size(job->dtype.type) * job->columns;
}

#endif
