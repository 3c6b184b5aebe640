/*
 * suffix.h - the type a file's name says: "x.f64", "x.i16.zst", "x.u8.gz".
 *
 * A name whose last extension (or the one before ".zst" or ".gz") is a type
 * sets -t when -t is absent, for every operand alike: the stream is one
 * type, so operands without such a name (stdin among them) follow the ones
 * with.
 * The suffixes, exactly as written (lowercase):
 *
 *   gpustat's names  u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64
 *   numpy's names    uint8 int8 uint16 int16 uint32 int32 uint64 int64
 *                    float16 bfloat16 float32 float64
 *   numpy's codes    u1 i1 u2 i2 u4 i4 f2 f4 f8
 *
 * numpy's u8 and i8 (8 bytes) are not among the codes: as names they are
 * gpustat's one-byte types, as -t reads them. Names that numpy reads with
 * platform meanings or that name no width (.f .d .int .float .double
 * .bool .half) say nothing, nor does ".npy", ".pgm" or ".ppm": a header
 * says the type there (an extension before them is not looked at).
 */
#ifndef SUFFIX_H
#define SUFFIX_H

#include "cli.h"

/* The type path's name says, as above; false where it says none. raw:
 * --raw, which does not decompress, so that only the last extension
 * counts. */
bool suffix_type(const char *path, bool raw, enum gs_type *t);

/*
 * Settle the job's type with the operands' names, before anything is
 * opened: the type their suffixes agree on sets it where -t is absent
 * (c->type_from_name then names the first such operand). Usage errors:
 * operands whose suffixes disagree, and a -t that contradicts a suffix
 * unless --raw is given, which reads the bytes as -t says whatever the
 * name (the escape the message offers).
 */
int suffix_settle(struct cli *c, struct gs_err *err);

#endif
