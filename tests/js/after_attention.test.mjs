// Document 001 ("Self-Attention Mechanism"), E1.5 "what follows attention": a residual connection,
// layer normalisation, a feed-forward network with ReLU or GELU, then residual + layer norm
// again (the post-LN block of "Attention Is All You Need"), composed from the library's ops on
// a small example and compared with the same block computed in float64 in this file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { library } from './helpers.mjs';
import * as f64 from './reference/index.mjs';
import { assertClose, rng, randomTensor } from './reference/index.mjs';

const A = await library();
const T = 5,
  C = 8,
  HIDDEN = 16; // tokens, model width, FFN width

function parameters(seed) {
  const random = rng(seed);
  const t = (shape, scale = 1) => randomTensor(shape, random, scale);
  return {
    embedded: t([T, C]),
    Wq: t([C, C], 0.5),
    Wk: t([C, C], 0.5),
    Wv: t([C, C], 0.5),
    gamma1: t([C]),
    beta1: t([C], 0.1),
    gamma2: t([C]),
    beta2: t([C], 0.1),
    W1: t([HIDDEN, C], 0.5),
    b1: t([HIDDEN], 0.1),
    W2: t([C, HIDDEN], 0.5),
    b2: t([C], 0.1),
  };
}

/** The block through the library. */
function block(p, activation) {
  const x = A.add(p.embedded, A.positionalEncoding(T, C)); // embeddings + positions
  const q = A.linear(x, p.Wq),
    k = A.linear(x, p.Wk),
    v = A.linear(x, p.Wv);
  const attn = A.scaledDotProductAttention(q, k, v).output; // softmax(QK^T / sqrt(C)) V
  const h = A.layerNorm(A.add(x, attn), [C], { weight: p.gamma1, bias: p.beta1 }); // residual + norm
  const hidden = A.linear(h, p.W1, p.b1);
  const act = activation === 'relu' ? A.relu(hidden) : A.gelu(hidden, { approximate: activation });
  const ffn = A.linear(act, p.W2, p.b2); // feed-forward network
  const out = A.layerNorm(A.add(h, ffn), [C], { weight: p.gamma2, bias: p.beta2 }); // residual + norm
  return { x, attn, h, act, out };
}

/** The same block in float64, from the formulas. */
function blockFloat64(p, activation) {
  const pe = f64.positionalEncoding(T, C).flat();
  const x = f64.binary(p.embedded, { data: pe, shape: [T, C] }, (a, b) => a + b);
  const attn = f64.sdpa(f64.linear(x, p.Wq), f64.linear(x, p.Wk), f64.linear(x, p.Wv)).output;
  const h = f64.layerNorm(
    f64.binary(x, attn, (a, b) => a + b),
    1,
    p.gamma1,
    p.beta1,
  );
  const f = { relu: f64.relu, none: f64.gelu, tanh: f64.geluTanh }[activation];
  const act = f64.map(f64.linear(h, p.W1, p.b1), f);
  const ffn = f64.linear(act, p.W2, p.b2);
  const out = f64.layerNorm(
    f64.binary(h, ffn, (a, b) => a + b),
    1,
    p.gamma2,
    p.beta2,
  );
  return { x, attn, h, act, out };
}

for (const activation of ['relu', 'none', 'tanh']) {
  test(`E1.5 attention -> residual -> layer norm -> FFN (${activation === 'relu' ? 'ReLU' : `GELU ${activation}`}) -> residual -> layer norm`, () => {
    for (const seed of [1, 2, 3]) {
      const p = parameters(seed);
      const before = p.embedded.data.slice();
      const got = block(p, activation),
        want = blockFloat64(p, activation);
      for (const step of ['x', 'attn', 'h', 'act', 'out']) {
        assert.deepEqual(got[step].shape, want[step].shape, `${step} shape`);
        assertClose(got[step], want[step].data, 2e-5, `seed ${seed} ${step}`);
      }
      // without weight and bias, each normalised row has mean 0 and (biased) variance 1
      const plain = A.layerNorm(A.add(got.h, A.linear(got.act, p.W2, p.b2)), C);
      for (let r = 0; r < T; r++) {
        const row = Array.from(plain.data.slice(r * C, r * C + C));
        const mean = row.reduce((s, v) => s + v, 0) / C;
        const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / C;
        assert.ok(Math.abs(mean) < 1e-6 && Math.abs(variance - 1) < 1e-3, `row ${r}: mean ${mean}, var ${variance}`);
      }
      assert.deepEqual(Array.from(p.embedded.data), Array.from(before), 'embeddings unchanged');
    }
  });
}
