// Special values, against float64 references of reference/ (ops.mjs): NaN and Inf
// propagate as in torch; large logits and -inf masks never make NaN where torch does not; a
// fully masked row gives zeros (torch >= 2.5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { library } from './helpers.mjs';
import * as ref from './reference/index.mjs';

const A = await library();
const t = (data, shape) => ({ data: Float32Array.from(data), shape });

function assertMatches(got, want, label, tol) {
  const res = ref.compare(got.data, want, tol);
  assert.ok(res.ok, `${label}: ${res.why}`);
}

test('softmax: NaN makes its slice NaN, +inf makes it NaN, -inf gives 0, only-(-inf) gives zeros', () => {
  const x = t([1, NaN, 2, /**/ 1, Infinity, 2, /**/ -Infinity, 0, 1, /**/ -Infinity, -Infinity, -Infinity], [4, 3]);
  const out = A.softmax(x);
  assertMatches(out, ref.softmax(x, -1), 'softmax special');
  assert.ok(out.data.slice(0, 6).every(Number.isNaN));
  assert.equal(out.data[6], 0);
  assert.deepEqual(Array.from(out.data.slice(9)), [0, 0, 0]);
});

test('softmax: large logits (x100, 1e4, 1e30) are stable, no NaN', () => {
  const r = ref.makeRandom(5);
  for (const scale of [100, 1e4, 1e30]) {
    for (const n of [1, 3, 4, 5, 8, 17, 33]) {
      const x = r.tensor([3, n], scale);
      const out = A.softmax(x);
      assert.ok(!out.data.some(Number.isNaN), `scale ${scale} n ${n}`);
      assertMatches(out, ref.softmax(x, -1), `softmax x${scale} n ${n}`);
      // along dim 0 too (the strided path)
      assertMatches(A.softmax(x, { dim: 0 }), ref.softmax(x, 0), `softmax dim 0 x${scale} n ${n}`);
    }
  }
});

test('matmul and linear: NaN and Inf propagate as IEEE (and as torch)', () => {
  const a = t([1, NaN, 0, Infinity, 2, 1], [3, 2]);
  const b = t([1, 2, 3, 4], [2, 2]);
  const out = A.matmul(a, b);
  assertMatches(out, ref.matmul(a, b), 'matmul special');
  const lin = A.linear(a, b, t([0, -Infinity], [2]));
  assertMatches(lin, ref.linear(a, b, t([0, -Infinity], [2])), 'linear special');
});

/**
 * Whether row `row` of (2, L, E) q against (2, S, E) k has a winning key that float32 cannot get
 * wrong: its float64 score beats every other visible key's by 40 plus four times the bound on a
 * float32 score's error (E roundings of products as large as the row's largest), so its weight
 * is 1 to within e^-40 whichever way the scores round.
 */
function clearWinner(q, k, { attnMask, isCausal }, row, L, S, E) {
  const b = Math.floor(row / L),
    i = row % L,
    sc = 1 / Math.sqrt(E);
  const scores = [];
  let bound = 0;
  for (let j = 0; j < S; j++) {
    if ((isCausal && j > i) || attnMask?.data[i * S + j] === -Infinity) continue;
    let dot = 0,
      mag = 0;
    for (let e = 0; e < E; e++) {
      const p = q.data[(b * L + i) * E + e] * k.data[(b * S + j) * E + e];
      dot += p;
      mag += Math.abs(p);
    }
    scores.push(sc * dot);
    bound = Math.max(bound, E * 2 ** -23 * sc * mag);
  }
  if (scores.length < 2) return scores.length === 1;
  scores.sort((x, y) => y - x);
  return scores[0] - scores[1] > 40 + 4 * bound;
}

