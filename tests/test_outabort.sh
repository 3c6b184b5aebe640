#!/bin/sh
# test_outabort.sh - a run that fails after writing part of its result to
# a regular file that stdout names takes its bytes back (out.h: out_abort),
# and its file offset too: in `{ printf x; gpustat ...; printf y; } > f`
# the shell's open file, and its offset, are shared by all three, so f must
# be "xy" (not x, a hole of NUL bytes where the rows were, then y); an
# error line written there too (2>&1) is kept (json's fields past the first
# wait in a temp file, which the limit stops first: its error is that one). The failure: --by's rows (streamed a MiB at a
# time) past the file size limit (ulimit -f), SIGXFSZ ignored.
#
# Usage: sh tests/test_outabort.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=outabort
. tests/lib.sh

# 300000 keys: rows of several MiB
awk 'BEGIN { for (i = 0; i < 300000; i++) printf "%d,%d\n", i, i % 7 }' \
	> "$T/keys.txt"
"$G" count --by 1 "$T/keys.txt" > "$T/all" 2> "$T/err" ||
	bad "setup" "$(cat "$T/err")"
[ "$(wc -c < "$T/all")" -gt 3000000 ] || bad "setup" "rows of $(wc -c < "$T/all") bytes"

# fail CMD...: gpustat CMD with a file size limit under its rows
fail() {
	(trap '' XFSZ; ulimit -f 1024 && exec "$G" "$@")
}

# shared NAME WANT: the file's bytes are WANT (printf's escapes)
shared() {
	printf "$2" > "$T/want"
	if cmp -s "$T/f" "$T/want"; then
		ok
	else
		bad "$1" "$(wc -c < "$T/f") bytes, $(tr -d '\0' < "$T/f" | wc -c) not NUL: $(head -c 80 "$T/f" | tr '\0' '@')"
	fi
}

for cmd in "count --by 1" "sum --by 1 -f json" "stats --by 1"; do
	c=$(echo "$cmd" | tr ' ' '_')
	{ printf x; fail $cmd "$T/keys.txt" 2> "$T/err"; echo "rc $?" > "$T/rc"; printf y; } > "$T/f"
	grep -q "rc 0" "$T/rc" && bad "$c rc" "the run did not fail: $(cat "$T/err")"
	shared "$c" 'xy'
	# an error line in the same file (2>&1) is kept
	{ printf 'x\n'; fail $cmd "$T/keys.txt"; printf y; } > "$T/f" 2>&1
	head -c 2 "$T/f" | grep -q '^x$' && [ "$(tail -c 1 "$T/f")" = y ] &&
		tr -d '\0' < "$T/f" | cmp -s - "$T/f" &&
		grep -q 'gpustat: .*\(write error\|File too large\)' "$T/f" &&
		! grep -q '^1	' "$T/f" &&
		ok || bad "$c 2>&1" "$(wc -c < "$T/f") bytes: $(head -c 160 "$T/f" | tr '\0' '@')"
done
summary
