#!/usr/bin/env bash
# Installs missing dependencies, builds, runs the whole test suite, then runs it again under
# AddressSanitizer + UndefinedBehaviorSanitizer, and checks formatting.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)")
# Warnings are errors in the Release build above; GCC 12's -Wmaybe-uninitialized gives false
# positives under -fsanitize (std::variant<int64_t, std::string>), so not here.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DASC_SANITIZE=ON
cmake --build build-asan -j"$(nproc)"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$(nproc)")
bash scripts/check-format.sh
