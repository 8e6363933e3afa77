#!/usr/bin/env bash
# Installs what asc needs from Debian 12's packages (only what is missing), then ONNX Runtime 1.30
# for asc-check: npm onnxruntime-node into tools/ort/node_modules from the committed lock file,
# with --ignore-scripts (its install script downloads GPU files; the CPU library is in the
# package). Run as root.
set -euo pipefail
pkgs=(g++ cmake ninja-build libonnx-dev libprotobuf-dev protobuf-compiler libtbb-dev
      libspdlog-dev libgtest-dev libhwy-dev libcli11-dev nlohmann-json3-dev
      libonnx-testdata clang-format git)
# Node.js for asc-check's bridge: Debian 12's nodejs (18.20) runs onnxruntime-node 1.30; a newer
# node already on PATH (e.g. from NodeSource, which bundles npm) is used as it is.
command -v node >/dev/null || pkgs+=(nodejs)
command -v npm >/dev/null || pkgs+=(npm)
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

# ONNX Runtime for asc-check, only when missing.
ort_dir="$(cd "$(dirname "$0")/.." && pwd)/tools/ort"
if [ ! -f "$ort_dir/node_modules/onnxruntime-node/package.json" ]; then
  echo "installing onnxruntime-node (tools/ort)"
  (cd "$ort_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  # The CPU library ships in the package: check that it loads without the install script.
  (cd "$ort_dir" && node -e 'console.log("onnxruntime-node",
    require("onnxruntime-node").env.versions.node, "loads on node", process.version)')
fi
