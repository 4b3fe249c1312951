// Document 001 ("Self-Attention Mechanism"), E1.2: softmax of logits, and of logits x 100.
import { test } from 'node:test';
import { Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import { assertPrinted } from './reference/index.mjs';

const A = await library();

test('E1.2 softmax of the logits is diffuse, of 100x the logits nearly one-hot (2 decimals)', () => {
  const logits = [0.1, 0.4, -0.9, 0.02, 0.35, -0.62];
  const p = A.softmax(new Tensor(Float32Array.from(logits)), { dim: 0 });
  assertPrinted(p, [0.18, 0.25, 0.07, 0.17, 0.24, 0.09], 2, 'softmax(logits)');
  const p100 = A.softmax(new Tensor(Float32Array.from(logits, (x) => x * 100)), { dim: 0 });
  assertPrinted(p100, [0, 0.99, 0, 0, 0.01, 0], 2, 'softmax(logits * 100)');
});
