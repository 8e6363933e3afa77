// ONNX Runtime's time per node, for comparing with `asc-run MODEL --trace t.json`: runs the model
// with ORT's profiler on (CPU execution provider, every graph optimisation, T intra-op threads),
// and prints each node's median kernel time over the last N runs, largest first, then the sum.
// Node names are ORT's after its graph optimisation (a fused Conv+Relu is named by its output,
// NCHWc layers end in `_nchwc`).
//
//   node ort_profile.mjs --model M.onnx [--input NAME=FILE.pb ...] [--iterations N] [--threads T]
//                        [--top K]
//
// An input without a file gets seeded random values of its declared shape (symbolic dims 1).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { TYPES, decodeTensor } from './onnx_proto.mjs';

function parseArgs(argv) {
  const o = { inputs: [], iterations: 20, threads: 1, top: 40 };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${flag} needs a value`);
      return argv[++i];
    };
    if (flag === '--model') o.model = value();
    else if (flag === '--iterations') o.iterations = Number(value());
    else if (flag === '--threads') o.threads = Number(value());
    else if (flag === '--top') o.top = Number(value());
    else if (flag === '--input') {
      const s = value(), eq = s.indexOf('=');
      if (eq <= 0) throw new Error(`--input '${s}': expected NAME=FILE.pb`);
      o.inputs.push([s.slice(0, eq), s.slice(eq + 1)]);
    } else throw new Error(`unknown argument '${flag}'`);
  }
  if (!o.model) throw new Error('--model is required');
  if (!(o.iterations >= 1) || !(o.threads >= 1)) throw new Error('--iterations >= 1, --threads >= 1');
  return o;
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Seeded uniform values in [-1, 1) (a 32-bit LCG), as a Float32Array of n.
function randomFloats(n, seed) {
  const out = new Float32Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; ++i) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = x / 2 ** 31 - 1;
  }
  return out;
}

async function main(o) {
  const require = createRequire(new URL('../../tools/ort/package.json', import.meta.url));
  const ort = require('onnxruntime-node');
  const dir = mkdtempSync(join(tmpdir(), 'ort-profile-'));
  try {
    const session = await ort.InferenceSession.create(o.model, {
      executionProviders: ['cpu'], graphOptimizationLevel: 'all', logSeverityLevel: 3,
      executionMode: 'sequential', interOpNumThreads: 1, intraOpNumThreads: o.threads,
      enableProfiling: true, profileFilePrefix: join(dir, 'p'),
    });
    const given = new Map(o.inputs);
    const feeds = {};
    session.inputNames.forEach((name, k) => {
      if (given.has(name)) {
        const t = decodeTensor(readFileSync(given.get(name)));
        feeds[name] = new ort.Tensor(TYPES[t.dataType][0], t.data, t.dims);
        return;
      }
      const meta = session.inputMetadata?.[k];
      const dims = (meta?.shape ?? []).map((d) => (typeof d === 'number' && d > 0 ? d : 1));
      if (meta && meta.type && meta.type !== 'float32')
        throw new Error(`input '${name}' is ${meta.type}: give it with --input`);
      feeds[name] = new ort.Tensor('float32', randomFloats(dims.reduce((a, b) => a * b, 1), k + 1),
                                   dims);
    });
    for (let r = 0; r < 2 + o.iterations; ++r) await session.run(feeds);
    await session.release();
    const file = readFileSync(join(dir, readdirSync(dir)[0]), 'utf8');
    const times = new Map();
    for (const e of JSON.parse(file)) {
      if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
      const name = e.name.slice(0, -'_kernel_time'.length);
      if (!times.has(name)) times.set(name, { op: e.args?.op_name ?? '', us: [] });
      times.get(name).us.push(e.dur);
    }
    const rows = [...times].map(([name, t]) => ({ name, op: t.op,
                                                  us: median(t.us.slice(-o.iterations)) }));
    rows.sort((a, b) => b.us - a.us);
    for (const r of rows.slice(0, o.top))
      console.log(`${r.us.toFixed(0).padStart(8)}  ${r.op.padEnd(20)} ${r.name}`);
    console.log(`${rows.reduce((a, r) => a + r.us, 0).toFixed(0).padStart(8)}  total of ${rows.length} nodes (us, median of ${o.iterations} runs, ${o.threads} thread(s))`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  await main(parseArgs(process.argv.slice(2)));
} catch (e) {
  console.error(`ort_profile: ${e.message ?? e}`);
  process.exit(1);
}
