// asc against ONNX Runtime on one decoder-with-past model, in one run (issue 4's bench). Run by
// hand from the repository root after the build and `scripts/install-deps.sh`:
//
//   node bench/qwen_vs_ort.mjs MODEL.onnx [--threads 2] [--prompt-len 128] [--generate 32]
//                                         [--runs 3] [--asc-precision fp32,bf16] [--json]
//                                         [--weight-cache DIR] [--same-files]
//
// Each run starts fresh processes, alternating asc-run --generate and tools/ort/generate.mjs, so
// both see the same machine state (page cache warm after the first load; the first run of each
// is a warm-up of the page cache too and is counted like the others). Each process loads the
// model, generates once untimed (plans every shape), then once timed: prefill of the prompt,
// then generate - 1 decoding steps. Reports medians over the runs of prefill and decode tokens/s,
// load time and peak RSS, the ratios asc / ORT (ORT always fp32 as the model is), and whether the
// greedy tokens agree. asc-run computes only the last position's logits in prefill (what
// generation reads; `--all-logits` in asc-run turns that off) — pass `--all-logits` here to
// compare with every row computed, as ORT does. `--weight-cache DIR` passes asc-run's option of
// that name (every asc run maps the packed weights the first run of its precision converted or
// packed and wrote there — runtime/weight_pack.h; a
// first run's load includes the conversion and the write, and counts like the others).
//
// Each runtime reads its own copy of the model files (ORT's is copied to a temporary folder beside
// the model and removed at the end; `--same-files` turns that off). The page cache holds a file
// in the folios of whoever first read it, and the two runtimes prefer different ones on this
// kernel (docs/PERFORMANCE.md, Qwen, "Huge pages"): asc maps its weights asking for 2 MiB folios and
// decodes 9-15 tok/s from 4 KiB ones against 19-23 from 2 MiB ones, while ORT's fp32 decode was
// ~15 % slower reading a file that asc had paged in. With one shared file, whichever runtime ran
// first would set the other's speed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const o = { threads: 2, promptLen: 128, generate: 32, runs: 3, precisions: ['fp32'], json: false,
              allLogits: false, asc: join(root, 'build', 'asc-run') };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--threads') o.threads = Number(value());
    else if (a === '--prompt-len') o.promptLen = Number(value());
    else if (a === '--generate') o.generate = Number(value());
    else if (a === '--runs') o.runs = Number(value());
    else if (a === '--asc-precision') o.precisions = value().split(',');
    else if (a === '--asc-run') o.asc = value();
    else if (a === '--all-logits') o.allLogits = true;
    else if (a === '--weight-cache') o.weightCache = value();
    else if (a === '--same-files') o.sameFiles = true;
    else if (a === '--json') o.json = true;
    else if (!a.startsWith('--') && !o.model) o.model = a;
    else throw new Error(`unknown argument '${a}'`);
  }
  if (!o.model) throw new Error('usage: node bench/qwen_vs_ort.mjs MODEL.onnx [options]');
  return o;
}

function runJson(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function main() {
  const o = parseArgs(process.argv.slice(2));
  // The prompt: asc-run's seeded ids (reported in its JSON), fed to both runtimes.
  const probe = runJson(o.asc, [o.model, '--generate', '1', '--prompt-len', String(o.promptLen),
                                '--threads', String(o.threads), '--json', '--warmup', '0']);
  const prompt = probe.prompt.join(',');
  const common = ['--generate', String(o.generate), '--threads', String(o.threads)];
  // ORT's copy: the .onnx and every file beside it whose name starts with it (external data).
  let ortModel = o.model;
  let ortDir = null;
  if (!o.sameFiles) {
    const dir = dirname(resolve(o.model)), base = basename(o.model);
    ortDir = mkdtempSync(join(dir, '.qwen_vs_ort-'));
    for (const f of readdirSync(dir))
      if (f.startsWith(base)) copyFileSync(join(dir, f), join(ortDir, f));
    ortModel = join(ortDir, base);
  }
  try {
    report(o, measure(o, common, prompt, ortModel));
  } finally {
    if (ortDir) rmSync(ortDir, { recursive: true, force: true });
  }
}

function measure(o, common, prompt, ortModel) {
  const rows = { ort: [] };
  for (const p of o.precisions) rows[`asc ${p}`] = [];
  for (let r = 0; r < o.runs; ++r) {
    for (const p of o.precisions) {
      const args = [o.model, ...common, '--prompt-ids', prompt, '--precision', p, '--json'];
      if (o.allLogits) args.push('--all-logits');
      if (o.weightCache) args.push('--weight-cache', o.weightCache);
      rows[`asc ${p}`].push(runJson(o.asc, args));
    }
    rows.ort.push(runJson('node', [join(root, 'tools', 'ort', 'generate.mjs'), '--model', ortModel,
                                   ...common, '--prompt-ids', prompt]));
  }
  return rows;
}

function report(o, rows) {
  const summary = {};
  for (const [name, list] of Object.entries(rows)) {
    summary[name] = {
      prefill_tok_s: median(list.map((x) => x.prefill_tok_s)),
      decode_tok_s: median(list.map((x) => x.decode_tok_s)),
      load_ms: median(list.map((x) => x.load_ms)),
      peak_rss_mb: median(list.map((x) => x.peak_rss_mb)),
      tokens: list[list.length - 1].tokens,
    };
  }
  const ort = summary.ort;
  for (const [name, s] of Object.entries(summary)) {
    if (name === 'ort') continue;
    s.prefill_vs_ort = s.prefill_tok_s / ort.prefill_tok_s;
    s.decode_vs_ort = s.decode_tok_s / ort.decode_tok_s;
    s.tokens_equal_ort = JSON.stringify(s.tokens) === JSON.stringify(ort.tokens);
  }
  const meta = { model: o.model, threads: o.threads, prompt_tokens: o.promptLen,
                 new_tokens: o.generate, runs: o.runs, all_logits: o.allLogits,
                 ort_own_copy: !o.sameFiles,
                 ort_version: rows.ort[0].ort_version };
  if (o.json) {
    console.log(JSON.stringify({ ...meta, results: summary }, null, 2));
    return;
  }
  console.log(`${o.model}: pp${o.promptLen} + tg${o.generate - 1}, ${o.threads} threads, ` +
              `median of ${o.runs} runs, ONNX Runtime ${meta.ort_version}` +
              (o.allLogits ? ', asc with every logits row' : ''));
  console.log('\n| runtime | pp t/s | tg t/s | pp vs ORT | tg vs ORT | load ms | peak RSS MiB | tokens = ORT |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  const f = (x, d = 2) => (x === undefined || x === null ? '-' : x.toFixed(d));
  for (const [name, s] of Object.entries(summary))
    console.log(`| ${name} | ${f(s.prefill_tok_s)} | ${f(s.decode_tok_s)} | ${f(s.prefill_vs_ort)} | ` +
                `${f(s.decode_vs_ort)} | ${f(s.load_ms, 0)} | ${f(s.peak_rss_mb, 0)} | ` +
                `${name === 'ort' ? '-' : s.tokens_equal_ort ? 'yes' : 'NO'} |`);
}

try {
  main();
} catch (e) {
  process.stderr.write(`qwen_vs_ort: ${e.message}\n`);
  process.exit(1);
}
