#!/bin/sh
# The Makefile's nvCOMP detection (make -n in a scratch BUILD, a fake nvCOMP
# folder): NVCOMP=DIR with include/nvcomp/zstd.h defines GS_HAVE_NVCOMP and
# names its lib64 for the run-time dlopen, is remembered in config.mk beside
# CUDA, and is ignored without CUDA (make CUDA=), with NVCOMP= and where the
# folder has no header.
cd "$(dirname "$0")/.." || exit 2
NAME=nvcomp_build
pass=0
fail=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

nv=$tmp/nv
mkdir -p "$nv/include/nvcomp" "$nv/lib64" "$tmp/empty"
: > "$nv/include/nvcomp/zstd.h"
: > "$nv/lib64/libnvcomp.so.6"
# a make of its own: not make check's (its MAKEFLAGS would pass down a
# CUDA= given to it, and tests/run.sh exports CUDA)
make="env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CUDA -u NVCOMP ${MAKE:-make}"
# flags B [VAR=VALUE...]: the compile line of nvcomp_lib.o under BUILD B
flags() {
	b=$1
	shift
	$make -n BUILD="$b" "$@" "$b/bench/nvcomp_lib.o" 2>&1 | grep 'nvcomp_lib.c'
}

f=$(flags "$tmp/b1" CUDA=/bin/true NVCOMP="$nv")
case $f in
*"-DGS_HAVE_NVCOMP -DGS_NVCOMP_LIBDIR='\"$nv/lib64\"'"*"-I$nv/include"*) ok ;;
*) bad given "NVCOMP=$nv: $f" ;;
esac
if grep -qx "NVCOMP = $nv" "$tmp/b1/config.mk" && grep -qx "CUDA = /bin/true" "$tmp/b1/config.mk"
then ok; else bad remembered "config.mk: $(cat "$tmp/b1/config.mk")"; fi
case $(flags "$tmp/b1") in *GS_HAVE_NVCOMP*) ok ;; *) bad remembered "a later make forgot NVCOMP" ;; esac
case $(flags "$tmp/b1" CUDA=) in *NVCOMP*) bad cpu "make CUDA= sees nvCOMP" ;; *) ok ;; esac
case $(flags "$tmp/b2" CUDA=/bin/true NVCOMP=) in *NVCOMP*) bad off "NVCOMP= sees nvCOMP" ;; *) ok ;; esac
out=$($make -n BUILD="$tmp/b3" CUDA=/bin/true NVCOMP="$tmp/empty" "$tmp/b3/bench/nvcomp_lib.o" 2>&1)
case $out in
*GS_HAVE_NVCOMP*) bad noheader "a folder without zstd.h defines GS_HAVE_NVCOMP" ;;
*"has no include/nvcomp/zstd.h"*) ok ;;
*) bad noheader "no warning: $out" ;;
esac
echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
