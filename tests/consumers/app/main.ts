// The consumer app as a TypeScript user writes it, type-checked (never run) against the
// packed package's declarations, resolved through its `exports` (moduleResolution bundler and
// node16). The @ts-expect-error lines must stay errors, or the types have decayed to `any`.
import { init, Tensor, type AttentionWasm, type InitOptions } from 'attention-wasm';
import { init as initThreaded } from 'attention-wasm/threads';

const options: InitOptions = { simd: 'auto' };
const A: AttentionWasm = await init(options);
A.manualSeed(123);
const x: Tensor = A.embedding([0, 4, 5, 2, 1, 3], A.randn(6, 16));
A.manualSeed(123);
const Wq = A.rand(24, 16),
  Wk = A.rand(24, 16),
  Wv = A.rand(28, 16);
const q = A.linear(x, Wq),
  k = A.linear(x, Wk),
  v = A.linear(x, Wv);
const { output, weights } = A.scaledDotProductAttention(q, k, v, { returnWeights: true });
const shapes: number[][] = [output.shape, weights.shape]; // returnWeights: true, so weights is a Tensor
const omega24: Tensor = A.matmul(new Tensor(q.data.slice(24, 48), [24]), new Tensor(k.data.slice(96, 120), [24]));
const simd: 'relaxed' | 'simd128' = A.buildInfo().simd;

const T: AttentionWasm = await initThreaded({ threads: 'auto' });
const threads: number = T.threads;
T.dispose();
// @ts-expect-error: threads takes 'auto', a number or false
await initThreaded({ threads: 'all' });
// @ts-expect-error: not a SIMD build
await init({ simd: 'avx' });
console.log(String(omega24), shapes, simd, threads);
