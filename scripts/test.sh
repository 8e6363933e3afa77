#!/usr/bin/env bash
# Installs missing dependencies, builds, runs the whole test suite, then runs the library's
# suites again under AddressSanitizer + UndefinedBehaviorSanitizer, and checks formatting.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)")
# The sanitizer build covers the library through the suites that drive it directly (registry,
# ops, runtime, importers); it is built at -O1 with line tables only (-g1), which halves its
# compile time against -O2 -g and keeps the reports' stack traces. Warnings are errors in the
# Release build above; GCC 12's -Wmaybe-uninitialized gives false positives under -fsanitize
# (std::variant<int64_t, std::string>), so not here.
asan_suites=(asc_registry_tests asc_ops_tests asc_runtime_tests asc_importers_tests
  asc_ascend_emu_tests)
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DASC_SANITIZE=ON
cmake --build build-asan -j"$(nproc)" --target "${asan_suites[@]}"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$(nproc)" -R "^($(IFS='|'; echo "${asan_suites[*]}"))/")
bash scripts/check-format.sh
