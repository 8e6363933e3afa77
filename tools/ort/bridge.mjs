// asc-check's bridge to ONNX Runtime (npm onnxruntime-node, CPU execution provider).
//
//   node bridge.mjs --model M.onnx --out DIR [--input NAME=FILE.pb ...] [--fetch NAMES.txt]
//                   [--threads N] [--external-data-dir D]
//
// Runs M once with graph optimisations disabled (so every intermediate the model exposes as an
// output exists as written) and writes each fetched output as DIR/output_K.pb, a TensorProto,
// plus DIR/outputs.json: {"ort_version": "1.30.0", "outputs": [{"name": ..., "file":
// "output_K.pb"}, ...] in fetch order, "skipped": [{"name": ..., "reason": ...}, ...]}.
// --fetch names a file with one output name a line (default: every output of M). An output the
// Node binding cannot return (a sequence, a bfloat16 tensor, ...) is skipped, not fetched.
// Inputs are TensorProto files with dims, data_type, name and raw_data (or string_data), as asc
// writes them. --external-data-dir: M's external data files are in D, not next to M (M is a
// rewritten copy); M is then loaded from memory with D as ORT's external initializer folder.
//
// Exit codes: 0 success, 1 any failure (the message on stderr), 2 a usage error.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// ONNX TensorProto.DataType <-> onnxruntime-node tensor type (bfloat16 has no Node binding).
const ORT_TYPE = {
  1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64',
  8: 'string', 9: 'bool', 10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64',
};
const ONNX_TYPE = Object.fromEntries(Object.entries(ORT_TYPE).map(([k, v]) => [v, Number(k)]));
const ARRAY = {
  float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array,
  int16: Int16Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array,
  float16: Uint16Array, float64: Float64Array, uint32: Uint32Array, uint64: BigUint64Array,
};

class UsageError extends Error {}

function parseArgs(argv) {
  const o = { inputs: [], threads: 0 };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
      return argv[++i];
    };
    if (flag === '--model') o.model = value();
    else if (flag === '--out') o.out = value();
    else if (flag === '--fetch') o.fetch = value();
    else if (flag === '--external-data-dir') o.dataDir = value();
    else if (flag === '--threads') o.threads = Number(value());
    else if (flag === '--input') {
      const s = value(), eq = s.indexOf('=');
      if (eq <= 0 || eq + 1 === s.length) throw new UsageError(`--input '${s}': expected NAME=FILE.pb`);
      o.inputs.push([s.slice(0, eq), s.slice(eq + 1)]);
    } else throw new UsageError(`unknown argument '${flag}'`);
  }
  if (!o.model || !o.out) throw new UsageError('--model and --out are required');
  if (!Number.isInteger(o.threads) || o.threads < 0) throw new UsageError('--threads: a count >= 0');
  return o;
}

// --- protobuf wire format: varints, length-delimited fields --------------------------------

function readVarint(buf, pos) {
  let v = 0n, shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++];
    v |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [v, pos];
    shift += 7n;
  }
}

function writeVarint(out, v) {
  let x = BigInt.asUintN(64, BigInt(v));
  do {
    const b = Number(x & 0x7fn);
    x >>= 7n;
    out.push(x ? b | 0x80 : b);
  } while (x);
}

// TensorProto fields used here: dims (1, int64, packed or not), data_type (2), string_data (6),
// name (8), raw_data (9). Anything else (typed data fields, external data) is refused.
function decodeTensorProto(buf, path) {
  const t = { dims: [], dataType: 0, name: '', strings: [], raw: null };
  let pos = 0;
  while (pos < buf.length) {
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n), wire = Number(key & 7n);
    if (wire === 0) {
      let v;
      [v, pos] = readVarint(buf, pos);
      if (field === 1) t.dims.push(BigInt.asIntN(64, v));
      else if (field === 2) t.dataType = Number(v);
      continue;
    }
    if (wire === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      const end = pos + Number(len);
      if (end > buf.length) throw new Error(`${path}: truncated field ${field}`);
      const bytes = buf.subarray(pos, end);
      if (field === 1) {
        for (let p = 0; p < bytes.length;) {
          let v;
          [v, p] = readVarint(bytes, p);
          t.dims.push(BigInt.asIntN(64, v));
        }
      } else if (field === 6) t.strings.push(Buffer.from(bytes).toString('utf8'));
      else if (field === 8) t.name = Buffer.from(bytes).toString('utf8');
      else if (field === 9) t.raw = bytes;
      else if (field >= 4 && field <= 7 || field === 10 || field === 11 || field === 13)
        throw new Error(`${path}: typed data fields are not read here; write raw_data`);
      pos = end;
      continue;
    }
    if (wire === 5) { pos += 4; continue; }
    if (wire === 1) { pos += 8; continue; }
    throw new Error(`${path}: unexpected protobuf wire type ${wire}`);
  }
  return t;
}

