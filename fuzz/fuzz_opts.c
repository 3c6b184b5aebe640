/*
 * fuzz_opts.c - option and number parsing: parse_u64, parse_size,
 * parse_double, parse_op, type_parse (types.c), fmt_double (numfmt.c) and
 * cli_parse with a command's own option table, on arguments cut from the fuzz
 * bytes at NULs.
 *
 * The number and type parsers are checked against small models written here
 * from their contracts (cli.h, types.c's comment): what they accept and the
 * value they give. fmt_double must give text that reads back to the same
 * bits, through strtod and through parse_double. cli_parse must not crash,
 * and what it accepts must be within the documented ranges. Each argument is
 * its own allocation of its exact size, so a read past its NUL is caught.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "command.h"
#include "fuzz.h"
#include "numfmt.h"

#define MAX_ARGS 24

/* [0-9]+ that fits in 64 bits: the value, or -1. */
static int model_digits(const char *s, size_t n, uint64_t *v)
{
	*v = 0;
	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' ||
		    __builtin_mul_overflow(*v, 10, v) ||
		    __builtin_add_overflow(*v, (uint64_t)(s[i] - '0'), v))
			return -1;
	}
	return 0;
}

/* digits, then K/M/G/T in either case, then "B" or "iB" after a letter */
static int model_size(const char *s, uint64_t *v)
{
	static const char units[] = "kmgt";
	size_t n = strspn(s, "0123456789");
	const char *u = s[n] ? strchr(units, tolower((unsigned char)s[n])) : NULL;
	const char *rest = s + n + (u ? 1 : 0);
	unsigned shift = u ? 10 * (unsigned)(u - units + 1) : 0;

	if (model_digits(s, n, v) < 0)
		return -1;
	if (u && (!strcmp(rest, "B") || !strcmp(rest, "iB")))
		rest = "";
	if (*rest || (shift && *v > UINT64_MAX >> shift))
		return -1;
	*v <<= shift;
	return 0;
}

static void check_numbers(const char *s)
{
	uint64_t v, m;
	double d;
	int r;

	r = parse_u64(s, &v);
	FZ_CHECK(r == model_digits(s, strlen(s), &m) && (r < 0 || v == m),
		 "parse_u64(\"%s\"): %d, %llu", s, r, (unsigned long long)v);
	r = parse_size(s, &v);
	FZ_CHECK(r == model_size(s, &m) && (r < 0 || v == m),
		 "parse_size(\"%s\"): %d, %llu", s, r, (unsigned long long)v);
	if (parse_double(s, &d) == 0)
		FZ_CHECK(isfinite(d) && *s && !isspace((unsigned char)*s),
			 "parse_double(\"%s\") accepted %g", s, d);
}

static const char *const op_model[] = {
	"sum", "prod", "min", "max", "and", "or", "xor",
};

static void check_op(const char *s)
{
	enum gs_op op;
	int want = -1;

	for (int i = 0; i < 7; i++)
		if (!strcmp(s, op_model[i]))
			want = i;
	FZ_CHECK(parse_op(s, &op) == (want < 0 ? -1 : 0) &&
		 (want < 0 || ((int)op == want && !strcmp(op_name(op), s))),
		 "parse_op(\"%s\")", s);
}

