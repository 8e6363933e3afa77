// asc against ONNX Runtime on small models, where a run costs the runtime's fixed costs per node,
// per run and per control-flow body rather than arithmetic (issue 21). Run by hand from the
// repository root after the build (which writes build/models/small_*.onnx) and
// `scripts/install-deps.sh` (ONNX Runtime in tools/ort):
//
//   node bench/small_models_vs_ort.mjs [--models vad,loop,chain] [--runs 5] [--iterations 300]
//        [--warmup 30] [--threads 1] [--json] [--asc-run build/asc-run] [--asc-arg ARG ...]
//        [--model M.onnx --input NAME=DTYPE[DIMS][=FILL] ... ]...
//
// Built-in models (models/small_models.h): small_vad (Silero-VAD-like, If on the sample rate, fed
// 576 samples at 16 kHz and a zero state), small_loop (a Loop of 32 RNN steps), small_chain (100
// small nodes on [1, 64]). `--model` adds any model, its inputs given by `--input` specs after it:
// `input=f32[1,576]` (seeded uniform in [-1, 1)), `state=f32[2,1,128]=0` (filled), `sr=i64[]=16000`.
//
// Each round runs asc-run in a fresh process (load, first run, --warmup runs, --iterations timed
// runs of Model::run: its median) and then ONNX Runtime 1.30 in this process on the same inputs
// (one session per model made before the rounds: every graph optimisation, --threads intra-op
// threads, sequential execution; the same warm-up and timed runs of `session.run`, whose
// Node binding costs some microseconds a call — the `floor` row, a one-Identity model, shows it).
// Rounds alternate the two so both see the same machine state; the figures are medians over the
// rounds of each round's median. The outputs of asc's last run are checked against ORT's (the
// largest absolute difference is reported).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { encodeTensor } from './real_models/onnx_proto.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// ONNX TensorProto.DataType of the dtypes used here, and their typed arrays.
const TYPES = {
  f32: { onnx: 1, ort: 'float32', array: Float32Array },
  i64: { onnx: 7, ort: 'int64', array: BigInt64Array },
  bool: { onnx: 9, ort: 'bool', array: Uint8Array },
};
const BY_ONNX = Object.fromEntries(Object.values(TYPES).map((t) => [t.onnx, t]));

const BUILTIN = {
  small_vad: ['input=f32[1,576]', 'state=f32[2,1,128]=0', 'sr=i64[]=16000'],
  small_loop: ['xs=f32[32,1,64]', 'h0=f32[1,64]'],
  small_chain: ['x=f32[1,64]'],
};

function parseArgs(argv) {
  const o = { runs: 5, iterations: 300, warmup: 30, threads: 1, json: false, models: [],
              builtins: ['vad', 'loop', 'chain'], ascArgs: [], asc: join(root, 'build', 'asc-run') };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--runs') o.runs = Number(value());
    else if (a === '--iterations') o.iterations = Number(value());
    else if (a === '--warmup') o.warmup = Number(value());
    else if (a === '--threads') o.threads = Number(value());
    else if (a === '--models') o.builtins = value().split(',').filter((s) => s);
    else if (a === '--asc-run') o.asc = value();
    else if (a === '--asc-arg') o.ascArgs.push(value());
    else if (a === '--json') o.json = true;
    else if (a === '--model') o.models.push({ path: value(), inputs: [] });
    else if (a === '--input') {
      if (!o.models.length) throw new Error('--input comes after the --model it belongs to');
      o.models.at(-1).inputs.push(value());
    } else throw new Error(`unknown argument '${a}'`);
  }
  for (const b of [...o.builtins].reverse()) {
    const name = `small_${b}`;
    if (!BUILTIN[name]) throw new Error(`--models: unknown '${b}' (vad, loop, chain)`);
    o.models.unshift({ path: join(root, 'build', 'models', `${name}.onnx`), inputs: BUILTIN[name] });
  }
  if (!(o.runs >= 1 && o.iterations >= 1 && o.warmup >= 0 && o.threads >= 1))
    throw new Error('--runs, --iterations, --threads >= 1, --warmup >= 0');
  return o;
}

