// Greedy generation with ONNX Runtime (npm onnxruntime-node, CPU execution provider, every graph
// optimisation on): the baseline of bench/qwen_vs_ort.sh, measured the way asc-run --generate
// measures asc.
//
//   node generate.mjs --model M.onnx --prompt-ids 1,2,3 --generate N [--threads T]
//                     [--repetitions R] [--warmup W]
//
// M is a decoder with past in the optimum layout (input_ids, attention_mask, optional
// position_ids, past_key_values.N.key/value -> logits, present.N.key/value). Each repetition runs
// one prefill over the prompt (empty past), then N - 1 decoding steps, each feeding the previous
// step's presents back as the past (ORT's own tensors, no copy in JS). Prints one JSON object:
// {"runtime", "ort_version", "threads", "load_ms", "prompt_tokens", "tokens",
//  "prefill_tok_s", "decode_tok_s", "peak_rss_mb"}; tok/s are means over the repetitions.
//
// Exit codes: 0 success, 1 any failure (the message on stderr), 2 a usage error.
import { performance } from 'node:perf_hooks';

class UsageError extends Error {}

function parseArgs(argv) {
  const o = { threads: 0, repetitions: 1, warmup: 1, generate: 0 };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
      return argv[++i];
    };
    if (flag === '--model') o.model = value();
    else if (flag === '--prompt-ids') o.prompt = value().split(',').map((s) => BigInt(s.trim()));
    else if (flag === '--generate') o.generate = Number(value());
    else if (flag === '--threads') o.threads = Number(value());
    else if (flag === '--repetitions') o.repetitions = Number(value());
    else if (flag === '--warmup') o.warmup = Number(value());
    else throw new UsageError(`unknown argument '${flag}'`);
  }
  if (!o.model || !o.prompt || !o.prompt.length) throw new UsageError('--model and --prompt-ids are required');
  for (const k of ['generate', 'repetitions'])
    if (!Number.isInteger(o[k]) || o[k] < 1) throw new UsageError(`--${k}: a count >= 1`);
  for (const k of ['threads', 'warmup'])
    if (!Number.isInteger(o[k]) || o[k] < 0) throw new UsageError(`--${k}: a count >= 0`);
  return o;
}

// The past inputs and present outputs, paired by layer index and kind.
function cacheLayout(session) {
  const past = session.inputNames.filter((n) => n.startsWith('past_key_values.'));
  const pairs = past.map((p) => {
    const present = p.replace('past_key_values.', 'present.');
    if (!session.outputNames.includes(present)) throw new Error(`input '${p}' has no output '${present}'`);
    return { past: p, present };
  });
  const meta = Object.fromEntries(session.inputMetadata.map((m) => [m.name, m]));
  return pairs.map((pair) => {
    const m = meta[pair.past];
    if (!m || !m.isTensor || m.shape.length !== 4) throw new Error(`input '${pair.past}': expected a rank-4 tensor`);
    const heads = m.shape[1], dim = m.shape[3];
    if (typeof heads !== 'number' || typeof dim !== 'number')
      throw new Error(`input '${pair.past}': kv heads and head_dim must be fixed, got [${m.shape}]`);
    return { ...pair, type: m.type, heads, dim };
  });
}

function argmaxLast(logits) {
  const vocab = logits.dims[logits.dims.length - 1];
  const rows = logits.data.length / vocab;
  const base = (rows - 1) * vocab;
  let best = 0;
  for (let i = 1; i < vocab; ++i) if (logits.data[base + i] > logits.data[base + best]) best = i;
  return BigInt(best);
}

async function generate(ort, session, layout, prompt, n) {
  const hasPositions = session.inputNames.includes('position_ids');
  const ids = (toks) => new ort.Tensor('int64', BigInt64Array.from(toks), [1, toks.length]);
  let past = Object.fromEntries(layout.map((l) => {
    const empty = l.type === 'float16' ? new Uint16Array(0) : new Float32Array(0);
    return [l.past, new ort.Tensor(l.type, empty, [1, l.heads, 0, l.dim])];
  }));
  const tokens = [];
  let total = 0, step = prompt;
  let prefillMs = 0, decodeMs = 0;
  for (let i = 0; i < n; ++i) {
    const t0 = performance.now();
    const feeds = { input_ids: ids(step), ...past };
    feeds.attention_mask = new ort.Tensor('int64', new BigInt64Array(total + step.length).fill(1n),
                                          [1, total + step.length]);
    if (hasPositions) feeds.position_ids = ids(step.map((_, k) => BigInt(total + k)));
    const out = await session.run(feeds);
    const next = argmaxLast(out.logits);
    const ms = performance.now() - t0;
    if (i === 0) prefillMs = ms; else decodeMs += ms;
    tokens.push(next);
    total += step.length;
    past = Object.fromEntries(layout.map((l) => [l.past, out[l.present]]));
    step = [next];
  }
  return { tokens, prefillMs, decodeMs };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const ort = (await import('onnxruntime-node')).default;
  const options = { executionProviders: ['cpu'], graphOptimizationLevel: 'all', logSeverityLevel: 3 };
  if (o.threads > 0) {
    options.intraOpNumThreads = o.threads;
    options.interOpNumThreads = 1;
  }
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(o.model, options);
  const loadMs = performance.now() - t0;
  const layout = cacheLayout(session);
  for (let w = 0; w < o.warmup; ++w) await generate(ort, session, layout, o.prompt, o.generate);
  const prefill = [], decode = [];
  let tokens = [];
  for (let r = 0; r < o.repetitions; ++r) {
    const g = await generate(ort, session, layout, o.prompt, o.generate);
    tokens = g.tokens;
    prefill.push(1e3 * o.prompt.length / g.prefillMs);
    if (o.generate > 1) decode.push(1e3 * (o.generate - 1) / g.decodeMs);
  }
  const mean = (v) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : null);
  console.log(JSON.stringify({
    runtime: 'onnxruntime-node', ort_version: ort.env.versions?.common ?? null,
    threads: o.threads, load_ms: loadMs, prompt_tokens: o.prompt.length,
    tokens: tokens.map(Number), prefill_tok_s: mean(prefill), decode_tok_s: mean(decode),
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
  }, null, 2));
}

main().catch((e) => {
  process.stderr.write(`generate.mjs: ${e.message}\n`);
  process.exit(e instanceof UsageError ? 2 : 1);
});
