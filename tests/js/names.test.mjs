// One language at the JS seam: every message a JS caller reads uses the JS API's names. The C++
// API's messages mark the torch names they use (api_name in src/core/error.hpp) and the bindings
// respell them from src/js/names.js: every marked name must be listed there, and the messages of
// each layer (SDPA, MultiheadAttention, TransformerEncoderLayer under its own option names,
// layerNorm, positionalEncoding) read in JS names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { library } from './helpers.mjs';
import { JS_NAMES } from '../../src/js/names.js';

const A = await library();
const root = fileURLToPath(new URL('../../src', import.meta.url));
const sources = readdirSync(root, { recursive: true }).filter((f) => /\.(cpp|hpp)$/.test(f));
const t = (shape, fill = 0) => ({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(fill), shape });
const bool = (shape) => ({ data: new Uint8Array(shape.reduce((a, b) => a * b, 1)), shape });

test('every name the C++ messages mark has its JS spelling in names.js', () => {
  const marked = new Set();
  for (const file of sources) {
    for (const m of readFileSync(join(root, file), 'utf8').matchAll(/api_name\("([^"]+)"\)/g)) marked.add(m[1]);
  }
  assert.ok(marked.size >= 10, `only ${marked.size} marked names found`);
  for (const name of marked) assert.ok(name in JS_NAMES, `${name} (marked in src/) is not in src/js/names.js`);
});

test('messages from every layer use the JS names of the function and its options', () => {
  const cases = [
    [
      () => A.scaledDotProductAttention(t([3, 4]), t([5, 4]), t([5, 2]), { attnMask: t([3, 5]), isCausal: true }),
      /^scaledDotProductAttention: attnMask and isCausal cannot both be set/,
    ],
    [
      () => A.scaledDotProductAttention(t([1, 3, 2, 4]), t([1, 2, 5, 4]), t([1, 2, 5, 4]), { enableGqa: true }),
      /^scaledDotProductAttention: with enableGqa the query heads/,
    ],
    [() => A.layerNorm(t([2, 3]), [4]), /^layerNorm: input must end with the dims of normalizedShape/],
    [() => A.positionalEncoding(1e6, 1e6), /^positionalEncoding: result: shape/],
    [
      () =>
        new A.MultiheadAttention({ embedDim: 8, numHeads: 2 }).forward(t([5, 3, 8]), t([5, 3, 8]), t([5, 3, 8]), {
          keyPaddingMask: bool([5, 3]),
        }),
      /^MultiheadAttention\.forward: keyPaddingMask must have shape \(N, S\)/,
    ],
    [
      () => new A.MultiheadAttention({ embedDim: 8, numHeads: 2 }).forward(t([5, 3, 7]), t([5, 3, 8]), t([5, 3, 8])),
      /^MultiheadAttention\.forward: query's last dimension must be embedDim 8/,
    ],
    [
      () =>
        new A.TransformerEncoderLayer({ dModel: 4, nhead: 2 }).forward(t([3, 2, 4]), {
          srcKeyPaddingMask: bool([3, 2]),
        }),
      /^TransformerEncoderLayer\.forward: srcKeyPaddingMask must have shape \(N, S\) = \[2, 3\]/,
    ],
    [
      () => new A.TransformerEncoderLayer({ dModel: 4, nhead: 2 }).forward(t([3, 2, 4]), { srcMask: t([3, 2]) }),
      /^TransformerEncoderLayer\.forward: srcMask must have shape \(L, S\) = \[3, 3\] or \(N\*numHeads, L, S\)/,
    ],
  ];
  for (const [run, message] of cases) {
    assert.throws(
      run,
      (e) => e instanceof Error && message.test(e.message) && !/[a-z]_[a-z]/.test(e.message.split(' got ')[0]),
      `expected ${message}`,
    );
  }
});
