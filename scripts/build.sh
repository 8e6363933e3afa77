#!/usr/bin/env bash
# Installs missing dependencies and builds asc (Release) into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DASC_WERROR=ON
cmake --build build -j"$(nproc)"
