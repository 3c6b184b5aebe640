# lib.sh - what the bench scripts share; source it from the repository root.

# best CMD [N]: the wall seconds of shell command CMD (its stdout to
# /dev/null), best of N runs (default 3), as a decimal (awk, not bc: the
# device machine has no bc).
best() {
	_b=
	for _ in $(seq "${2:-3}"); do
		_t0=$(date +%s%N)
		sh -c "$1" > /dev/null
		_t=$(( $(date +%s%N) - _t0 ))
		if [ -z "$_b" ] || [ "$_t" -lt "$_b" ]; then _b=$_t; fi
	done
	awk -v n="$_b" 'BEGIN { printf "%.4f\n", n / 1e9 }'
}

# tool NAME: the program to run for NAME, TOOLS/NAME (TOOLS default
# build/tools: programs carried to the device machine) or else the PATH's,
# one that runs (its libraries found), or nothing.
tool() {
	for _c in "${TOOLS:-build/tools}/$1" "$(command -v "$1" 2> /dev/null)"; do
		[ -n "$_c" ] && [ -x "$_c" ] && echo | "$_c" -c > /dev/null 2>&1 &&
			{ echo "$_c"; return; }
	done
}

# secs CMD: best CMD of $RUNS runs (default 3).
secs() {
	best "$1" "${RUNS:-3}"
}

# pardd_cmd FILE BYTES [N]: a shell command that reads FILE to /dev/null
# with N (default 16) dd's at once, each one Nth of its BYTES: the
# machine's parallel read of a page-cached file, what a reader on every
# core could reach.
pardd_cmd() {
	_n=${3:-16}
	_part=$(( ($2 + _n - 1) / _n ))
	_c=
	_i=0
	while [ $_i -lt "$_n" ]; do
		_c="$_c dd if='$1' of=/dev/null bs=4M iflag=skip_bytes,count_bytes skip=$((_i * _part)) count=$_part status=none &"
		_i=$((_i + 1))
	done
	echo "$_c wait"
}

# check NAME CMD ARGS...: --backend cuda and --backend cpu runs of gpustat
# ($G) CMD ARGS print the same bytes, stdout and stderr, and exit the
# same: "ok" or "FAIL" and a count in p or f (scratch files in $D).
check() {
	_name=$1
	_cmd=$2
	shift 2
	"$G" "$_cmd" --backend cuda "$@" > "$D/a" 2> "$D/ae"
	_ra=$?
	"$G" "$_cmd" --backend cpu "$@" > "$D/b" 2> "$D/be"
	_rb=$?
	if [ $_ra = $_rb ] && cmp -s "$D/a" "$D/b" && cmp -s "$D/ae" "$D/be"; then
		p=$((p + 1)); echo "ok    $_name"
	else
		f=$((f + 1)); echo "FAIL  $_name (exit $_ra/$_rb): $(head -c 300 "$D/ae")"
	fi
}

# T TYPE: numpy's type name (u1, f4, ...) as gpustat's (u8, f32, ...).
T() {
	case $1 in u1) echo u8;; i1) echo i8;; u2) echo u16;; i2) echo i16;;
	u4) echo u32;; i4) echo i32;; u8) echo u64;; i8) echo i64;; f2) echo f16;;
	f4) echo f32;; f8) echo f64;; bf16) echo bf16;; esac
}
