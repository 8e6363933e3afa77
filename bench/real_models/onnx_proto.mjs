// Just enough of ONNX's protobuf for the real-models bench: TensorProto files (dims, data_type,
// name, raw_data; what asc-run --input/--output-dir and ort_run.mjs exchange) and a model's graph
// inputs, outputs and parameter count, read from the wire format without a protobuf library.

// ONNX TensorProto.DataType <-> onnxruntime-node tensor type and typed array.
export const TYPES = {
  1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array],
  4: ['uint16', Uint16Array], 5: ['int16', Int16Array], 6: ['int32', Int32Array],
  7: ['int64', BigInt64Array], 9: ['bool', Uint8Array], 10: ['float16', Uint16Array],
  11: ['float64', Float64Array], 12: ['uint32', Uint32Array], 13: ['uint64', BigUint64Array],
};
export const DATA_TYPE = Object.fromEntries(Object.entries(TYPES).map(([k, [name]]) => [name, Number(k)]));

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

// Calls visit(field, wire, value, buf) for every field of the message in buf[begin, end):
// value is a BigInt for varints, a Buffer view for length-delimited fields.
function eachField(buf, visit, begin = 0, end = buf.length) {
  let pos = begin;
  while (pos < end) {
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n), wire = Number(key & 7n);
    if (wire === 0) {
      let v;
      [v, pos] = readVarint(buf, pos);
      visit(field, wire, v);
    } else if (wire === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      const next = pos + Number(len);
      if (next > end) throw new Error(`truncated field ${field}`);
      visit(field, wire, buf.subarray(pos, next));
      pos = next;
    } else if (wire === 5) pos += 4;
    else if (wire === 1) pos += 8;
    else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
}

function packedVarints(bytes) {
  const out = [];
  for (let p = 0; p < bytes.length;) {
    let v;
    [v, p] = readVarint(bytes, p);
    out.push(BigInt.asIntN(64, v));
  }
  return out;
}

const utf8 = (bytes) => Buffer.from(bytes).toString('utf8');

// TensorProto -> {name, dataType, dims: Number[], data: typed array}; raw_data only.
export function decodeTensor(buf) {
  const t = { name: '', dataType: 0, dims: [], raw: null };
  eachField(buf, (field, wire, v) => {
    if (field === 1) t.dims.push(...(wire === 0 ? [BigInt.asIntN(64, v)] : packedVarints(v)));
    else if (field === 2) t.dataType = Number(v);
    else if (field === 8) t.name = utf8(v);
    else if (field === 9) t.raw = v;
    else if ([4, 5, 6, 7, 10, 11, 13].includes(field)) throw new Error('typed data fields are not read here');
  });
  const type = TYPES[t.dataType];
  if (!type) throw new Error(`tensor '${t.name}': data_type ${t.dataType} is not read here`);
  const Typed = type[1];
  const raw = t.raw ?? new Uint8Array(0);
  const copy = new Uint8Array(raw.length);  // aligned for the typed array
  copy.set(raw);
  return { name: t.name, dataType: t.dataType, dims: t.dims.map(Number),
           data: new Typed(copy.buffer, 0, copy.length / Typed.BYTES_PER_ELEMENT) };
}

function writeVarint(out, v) {
  let x = BigInt.asUintN(64, BigInt(v));
  do {
    const b = Number(x & 0x7fn);
    x >>= 7n;
    out.push(x ? b | 0x80 : b);
  } while (x);
}

function lengthDelimited(out, field, bytes) {
  writeVarint(out, (field << 3) | 2);
  writeVarint(out, bytes.length);
  for (const b of bytes) out.push(b);
}

// {name, dataType, dims, data: typed array} -> TensorProto bytes (raw_data).
export function encodeTensor({ name, dataType, dims, data }) {
  const head = [], packed = [];
  for (const d of dims) writeVarint(packed, d);
  if (dims.length) lengthDelimited(head, 1, packed);
  writeVarint(head, 2 << 3);
  writeVarint(head, dataType);
  lengthDelimited(head, 8, Buffer.from(name, 'utf8'));
  const raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  writeVarint(head, (9 << 3) | 2);
  writeVarint(head, raw.length);
  return Buffer.concat([Buffer.from(head), raw]);
}

// ValueInfoProto -> {name, dataType, dims: (Number | String | null)[]} (null: a dim with neither
// value nor name; dims null: no shape).
function valueInfo(buf) {
  const v = { name: '', dataType: 0, dims: null };
  eachField(buf, (field, _w, b) => {
    if (field === 1) v.name = utf8(b);
    else if (field === 2) eachField(b, (tf, _w2, tensorType) => {  // TypeProto.tensor_type
      if (tf !== 1) return;
      eachField(tensorType, (f, _w3, x) => {
        if (f === 1) v.dataType = Number(x);
        else if (f === 2) {  // TensorShapeProto
          v.dims = [];
          eachField(x, (sf, _w4, dim) => {
            if (sf !== 1) return;
            let d = null;
            eachField(dim, (df, _w5, dv) => { d = df === 1 ? Number(BigInt.asIntN(64, dv)) : df === 2 ? utf8(dv) : d; });
            v.dims.push(d);
          });
        }
      });
    });
  });
  return v;
}

// Elements of a TensorProto (its dims' product).
function tensorElements(buf) {
  let n = 1;
  eachField(buf, (field, wire, v) => {
    if (field !== 1) return;
    for (const d of wire === 0 ? [v] : packedVarints(v)) n *= Number(d);
  });
  return n;
}

// Parameters: the elements of every initializer and every tensor-valued attribute (Constant
// nodes), in the graph and in its subgraphs (If/Loop/Scan bodies).
function graphParams(graph) {
  let n = 0;
  const node = (b) => eachField(b, (f, _w, attr) => {
    if (f !== 5) return;  // NodeProto.attribute
    eachField(attr, (af, _w2, x) => {
      if (af === 5 || af === 10) n += tensorElements(x);  // t, tensors
      else if (af === 6 || af === 11) n += graphParams(x);  // g, graphs
    });
  });
  eachField(graph, (f, _w, b) => {
    if (f === 5) n += tensorElements(b);  // initializer
    else if (f === 1) node(b);
  });
  return n;
}

// ModelProto file bytes -> {inputs, outputs (ValueInfo), params, opset}; graph inputs that are
// initializers (IR < 4 models list them) are left out.
export function modelInfo(buf) {
  const info = { inputs: [], outputs: [], params: 0, opset: null };
  eachField(buf, (field, _w, b) => {
    if (field === 8) {  // opset_import: the default domain's version
      let domain = '', version = 0;
      eachField(b, (f, _w2, x) => { if (f === 1) domain = utf8(x); else if (f === 2) version = Number(x); });
      if (domain === '' || domain === 'ai.onnx') info.opset = version;
    } else if (field === 7) {
      const initializers = new Set();
      eachField(b, (f, _w2, x) => {
        if (f === 11) info.inputs.push(valueInfo(x));
        else if (f === 12) info.outputs.push(valueInfo(x));
        else if (f === 5) eachField(x, (tf, _w3, n) => { if (tf === 8) initializers.add(utf8(n)); });
      });
      info.inputs = info.inputs.filter((v) => !initializers.has(v.name));
      info.params = graphParams(b);
    }
  });
  return info;
}
