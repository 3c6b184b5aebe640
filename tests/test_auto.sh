#!/bin/sh
# test_auto.sh - --backend auto's late start, no GPU needed. Where auto's
# plan picks the CPU for an input of known length, the CPU's measured rate
# revises it after each chunk (auto_plan_late) and may start the GPU then.
# GPUSTAT_AUTO_CPU_GBS fakes that rate: far below the plan's, the GPU is
# started after the second chunk (the first is not timed); far above, the
# plan holds. Here a start fails at the GPU's probe (no driver) and the CPU
# goes on; on a GPU the rest may move there. Either way the output is
# --backend cpu's, byte for byte, and -v says what happened: the start
# after 2 chunks with both rates, or the plan that held. An input of
# unknown length (a pipe) runs on the CPU, watched against the rate the
# input comes at (auto_plan_stream): the hook's rate far below it starts
# the GPU after the second chunk, far above it the CPU keeps up; -v says
# both rates. Inputs never revised (zstd, from a file or a pipe, --op
# prod, quantile's passes) never start a GPU. A build without CUDA runs
# the CPU alone: only the outputs are compared there. No timing is
# asserted: without the hook, either outcome passes.
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

# feed ARGS...: gpustat ARGS, its input the file $PIPE through a pipe
# where PIPE is set
PIPE=
feed() {
	if [ -n "$PIPE" ]; then cat "$PIPE" | "$G" "$@"; else "$G" "$@"; fi
}

# run NAME HOOK ARGS...: auto (GPUSTAT_AUTO_CPU_GBS=HOOK, none if -) against
# --backend cpu: output and status; auto's -v in $T/err
run() {
	name=$1
	hook=$2
	shift 2
	feed "$@" --backend cpu > "$T/want" 2> /dev/null
	want=$?
	(
		[ "$hook" = - ] || export GPUSTAT_AUTO_CPU_GBS="$hook"
		feed "$@" --backend auto -v
	) > "$T/got" 2> "$T/err"
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
# a start that fails (no GPU here) maps the file in place again: of 16
# chunks, 2 before the start and the reader's lead (at most 4) were mapped,
# at most 4 copied while the CPU learnt of the failure, the rest mapped
# again (before that fix, every chunk after the start was copied: 4 to 6)
if run "failed start: views back" $SLOW sum -t f32 $CS "$T/f32" && $cuda &&
   grep -q "no GPU: " "$T/err"; then
	n=$(sed -n 's/.*; \([0-9]*\) of 16 chunks in place.*/\1/p' "$T/err")
	if [ "${n:-0}" -ge 8 ]; then ok
	else bad "failed start: views back" "${n:-none} of 16 chunks in place"; fi
fi

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

# ---- 3. a pipe: the CPU's rate against the input's -------------------------
# the choice, and the run's line: the GPU started (failed to, had not
# started by the end, or took chunks) or the CPU kept up, with both rates
streamed='^gpustat: backend: auto ([0-9]* threads\{0,1\}): input of unknown length: the CPU, watched against the input'"'"'s rate: '
inrates='computed at [0-9.]* GB/s (GPUSTAT_AUTO_CPU_GBS), the input came at [0-9.]* GB/s'
pstarted="^gpustat: backend: cpu: [0-9]* chunks\(, cuda: [0-9]* chunks\)\{0,1\} (the CPU, then the GPU started after 2 chunks: the CPU $inrates; \(no GPU: .*\|done before the GPU had started\|GPU ready after .*\))"
kept="^gpustat: backend: cpu: 16 chunks (the CPU kept up: it $inrates)$"
# (a ranged histogram of a pipe needs its range)
for cmd in "sum -t f32" "scan -t f32" "hist -t u8" "hist -t f32 --bins 7 --range -2:2" \
	   "stats -t f32 -c 2" "dot --pairs -t f32" "scan -t i16 --op max"; do
	case $cmd in *u8*) PIPE=$T/u8 ;; *i16*) PIPE=$T/a16 ;; *) PIPE=$T/f32 ;; esac
	# shellcheck disable=SC2086 # the command's words
	run "pipe, late start: $cmd" $SLOW $cmd $CS || continue
	has "pipe, late start: $cmd: watched" "$streamed"
	has "pipe, late start: $cmd: the start" "$pstarted"
	hasnt "pipe, late start: $cmd: kept up" "kept up"
done
for cmd in "sum -t f32" "scan -t f32" "hist -t u8"; do
	case $cmd in *u8*) PIPE=$T/u8 ;; *) PIPE=$T/f32 ;; esac
	# shellcheck disable=SC2086
	run "pipe, kept up: $cmd" $FAST $cmd $CS || continue
	has "pipe, kept up: $cmd: watched" "$streamed"
	has "pipe, kept up: $cmd" "$kept"
	hasnt "pipe, kept up: $cmd: no start" "GPU started after"
done
PIPE=$T/f32
run "pipe, one chunk" $SLOW sum -t f32 &&
	has "pipe, one chunk" "^gpustat: backend: cpu: 1 chunks (the CPU alone: no chunk after the first"
run "pipe, measured" - sum -t f32 $CS &&
	has "pipe, measured" "^gpustat: backend: cpu: .*\(the CPU kept up: it computed at\|the CPU alone, too briefly measured to judge: it computed at\|the GPU started after [0-9]* chunks: the CPU computed at\)[0-9. ]*GB/s, the input came at "
PIPE=

# ---- 4. not revised: the CPU alone, whatever the rate ------------------------
# alone NAME PATTERN: the backend line gives the CPU, for the reason PATTERN
alone() {
	has "$1: the CPU" "^gpustat: backend: cpu ([0-9]* threads\{0,1\}): $2"
	hasnt "$1: no late start" "GPU started after"
}
run "zstd" $SLOW sum $CS $IN/f32_mod.npy.zst && alone zstd "compressed input"
PIPE=$IN/f32_mod.npy.zst
run "zstd, pipe" $SLOW sum $CS && alone "zstd, pipe" "compressed input"
PIPE=$T/f32
run "prod, pipe" $SLOW reduce --op prod -t f32 $CS &&
	alone "prod, pipe" "products stay on the CPU"
PIPE=
run "prod" $SLOW reduce --op prod -t f32 $CS "$T/f32" &&
	alone prod "products stay on the CPU"
run "quantile" $SLOW quantile -t f32 $CS "$T/f32" &&
	alone quantile ".*runs on the CPU under auto"
summary
