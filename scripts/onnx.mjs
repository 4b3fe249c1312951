// A minimal writer of ONNX models (protobuf, onnx.proto3 field numbers) for the benchmarks: the
// peers (onnxruntime-web) run graphs written here, on the same weights as attention-wasm.
//
// A message is a list of byte chunks with their total length, so that large initializers
// (a whole encoder's weights) are referenced, not copied, until the model is assembled once.

const utf8 = new TextEncoder();

/** Protobuf varint of a non-negative integer (or a negative int64 as ten bytes of two's complement). */
function varint(n) {
  const out = [];
  let x = BigInt.asUintN(64, BigInt(n));
  do {
    let byte = Number(x & 0x7fn);
    x >>= 7n;
    if (x) byte |= 0x80;
    out.push(byte);
  } while (x);
  return Uint8Array.from(out);
}

const WIRE_VARINT = 0,
  WIRE_BYTES = 2;
const tag = (num, wire) => varint((num << 3) | wire);

/** { chunks: Uint8Array[], length } */
const part = (...chunks) => ({ chunks, length: chunks.reduce((n, c) => n + c.length, 0) });
const join = (parts) => part(...parts.flatMap((p) => p.chunks));

/** Field `num` = integer `n`. */
export const int = (num, n) => part(tag(num, WIRE_VARINT), varint(n));
/** Field `num` = raw bytes. */
export const bytes = (num, data) => part(tag(num, WIRE_BYTES), varint(data.length), data);
/** Field `num` = a UTF-8 string. */
export const str = (num, s) => bytes(num, utf8.encode(s));
/** Field `num` = an embedded message made of `fields`. */
export function msg(num, fields) {
  const body = join(fields);
  return part(tag(num, WIRE_BYTES), varint(body.length), ...body.chunks);
}

// ONNX element types (TensorProto.DataType)
export const FLOAT = 1,
  UINT8 = 2,
  INT8 = 3,
  INT32 = 6,
  INT64 = 7;

// NodeProto: input 1, output 2, name 3, op_type 4, attribute 5, domain 7.
// AttributeProto: name 1, f 2, i 3, ints 8, type 20 (FLOAT 1, INT 2, INTS 7).
export const attrInt = (name, i) => msg(5, [str(1, name), int(3, i), int(20, 2)]);
export const attrInts = (name, ints) => msg(5, [str(1, name), ...ints.map((i) => int(8, i)), int(20, 7)]);
export function attrFloat(name, f) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, f, true);
  return msg(5, [str(1, name), part(tag(2, 5), b), int(20, 1)]); // f: fixed32 (wire type 5)
}
/** A node; `domain` '' is ONNX's own operators, 'com.microsoft' onnxruntime's contrib operators. */
export function node(op, inputs, outputs, attrs = [], domain = '') {
  return msg(1, [
    ...inputs.map((s) => str(1, s)),
    ...outputs.map((s) => str(2, s)),
    str(3, `${op}_${outputs[0]}`),
    str(4, op),
    ...attrs,
    ...(domain ? [str(7, domain)] : []),
  ]);
}

// ValueInfoProto (graph input 11 / output 12): name 1, type 2 — TypeProto.tensor_type 1:
// elem_type 1, shape 2 (dim 1: dim_value 1 or dim_param 2).
export function valueInfo(num, name, dims, elemType = FLOAT) {
  const dim = (d) => msg(1, [typeof d === 'string' ? str(2, d) : int(1, d)]);
  return msg(num, [str(1, name), msg(2, [msg(1, [int(1, elemType), msg(2, dims.map(dim))])])]);
}

// TensorProto (graph initializer 5): dims 1, data_type 2, name 8, raw_data 9 (little-endian).
export function initializer(name, dims, data) {
  const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const type =
    data instanceof BigInt64Array
      ? INT64
      : data instanceof Int32Array
        ? INT32
        : data instanceof Int8Array
          ? INT8
          : data instanceof Uint8Array
            ? UINT8
            : FLOAT;
  return msg(5, [...dims.map((d) => int(1, d)), int(2, type), str(8, name), bytes(9, raw)]);
}

/**
 * ModelProto bytes: ir_version 1 = 8, producer_name 2, graph 7 (GraphProto: node 1, name 2,
 * initializer 5, input 11, output 12), opset_import 8 (domain 1, version 2); `domains` more
 * opset imports ({'com.microsoft': 1} for onnxruntime's contrib operators).
 */
export function model(graphName, graphFields, opset = 17, domains = {}) {
  const m = join([
    int(1, 8),
    str(2, 'attention-wasm bench'),
    msg(7, [...graphFields, str(2, graphName)]),
    msg(8, [str(1, ''), int(2, opset)]),
    ...Object.entries(domains).map(([domain, version]) => msg(8, [str(1, domain), int(2, version)])),
  ]);
  const out = new Uint8Array(m.length);
  let at = 0;
  for (const c of m.chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
