#!/bin/sh
# SPDX-License-Identifier: MIT
# test/docs/gen_docs.sh: the generated parts of docs/tunables.md and
# docs/mpit.md still match what this build's michi_info reports, and
# docs/status.md's function table what `make bindings-status` prints
# (scripts/gen-docs --check shows the difference; rerun scripts/gen-docs
# and commit), and README.md stays a newcomer's page (under 12 KB).
# Skips (77) without python3, or for a build with other devices than the
# committed lists were made with.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
size=$(wc -c <"$top_srcdir/README.md")
if [ "$size" -ge 12288 ]; then
	echo "FAIL: README.md is $size bytes, over 12 KB: move detail to docs/"
	exit 1
fi
exec timeout 300 python3 "$top_srcdir/scripts/gen-docs" --check \
	--michi-info "$top_builddir/tools/michi_info"
