#!/usr/bin/env bash
# Installs the Debian 12 packages fuel-vulkan-kernels needs to build, test and run on lavapipe.
# Idempotent: does nothing when everything is already there.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config
      libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools glslc spirv-tools
      libyaml-cpp-dev libcli11-dev libfmt-dev nlohmann-json3-dev
      libgtest-dev libgmock-dev googletest libbenchmark-dev python3-numpy
      python3-matplotlib git)  # git: the ingest script and its test (bench/)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