test('SDPA: large logits (x100, x1e4) and -inf masks give no NaN, and match float64', () => {
  const r = ref.makeRandom(9);
  let clear = 0; // rows at x1e4 compared with float64
  for (const scale of [1, 100, 1e4]) {
    for (const [L, S, E] of [
      [3, 5, 4],
      [7, 9, 8],
      [17, 33, 5],
      [1, 1, 1],
    ]) {
      const q = r.tensor([2, L, E], scale),
        k = r.tensor([2, S, E], scale),
        v = r.tensor([2, S, 3]);
      const mask = r.tensor([L, S], 1);
      for (let i = 0; i < mask.data.length; i++) if (r.chance(0.4)) mask.data[i] = -Infinity;
      for (const opts of [{}, { attnMask: mask }, { isCausal: true }]) {
        const what = `x${scale} ${L}x${S}x${E} ${Object.keys(opts)}`;
        const out = A.scaledDotProductAttention(q, k, v, { ...opts, returnWeights: true });
        assert.ok(!out.output.data.some(Number.isNaN), what);
        const want = ref.sdpa(q, k, v, opts);
        // A score of size 1e8 in float32 carries an absolute error of ~10 (relative 1e-7):
        // after exp that is any weight between 0 and 1, so huge logits are checked for summing
        // to 1 (to 0 only where every key is masked), and row by row where the winner is clear.
        if (scale <= 100)
          assertMatches(out.output, want.output, `sdpa ${what}`, { rel: scale === 1 ? 1e-5 : 1e-3, abs: 1e-5 });
        for (let row = 0; row < 2 * L; row++) {
          const ours = out.weights.data.slice(row * S, (row + 1) * S);
          const sum = ours.reduce((a, b) => a + b, 0);
          const masked = want.weights.data.slice(row * S, (row + 1) * S).every((w) => w === 0);
          if (masked) assert.equal(sum, 0, `${what}: row ${row} has every key masked`);
          else assert.ok(Math.abs(sum - 1) < 1e-5, `${what}: row ${row} sums to ${sum}`);
          if (scale > 100 && !masked && clearWinner(q, k, opts, row, L, S, E)) {
            clear++;
            for (let d = 0; d < 3; d++) {
              const got = out.output.data[row * 3 + d],
                w = want.output.data[row * 3 + d];
              assert.ok(Math.abs(got - w) <= 1e-5 * Math.abs(w) + 1e-6, `${what}: row ${row} [${d}] ${got} vs ${w}`);
            }
          }
        }
      }
    }
  }
  assert.ok(clear >= 100, `rows with a clear winner at x1e4 compared: ${clear}`);
});

test('SDPA: a fully masked row gives zeros, other rows are unaffected', () => {
  const q = t([1, 0, 0, 1, 1, 1], [3, 2]),
    k = t([1, 0, 0, 1], [2, 2]),
    v = t([1, 2, 3, 4], [2, 2]);
  for (const attnMask of [
    { data: Uint8Array.from([1, 1, 0, 0, 1, 0]), shape: [3, 2] },
    t([0, 0, -Infinity, -Infinity, 0, -Infinity], [3, 2]),
  ]) {
    const out = A.scaledDotProductAttention(q, k, v, { attnMask, returnWeights: true });
    assert.deepEqual(Array.from(out.output.data.slice(2, 4)), [0, 0]);
    assert.deepEqual(Array.from(out.weights.data.slice(2, 4)), [0, 0]);
    assertMatches(out.output, ref.sdpa(q, k, v, { attnMask }).output, 'fully masked');
  }
});

test('SDPA: NaN in q, k or v spreads where torch spreads it', () => {
  const base = () => ({
    q: t([1, 0, 0, 1], [2, 2]),
    k: t([1, 0, 0, 1, 1, 1], [3, 2]),
    v: t([1, 2, 3, 4, 5, 6], [3, 2]),
  });
  for (const [name, index] of [
    ['q', 0],
    ['k', 2],
    ['v', 3],
  ]) {
    const x = base();
    x[name].data[index] = NaN;
    const out = A.scaledDotProductAttention(x.q, x.k, x.v);
    assertMatches(out.output, ref.sdpa(x.q, x.k, x.v).output, `NaN in ${name}`);
  }
  // +inf in a score (Inf in q) makes its row NaN in torch (inf - inf inside softmax)
  const x = base();
  x.q.data[0] = Infinity;
  assertMatches(A.scaledDotProductAttention(x.q, x.k, x.v).output, ref.sdpa(x.q, x.k, x.v).output, 'Inf in q');
});
