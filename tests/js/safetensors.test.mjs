// loadSafetensors and loadStateDict, with safetensors bytes built here from the format's
// definition (and every validation rule of the reference implementation): 8-byte little-endian header length, JSON header {name: {dtype, shape,
// data_offsets}}, then the data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor, loadSafetensors } from 'attention-wasm';
import { library } from './helpers.mjs';
import { rng, randomTensor } from './reference/index.mjs';

const A = await library();

/** entries: [name, {data: Float32Array, shape}, dtype?]; `pad` spaces make the data unaligned. */
function safetensorsBytes(entries, { metadata, pad = 0 } = {}) {
  const header = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  for (const [name, t, dtype = 'F32'] of entries) {
    header[name] = { dtype, shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  const json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(pad));
  const out = new Uint8Array(8 + json.length + offset);
  const view = new DataView(out.buffer);
  view.setUint32(0, json.length, true); // high 32 bits stay 0
  out.set(json, 8);
  let p = 8 + json.length;
  for (const [, t] of entries) {
    for (let i = 0; i < t.data.length; i++) view.setFloat32(p + 4 * i, t.data[i], true);
    p += t.data.byteLength;
  }
  return out;
}
const throwsLike = (fn, cls, pattern) =>
  assert.throws(fn, (e) => {
    assert.equal(e.constructor, cls, `expected ${cls.name}, got ${e.constructor.name}: ${e.message}`);
    assert.match(e.message, pattern);
    return true;
  });

test('reads F32 tensors (any alignment, metadata skipped, empty and 0-d tensors) into JS-owned Tensors', () => {
  const r = rng(1);
  const a = randomTensor([3, 5], r),
    b = randomTensor([7], r),
    empty = { data: new Float32Array(0), shape: [0, 4] };
  const scalar = { data: Float32Array.of(2.5), shape: [] };
  for (const pad of [0, 1, 2, 3]) {
    const bytes = safetensorsBytes(
      [
        ['a', a],
        ['layer.b', b],
        ['empty', empty],
        ['scalar', scalar],
      ],
      { metadata: { format: 'pt' }, pad },
    );
    const t = A.loadSafetensors(bytes);
    assert.ok(t instanceof Map);
    assert.deepEqual([...t.keys()], ['a', 'layer.b', 'empty', 'scalar']);
    assert.ok(t.get('a') instanceof Tensor);
    assert.deepEqual(t.get('a').shape, [3, 5]);
    assert.deepEqual(Array.from(t.get('a').data), Array.from(a.data));
    assert.deepEqual(Array.from(t.get('layer.b').data), Array.from(b.data));
    assert.deepEqual(t.get('empty').shape, [0, 4]);
    assert.equal(t.get('scalar').get(), 2.5);
    assert.notEqual(t.get('a').data.buffer, bytes.buffer, 'a copy, not a view of the file');
  }
  // the package also exports it, and an ArrayBuffer works
  assert.equal(loadSafetensors(safetensorsBytes([['a', a]]).buffer).get('a').data[0], a.data[0]);
});

// F16 / BF16 bits of exactly known values
const HALF = [
  [0x0000, 0],
  [0x8000, -0],
  [0x3c00, 1],
  [0xc000, -2],
  [0x3555, 0.333251953125],
  [0x7bff, 65504],
  [0x0001, 2 ** -24],
  [0x03ff, 1023 * 2 ** -24],
  [0x0400, 2 ** -14],
  [0x7c00, Infinity],
  [0xfc00, -Infinity],
  [0x7e00, NaN],
];
const BFLOAT = [
  [0x0000, 0],
  [0x3f80, 1],
  [0xc040, -3],
  [0x3eab, 0.333984375],
  [0x7f7f, 3.3895313892515355e38],
  [0x0001, 9.183549615799121e-41],
  [0x7f80, Infinity],
  [0x7fc0, NaN],
];

/** A file from header entries {name: {dtype, shape, data_offsets}} and raw data bytes. */
function rawFile(header, data = new Uint8Array(0), { lengthField } = {}) {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setUint32(0, lengthField ?? json.length, true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

test('F16 and BF16 are widened to float32 exactly (subnormals, infinities, NaN, -0); F32 as it is', () => {
  const half = new Uint8Array(HALF.length * 2),
    bf = new Uint8Array(BFLOAT.length * 2);
  HALF.forEach(([bits], i) => new DataView(half.buffer).setUint16(2 * i, bits, true));
  BFLOAT.forEach(([bits], i) => new DataView(bf.buffer).setUint16(2 * i, bits, true));
  const data = new Uint8Array(half.length + bf.length);
  data.set(half);
  data.set(bf, half.length);
  const t = A.loadSafetensors(
    rawFile(
      {
        h: { dtype: 'F16', shape: [HALF.length], data_offsets: [0, half.length] },
        b: { dtype: 'BF16', shape: [BFLOAT.length], data_offsets: [half.length, data.length] },
      },
      data,
    ),
  );
  assert.deepEqual(
    Array.from(t.get('h').data),
    HALF.map(([, v]) => Math.fround(v)),
  );
  assert.ok(Object.is(t.get('h').data[1], -0));
  assert.deepEqual(
    Array.from(t.get('b').data),
    BFLOAT.map(([, v]) => Math.fround(v)),
  );
  assert.equal(t.get('h').data.constructor, Float32Array);
});

test('integer dtypes: BOOL as a Uint8Array mask, the others as Int32Array, values kept; beyond int32 a RangeError', () => {
  // a BERT checkpoint's position_ids buffer (I64), and one tensor of each integer dtype
  const values = {
    BOOL: [1, 0, 1],
    U8: [0, 200, 255],
    I8: [-128, 0, 127],
    I16: [-32768, 7, 32767],
    U16: [0, 40000, 65535],
    I32: [-(2 ** 31), 0, 2 ** 31 - 1],
    U32: [0, 5, 2 ** 31 - 1],
    I64: [-(2 ** 31), 511, 2 ** 31 - 1],
    U64: [0, 1, 2 ** 31 - 1],
  };
  const size = { BOOL: 1, U8: 1, I8: 1, I16: 2, U16: 2, I32: 4, U32: 4, I64: 8, U64: 8 };
  const header = {};
  const parts = [];
  let at = 0;
  for (const [dtype, vs] of Object.entries(values)) {
    const bytes = new Uint8Array(size[dtype] * vs.length);
    const view = new DataView(bytes.buffer);
    vs.forEach((v, i) => {
      if (size[dtype] === 8) view[dtype === 'I64' ? 'setBigInt64' : 'setBigUint64'](8 * i, BigInt(v), true);
      else if (size[dtype] === 4) view[dtype === 'I32' ? 'setInt32' : 'setUint32'](4 * i, v, true);
      else if (size[dtype] === 2) view[dtype === 'I16' ? 'setInt16' : 'setUint16'](2 * i, v, true);
      else view[dtype === 'I8' ? 'setInt8' : 'setUint8'](i, v);
    });
    header[dtype.toLowerCase()] = { dtype, shape: [vs.length], data_offsets: [at, at + bytes.length] };
    parts.push(bytes);
    at += bytes.length;
  }
  const data = new Uint8Array(at);
  parts.reduce((o, p) => (data.set(p, o), o + p.length), 0);
  const t = A.loadSafetensors(rawFile(header, data));
  for (const [dtype, vs] of Object.entries(values)) {
    const got = t.get(dtype.toLowerCase());
    assert.equal(got.data.constructor, dtype === 'BOOL' ? Uint8Array : Int32Array, dtype);
    assert.deepEqual(Array.from(got.data), vs, dtype);
    assert.deepEqual(got.shape, [3]);
  }
  for (const [dtype, v] of [
    ['I64', 2 ** 31],
    ['U32', 2 ** 31],
    ['U64', 2 ** 40],
    ['I64', -(2 ** 31) - 1],
  ]) {
    const bytes = new Uint8Array(size[dtype]);
    const view = new DataView(bytes.buffer);
    if (size[dtype] === 8) view[dtype === 'I64' ? 'setBigInt64' : 'setBigUint64'](0, BigInt(v), true);
    else view.setUint32(0, v, true);
    throwsLike(
      () => A.loadSafetensors(rawFile({ big: { dtype, shape: [1], data_offsets: [0, bytes.length] } }, bytes)),
      RangeError,
      new RegExp(`^loadSafetensors: tensor 'big': element 0 = ${v} of ${dtype} does not fit the Int32Array`),
    );
  }
});

test('other dtypes: TypeError naming the tensor and dtype; a dtype the format does not define: Error', () => {
  const floats = rawFile(
    {
      ok: { dtype: 'F32', shape: [1], data_offsets: [0, 4] },
      wide: { dtype: 'F64', shape: [2], data_offsets: [4, 20] },
    },
    new Uint8Array(20),
  );
  throwsLike(
    () => A.loadSafetensors(floats),
    TypeError,
    /tensor 'wide' has dtype F64; read are F32, F16 and BF16 \(as float32\) and the integer dtypes/,
  );
  throwsLike(
    () => A.loadSafetensors(rawFile({ x: { dtype: 'F12', shape: [1], data_offsets: [0, 2] } }, new Uint8Array(2))),
    Error,
    /tensor 'x': unknown dtype "F12" \(the format's dtypes: BOOL, F4, .*\) \(safetensors: InvalidHeaderDeserialization\)/,
  );
  throwsLike(
    () => A.loadSafetensors('not bytes'),
    TypeError,
    /bytes must be a Uint8Array or an ArrayBuffer, got string/,
  );
});

test('bytes of a buffer transferred away (detached): a TypeError saying so', () => {
  const bytes = rawFile({});
  structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
  assert.throws(() => A.loadSafetensors(bytes), {
    name: 'TypeError',
    message: 'loadSafetensors: bytes is a view of a detached ArrayBuffer (transferred away)',
  });
});

test('a tensor is a Tensor: a dim past 2^29 is a RangeError naming the tensor (0 bytes, which the reference implementation reads)', () => {
  assert.throws(() => A.loadSafetensors(rawFile({ a: { dtype: 'F32', shape: [2 ** 30, 0], data_offsets: [0, 0] } })), {
    name: 'RangeError',
    message:
      "loadSafetensors: tensor 'a': shape [1073741824, 0] has a dimension 1073741824 larger than the 2^29 a tensor may hold",
  });
});

test("the reference implementation's rules (safetensors/src/tensor.rs), each an Error naming the tensor and the rule", () => {
  const f32 = (begin, end, shape = [(end - begin) / 4]) => ({ dtype: 'F32', shape, data_offsets: [begin, end] });
  const good = { a: f32(0, 16), b: f32(16, 24) };
  assert.equal(A.loadSafetensors(rawFile(good, new Uint8Array(24))).size, 2);
  const cases = [
    [
      'fewer than 8 bytes',
      new Uint8Array(5),
      /truncated file: 5 bytes, fewer than the 8 of the header length \(safetensors: HeaderTooSmall\)/,
    ],
    [
      'header length past the end',
      rawFile(good, new Uint8Array(24), { lengthField: 5000 }),
      /header length says 5000 bytes but only \d+ follow \(safetensors: InvalidHeaderLength\)/,
    ],
    [
      'header larger than 100,000,000',
      rawFile(good, new Uint8Array(24), { lengthField: 100_000_001 }),
      /more than the format's limit of 100000000 \(safetensors: HeaderTooLarge\)/,
    ],
    [
      'a hole between tensors',
      rawFile({ a: f32(0, 16), b: f32(20, 28) }, new Uint8Array(28)),
      /tensor 'b': data_offsets \[20, 28\]: a hole of 4 bytes before it \(the previous tensor 'a' end at 16\) \(safetensors: InvalidOffset\)/,
    ],
    [
      'a hole at the start',
      rawFile({ a: f32(8, 24) }, new Uint8Array(24)),
      /tensor 'a': data_offsets \[8, 24\]: a hole of 8 bytes before it/,
    ],
    [
      'overlapping tensors',
      rawFile({ a: f32(0, 16), b: f32(12, 20) }, new Uint8Array(20)),
      /tensor 'b': data_offsets \[12, 20\]: it overlaps tensor 'a' \[0, 16\] \(safetensors: InvalidOffset\)/,
    ],
    [
      'end before begin',
      rawFile(
        {
          a: { dtype: 'F32', shape: [0], data_offsets: [0, 0] },
          b: { dtype: 'F32', shape: [1], data_offsets: [4, 0] },
        },
        new Uint8Array(4),
      ),
      /InvalidOffset/,
    ],
    [
      'dtype x shape != bytes',
      rawFile({ a: f32(0, 16, [3]) }, new Uint8Array(16)),
      /tensor 'a': shape \[3\] of F32 needs 12 bytes but data_offsets \[0, 16\] hold 16 \(safetensors: TensorInvalidInfo\)/,
    ],
    [
      'a sub-byte dtype that ends inside a byte',
      rawFile({ a: { dtype: 'F4', shape: [3], data_offsets: [0, 2] } }, new Uint8Array(2)),
      /MisalignedSlice/,
    ],
    [
      'offsets outside the data (truncated file)',
      rawFile(good, new Uint8Array(20)),
      /truncated file: the tensors need 24 bytes of data but only 20 follow the header \(safetensors: MetadataIncompleteBuffer\)/,
    ],
    [
      'bytes after the last tensor',
      rawFile(good, new Uint8Array(30)),
      /6 bytes after the last tensor's data: the tensors must cover the file \(safetensors: MetadataIncompleteBuffer\)/,
    ],
    [
      'not UTF-8',
      (() => {
        const f = rawFile({ a: f32(0, 4) }, new Uint8Array(4));
        f[10] = 0xff;
        return f;
      })(),
      /bad header JSON/,
    ],
    [
      'bad JSON',
      (() => {
        const f = rawFile({ a: f32(0, 4) }, new Uint8Array(4));
        f[8] = 0x7b;
        f[9] = 0x7b;
        return f;
      })(),
      /bad header JSON \(\d+ bytes\)/,
    ],
    ['an array, not an object', rawFile([1]), /bad header: expected a JSON object of tensors, got an array/],
    [
      '__metadata__ not a map of strings',
      rawFile({ __metadata__: { n: 1 }, a: f32(0, 4) }, new Uint8Array(4)),
      /__metadata__ must be a map of strings to strings/,
    ],
    [
      'negative offsets',
      rawFile({ a: { dtype: 'F32', shape: [1], data_offsets: [-4, 0] } }),
      /data_offsets must be \[begin, end\] non-negative integers/,
    ],
    [
      'fractional shape',
      rawFile({ a: { dtype: 'F32', shape: [1.5], data_offsets: [0, 6] } }, new Uint8Array(6)),
      /shape must be an array of non-negative integers/,
    ],
  ];
  for (const [label, bytes, pattern] of cases) {
    assert.throws(
      () => A.loadSafetensors(bytes),
      (e) => {
        assert.equal(e.constructor, Error, `${label}: ${e.constructor.name}: ${e.message}`);
        assert.match(e.message, pattern, label);
        assert.match(e.message, /^loadSafetensors: /, label);
        return true;
      },
      label,
    );
  }
  // the format's own example (tensor.rs doc test): a valid file, of I32 zeros
  const example = new TextEncoder().encode('{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}');
  const file = new Uint8Array(8 + example.length + 16);
  new DataView(file.buffer).setUint32(0, example.length, true);
  file.set(example, 8);
  const test = A.loadSafetensors(file).get('test');
  assert.deepEqual([test.data.constructor, Array.from(test.data), test.shape], [Int32Array, [0, 0, 0, 0], [2, 2]]);
});

test('MultiheadAttention.loadStateDict from safetensors by torch name, round trip through stateDict', () => {
  const r = rng(4);
  A.manualSeed(1);
  const src = new A.MultiheadAttention({ embedDim: 6, numHeads: 2, kdim: 4, vdim: 5 });
  assert.deepEqual(Object.keys(src.stateDict()).sort(), [
    'in_proj_bias',
    'k_proj_weight',
    'out_proj.bias',
    'out_proj.weight',
    'q_proj_weight',
    'v_proj_weight',
  ]);
  src.inProjBias = randomTensor([18], r);
  src.outProjBias = randomTensor([6], r);
  const bytes = safetensorsBytes(Object.entries(src.stateDict()));
  const dst = new A.MultiheadAttention({ embedDim: 6, numHeads: 2, kdim: 4, vdim: 5 });
  const result = dst.loadStateDict(A.loadSafetensors(bytes));
  assert.deepEqual(result, { missingKeys: [], unexpectedKeys: [] });
  const q = randomTensor([3, 6], r),
    k = randomTensor([4, 4], r),
    v = randomTensor([4, 5], r);
  assert.deepEqual(Array.from(dst.forward(q, k, v).output.data), Array.from(src.forward(q, k, v).output.data));
  // a plain object works too
  dst.loadStateDict(Object.fromEntries(A.loadSafetensors(bytes)));
});

test('loadStateDict errors: size mismatch names the parameter and both shapes; missing/unexpected keys; nothing changes', () => {
  const m = new A.MultiheadAttention({ embedDim: 4, numHeads: 2 });
  const snapshot = Array.from(m.inProjWeight.data);
  const sd = m.stateDict();
  const tensors = {
    ...sd,
    in_proj_bias: new Tensor(new Float32Array(12).fill(1), [12]),
    'out_proj.weight': new Tensor(new Float32Array(12), [4, 3]),
  };
  throwsLike(
    () => m.loadStateDict(tensors),
    Error,
    /size mismatch for out_proj\.weight: copying a param with shape \[4, 3\], the shape in the current model is \[4, 4\]/,
  );
  assert.ok(
    m.inProjBias.data.every((x) => x === 0),
    'in_proj_bias not assigned after the error',
  );
  throwsLike(
    () => m.loadStateDict({ in_proj_weight: sd.in_proj_weight }),
    Error,
    /missing key\(s\) "in_proj_bias", "out_proj.weight", "out_proj.bias"/,
  );
  throwsLike(
    () => m.loadStateDict({ ...sd, 'self_attn.in_proj_weight': sd.in_proj_weight }),
    Error,
    /unexpected key\(s\) "self_attn.in_proj_weight"/,
  );
  const partial = m.loadStateDict(
    { in_proj_weight: new Tensor(new Float32Array(48).fill(0.5), [12, 4]), extra: sd.in_proj_bias },
    { strict: false },
  );
  assert.deepEqual(partial, {
    missingKeys: ['in_proj_bias', 'out_proj.weight', 'out_proj.bias'],
    unexpectedKeys: ['extra'],
  });
  assert.ok(m.inProjWeight.data.every((x) => x === 0.5));
  assert.notDeepEqual(snapshot, Array.from(m.inProjWeight.data));
  throwsLike(
    () => m.loadStateDict({ ...sd, in_proj_weight: { data: new Float64Array(48), shape: [12, 4] } }),
    TypeError,
    /in_proj_weight must have Float32Array data/,
  );
  throwsLike(() => m.loadStateDict(null), TypeError, /tensors must be a Map or an object/);
  const x = randomTensor([2, 4], rng(5));
  assert.ok(m.forward(x, x, x).output.data.every(Number.isFinite), 'still works');
});
