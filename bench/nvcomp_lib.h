/* nvcomp_lib.h - NVIDIA's nvCOMP (its batched zstd decoder), opened at run
 * time. Built in where the Makefile found nvCOMP's headers (GS_HAVE_NVCOMP);
 * libnvcomp.so.6 itself is opened with dlopen on first use, so a binary built
 * with it runs, and decodes on the CPU, where the library is missing. */
#ifndef GS_NVCOMP_LIB_H
#define GS_NVCOMP_LIB_H

#include <stddef.h>

#ifdef GS_HAVE_NVCOMP
#include <nvcomp.h>
#include <nvcomp/zstd.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef GS_HAVE_NVCOMP
/* The entry points gpustat uses, as nvcomp/zstd.h declares them. */
struct gs_nvcomp {
	unsigned version;		/* nvcompProperties_t.version: 6000 is 6.0.0 */
	const char *(*status_string)(nvcompStatus_t status);
	__typeof__(nvcompBatchedZstdDecompressGetRequiredAlignments) *zstd_alignments;
	__typeof__(nvcompBatchedZstdDecompressGetTempSize) *zstd_temp_size;
	__typeof__(nvcompBatchedZstdGetDecompressSizeAsync) *zstd_sizes;
	__typeof__(nvcompBatchedZstdDecompressAsync) *zstd_decompress;
};

/* gs_nvcomp_load: the library's entry points, opened once (thread-safe; the
 * first call pays for dlopen); NULL where it does not load, and
 * gs_nvcomp_describe says why. */
const struct gs_nvcomp *gs_nvcomp_load(void);

/* gs_nvcomp_sym: another entry point of the loaded library by name (the
 * deflate, gzip and CRC32 ones bench/nvcomp_gz_probe.cu measures); NULL
 * where the library did not load or has no such symbol. */
void *gs_nvcomp_sym(const char *name);
#endif

/* gs_nvcomp_describe: one line for --version into buf: "nvcomp 6.0.0
 * (loaded)", "nvcomp: built in, not loaded (WHY)" or "nvcomp: not built
 * in". Opens the library if it was built in. */
void gs_nvcomp_describe(char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
