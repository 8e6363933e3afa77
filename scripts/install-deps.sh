#!/usr/bin/env bash
# Installs what asc needs from Debian 12's packages (only what is missing). Run as root.
set -euo pipefail
pkgs=(g++ cmake ninja-build libonnx-dev libprotobuf-dev protobuf-compiler libtbb-dev
      libspdlog-dev libgtest-dev libhwy-dev libcli11-dev nlohmann-json3-dev
      libonnx-testdata clang-format git)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
