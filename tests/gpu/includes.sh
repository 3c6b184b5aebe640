# includes.sh - sourced by the host checks' scripts (tests/gpu/*.sh), run
# from the repository's root: GS_INC, the include path the Makefile
# builds with (-Isrc, each folder of src/, each folder of cuda/), so that
# a header moving between folders (the layers, tests/test_layers.sh)
# moves for the checks too.
GS_INC="-Isrc"
for d in src/*/ $(find cuda -type d | sort); do
	GS_INC="$GS_INC -I${d%/}"
done

# GS_LIBS: the libraries build/libgs.a links with, found as the Makefile
# finds them (libdeflate only where its header is, libdeflate-dev).
GS_LIBS="-lzstd -lz -lpthread -lm"
if printf '#include <libdeflate.h>\n' | ${CC:-cc} -E -x c - > /dev/null 2>&1; then
	GS_LIBS="-ldeflate $GS_LIBS"
fi
