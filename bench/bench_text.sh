#!/bin/sh
# Text output speed: numbers a second of the number formatter alone (one
# core), next to printf("%.17g") and printf("%llu") measured in the same run,
# and the old printf/strtod search (fmt_double_slow); then whole-process wall
# time of a 1,000,000-bin ranged histogram as text, json and tsv next to the
# same run as npy, and 16,777,216 bins as text.
#   sh bench/bench_text.sh [GPUSTAT]     (default ./gpustat; make it first)
# OLD=path adds the same histogram rows for another gpustat binary (the one
# before the fast formatter took 46.6 s for 1,000,000 bins: try BINS=100000).
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
G=${1:-./gpustat}
BINS=${BINS:-1000000}
T=$(mktemp -d "${TMPDIR:-/tmp}/gpustat-bench-text.XXXXXX")
trap 'rm -rf "$T"' EXIT

cat > "$T/drv.c" <<'EOF'
/* The formatter alone: ns a number over sets that output really holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "numfmt.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static volatile size_t sink;

/* Best of 3 numbers a second of one way over v[0..n). */
static double rate(int how, const double *v, const unsigned long long *u, size_t n)
{
	double best = 0;
	char buf[64];

	for (int r = 0; r < 3; r++) {
		double t0 = now();
		size_t len = 0;

		for (size_t i = 0; i < n; i++) {
			switch (how) {
			case 0: len += fmt_double(buf, sizeof(buf), v[i]); break;
			case 1: len += snprintf(buf, sizeof(buf), "%.17g", v[i]); break;
			case 2: len += fmt_double_slow(buf, sizeof(buf), v[i], 1); break;
			case 3: len += fmt_u64(buf, u[i]); break;
			default: len += snprintf(buf, sizeof(buf), "%llu", u[i]); break;
			}
		}
		sink += len;
		double r_ = n / (now() - t0);

		if (r_ > best)
			best = r_;
	}
	return best;
}

int main(int argc, char **argv)
{
	size_t n = 2000000, nslow = 20000;
	unsigned long long s = 88172645463325252ull, *u = malloc(n * sizeof(*u));
	double *v = malloc(n * sizeof(*v));
	const char *set[3] = { "random bit patterns", "hist edges i/1e6", "sums x.5e-3" };

	if (argc > 2 && !strcmp(argv[1], "--gen")) {	/* f64 in [0, 1) */
		for (long i = atol(argv[2]); i > 0; i--) {
			double x = (rnd(&s) >> 11) * 0x1p-53;

			fwrite(&x, sizeof(x), 1, stdout);
		}
		return 0;
	}
	printf("%-22s %12s %12s %12s %9s %9s\n", "doubles", "fmt_double/s", "%.17g/s",
	       "old/s", "x %.17g", "x old");
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < n; i++) {
			unsigned long long b;

			do
				b = rnd(&s);
			while ((b >> 52 & 0x7ff) == 0x7ff);
			memcpy(&v[i], &b, sizeof(b));
			if (k == 1)
				v[i] = (double)(i % 1000001) / 1e6;
			if (k == 2)
				v[i] = (double)(rnd(&s) % 2000001) * 0.5e-3 - 500;
		}
		double f = rate(0, v, u, n), p = rate(1, v, u, n), o = rate(2, v, u, nslow);

		printf("%-22s %12.0f %12.0f %12.0f %9.2f %9.1f\n", set[k], f, p, o, f / p, f / o);
	}
	for (size_t i = 0; i < n; i++)
		u[i] = rnd(&s) >> (rnd(&s) % 64);
	double f = rate(3, v, u, n), p = rate(4, v, u, n);

	printf("%-22s %12s %12s\n", "integers", "fmt_u64/s", "%llu/s");
	printf("%-22s %12.0f %12.0f %9.2f\n", "random, 1-20 digits", f, p, f / p);
	return 0;
}
EOF
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Isrc -Isrc/numerics -o "$T/drv" "$T/drv.c" src/numerics/numfmt.c -lm -lpthread

echo "== machine"
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "== the formatter alone, one core, numbers a second (best of 3)"
"$T/drv"

"$T/drv" --gen 100000 > "$T/x.f64"
echo "== end to end: hist -t f64 --range 0:1 of 100000 values (best of 3)"
printf '%-40s %9s %8s %14s\n' run seconds "x npy" "numbers/s"
hist_rows() {	# BINARY LABEL BINS
	H="$1 hist -t f64 --bins $3 --range 0:1 --backend cpu $T/x.f64"
	NPY=$(secs "$H -f npy")
	printf '%-40s %9.3f %8.2f %14s\n' "$2 --bins $3 -f npy" "$NPY" 1 -
	for f in text tsv json; do
		t=$(secs "$H -f $f")
		# a text or tsv line is two edges and a count; json has the
		# edges and the counts
		per=3
		[ "$f" = json ] && per=2
		printf '%-40s %9.3f %8.2f %14.0f\n' "$2 --bins $3 -f $f" "$t" \
			"$(echo "$t / $NPY" | bc -l)" "$(echo "$per * $3 / $t" | bc -l)"
	done
}
hist_rows "$G" gpustat "$BINS"
if [ -n "$OLD" ]; then
	hist_rows "$OLD" old "$BINS"
fi
t=$(secs "$G hist -t f64 --bins 16777216 --range 0:1 --backend cpu $T/x.f64 -f text")
printf '%-40s %9.3f %8s %14.0f\n' "gpustat --bins 16777216 -f text" "$t" "" \
	"$(echo "3 * 16777216 / $t" | bc -l)"
