#!/bin/sh
# make install / make uninstall into a temporary DESTDIR with PREFIX=/usr
# (and with the default PREFIX):
# every file lands where packagers and shells look for it, with the right
# mode and content, and uninstall removes each of them again.
cd "$(dirname "$0")/.." || exit 2
pass=0
fail=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# installed path, source in the tree, mode
files='usr/bin/gpustat gpustat 755
usr/share/man/man1/gpustat.1 man/gpustat.1 644
usr/share/bash-completion/completions/gpustat completions/gpustat.bash 644
usr/share/zsh/site-functions/_gpustat completions/_gpustat 644
usr/share/fish/vendor_completions.d/gpustat.fish completions/gpustat.fish 644'

make=${MAKE:-make}
if $make -s install DESTDIR="$tmp/root" PREFIX=/usr > "$tmp/log" 2>&1; then ok
else bad "make install:"; cat "$tmp/log"; fi

printf '%s\n' "$files" | while read -r dst src mode; do
	f=$tmp/root/$dst
	if [ ! -f "$f" ]; then
		echo "FAIL not installed: /$dst"
	elif ! cmp -s "$f" "$src"; then
		echo "FAIL /$dst differs from $src"
	elif [ "$(stat -c %a "$f" 2>/dev/null || stat -f %Lp "$f")" != "$mode" ]; then
		echo "FAIL /$dst: mode is not $mode"
	else
		echo ok
	fi
done > "$tmp/res"
pass=$((pass + $(grep -c '^ok$' "$tmp/res")))
fail=$((fail + $(grep -c '^FAIL' "$tmp/res")))
grep '^FAIL' "$tmp/res"

# Nothing outside PREFIX (under DESTDIR), nothing but these files.
extra=$(cd "$tmp/root" && find . -type f | sed 's|^\./||' | sort |
	grep -vxF "$(printf '%s\n' "$files" | cut -d' ' -f1)")
[ -z "$extra" ] && ok || bad "unexpected files installed: $extra"

"$tmp/root/usr/bin/gpustat" --version > /dev/null 2>&1 && ok ||
	bad "the installed gpustat does not run"

if $make -s uninstall DESTDIR="$tmp/root" PREFIX=/usr > "$tmp/log" 2>&1; then ok
else bad "make uninstall:"; cat "$tmp/log"; fi
left=$(find "$tmp/root" -type f)
[ -z "$left" ] && ok || bad "left after uninstall: $left"

# PREFIX defaults to /usr/local.
$make -s install DESTDIR="$tmp/def" > "$tmp/log" 2>&1 &&
	[ -x "$tmp/def/usr/local/bin/gpustat" ] &&
	[ -f "$tmp/def/usr/local/share/man/man1/gpustat.1" ] && ok ||
	bad "make install without PREFIX does not install under /usr/local"
$make -s uninstall DESTDIR="$tmp/def" > "$tmp/log" 2>&1 &&
	[ -z "$(find "$tmp/def" -type f)" ] && ok ||
	bad "make uninstall without PREFIX leaves files"

echo "test_install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
