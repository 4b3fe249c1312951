// The table the boundary test (boundary.test.mjs) drives: every public function that takes a
// tensor, with a valid set of tensors. The test swaps one tensor at a time for an adversary (an
// object whose properties answer differently on each read, a Proxy, a typed array with a fake
// `length`) and checks what the call does with it.
//
// An entry:
//   tensors: {name: spec}   the call's tensor arguments (spec: shape, and kind 'bool' | 'ids')
//   params:  {path: spec}   module parameters, set through their setters before the call
//                           (path: 'inProjWeight', 'selfAttn.inProjWeight', ...)
//   make(A)                 the module the call runs on (entries with params)
//   run(A, t, module)       the call, given the tensors by name
//   prefix                  how its messages begin
const f = (...shape) => ({ shape });
const bool = (...shape) => ({ shape, kind: 'bool' });
const ids = (rows, ...shape) => ({ shape, kind: 'ids', rows });

const mha = (A) => {
  A.manualSeed(3);
  return new A.MultiheadAttention({ embedDim: 8, numHeads: 2 });
};

export const boundaryCases = {
  matmul: { tensors: { input: f(3, 4), other: f(4, 5) }, run: (A, t) => A.matmul(t.input, t.other) },
  linear: {
    tensors: { input: f(3, 4), weight: f(5, 4), bias: f(5) },
    run: (A, t) => A.linear(t.input, t.weight, t.bias),
  },
  softmax: { tensors: { input: f(3, 7) }, run: (A, t) => A.softmax(t.input) },
  embedding: { tensors: { input: ids(5, 4), weight: f(5, 3) }, run: (A, t) => A.embedding(t.input, t.weight) },
  scaledDotProductAttention: {
    tensors: { query: f(2, 5, 4), key: f(2, 6, 4), value: f(2, 6, 3), attnMask: f(5, 6) },
    run: (A, t) => A.scaledDotProductAttention(t.query, t.key, t.value, { attnMask: t.attnMask }).output,
  },
  'scaledDotProductAttention (boolean mask, weights)': {
    prefix: 'scaledDotProductAttention',
    tensors: { query: f(2, 5, 4), key: f(2, 6, 4), value: f(2, 6, 3), attnMask: bool(2, 1, 6) },
    run: (A, t) =>
      A.scaledDotProductAttention(t.query, t.key, t.value, { attnMask: t.attnMask, returnWeights: true }).weights,
  },
  layerNorm: {
    tensors: { input: f(3, 6), weight: f(6), bias: f(6) },
    run: (A, t) => A.layerNorm(t.input, [6], { weight: t.weight, bias: t.bias }),
  },
  relu: { tensors: { input: f(3, 9) }, run: (A, t) => A.relu(t.input) },
  gelu: { tensors: { input: f(3, 9) }, run: (A, t) => A.gelu(t.input, { approximate: 'tanh' }) },
  add: { tensors: { input: f(3, 4), other: f(4) }, run: (A, t) => A.add(t.input, t.other) },
  mul: { tensors: { input: f(3, 4), other: f(3, 1) }, run: (A, t) => A.mul(t.input, t.other) },
  transpose: { tensors: { input: f(3, 4, 2) }, run: (A, t) => A.transpose(t.input, 0, -1) },
  permute: { tensors: { input: f(2, 3, 4) }, run: (A, t) => A.permute(t.input, [2, 0, 1]) },
  select: { tensors: { input: f(3, 4) }, run: (A, t) => A.select(t.input, 1, -2) },
  narrow: { tensors: { input: f(3, 4) }, run: (A, t) => A.narrow(t.input, 0, 1, 2) },
  topk: { tensors: { input: f(3, 7) }, run: (A, t) => A.topk(t.input, 3).values },
  cosineSimilarity: {
    tensors: { x1: f(3, 5), x2: f(5) },
    run: (A, t) => A.cosineSimilarity(t.x1, t.x2, { dim: -1 }),
  },
  'Linear.forward': {
    prefix: 'linear|Linear',
    tensors: { input: f(3, 4) },
    params: { weight: f(5, 4), bias: f(5) },
    make: (A) => new A.Linear({ inFeatures: 4, outFeatures: 5 }),
    run: (A, t, m) => m.forward(t.input),
  },
  'MultiheadAttention.forward': {
    prefix: 'MultiheadAttention',
    tensors: { query: f(5, 2, 8), key: f(6, 2, 8), value: f(6, 2, 8), keyPaddingMask: bool(2, 6), attnMask: f(5, 6) },
    params: { inProjWeight: f(24, 8), inProjBias: f(24), outProjWeight: f(8, 8), outProjBias: f(8) },
    make: mha,
    run: (A, t, m) =>
      m.forward(t.query, t.key, t.value, { keyPaddingMask: t.keyPaddingMask, attnMask: t.attnMask }).output,
  },
  'MultiheadAttention.forward (weights)': {
    prefix: 'MultiheadAttention',
    tensors: { query: f(5, 2, 8), key: f(6, 2, 8), value: f(6, 2, 8), attnMask: bool(4, 5, 6) },
    make: mha,
    run: (A, t, m) => m.forward(t.query, t.key, t.value, { attnMask: t.attnMask, averageAttnWeights: false }).weights,
  },
  'TransformerEncoderLayer.forward': {
    prefix: 'TransformerEncoderLayer', // also its parts' setters: TransformerEncoderLayer.selfAttn.outProj: bias ...
    tensors: { src: f(5, 2, 8), srcKeyPaddingMask: bool(2, 5), srcMask: f(5, 5) },
    params: {
      'selfAttn.inProjWeight': f(24, 8),
      'selfAttn.outProjBias': f(8),
      'linear1.weight': f(16, 8),
      'linear2.bias': f(8),
      'norm1.weight': f(8),
      'norm2.bias': f(8),
    },
    make: (A) => {
      A.manualSeed(4);
      return new A.TransformerEncoderLayer({ dModel: 8, nhead: 2, dimFeedforward: 16 });
    },
    run: (A, t, m) => m.forward(t.src, { srcKeyPaddingMask: t.srcKeyPaddingMask, srcMask: t.srcMask }),
  },
};
