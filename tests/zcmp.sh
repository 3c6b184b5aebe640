# zcmp.sh - the checks of the compressed-input tests (test_zpipe.sh,
# test_pzstd.sh, test_gzip.sh, test_bgzf.sh): a decoder in parallel must
# give what one thread gives, bytes and errors alike. Source it after
# tests/lib.sh.

# same NAME WANT CMD: CMD (eval'd) exits 0, says nothing on stderr and
# prints exactly the file WANT
same() {
	eval "$3" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		bad "$1" "exit $rc: $(head -n 1 "$T/err")"
	elif [ -s "$T/err" ]; then
		bad "$1" "stderr: $(head -n 1 "$T/err")"
	elif ! cmp -s "$T/out" "$2"; then
		bad "$1" "stdout $(head -c 60 "$T/out" | od -An -c | head -n 1), wanted $(head -c 60 "$2" | od -An -c | head -n 1)"
	else
		ok
	fi
}

# alike NAME TEXT CMD1 CMD2: both exit 1 with nothing on stdout and the
# same one stderr line, which holds TEXT
alike() {
	eval "$3" > "$T/o1" 2> "$T/e1"
	r1=$?
	eval "$4" > "$T/o2" 2> "$T/e2"
	r2=$?
	if [ $r1 -ne 1 ] || [ $r2 -ne 1 ]; then
		bad "$1" "exit $r1 and $r2, not 1: $(head -n 1 "$T/e1") | $(head -n 1 "$T/e2")"
	elif [ -s "$T/o1" ] || [ -s "$T/o2" ]; then
		bad "$1" "printed $(wc -c < "$T/o1") and $(wc -c < "$T/o2") bytes"
	elif ! cmp -s "$T/e1" "$T/e2"; then
		bad "$1" "'$(cat "$T/e1")' with -j 1, '$(cat "$T/e2")' in parallel"
	elif [ "$(wc -l < "$T/e1")" -ne 1 ] || ! grep -qF -- "$2" "$T/e1"; then
		bad "$1" "'$(cat "$T/e1")', wanted one line with '$2'"
	else
		ok
	fi
}
