#!/bin/sh
# SPDX-License-Identifier: MIT
# make check's fuzz case: the harnesses of test/fuzz/ built and run once
# over the committed corpus (seconds); skips (77) without clang's libFuzzer.
exec sh "$(dirname "$0")/run" --replay
