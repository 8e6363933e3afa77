#!/usr/bin/env python3
"""Fused kernels against the unfused chains they replace, per pattern, from two asc-run traces.

    asc-run MODEL.onnx --dim ... --iterations N --trace on.json               # fusion on
    asc-run MODEL.onnx --dim ... --iterations N --trace off.json --optimize 0 # fusion off
    scripts/fusion-report.py on.json off.json --warmup 2

Nodes are grouped by the pattern their name belongs to (the optimum-form Qwen names of
models/qwen_optimum.cpp; fused nodes keep the last node's name); per group the time of each timed
run is summed, and the median over runs is printed for both traces.
"""
import argparse
import json
import re
import statistics
from collections import defaultdict

GROUPS = [
    ("RMSNorm", re.compile(r"(layernorm|/model/norm)/")),
    ("MatMul + bias (q, k, v)", re.compile(r"/[qkv]_proj/")),
    ("RoPE", re.compile(r"/rotary_[qk]/")),
    ("SwiGLU", re.compile(r"/mlp/(act_fn/Sigmoid|act_fn/Mul|Mul) ")),
    ("scores * scale + mask", re.compile(r"/self_attn/(Mul_scale|Add_mask) ")),
    ("mask", re.compile(r"^/model/(Greater_causal|Or_mask|Where_mask) ")),
]


def per_run(path, warmup):
    """{group: [ms per timed run]}, and the total per timed run."""
    events = json.load(open(path))["traceEvents"]
    runs = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("cat") == "run")
    timed = runs[1 + warmup:]
    sums = defaultdict(lambda: [0.0] * len(timed))
    for e in events:
        if e.get("cat") != "op":
            continue
        node = e["args"]["node"]
        for i, (a, b) in enumerate(timed):
            if a <= e["ts"] <= b:
                for name, rx in GROUPS:
                    if rx.search(node):
                        sums[name][i] += e["dur"] / 1000.0
                sums["all ops"][i] += e["dur"] / 1000.0
                break
    return sums, [(b - a) / 1000.0 for a, b in timed]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fused")
    ap.add_argument("unfused")
    ap.add_argument("--warmup", type=int, default=2)
    a = ap.parse_args()
    on, on_runs = per_run(a.fused, a.warmup)
    off, off_runs = per_run(a.unfused, a.warmup)
    print(f"{'pattern (median ms per run)':32} {'fused':>10} {'unfused':>10} {'ratio':>7}")
    for name in [g for g, _ in GROUPS] + ["all ops"]:
        f = statistics.median(on[name]) if name in on else 0.0
        u = statistics.median(off[name]) if name in off else 0.0
        ratio = f"{u / f:.2f}x" if f > 0 else "-"
        print(f"{name:32} {f:10.3f} {u:10.3f} {ratio:>7}")
    print(f"{'run (wall)':32} {statistics.median(on_runs):10.3f} {statistics.median(off_runs):10.3f}")


if __name__ == "__main__":
    main()