function field(out, number, wire) { writeVarint(out, (number << 3) | wire); }

function lengthDelimited(out, number, bytes) {
  field(out, number, 2);
  writeVarint(out, bytes.length);
  for (const b of bytes) out.push(b);
}

function encodeTensorProto(name, tensor) {
  const type = ONNX_TYPE[tensor.type];
  if (type === undefined) throw new Error(`output '${name}': tensor type ${tensor.type} is not written`);
  const head = [];
  const packed = [];
  for (const d of tensor.dims) writeVarint(packed, d);
  if (tensor.dims.length) lengthDelimited(head, 1, packed);
  field(head, 2, 0);
  writeVarint(head, type);
  if (tensor.type === 'string') {
    for (const s of tensor.data) lengthDelimited(head, 6, Buffer.from(s, 'utf8'));
    lengthDelimited(head, 8, Buffer.from(name, 'utf8'));
    return Buffer.from(head);
  }
  lengthDelimited(head, 8, Buffer.from(name, 'utf8'));
  const d = tensor.data;
  const raw = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  field(head, 9, 2);
  writeVarint(head, raw.length);
  return Buffer.concat([Buffer.from(head), raw]);
}

function toOrtTensor(ort, t, path) {
  const type = ORT_TYPE[t.dataType];
  if (!type) throw new Error(`${path}: ONNX data_type ${t.dataType} has no onnxruntime-node tensor type`);
  const dims = t.dims.map(Number);
  if (type === 'string') return new ort.Tensor('string', t.strings, dims);
  const Typed = ARRAY[type];
  const raw = t.raw ?? new Uint8Array(0);
  const copy = new Uint8Array(raw.length);  // aligned for the typed array
  copy.set(raw);
  if (copy.length % Typed.BYTES_PER_ELEMENT) throw new Error(`${path}: raw_data size ${copy.length} is not a multiple of ${Typed.BYTES_PER_ELEMENT}`);
  return new ort.Tensor(type, new Typed(copy.buffer, 0, copy.length / Typed.BYTES_PER_ELEMENT), dims);
}

async function main(o) {
  let ort;
  try {
    ort = await import('onnxruntime-node');
  } catch (e) {
    throw new Error(`cannot load onnxruntime-node (run scripts/install-deps.sh): ${e.message}`);
  }
  const feeds = {};
  for (const [name, path] of o.inputs) feeds[name] = toOrtTensor(ort, decodeTensorProto(readFileSync(path), path), path);
  // logSeverityLevel 4 (fatal only): a failure reaches asc-check once, as the thrown message.
  const options = { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', logSeverityLevel: 4 };
  if (o.threads > 0) options.intraOpNumThreads = o.threads;
  let model = o.model;
  if (o.dataDir) {
    model = readFileSync(o.model);
    options.extra = { session: { model_external_initializers_file_folder_path: o.dataDir } };
  }
  const session = await ort.InferenceSession.create(model, options);
  const wanted = o.fetch
    ? readFileSync(o.fetch, 'utf8').split('\n').filter((s) => s.length)
    : session.outputNames;
  const meta = new Map(session.outputMetadata.map((m) => [m.name, m]));
  const fetch = [], skipped = [];
  for (const name of wanted) {
    const m = meta.get(name);
    if (!m) throw new Error(`the model has no output named '${name}'`);
    if (!m.isTensor) skipped.push({ name, reason: 'not a tensor' });
    else if (!ONNX_TYPE[m.type]) skipped.push({ name, reason: `${m.type} tensors have no Node binding` });
    else fetch.push(name);
  }
  const results = fetch.length ? await session.run(feeds, fetch) : {};
  const version = ort.env.versions?.node ?? ort.env.versions?.common ?? "";
  const outputs = fetch.map((name, k) => {
    const file = `output_${k}.pb`;
    writeFileSync(join(o.out, file), encodeTensorProto(name, results[name]));
    return { name, file };
  });
  writeFileSync(join(o.out, 'outputs.json'), JSON.stringify({ ort_version: version, outputs, skipped }));
}

let options;
try {
  options = parseArgs(process.argv.slice(2));
} catch (e) {
  console.error(`bridge: ${e.message}`);
  process.exit(2);
}
main(options).catch((e) => {
  console.error(`bridge: ${e.message ?? e}`);
  process.exit(1);
});
