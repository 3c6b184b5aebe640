# lib.sh - what the test scripts share; source it from the repository root
# with NAME set to the script's summary name:
#
#   NAME=output
#   . tests/lib.sh
#   ... ok / bad "case" "why" ...
#   summary
#
# It sets G (the binary under test: GPUSTAT, default ./gpustat), T (a
# scratch directory removed at exit) and the pass/fail counters; summary
# prints the last line, "NAME: P passed, F failed", and returns non-zero
# when a check failed. Without an executable G the script ends at once,
# counting one failure.
G=${GPUSTAT:-./gpustat}
# the references import tests/np_ref.py: no __pycache__ left in tests/
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
case $G in /*|./*|../*) ;; */*) G=./$G ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/gpustat-$NAME.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 2' INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
# reference SCRIPT PART MIN: a python reference's verdicts, from python3
# SCRIPT "$G" "$T" PART: each "ok ..." line is a check passed, "FAIL ..." one
# failed, "checks N" how many it made (more than MIN, or it failed to run
# them), any other line a failure.
reference() {
	python3 "$1" "$G" "$T" "$2" > "$T/ref.log" 2>&1
	_n=0
	while IFS= read -r _line; do
		case $_line in
		"ok "*) ok ;;
		FAIL*) bad "reference" "${_line#FAIL }" ;;
		"checks "*) _n=${_line#checks } ;;
		*) bad "reference $2" "$_line" ;;
		esac
	done < "$T/ref.log"
	[ "${_n:-0}" -gt "$3" ] || bad "reference $2" "ran ${_n:-no} checks"
}
summary() {
	echo "$NAME: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
if [ ! -x "$G" ]; then
	echo "FAIL $NAME: no executable $G (run make)"
	echo "$NAME: 0 passed, 1 failed"
	exit 1
fi
