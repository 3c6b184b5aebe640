/* nvcomp_lib.c - libnvcomp.so.6 opened with dlopen, its zstd entry points
 * looked up by name.
 *
 * The library is looked for in the folder the build found it in
 * (GS_NVCOMP_LIBDIR: the pip wheel's lib64/ has no libnvcomp.so link and is
 * on no loader path), then by its soname on the loader's path
 * (LD_LIBRARY_PATH, ld.so.cache). RTLD_LOCAL: its symbols stay out of the
 * global namespace, as the wheel's own loader does (it links its own
 * cudart statically, as gpustat does). */
#include "nvcomp_lib.h"

#include <stdio.h>

#ifdef GS_HAVE_NVCOMP
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#ifndef GS_NVCOMP_LIBDIR
#define GS_NVCOMP_LIBDIR ""
#endif
#define NVCOMP_SONAME "libnvcomp.so.6"

static struct gs_nvcomp lib;
static const struct gs_nvcomp *loaded;
static void *lib_handle;	/* the library's, while loaded */
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* sym: name's address in handle, or NULL with why set. */
static void *sym(void *handle, const char *name)
{
	void *p = dlsym(handle, name);

	if (!p)
		snprintf(why, sizeof(why), "%s: no %s", NVCOMP_SONAME, name);
	return p;
}

static void open_once(void)
{
	char path[4096];
	void *h = NULL;
	const char *err;

	if (GS_NVCOMP_LIBDIR[0]) {
		snprintf(path, sizeof(path), "%s/%s", GS_NVCOMP_LIBDIR, NVCOMP_SONAME);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	}
	if (!h)
		h = dlopen(NVCOMP_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		err = dlerror();
		snprintf(why, sizeof(why), "%s", err ? err : NVCOMP_SONAME ": cannot open");
		return;
	}
	/* dlsym returns void *; POSIX guarantees it converts to a function
	 * pointer, which memcpy says without a cast ISO C lacks. */
	void *p[6];
	const char *names[6] = {
		"nvcompGetProperties", "nvcompGetStatusString",
		"nvcompBatchedZstdDecompressGetRequiredAlignments",
		"nvcompBatchedZstdDecompressGetTempSize",
		"nvcompBatchedZstdGetDecompressSizeAsync",
		"nvcompBatchedZstdDecompressAsync",
	};
	for (int i = 0; i < 6; i++)
		if (!(p[i] = sym(h, names[i]))) {
			dlclose(h);
			return;
		}
	__typeof__(nvcompGetProperties) *props;
	nvcompProperties_t pr = {0, 0};

	memcpy(&props, &p[0], sizeof(props));
	memcpy(&lib.status_string, &p[1], sizeof(lib.status_string));
	memcpy(&lib.zstd_alignments, &p[2], sizeof(lib.zstd_alignments));
	memcpy(&lib.zstd_temp_size, &p[3], sizeof(lib.zstd_temp_size));
	memcpy(&lib.zstd_sizes, &p[4], sizeof(lib.zstd_sizes));
	memcpy(&lib.zstd_decompress, &p[5], sizeof(lib.zstd_decompress));
	if (props(&pr) != nvcompSuccess || pr.version / 1000 != NVCOMP_VER_MAJOR) {
		snprintf(why, sizeof(why), "%s is version %u, gpustat was built with %d.x",
			 NVCOMP_SONAME, (unsigned)pr.version, NVCOMP_VER_MAJOR);
		dlclose(h);
		return;
	}
	lib.version = pr.version;
	lib_handle = h;
	loaded = &lib;
}

const struct gs_nvcomp *gs_nvcomp_load(void)
{
	pthread_once(&once, open_once);
	return loaded;
}

void *gs_nvcomp_sym(const char *name)
{
	return gs_nvcomp_load() ? dlsym(lib_handle, name) : NULL;
}

void gs_nvcomp_describe(char *buf, size_t size)
{
	const struct gs_nvcomp *nv = gs_nvcomp_load();

	if (nv)
		snprintf(buf, size, "nvcomp %u.%u.%u (loaded)", nv->version / 1000,
			 nv->version % 1000 / 100, nv->version % 100);
	else
		snprintf(buf, size, "nvcomp: built in, not loaded (%s)", why);
}
#else
void gs_nvcomp_describe(char *buf, size_t size)
{
	snprintf(buf, size, "nvcomp: not built in");
}
#endif
