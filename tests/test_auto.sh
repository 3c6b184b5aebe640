#!/bin/sh
# test_auto.sh - --backend auto's late start, no GPU needed. Where auto's
# plan picks the CPU for an input of known length, the CPU's measured rate
# revises it after each chunk (auto_plan_late) and may start the GPU then.
# GPUSTAT_AUTO_CPU_GBS fakes that rate: far below the plan's, the GPU is
# started after the second chunk (the first is not timed); far above, the
# plan holds. Here a start fails at the GPU's probe (no driver) and the CPU
# goes on; on a GPU the rest may move there. Either way the output is
# --backend cpu's, byte for byte, and -v says what happened: the start
# after 2 chunks with both rates, or the plan that held. Inputs the plan is
# not revised for (a pipe, zstd, --op prod, quantile's passes) never start
# a GPU. A build without CUDA runs the CPU alone: only the outputs are
# compared there. No timing is asserted: without the hook, either outcome
# passes.
#
# Usage: sh tests/test_auto.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=auto
. tests/lib.sh
IN=fixtures/in
SLOW=0.000001	# GB/s: 1 KB/s, far below any plan
FAST=1000

# 1 MB of f32 (the fixture 256 times), 1 MB of u8, two 512 KB i16 streams;
# 64 KiB chunks: 16 of each
i=0
while [ $i -lt 256 ]; do
	cat $IN/f32_mod.bin
	i=$((i + 1))
done > "$T/f32"
head -c 1048576 /dev/urandom > "$T/u8"
head -c 524288 /dev/urandom > "$T/a16"
head -c 524288 /dev/urandom > "$T/b16"
CS=--chunk-size=64K

if "$G" sum -v -t f32 $IN/f32_mod.bin 2>&1 >/dev/null |
	grep -q 'built without CUDA support'; then
	cuda=false
	echo "auto: note: skipped the -v checks (a CPU-only build: auto is the CPU)"
else
	cuda=true
fi

# run NAME HOOK ARGS...: auto (GPUSTAT_AUTO_CPU_GBS=HOOK, none if -) against
# --backend cpu: output and status; auto's -v in $T/err
run() {
	name=$1
	hook=$2
	shift 2
	"$G" "$@" --backend cpu > "$T/want" 2> /dev/null
	want=$?
	if [ "$hook" = - ]; then
		"$G" "$@" --backend auto -v > "$T/got" 2> "$T/err"
	else
		GPUSTAT_AUTO_CPU_GBS=$hook "$G" "$@" --backend auto -v \
			> "$T/got" 2> "$T/err"
	fi
	got=$?
	if [ $got -ne $want ] || ! cmp -s "$T/want" "$T/got"; then
		bad "$name" "exit $got (cpu $want), stdout $(wc -c < "$T/got") bytes against $(wc -c < "$T/want"): $(grep -v '^gpustat: \(stages\|process\)' "$T/err" | head -c 400)"
		return 1
	fi
	ok
}

# has NAME PATTERN: auto's -v (CUDA builds only) has a line matching it
has() {
	$cuda || return 0
	if grep -q "$2" "$T/err"; then ok
	else bad "$1" "no '$2' in: $(grep 'backend' "$T/err" | head -c 600)"; fi
}

# hasnt NAME PATTERN
hasnt() {
	$cuda || return 0
	if grep -q "$2" "$T/err"; then bad "$1" "$(grep "$2" "$T/err" | head -c 400)"
	else ok; fi
}

watched='^gpustat: backend: auto ([0-9]* threads\{0,1\}): .*: the CPU, unless its measured rate calls for a GPU later$'
rates='the CPU ran at [0-9.]* GB/s (GPUSTAT_AUTO_CPU_GBS), the plan'"'"'s [0-9.]*'
# the GPU started: it failed to (no driver), had not started by the end,
# or took chunks
started="^gpustat: backend: cpu: [0-9]* chunks\(, cuda: [0-9]* chunks\)\{0,1\} (the CPU, then the GPU started after 2 chunks: $rates: [0-9.]* s left on it against [0-9.]* s with a GPU; \(no GPU: .*\|done before the GPU had started\|GPU ready after .*\))"
held="^gpustat: backend: cpu: 16 chunks (the plan held: $rates)$"