/* The spellings types.c documents, as a table of our own. */
static int model_type(const char *s, bool coded, enum gs_type *t)
{
	static const struct { const char *s; enum gs_type t; } names[] = {
		{ "u8", GS_U8 }, { "i8", GS_I8 }, { "u16", GS_U16 },
		{ "i16", GS_I16 }, { "u32", GS_U32 }, { "i32", GS_I32 },
		{ "u64", GS_U64 }, { "i64", GS_I64 }, { "f16", GS_F16 },
		{ "bf16", GS_BF16 }, { "f32", GS_F32 }, { "f64", GS_F64 },
		{ "uint8", GS_U8 }, { "int8", GS_I8 }, { "uint16", GS_U16 },
		{ "int16", GS_I16 }, { "uint32", GS_U32 }, { "int32", GS_I32 },
		{ "uint64", GS_U64 }, { "int64", GS_I64 }, { "float16", GS_F16 },
		{ "float32", GS_F32 }, { "float64", GS_F64 },
		{ "bfloat16", GS_BF16 }, { "half", GS_F16 }, { "single", GS_F32 },
		{ "double", GS_F64 }, { "byte", GS_I8 }, { "ubyte", GS_U8 },
		/* numpy 2 on Linux x86-64: np.dtype(NAME) */
		{ "bool", GS_U8 }, { "bool_", GS_U8 }, { "short", GS_I16 },
		{ "ushort", GS_U16 }, { "intc", GS_I32 }, { "uintc", GS_U32 },
		{ "int", GS_I64 }, { "int_", GS_I64 }, { "intp", GS_I64 },
		{ "long", GS_I64 }, { "longlong", GS_I64 }, { "uint", GS_U64 },
		{ "uintp", GS_U64 }, { "ulong", GS_U64 }, { "ulonglong", GS_U64 },
		{ "float", GS_F64 }, { "?", GS_U8 }, { "b", GS_I8 },
		{ "B", GS_U8 }, { "h", GS_I16 }, { "H", GS_U16 }, { "i", GS_I32 },
		{ "I", GS_U32 }, { "l", GS_I64 }, { "L", GS_U64 }, { "q", GS_I64 },
		{ "Q", GS_U64 }, { "p", GS_I64 }, { "P", GS_U64 }, { "e", GS_F16 },
		{ "f", GS_F32 }, { "d", GS_F64 },
	}, codes[] = {
		{ "u1", GS_U8 }, { "i1", GS_I8 }, { "u2", GS_U16 },
		{ "i2", GS_I16 }, { "u4", GS_U32 }, { "i4", GS_I32 },
		{ "u8", GS_U64 }, { "i8", GS_I64 }, { "f2", GS_F16 },
		{ "f4", GS_F32 }, { "f8", GS_F64 }, { "b1", GS_U8 },
	};
	size_t i;

	/* after a byte-order mark numpy's codes come first ("<u8" is u64) */
	for (i = 0; coded && i < sizeof(codes) / sizeof(codes[0]); i++)
		if (!strcmp(s, codes[i].s))
			return *t = codes[i].t, 0;
	/* after a mark, of the names only one-letter codes and bf16 */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].s) && (!coded || strlen(s) == 1 ||
					       !strcmp(s, "bf16") ||
					       !strcmp(s, "bfloat16")))
			return *t = names[i].t, 0;
	if (coded)
		return -1;
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (!strcmp(s, codes[i].s))
			return *t = codes[i].t, 0;
	return -1;
}

static void check_type(const char *s)
{
	bool mark = *s && strchr("<>|=", *s), expl = true;
	struct gs_dtype dt = { GS_NTYPES, false, false }, back;
	enum gs_type t;
	int r = type_parse(s, &dt, &expl), want = model_type(s + mark, mark, &t);
	bool one;

	FZ_CHECK(r == want, "type_parse(\"%s\"): %d", s, r);
	if (r < 0)
		return;
	/* numpy: a byte order means nothing for one byte (">u1" is "|u1");
	 * '=' is this (little-endian) machine's */
	one = type_size(t) == 1;
	FZ_CHECK(dt.type == t && dt.big_endian == (!one && *s == '>') &&
		 expl == (!one && (*s == '<' || *s == '>' || *s == '=')),
		 "type_parse(\"%s\"): %s", s, type_name(dt.type));
	FZ_CHECK(type_parse(type_name(t), &back, NULL) == 0 && back.type == t,
		 "type name %s does not parse back", type_name(t));
}

/* fmt_double's text reads back to the same bits, and cuts like snprintf. */
static void check_fmt(const uint8_t *p)
{
	char buf[FMT_DOUBLE_MAX], small[FMT_DOUBLE_MAX];
	double v, back;
	int len, k;

	memcpy(&v, p, sizeof(v));
	len = fmt_double(buf, sizeof(buf), v);
	FZ_CHECK(len > 0 && len < FMT_DOUBLE_MAX && (size_t)len == strlen(buf),
		 "fmt_double: %d for '%s'", len, buf);
	if (isnan(v)) {
		FZ_CHECK(!strcmp(buf, "nan"), "nan as '%s'", buf);
		return;
	}
	back = strtod(buf, NULL);
	FZ_CHECK(!memcmp(&back, &v, sizeof(v)), "'%s' reads back as %a, not %a",
		 buf, back, v);
	if (isfinite(v))
		FZ_CHECK(parse_double(buf, &back) == 0 && !memcmp(&back, &v, sizeof(v)),
			 "parse_double('%s')", buf);
	k = 1 + p[0] % len;
	FZ_CHECK(fmt_double(small, (size_t)k, v) == len &&
		 strlen(small) == (size_t)k - 1 && !strncmp(small, buf, (size_t)k - 1),
		 "fmt_double into %d bytes: '%s' of '%s'", k, small, buf);
}

