#!/usr/bin/env bash
# Writes one-node Einsum models (f32, opset 12) into DIR for asc-run (docs/PERFORMANCE.md,
# "Einsum as tile programs"), encoded from text with protoc and the ONNX schema libonnx-dev ships:
#   einsum_attn.onnx  bhid,bhjd->bhij  Q, K [1, 12, 197, 64]        (ViT-B attention scores)
#   einsum_ctx.onnx   bhij,bhjd->bhid  P [1, 12, 197, 197], V [.., 64] (attention context)
#   einsum_proj.onnx  bij,jk->bik      X [1, 197, 768], W [768, 3072] (an MLP projection)
# Usage: bash bench/einsum_models.sh DIR
set -euo pipefail
dir=${1:?usage: einsum_models.sh DIR}
mkdir -p "$dir"
dims() { for d in "$@"; do printf 'dim { dim_value: %s } ' "$d"; done; }
value() { printf '{ name: "%s" type { tensor_type { elem_type: 1 shape { %s} } } }' "$1" "$2"; }
model() {  # NAME EQUATION A B Y A_DIMS B_DIMS Y_DIMS
  cat <<MODEL | protoc --proto_path=/usr/include --encode=onnx.ModelProto onnx/onnx.proto \
    >"$dir/einsum_$1.onnx"
ir_version: 8
opset_import { domain: "" version: 12 }
graph {
  name: "einsum_$1"
  node { input: "$3" input: "$4" output: "$5" op_type: "Einsum" name: "$1"
         attribute { name: "equation" s: "$2" type: STRING } }
  input $(value "$3" "$6")
  input $(value "$4" "$7")
  output $(value "$5" "$8")
}
MODEL
}
model attn "bhid,bhjd->bhij" Q K S "$(dims 1 12 197 64)" "$(dims 1 12 197 64)" \
  "$(dims 1 12 197 197)"
model ctx "bhij,bhjd->bhid" P V O "$(dims 1 12 197 197)" "$(dims 1 12 197 64)" \
  "$(dims 1 12 197 64)"
model proj "bij,jk->bik" X W Y "$(dims 1 197 768)" "$(dims 768 3072)" "$(dims 1 197 3072)"
ls "$dir"
