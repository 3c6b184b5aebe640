#!/bin/sh
# Run every test group and print "N passed, N failed" last.
# The groups are the unit binaries (build/tests/unit_*, each printing
# "unit: P passed, F failed") and the scripts tests/cli.sh and
# tests/test_*.sh (each printing "NAME: P passed, F failed"). They are
# independent, so JOBS of them (default: one per core) run at once, the
# slowest first; each prints its summary line and time as it finishes, and
# its output goes to build/tests/log/. build/tests/run.log holds them all,
# in a fixed order, when the run ends.
#
# BUILD=dir takes the unit binaries from dir/tests (make asan: build-asan);
# the scripts take the gpustat binary from GPUSTAT (default ./gpustat).
# CUDA= (set by make, else read from build/config.mk, which make CUDA=
# writes) marks a CPU-only build: the host checks of the GPU kernels, which
# compile them with nvcc, are then skipped.
# UNIT_MAKE (make check sets it) is the command that builds the unit
# binaries: it runs beside the first groups, and the groups that use the
# binaries wait for it, so the run prints its first line at once.
# sh tests/run.sh --one GROUP runs one group (what the workers do).
cd "$(dirname "$0")/.." || exit 2
B=${BUILD:-build}
if [ -z "${CUDA+set}" ] && [ -f "$B/config.mk" ]; then
	CUDA=$(sed -n 's/^CUDA = //p' "$B/config.mk")
	export CUDA
fi
logs=$B/tests/log

# ms: milliseconds since the epoch where date has %N, else whole seconds
ms() {
	t=$(date +%s%N)
	case $t in *N) echo $(($(date +%s) * 1000)) ;; *) echo $((t / 1000000)) ;; esac
}

# one GROUP: run it into its log; a crash without a summary counts as a
# failure. Prints the group's summary line and time, then its FAIL lines
# and what it skipped.
one() {
	name=$1
	log=$logs/$(basename "$name").log
	start=$(ms)
	unbuilt=
	case " $name " in *"/tests/unit_"*|*" tests/test_text.sh "*)
		if [ -n "${UNIT_MAKE-}" ]; then
			while ! [ -f "$logs/unit-make.rc" ]; do sleep 1; done
			[ "$(cat "$logs/unit-make.rc")" = 0 ] || unbuilt=1
		fi ;;
	esac
	if [ -n "$unbuilt" ]; then
		out="FAIL $UNIT_MAKE failed ($logs/unit-make.log ends:)
$(tail -n 20 "$logs/unit-make.log")
make: 0 passed, 1 failed"
		rc=1
	else
		case $name in
		*/test_gpu_host.sh)
			# the nvcc make builds with, where make said which
			[ -n "${CUDA-}" ] && [ -z "${NVCC-}" ] && NVCC=$CUDA && export NVCC
			# The checks run the kernels' host code only, but nvcc compiles
			# device code for every kernel they include: PTX alone and
			# unoptimized (no assembler) takes a fraction of the minutes
			# that SASS takes, and checks the same host code.
			NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:+$NVCC_APPEND_FLAGS }-gencode arch=compute_80,code=compute_80 -Xcicc -O0"
			export NVCC_APPEND_FLAGS
			# (under ASan, or without nvcc, the script skips what it
			# cannot run, saying so)
			out=$(sh "$name" 2>&1); rc=$? ;;
		*.sh) out=$(sh "$name" 2>&1); rc=$? ;;
		*) out=$("$name" 2>&1); rc=$? ;;
		esac
	fi
	sum=$(printf '%s\n' "$out" | grep -E '^[a-z_][a-z0-9_]*: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	{
		echo "== $name"
		printf '%s\n' "$out"
		if [ -z "$sum" ]; then
			echo "FAIL $name printed no summary (exit status $rc)"
			echo "crash: 0 passed, 1 failed"
		fi
	} > "$log"
	[ -n "$sum" ] || { sum="crash: 0 passed, 1 failed"; rc=1; }
	[ $rc -eq 0 ] || : > "$log.failed"
	t=$(($(ms) - start))
	printf '%-28s %-40s %4d.%d s\n' "${name#"$B"/}" "$sum" $((t / 1000)) $((t % 1000 / 100))
	grep -E '^FAIL|^[a-z_][a-z0-9_]*: note: skipped' "$log"
}

if [ "${1-}" = --one ]; then
	mkdir -p "$logs"
	one "$2"
	exit 0
fi

mkdir -p "$logs"
rm -f "$logs"/*.log "$logs"/*.failed "$logs"/unit-make.rc
if [ -n "${UNIT_MAKE-}" ]; then
	{ $UNIT_MAKE > "$logs/unit-make.log" 2>&1; echo $? > "$logs/unit-make.rc"; } &
fi
# The layers check first (under a second: the run says something at
# once), then the slowest groups (measured on a 2-core machine), so the
# others fill the gaps around them; then every other group in name order.
first='tests/test_layers.sh'
slow='tests/test_gpu_host.sh tests/test_fuzz.sh tests/cli.sh
tests/test_output.sh tests/test_limits.sh tests/test_hist.sh
tests/test_faults.sh tests/test_usage.sh'
groups=
for t in $first $slow; do
	[ -f "$t" ] && groups="$groups $t"
done
# the unit binaries: those built, or those UNIT_MAKE builds
units="$B/tests/unit_*"
[ -z "${UNIT_MAKE-}" ] || units=$(for c in tests/unit_*.c; do
	t=${c#tests/}; echo "$B/tests/${t%.c}"; done)
for t in $units tests/cli.sh tests/test_*.sh; do
	case $t in *.o|*.d) continue ;; esac
	case " $groups " in *" $t "*) continue ;; esac
	[ -n "${UNIT_MAKE-}" ] && [ "${t#"$B"/tests/unit_}" != "$t" ] && { groups="$groups $t"; continue; }
	{ [ -x "$t" ] || [ "${t%.sh}" != "$t" ]; } && [ -f "$t" ] && groups="$groups $t"
done

jobs=${JOBS:-$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
# shellcheck disable=SC2086 # as below
echo "$(printf '%s\n' $groups | wc -l | tr -d ' ') groups, $jobs at a time, the slowest first; each prints its line as it ends"
# shellcheck disable=SC2086 # one argument per group, names have no spaces
printf '%s\n' $groups | xargs -P "$jobs" -n 1 sh tests/run.sh --one
wait

# The whole log in the order of the groups above, as one file to read.
status=0
: > "$B/tests/run.log"
for t in $groups; do
	log=$logs/$(basename "$t").log
	cat "$log" >> "$B/tests/run.log" 2>/dev/null ||
		printf '== %s\nFAIL %s did not run\ncrash: 0 passed, 1 failed\n' "$t" "$t" >> "$B/tests/run.log"
	{ [ -f "$log" ] && ! [ -f "$log.failed" ]; } || status=1
done
awk '/^[a-z_][a-z0-9_]*: [0-9]+ passed, [0-9]+ failed$/ { p += $2; f += $4 }
     END { printf "%d passed, %d failed\n", p, f }' "$B/tests/run.log"
exit $status
