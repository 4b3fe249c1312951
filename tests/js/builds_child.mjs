// Run by builds.test.mjs in a child Node (with or without --experimental-wasm-relaxed-simd):
// init() as a user calls it, then a seeded workload over every kernel family, sizes with tails.
// Prints {simd, relaxedSupported, outputs: {name: number[]}} as JSON.
import { init } from 'attention-wasm';
import { relaxedSimdSupported } from '../../dist/builds.js';
import { rng, randomTensor } from './reference/index.mjs';

const A = await init();
const random = rng(2024);
const t = (...shape) => randomTensor(shape, random);
const q = t(1, 8, 100, 64),
  k = t(1, 8, 131, 64),
  v = t(1, 8, 131, 64);
const mask = t(100, 131);
const outputs = {
  attention: A.scaledDotProductAttention(q, k, v).output,
  attentionCausalWeights: A.scaledDotProductAttention(q, k, v, { isCausal: true, returnWeights: true }).weights,
  attentionMasked: A.scaledDotProductAttention(t(2, 3, 17, 9), t(2, 3, 29, 9), t(2, 3, 29, 5), { attnMask: t(17, 29) })
    .output,
  attentionMaskedLarge: A.scaledDotProductAttention(q, k, v, { attnMask: mask }).output,
  matmul: A.matmul(t(67, 130), t(130, 45)),
  matmulPacked: A.matmul(t(256, 300), t(300, 260)),
  linear: A.linear(t(3, 33, 96), t(70, 96), t(70)),
  layerNorm: A.layerNorm(t(5, 77), [77], { weight: t(77), bias: t(77) }),
  softmax: A.softmax(t(6, 203)),
  gelu: A.gelu(t(1001)),
  geluTanh: A.gelu(t(1001), { approximate: 'tanh' }),
};
process.stdout.write(
  JSON.stringify({
    simd: A.buildInfo().simd,
    relaxedSupported: relaxedSimdSupported(),
    outputs: Object.fromEntries(Object.entries(outputs).map(([name, x]) => [name, Array.from(x.data)])),
  }),
);
