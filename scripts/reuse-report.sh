#!/usr/bin/env bash
# Local memory per traced program with liveness reuse vs without, for representative programs on
# the 910B spec (optimisation on and off). Usage: scripts/reuse-report.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
ops="${1:-build}/asc-ops"
row() {  # label, asc-ops --dump arguments...
  local label="$1"
  shift
  for opt in "" "--no-opt"; do
    local line
    line=$("$ops" --dump "$@" $opt | grep -E "liveness reuse saves" || echo "  (no local buffers)")
    printf '| %-44s | %-3s | %s |\n' "$label" "$([ -z "$opt" ] && echo on || echo off)" \
      "$(echo "$line" | sed 's/^ *//')"
  done
}
echo "| program (910B spec) | opt | local memory |"
echo "|---|---|---|"
row "Add f32[1024,4864] + f32[4864]" Add 'f32[1024,4864]' 'f32[4864]'
row "Sigmoid bf16[1024,4864]" Sigmoid 'bf16[1024,4864]'
row "Where bool[64,4864], f16[64,4864], f16[4864]" Where 'bool[64,4864]' 'f16[64,4864]' 'f16[4864]'
row "Pow f16[64,4864] ^ f32[]" Pow 'f16[64,4864]' 'f32[]'
row "Softmax f32[64,4864] axis=-1" Softmax 'f32[64,4864]' --attr axis=-1
row "Softmax bf16[64,4864] axis=-1" Softmax 'bf16[64,4864]' --attr axis=-1
row "ReduceMean f32[64,4864] axes=1" ReduceMean 'f32[64,4864]' --attr axes=1,
row "MatMul f32[128,896] x f32[896,4864]" MatMul 'f32[128,896]' 'f32[896,4864]'
row "MatMul bf16[1,896] x bf16[896,4864]" MatMul 'bf16[1,896]' 'bf16[896,4864]'
row "Gemm f32[128,896] x f32[4864,896]^T + f32[4864]" Gemm 'f32[128,896]' 'f32[4864,896]' 'f32[4864]' --attr transB=1
row "Transpose f32[8,128,14,64] perm=0,2,1,3" Transpose 'f32[8,128,14,64]' --attr perm=0,2,1,3
