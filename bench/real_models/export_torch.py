#!/usr/bin/python3
"""Exports real-architecture models with random weights to ONNX for bench/real_models/models_vs_ort.mjs.

    /usr/bin/python3 bench/real_models/export_torch.py [OUT_DIR] [--only NAME,NAME...] [--list]

Run with Debian's python3 (python3-torch 1.13, python3-torchvision 0.14, python3-onnx 1.12), not
a pyenv or venv python. Every model is built with weights=None (nothing is downloaded): the
weights are torch's seeded random initialisation, with zero-initialised matrices given small
random values and BatchNorm statistics taken from random batches, so that activations keep a
realistic scale. Outputs are meaningless, but the architecture, shapes and arithmetic are the
real ones. Each model is written as OUT_DIR/NAME.onnx (default /work/bench-models), opset 17
(the highest torch 1.13 writes). The batch dim is dynamic ("batch"), so is the sequence dim of
the sequence models ("sequence"); the detector is exported at batch 1 (torchvision's detection
models take a list of images).
"""
import argparse
import os
import sys

import torch
import torchvision

OPSET = 17  # torch 1.13's torch.onnx._constants.ONNX_MAX_OPSET


class SequenceClassifier(torch.nn.Module):
    """A recurrent stack over [batch, sequence, features] with a linear head on every step."""

    def __init__(self, cell, features, hidden, layers, classes):
        super().__init__()
        self.rnn = cell(features, hidden, num_layers=layers, batch_first=True)
        self.head = torch.nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y)


class Encoder(torch.nn.Module):
    """torch.nn.TransformerEncoder (BERT-base-like layer, 6 layers) over [batch, sequence, 768]."""

    def __init__(self, d_model=768, heads=12, ffn=3072, layers=6):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d_model, heads, ffn, dropout=0.0,
                                                 activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        # The layers are deep copies of one: give each its own weights (else the export shares
        # one set of initializers between all layers).
        for module in self.encoder.modules():
            if hasattr(module, "_reset_parameters"):
                module._reset_parameters()
            elif hasattr(module, "reset_parameters"):
                module.reset_parameters()

    def forward(self, x):
        return self.encoder(x)


class Detector(torch.nn.Module):
    """SSDlite320 (MobileNetV3-Large backbone) with its pre- and post-processing: resize and
    normalise, heads, box decoding, per-class NMS; images [N, 3, H, W] in, the first image's
    boxes/scores/labels out (exported with N = 1)."""

    def __init__(self):
        super().__init__()
        self.model = torchvision.models.detection.ssdlite320_mobilenet_v3_large(
            weights=None, weights_backbone=None)

    def forward(self, images):
        out = self.model(list(images))[0]
        return out["boxes"], out["scores"], out["labels"]


def init_zero_weights(model):
    """Gives zero-initialised weight matrices (ViT's classification head) seeded normal values
    (std 0.02), so that no output is identically zero."""
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                p.normal_(0.0, 0.02)


def calibrate_batchnorm(model, inputs):
    """Sets every BatchNorm's running statistics to those of a few seeded random batches of 4, so that
    activations keep a realistic scale through a randomly initialised deep net (with the default
    mean 0 / variance 1 they vanish or explode, e.g. EfficientNet's logits come out ~1e-14)."""
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # a cumulative average over the batches below
        m.train()
    with torch.no_grad():
        for _ in range(4):
            model(*[torch.rand([4] + [EXAMPLE_DIMS.get(d, d) for d in shape[1:]])
                    for _, shape in inputs])
    model.eval()


def classifier(name):
    return lambda: getattr(torchvision.models, name)(weights=None)


IMAGE = ("image", ["batch", 3, 224, 224])
# name: (builder, [(input name, shape with dynamic dim names)], output names)
MODELS = {
    "resnet18": (classifier("resnet18"), [IMAGE], ["logits"]),
    "resnet50": (classifier("resnet50"), [IMAGE], ["logits"]),
    "mobilenet_v3_small": (classifier("mobilenet_v3_small"), [IMAGE], ["logits"]),
    "mobilenet_v3_large": (classifier("mobilenet_v3_large"), [IMAGE], ["logits"]),
    "efficientnet_b0": (classifier("efficientnet_b0"), [IMAGE], ["logits"]),
    "regnet_y_400mf": (classifier("regnet_y_400mf"), [IMAGE], ["logits"]),
    "shufflenet_v2_x1_0": (classifier("shufflenet_v2_x1_0"), [IMAGE], ["logits"]),
    "squeezenet1_1": (classifier("squeezenet1_1"), [IMAGE], ["logits"]),
    "convnext_tiny": (classifier("convnext_tiny"), [IMAGE], ["logits"]),
    "vit_b_16": (classifier("vit_b_16"), [IMAGE], ["logits"]),
    "swin_t": (classifier("swin_t"), [IMAGE], ["logits"]),
    "ssdlite320_mobilenet_v3_large": (Detector, [("images", [1, 3, 320, 320])],
                                      ["boxes", "scores", "labels"]),
    "transformer_encoder": (Encoder, [("x", ["batch", "sequence", 768])], ["y"]),
    "lstm_stack": (lambda: SequenceClassifier(torch.nn.LSTM, 80, 256, 3, 32),
                   [("x", ["batch", "sequence", 80])], ["y"]),
    "gru_stack": (lambda: SequenceClassifier(torch.nn.GRU, 80, 256, 3, 32),
                  [("x", ["batch", "sequence", 80])], ["y"]),
}
# Concrete sizes of the dynamic dims for the example inputs traced at export.
EXAMPLE_DIMS = {"batch": 1, "sequence": 128}


def export(name, out_dir):
    build, inputs, outputs = MODELS[name]
    torch.manual_seed(0)
    model = build().eval()
    example = tuple(torch.rand([EXAMPLE_DIMS.get(d, d) for d in shape]) for _, shape in inputs)
    init_zero_weights(model)
    calibrate_batchnorm(model, inputs)
    dynamic = {}
    for input_name, shape in inputs:
        axes = {k: d for k, d in enumerate(shape) if isinstance(d, str)}
        if axes:
            dynamic[input_name] = axes
    if dynamic:  # every output's leading dim follows the batch
        for output_name in outputs:
            dynamic[output_name] = {0: "batch"}
    path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(model, example, path, opset_version=OPSET,
                      input_names=[n for n, _ in inputs], output_names=outputs,
                      dynamic_axes=dynamic, do_constant_folding=True)
    params = sum(p.numel() for p in model.parameters())
    print(f"{name}: {path} ({os.path.getsize(path) / 2**20:.1f} MiB, {params / 1e6:.2f} M params)",
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", nargs="?", default="/work/bench-models")
    parser.add_argument("--only", help="comma-separated model names")
    parser.add_argument("--list", action="store_true", help="print the model names and exit")
    args = parser.parse_args()
    if args.list:
        print("\n".join(MODELS))
        return 0
    names = args.only.split(",") if args.only else list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; --list shows them")
    os.makedirs(args.out_dir, exist_ok=True)
    failed = []
    for name in names:
        try:
            export(name, args.out_dir)
        except Exception as e:  # one model's export failure does not stop the others
            print(f"{name}: export failed: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
