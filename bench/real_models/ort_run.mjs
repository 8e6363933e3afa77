// ONNX Runtime's side of bench/real_models/models_vs_ort.mjs, measured the way asc-run measures
// asc: load, one first run, W warm-up runs, N timed runs; the median of the timed runs.
//
//   node ort_run.mjs --model M.onnx [--input NAME=FILE.pb ...] [--iterations N] [--warmup W]
//                    [--threads T] [--output-dir DIR]
//
// onnxruntime-node 1.30 from tools/ort/node_modules, CPU execution provider, every graph
// optimisation on, T intra-op threads and one inter-op thread (sequential execution, as asc-run
// runs a model with T workers). A timed run is one `session.run` from JavaScript: it includes the
// Node binding's wrapping of the inputs and outputs (tens of microseconds). --output-dir writes
// the last run's outputs as DIR/NAME.pb (TensorProto, raw_data). Prints one JSON object:
// {"ort_version", "threads", "load_ms", "first_run_ms", "median_ms", "iterations", "warmup"}.
// Exit codes: 0 success, 1 any failure (the message on stderr), 2 a usage error.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { DATA_TYPE, TYPES, decodeTensor, encodeTensor } from './onnx_proto.mjs';

class UsageError extends Error {}

function parseArgs(argv) {
  const o = { inputs: [], iterations: 10, warmup: 2, threads: 0 };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
      return argv[++i];
    };
    if (flag === '--model') o.model = value();
    else if (flag === '--output-dir') o.outputDir = value();
    else if (flag === '--iterations') o.iterations = Number(value());
    else if (flag === '--warmup') o.warmup = Number(value());
    else if (flag === '--threads') o.threads = Number(value());
    else if (flag === '--input') {
      const s = value(), eq = s.indexOf('=');
      if (eq <= 0) throw new UsageError(`--input '${s}': expected NAME=FILE.pb`);
      o.inputs.push([s.slice(0, eq), s.slice(eq + 1)]);
    } else throw new UsageError(`unknown argument '${flag}'`);
  }
  if (!o.model) throw new UsageError('--model is required');
  if (!(o.iterations >= 1) || !(o.warmup >= 0) || !(o.threads >= 0))
    throw new UsageError('--iterations >= 1, --warmup >= 0, --threads >= 0');
  return o;
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(o) {
  // The bridge's install (tools/ort), resolved from here so the bench runs from any folder.
  const require = createRequire(new URL('../../tools/ort/package.json', import.meta.url));
  const ort = require('onnxruntime-node');
  const feeds = {};
  for (const [name, path] of o.inputs) {
    const t = decodeTensor(readFileSync(path));
    feeds[name] = new ort.Tensor(TYPES[t.dataType][0], t.data, t.dims);
  }
  const options = { executionProviders: ['cpu'], graphOptimizationLevel: 'all', logSeverityLevel: 3,
                    executionMode: 'sequential', interOpNumThreads: 1 };
  if (o.threads > 0) options.intraOpNumThreads = o.threads;
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(o.model, options);
  const loadMs = performance.now() - t0;
  const times = [];
  let out;
  for (let r = 0; r < 1 + o.warmup + o.iterations; ++r) {
    const a = performance.now();
    out = await session.run(feeds);
    times.push(performance.now() - a);
  }
  if (o.outputDir) {
    mkdirSync(o.outputDir, { recursive: true });
    for (const name of session.outputNames) {
      const t = out[name];
      const dataType = DATA_TYPE[t.type];
      if (!dataType) throw new Error(`output '${name}': ${t.type} tensors are not written`);
      writeFileSync(join(o.outputDir, `${encodeURIComponent(name)}.pb`),
                    encodeTensor({ name, dataType, dims: t.dims, data: t.data }));
    }
  }
  console.log(JSON.stringify({
    ort_version: ort.env.versions?.common ?? null, threads: o.threads, load_ms: loadMs,
    first_run_ms: times[0], median_ms: median(times.slice(1 + o.warmup)),
    iterations: o.iterations, warmup: o.warmup,
  }));
}

let options;
try {
  options = parseArgs(process.argv.slice(2));
} catch (e) {
  console.error(`ort_run: ${e.message}`);
  process.exit(2);
}
main(options).catch((e) => {
  console.error(`ort_run: ${e.message ?? e}`);
  process.exit(1);
});
