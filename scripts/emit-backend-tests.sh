#!/usr/bin/env bash
# Checks `asc-run --emit-ascendc` on every ONNX backend test of Debian's libonnx-testdata: runs
# each model on its test_data_set_0 inputs, then emits it; prints each case whose run succeeds
# but whose emission fails, and a summary (exit 1 when any emission failed).
#   scripts/emit-backend-tests.sh [build/asc-run]
set -uo pipefail
run=${1:-build/asc-run}
data=/usr/include/onnx/backend/test/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok=0 run_failed=0 emit_failed=0
for c in "$data"/{node,simple,pytorch-converted,pytorch-operator}/*/; do
  inputs=$c/test_data_set_0
  [ -d "$inputs" ] || continue
  # The graph inputs that are not initializers, in order: the names of input_<k>.pb.
  mapfile -t names < <(protoc --decode=onnx.ModelProto -I/usr/include onnx/onnx.proto \
      < "$c/model.onnx" 2>/dev/null | awk '
    /^  initializer \{/ { in_init = 1 }  /^  input \{/ { in_input = 1 }
    /^    name: / { gsub(/"/, "", $2); if (in_init) init[$2] = 1; if (in_input) order[n++] = $2 }
    /^  \}/ { in_init = 0; in_input = 0 }
    END { for (i = 0; i < n; i++) if (!(order[i] in init)) print order[i] }')
  args=()
  k=0
  for f in "$inputs"/input_*.pb; do
    [ -f "$f" ] || continue
    args+=(--input "${names[$k]}=$f")
    k=$((k + 1))
  done
  if ! timeout 120 "$run" "$c/model.onnx" "${args[@]}" --iterations 1 > "$tmp/run.log" 2>&1; then
    run_failed=$((run_failed + 1))
    echo "run failed (not an emission case) $(basename "$c"): $(tail -1 "$tmp/run.log" | cut -c1-120)"
    continue
  fi
  rm -rf "$tmp/out"
  if timeout 120 "$run" "$c/model.onnx" "${args[@]}" --emit-ascendc "$tmp/out" > "$tmp/emit.log" 2>&1; then
    ok=$((ok + 1))
  else
    emit_failed=$((emit_failed + 1))
    echo "EMISSION FAILED $(basename "$c"): $(tail -1 "$tmp/emit.log")"
  fi
done
echo "emitted: $ok of the models asc-run runs; emission failed: $emit_failed; runs that failed: $run_failed"
[ "$emit_failed" -eq 0 ]
