#!/bin/sh
# Regenerate configure and the Makefile.in files.
set -e
cd "$(dirname "$0")"
mkdir -p config m4
autoreconf -fi
