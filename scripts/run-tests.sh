#!/usr/bin/env bash
# Builds everything and runs the whole test suite on the default Vulkan device (lavapipe without a
# GPU) with the Khronos validation layer on, its synchronization validation too. Installs missing
# Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFVK_WERROR=ON
cmake --build build -j"$(nproc)"
cd build
FVK_VALIDATION=1 FVK_VALIDATE_SYNC=1 ctest --output-on-failure -j"$(nproc)" --timeout 600
