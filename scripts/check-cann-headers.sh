#!/usr/bin/env bash
# Syntax-checks Ascend C sources against the Ascend C headers of CANN's open asc-devkit, built as
# for the Atlas A2 (__NPU_ARCH__=2201), with g++ and the builtin names of cann_shim/ (bisheng is
# not needed). Errors inside the headers (what the shim leaves out) are not counted; the errors
# located in the given files are printed and counted, and for asc-emit-gen's files the kernels
# they fall in. The asc-devkit checkout is read, never copied.
#   scripts/check-cann-headers.sh ASC_DEVKIT_DIR FILE...
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
kit="$1"
shift
inc=(-I"$repo/scripts/cann_shim" -I"$repo/tests" -I"$kit" -I"$kit/include" -I"$kit/include/basic_api"
  -I"$kit/include/adv_api" -I"$kit/include/utils" -I"$kit/impl" -I"$kit/impl/basic_api"
  -I"$kit/impl/utils")
errors="$(mktemp)"
for f in "$@"; do
  g++ -std=c++17 -fsyntax-only -fpermissive -w -D__NPU_ARCH__=2201 \
    -include "$repo/scripts/cann_shim/asc_bisheng_builtins.h" "${inc[@]}" "$f" 2>&1 |
    awk -v f="$f" 'index($0, f ":") == 1 && / error: /' >>"$errors" || true
done
cp "$errors" "$errors.k"
sed 's/^[^ ]* error: //' "$errors.k" | sort | uniq -c | sort -rn | head -20
python3 - "$errors.k" "$@" <<'PY'
import bisect, re, sys
lines = {}
for l in open(sys.argv[1]):
    m = re.match(r'(.+?):(\d+):\d+: error: ', l)
    if m: lines.setdefault(m.group(1), set()).add(int(m.group(2)))
total, bad = 0, set()
for f in sys.argv[2:]:
    marks = [(i, m.group(1)) for i, l in enumerate(open(f), 1)
             if (m := re.match(r'// ---- (\S+) ----', l))]
    total += len(marks)
    starts = [a for a, _ in marks]
    for ln in lines.get(f, ()):
        k = bisect.bisect_right(starts, ln) - 1
        bad.add(marks[k][1] if k >= 0 else f)
print(f"errors in the files: {sum(len(v) for v in lines.values())}; "
      f"kernels: {total}, with errors in their code: {len(bad)}")
PY
rm -f "$errors" "$errors.k"
