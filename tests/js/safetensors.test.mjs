// loadSafetensors and loadStateDict, with safetensors bytes built here from the format's
// definition: 8-byte little-endian header length, JSON header {name: {dtype, shape,
// data_offsets}}, then the data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor, loadSafetensors } from 'attention-wasm';
import { library, rng, randomTensor } from './helpers.mjs';

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
const throwsLike = (fn, cls, pattern) => assert.throws(fn, (e) => {
  assert.equal(e.constructor, cls, `expected ${cls.name}, got ${e.constructor.name}: ${e.message}`);
  assert.match(e.message, pattern);
  return true;
});

test('reads F32 tensors (any alignment, metadata skipped, empty and 0-d tensors) into JS-owned Tensors', () => {
  const r = rng(1);
  const a = randomTensor([3, 5], r), b = randomTensor([7], r), empty = { data: new Float32Array(0), shape: [0, 4] };
  const scalar = { data: Float32Array.of(2.5), shape: [] };
  for (const pad of [0, 1, 2, 3]) {
    const bytes = safetensorsBytes([['a', a], ['layer.b', b], ['empty', empty], ['scalar', scalar]], { metadata: { format: 'pt' }, pad });
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

test('other dtypes: TypeError naming the tensor and dtype', () => {
  const bytes = safetensorsBytes([['ok', randomTensor([2], rng(2))], ['half', { data: new Float32Array(2), shape: [4] }, 'F16']]);
  throwsLike(() => A.loadSafetensors(bytes), TypeError, /tensor 'half' has dtype F16; only F32 is supported/);
  throwsLike(() => A.loadSafetensors('not bytes'), TypeError, /bytes must be a Uint8Array or an ArrayBuffer, got string/);
});

test('truncated files, bad header JSON, offsets out of range: Errors naming the problem', () => {
  const good = safetensorsBytes([['w', randomTensor([4, 4], rng(3))]]);
  throwsLike(() => A.loadSafetensors(good.subarray(0, 5)), Error, /truncated file: 5 bytes, fewer than the 8 of the header length/);
  const headerLength = new DataView(good.buffer).getUint32(0, true);
  throwsLike(() => A.loadSafetensors(good.subarray(0, 8 + headerLength - 3)), Error,
    new RegExp(`truncated file: the header length says ${headerLength} bytes but only ${headerLength - 3} follow`));
  throwsLike(() => A.loadSafetensors(good.subarray(0, good.length - 4)), Error,
    /tensor 'w': data_offsets \[0, 64\] out of range of the 60 data bytes \(truncated file\?\)/);
  const bad = good.slice();
  bad[8] = 0x7b; bad[9] = 0x7b; // "{{"
  throwsLike(() => A.loadSafetensors(bad), Error, /bad header JSON \(\d+ bytes\)/);
  const huge = good.slice();
  new DataView(huge.buffer).setUint32(4, 1, true);
  throwsLike(() => A.loadSafetensors(huge), Error, /header length says 42949\d+ bytes/);
  // a header whose offsets do not match the shape
  const json = new TextEncoder().encode(JSON.stringify({ w: { dtype: 'F32', shape: [4, 4], data_offsets: [0, 60] } }));
  const wrong = new Uint8Array(8 + json.length + 64);
  new DataView(wrong.buffer).setUint32(0, json.length, true);
  wrong.set(json, 8);
  throwsLike(() => A.loadSafetensors(wrong), Error, /tensor 'w': shape \[4, 4\] needs 64 bytes of F32 but data_offsets \[0, 60\] hold 60/);
  const arrayHeader = new TextEncoder().encode('[1]');
  const arr = new Uint8Array(8 + arrayHeader.length);
  new DataView(arr.buffer).setUint32(0, arrayHeader.length, true);
  arr.set(arrayHeader, 8);
  throwsLike(() => A.loadSafetensors(arr), Error, /bad header: expected a JSON object of tensors, got an array/);
});

test('MultiheadAttention.loadStateDict from safetensors by torch name, round trip through stateDict', () => {
  const r = rng(4);
  A.manualSeed(1);
  const src = new A.MultiheadAttention({ embedDim: 6, numHeads: 2, kdim: 4, vdim: 5 });
  assert.deepEqual(Object.keys(src.stateDict()).sort(),
    ['in_proj_bias', 'k_proj_weight', 'out_proj.bias', 'out_proj.weight', 'q_proj_weight', 'v_proj_weight']);
  src.inProjBias = randomTensor([18], r);
  src.outProjBias = randomTensor([6], r);
  const bytes = safetensorsBytes(Object.entries(src.stateDict()));
  const dst = new A.MultiheadAttention({ embedDim: 6, numHeads: 2, kdim: 4, vdim: 5 });
  const result = dst.loadStateDict(A.loadSafetensors(bytes));
  assert.deepEqual(result, { missingKeys: [], unexpectedKeys: [] });
  const q = randomTensor([3, 6], r), k = randomTensor([4, 4], r), v = randomTensor([4, 5], r);
  assert.deepEqual(Array.from(dst.forward(q, k, v).output.data), Array.from(src.forward(q, k, v).output.data));
  // a plain object works too
  dst.loadStateDict(Object.fromEntries(A.loadSafetensors(bytes)));
});

test('loadStateDict errors: size mismatch names the parameter and both shapes; missing/unexpected keys; nothing changes', () => {
  const m = new A.MultiheadAttention({ embedDim: 4, numHeads: 2 });
  const snapshot = Array.from(m.inProjWeight.data);
  const sd = m.stateDict();
  const tensors = { ...sd, in_proj_bias: new Tensor(new Float32Array(12).fill(1), [12]), 'out_proj.weight': new Tensor(new Float32Array(12), [4, 3]) };
  throwsLike(() => m.loadStateDict(tensors), Error,
    /size mismatch for out_proj\.weight: copying a param with shape \[4, 3\], the shape in the current model is \[4, 4\]/);
  assert.ok(m.inProjBias.data.every((x) => x === 0), 'in_proj_bias not assigned after the error');
  throwsLike(() => m.loadStateDict({ in_proj_weight: sd.in_proj_weight }), Error, /missing key\(s\) "in_proj_bias", "out_proj.weight", "out_proj.bias"/);
  throwsLike(() => m.loadStateDict({ ...sd, 'self_attn.in_proj_weight': sd.in_proj_weight }), Error, /unexpected key\(s\) "self_attn.in_proj_weight"/);
  const partial = m.loadStateDict({ in_proj_weight: new Tensor(new Float32Array(48).fill(0.5), [12, 4]), extra: sd.in_proj_bias }, { strict: false });
  assert.deepEqual(partial, { missingKeys: ['in_proj_bias', 'out_proj.weight', 'out_proj.bias'], unexpectedKeys: ['extra'] });
  assert.ok(m.inProjWeight.data.every((x) => x === 0.5));
  assert.notDeepEqual(snapshot, Array.from(m.inProjWeight.data));
  throwsLike(() => m.loadStateDict({ ...sd, in_proj_weight: { data: new Float64Array(48), shape: [12, 4] } }), TypeError, /in_proj_weight must have Float32Array data/);
  throwsLike(() => m.loadStateDict(null), TypeError, /tensors must be a Map or an object/);
  const x = randomTensor([2, 4], rng(5));
  assert.ok(m.forward(x, x, x).output.data.every(Number.isFinite), 'still works');
});