enum { OPT_N = 1, OPT_X, OPT_FLAG, OPT_E };

static const struct opt_spec cmd_opts[] = {
	{ .name = "bins", .has_arg = required_argument, .arg = "N",
	  .help = "n", .id = OPT_N },
	{ .name = "range", .has_arg = required_argument, .arg = "X",
	  .help = "x", .id = OPT_X },
	{ .name = "nonzero", .has_arg = no_argument, .help = "flag",
	  .id = OPT_FLAG },
	{ .name = "edges", .short_name = 'e', .has_arg = required_argument,
	  .arg = "E", .help = "e", .id = OPT_E },
	{ .name = NULL },
};

static int cmd_option(struct cli *c, int id, const char *arg,
		      struct gs_err *err)
{
	uint64_t v;
	double d;

	FZ_CHECK(id >= OPT_N && id <= OPT_E, "option %d handed to the command",
		 id);
	FZ_CHECK((id == OPT_FLAG) == !arg, "option %d with arg %p", id, arg);
	if (id == OPT_N && parse_u64(arg, &v) < 0)
		return gs_fail(err, GS_EUSAGE, "", "--bins: not '%s'", arg);
	if (id == OPT_X && parse_double(arg, &d) < 0)
		return gs_fail(err, GS_EUSAGE, "", "--range: not '%s'", arg);
	return 0;
}

static const struct command cmd = {
	.name = "fuzz", .summary = "", .usage = "", .about = "", .examples = "",
	.opts = cmd_opts, .default_type = GS_U8, .default_format = FMT_TEXT,
	.formats = "text", .formats_help = "text", .option = cmd_option,
};

static void check_cli(char **argv, int argc)
{
	char *copy[MAX_ARGS + 2];
	struct cli c;
	struct gs_err err = { 0 };
	int r;

	memcpy(copy, argv, sizeof(*argv) * (size_t)(argc + 1));
	memset(&c, 0, sizeof(c));
	r = cli_parse(&c, argc, copy, &cmd, &err);
	FZ_CHECK(r >= -1 && r <= 1, "cli_parse: %d", r);
	if (r < 0)
		FZ_CHECK(err.code == GS_EUSAGE && err.what[0],
			 "cli_parse: code %d, '%s'", err.code, err.what);
	if (r != 0)
		return;
	FZ_CHECK(c.job.columns >= 1 && c.job.columns <= 1u << 20 &&
		 c.eo.chunk_size >= 1 && c.eo.chunk_size <= (size_t)1 << 40 &&
		 c.eo.threads >= 1 && c.eo.threads <= 64 &&
		 c.eo.streams >= 1 && c.eo.streams <= 64 &&
		 c.job.dtype.type < GS_NTYPES, "cli_parse accepted a bad value");
	FZ_CHECK(c.noperands >= 0 && c.noperands < argc &&
		 c.operands == copy + argc - c.noperands,
		 "operands %d of %d", c.noperands, argc);
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	char *argv[MAX_ARGS + 2];
	int argc = 1;
	size_t i = 0, k;

	if (n >= 8)
		check_fmt(p + n - 8);
	argv[0] = "sum";
	while (i < n && argc <= MAX_ARGS) {
		const uint8_t *z = memchr(p + i, 0, n - i);

		k = z ? (size_t)(z - (p + i)) : n - i;
		argv[argc] = malloc(k + 1);
		FZ_CHECK(argv[argc], "out of memory");
		memcpy(argv[argc], p + i, k);
		argv[argc][k] = 0;
		check_numbers(argv[argc]);
		check_op(argv[argc]);
		check_type(argv[argc]);
		argc++;
		i += k + 1;
	}
	argv[argc] = NULL;
	check_cli(argv, argc);
	for (int a = 1; a < argc; a++)
		free(argv[a]);
	return 0;
}
