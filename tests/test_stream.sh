#!/bin/sh
# Streaming behaviour that the byte-for-byte fixtures cannot show: scan output
# follows a slow producer (a stalled pipe hands its data on), and memory stays
# bounded on a long stream. No timing is asserted: the producer waits for the
# output of its first bytes before it sends more, so a gpustat that held them
# back would deadlock and hit the timeout.
cd "$(dirname "$0")/.." || exit 2
G=${GPUSTAT:-./gpustat}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# 1. scan follows a slow producer (of bytes that cannot be text: text is
# decided on its first 4 KiB, binary at its first byte that is not text)
mkfifo "$T/in" "$T/out"
timeout 20 $G scan -t u8 --out-type u16 < "$T/in" > "$T/out" &
gp=$!
exec 3> "$T/in" 4< "$T/out"
printf '\001\002' >&3
first=$(timeout 10 head -c 4 <&4 | od -An -tu2 | tr -s ' ')
printf '\003\004' >&3
exec 3>&-
rest=$(timeout 10 head -c 4 <&4 | od -An -tu2 | tr -s ' ')
exec 4<&-
wait $gp
[ "$first" = " 1 3" ] && ok || bad "scan held back a stalled pipe's bytes: got '$first'"
[ "$rest" = " 6 10" ] && ok || bad "scan after the stall: got '$rest'"

# 2. bounded memory: 1 GiB through a pipe in well under the input's size
if command -v /usr/bin/time >/dev/null 2>&1; then
	rss=$( { head -c 1073741824 /dev/zero | /usr/bin/time -f '%M' $G sum -t u8 --chunk-size 8M > "$T/sum"; } 2>&1 | tail -1)
	[ "$(cat "$T/sum")" = 0 ] && ok || bad "sum of 1 GiB of zeros: $(cat "$T/sum")"
	# ASan's shadow memory and quarantine make RSS meaningless (make asan)
	if [ -n "$GPUSTAT_ASAN" ]; then
		echo "stream: note: skipped the memory bound under ASan"
	else
		[ "$rss" -lt 200000 ] && ok || bad "1 GiB stream used ${rss} KiB of memory"
	fi
else
	echo "stream: note: skipped the memory check (no /usr/bin/time)"
fi

echo "stream: $pass passed, $fail failed"
[ $fail -eq 0 ]