// A seeded generator (xorshift32) for the random inputs.
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

// "NAME=DTYPE[d0,d1]" or "...=FILL" -> {name, type, dims, data}.
function makeInput(spec, next) {
  const m = /^([^=]+)=(f32|i64|bool)\[([0-9,]*)\](?:=(-?[0-9.e+-]+))?$/.exec(spec);
  if (!m) throw new Error(`--input '${spec}': expected NAME=f32|i64|bool[DIMS][=FILL]`);
  const type = TYPES[m[2]];
  const dims = m[3] ? m[3].split(',').map(Number) : [];
  const n = dims.reduce((a, b) => a * b, 1);
  const data = new type.array(n);
  for (let k = 0; k < n; ++k) {
    const v = m[4] !== undefined ? Number(m[4]) : m[2] === 'f32' ? 2 * next() - 1 : Math.floor(10 * next());
    data[k] = m[2] === 'i64' ? BigInt(v) : v;
  }
  return { name: m[1], type, dims, data };
}

// --- TensorProto: written by real_models/onnx_proto.mjs, read here ---------------------------
function varint(out, v) {
  let x = BigInt.asUintN(64, BigInt(v));
  do {
    const b = Number(x & 0x7fn);
    x >>= 7n;
    out.push(x ? b | 0x80 : b);
  } while (x);
}