# ---- 1. the CPU far slower than planned: the GPU starts ----------------------
# (hist -t f32 is two runs, its range then its bins: each starts one)
for cmd in "sum -t f32" "scan -t f32" "hist -t u8" "hist -t f32 --bins 7" \
	   "stats -t f32 -c 2" "dot --pairs -t f32" "sum -t i16 -c 4" \
	   "scan -t i16 --op max"; do
	case $cmd in *u8*) f=$T/u8 ;; *i16*) f=$T/a16 ;; *) f=$T/f32 ;; esac
	# shellcheck disable=SC2086 # the command's words
	run "late start: $cmd" $SLOW $cmd $CS "$f" || continue
	has "late start: $cmd: the watched CPU" "$watched"
	has "late start: $cmd: the start" "$started"
	hasnt "late start: $cmd: the plan held" "the plan held"
done
# dot A B: no views (two streams); both counted
run "late start: dot A B" $SLOW dot -t i16 $CS "$T/a16" "$T/b16" &&
	has "late start: dot A B" "$started"
# the engine's copies instead of the file mapped in place
GPUSTAT_NO_VIEWS=1
export GPUSTAT_NO_VIEWS
run "late start: sum, no views" $SLOW sum -t f32 $CS "$T/f32" &&
	has "late start: sum, no views" "$started"
unset GPUSTAT_NO_VIEWS

# ---- 2. the CPU far faster: the plan holds -----------------------------------
for cmd in "sum -t f32" "scan -t f32" "hist -t u8"; do
	case $cmd in *u8*) f=$T/u8 ;; *) f=$T/f32 ;; esac
	# shellcheck disable=SC2086
	run "plan holds: $cmd" $FAST $cmd $CS "$f" || continue
	has "plan holds: $cmd" "$held"
	hasnt "plan holds: $cmd: no start" "GPU started after"
done
# one chunk: nothing after the first to time, whatever the rate
run "one chunk" $SLOW sum -t f32 "$T/f32" &&
	has "one chunk" "^gpustat: backend: cpu: 1 chunks (the plan held: no chunk after the first"
# the rate measured, no hook: either outcome, the same output
run "measured" - sum -t f32 $CS "$T/f32" &&
	has "measured" "^gpustat: backend: cpu: .*\(the plan held: the CPU ran at [0-9.]* GB/s, the plan's\|the GPU started after [0-9]* chunks: the CPU ran at\)"

# ---- 3. not revised: the CPU alone, whatever the rate ------------------------
# alone NAME PATTERN: the backend line gives the CPU, for the reason PATTERN
alone() {
	has "$1: the CPU" "^gpustat: backend: cpu ([0-9]* threads\{0,1\}): $2"
	hasnt "$1: no late start" "GPU started after"
}
cat "$T/f32" | "$G" sum -t f32 $CS --backend cpu > "$T/want" 2>&1
cat "$T/f32" | GPUSTAT_AUTO_CPU_GBS=$SLOW "$G" sum -t f32 $CS -v \
	> "$T/got" 2> "$T/err"
if cmp -s "$T/want" "$T/got"; then
	ok
	# the CPU, or the GPU from the start where the CPU is slower than a
	# pipe (on few threads): never late
	has "pipe: planned" "^gpustat: backend: [a-z]* ([0-9]* threads\{0,1\}): input of unknown length"
	hasnt "pipe: no late start" "GPU started after"
else
	bad pipe "differs from --backend cpu: $(head -c 300 "$T/err")"
fi
run "zstd" $SLOW sum $CS $IN/f32_mod.npy.zst && alone zstd "zstd input"
run "prod" $SLOW reduce --op prod -t f32 $CS "$T/f32" &&
	alone prod "products stay on the CPU"
run "quantile" $SLOW quantile -t f32 $CS "$T/f32" &&
	alone quantile ".*runs on the CPU under auto"
summary
