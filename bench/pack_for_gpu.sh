#!/usr/bin/env bash
# Packs what a GPU machine without packages needs to run fvk: the binaries and the two shared
# libraries Debian links them against, into .gpu/ (git-ignored). Build first (README command 1).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .gpu && mkdir -p .gpu/lib
cp build/fvk build/tests/fvk_tests .gpu/
for lib in libfmt.so.9 libyaml-cpp.so.0.7; do cp -L "/lib/x86_64-linux-gnu/$lib" .gpu/lib/; done
strip .gpu/fvk .gpu/fvk_tests
du -sh .gpu