function decodeTensor(buf) {
  let type, raw;
  const dims = [];
  const read = (bytes, at) => {  // a varint at at.pos, which moves past it
    let v = 0n, shift = 0n;
    for (;;) {
      const b = bytes[at.pos++];
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      shift += 7n;
    }
  };
  const at = { pos: 0 };
  while (at.pos < buf.length) {
    const key = Number(read(buf, at)), field = key >> 3, wire = key & 7;
    if (wire === 0) {
      const v = read(buf, at);
      if (field === 1) dims.push(Number(v));
      else if (field === 2) type = BY_ONNX[Number(v)];
    } else if (wire === 2) {
      const len = Number(read(buf, at));
      const bytes = buf.subarray(at.pos, at.pos + len);
      at.pos += len;
      if (field === 1) {  // packed dims
        const inner = { pos: 0 };
        while (inner.pos < bytes.length) dims.push(Number(read(bytes, inner)));
      } else if (field === 9) raw = bytes;
    } else if (wire === 5) at.pos += 4;
    else if (wire === 1) at.pos += 8;
    else throw new Error(`TensorProto: wire type ${wire}`);
  }
  if (!type || !raw) throw new Error('TensorProto: not a raw f32/i64/bool tensor');
  const copy = Uint8Array.from(raw);
  return { dims, data: new type.array(copy.buffer, 0, copy.byteLength / type.array.BYTES_PER_ELEMENT) };
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// A one-Identity model on f32[1, 64]: the per-call floor of each runtime's API.
function writeFloorModel(path) {
  const bytes = [];
  const field = (out, num, payload) => { out.push((num << 3) | 2); varint(out, payload.length); out.push(...payload); };
  const str = (s) => [...Buffer.from(s)];
  const valueInfo = (name) => {
    const dims = [];
    for (const d of [1, 64]) { const dim = [1 << 3]; varint(dim, d); field(dims, 1, dim); }
    const tensorType = [1 << 3, 1]; field(tensorType, 2, dims);
    const type = []; field(type, 1, tensorType);
    const vi = []; field(vi, 1, str(name)); field(vi, 2, type);
    return vi;
  };
  const node = []; field(node, 1, str('x')); field(node, 2, str('y')); field(node, 4, str('Identity'));
  const graph = []; field(graph, 1, node); field(graph, 2, str('floor'));
  field(graph, 11, valueInfo('x')); field(graph, 12, valueInfo('y'));
  bytes.push(1 << 3, 8);  // ir_version 8
  const opset = [2 << 3]; varint(opset, 17); field(bytes, 8, opset);
  field(bytes, 7, graph);
  writeFileSync(path, Buffer.from(bytes));
}

async function main(o) {
  const require = createRequire(join(root, 'tools', 'ort', 'package.json'));
  const ort = require('onnxruntime-node');
  const work = mkdtempSync(join(tmpdir(), 'small_models_vs_ort-'));
  try {
    writeFloorModel(join(work, 'floor.onnx'));
    o.models.push({ path: join(work, 'floor.onnx'), inputs: ['x=f32[1,64]'], name: 'floor' });
    const rows = [];
    for (const [m, model] of o.models.entries()) {
      const name = model.name ?? basename(model.path, '.onnx');
      const next = rng(1234 + m);
      const inputs = model.inputs.map((s) => makeInput(s, next));
      const dir = join(work, `${m}`);
      const ascArgs = [model.path, '--iterations', `${o.iterations}`, '--warmup', `${o.warmup}`,
                       '--threads', `${o.threads}`, '--json', '--values', '0',
                       '--output-dir', join(dir, 'out'), ...o.ascArgs];
      spawnSync('mkdir', ['-p', dir]);
      for (const t of inputs) {
        const file = join(dir, `${t.name}.pb`);
        writeFileSync(file, encodeTensor({ ...t, dataType: t.type.onnx }));
        ascArgs.push('--input', `${t.name}=${file}`);
      }
      const session = await ort.InferenceSession.create(model.path, {
        executionProviders: ['cpu'], graphOptimizationLevel: 'all', logSeverityLevel: 3,
        executionMode: 'sequential', interOpNumThreads: 1, intraOpNumThreads: o.threads });
      const feeds = Object.fromEntries(inputs.map((t) => [t.name, new ort.Tensor(t.type.ort, t.data, t.dims)]));
      const asc = [], ortMs = [];
      let ascJson, ortOut;
      for (let r = 0; r < o.runs; ++r) {
        const p = spawnSync(o.asc, ascArgs, { encoding: 'utf8' });
        if (p.status !== 0) throw new Error(`asc-run ${name}: ${p.stderr.trim()}`);
        ascJson = JSON.parse(p.stdout);
        asc.push(ascJson.median_ms);
        const times = [];
        for (let k = 0; k < o.warmup + o.iterations; ++k) {
          const a = performance.now();
          ortOut = await session.run(feeds);
          if (k >= o.warmup) times.push(performance.now() - a);
        }
        ortMs.push(median(times));
      }
      let maxDiff = 0;
      for (const [k, out] of ascJson.outputs.entries()) {
        const mine = decodeTensor(readFileSync(join(dir, 'out', `output_${k}.pb`)));
        const theirs = ortOut[out.name].data;
        for (let i = 0; i < theirs.length; ++i)
          maxDiff = Math.max(maxDiff, Math.abs(Number(mine.data[i]) - Number(theirs[i])));
      }
      rows.push({ model: name, nodes: ascJson.nodes, asc_ms: median(asc), ort_ms: median(ortMs),
                  ratio: median(asc) / median(ortMs), max_abs_diff: maxDiff, asc_runs: asc,
                  ort_runs: ortMs });
      await session.release?.();
    }
    if (o.json) {
      console.log(JSON.stringify({ threads: o.threads, iterations: o.iterations, warmup: o.warmup,
                                   runs: o.runs, models: rows }, null, 1));
      return;
    }
    console.log(`threads ${o.threads}, ${o.runs} rounds x ${o.iterations} timed runs (after ${o.warmup} warm-up); medians`);
    console.log('model            nodes   asc ms    ORT ms   asc/ORT   max |diff|');
    for (const r of rows)
      console.log(`${r.model.padEnd(16)} ${String(r.nodes).padStart(5)} ${r.asc_ms.toFixed(4).padStart(8)}  ` +
                  `${r.ort_ms.toFixed(4).padStart(8)}  ${r.ratio.toFixed(2).padStart(7)}   ${r.max_abs_diff.toExponential(1)}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

let options;
try {
  options = parseArgs(process.argv.slice(2));
} catch (e) {
  console.error(`small_models_vs_ort: ${e.message}`);
  process.exit(2);
}
main(options).catch((e) => {
  console.error(`small_models_vs_ort: ${e.message ?? e}`);
  process.exit(1);
});
