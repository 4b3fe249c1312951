// The threaded build (init({threads})): the ops split their work over the threads, and every
// output is byte-identical to the single-thread build's. The process must exit without an
// explicit dispose() (the pool's Workers are unref'd), and dispose() ends them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { init } from 'attention-wasm';
import { rng, randomTensor } from './reference/index.mjs';

const single = await init({ threads: false });
const threaded = await init({ threads: 3 }); // more threads than this 2-core machine has cores: still exact

/** Same bytes (so NaN, -0 and infinities count as equal only to themselves). */
function assertSameBytes(actual, expected, label) {
  assert.deepEqual(actual.shape, expected.shape, `${label}: shape`);
  const a = new Uint8Array(actual.data.buffer, actual.data.byteOffset, actual.data.byteLength);
  const e = new Uint8Array(expected.data.buffer, expected.data.byteOffset, expected.data.byteLength);
  assert.ok(Buffer.compare(a, e) === 0, `${label}: outputs differ between 1 and ${threaded.threads} threads`);
}

test('init chooses the build: threads false -> 1, a number -> that many (Node has SharedArrayBuffer)', async () => {
  assert.equal(single.threads, 1);
  assert.equal(threaded.threads, 3);
  assert.equal((await init()).threads, 1, 'single-thread by default');
  const auto = await init({ threads: 'auto' });
  assert.ok(auto.threads >= 1);
  auto.dispose();
});

test('init rejects bad thread counts', async () => {
  await assert.rejects(init({ threads: 'many' }), {
    name: 'TypeError',
    message: 'init: threads must be \'auto\', a number or false, got "many"',
  });
  await assert.rejects(init({ threads: 0 }), {
    name: 'RangeError',
    message: 'init: threads must be an integer in [1, 64], got 0',
  });
  await assert.rejects(init({ threads: 2.5 }), RangeError);
});

test('scaledDotProductAttention: threaded output byte-identical to one thread', () => {
  const random = rng(41);
  const cases = [
    { q: [1, 8, 300, 64], k: [1, 8, 300, 64], v: [1, 8, 300, 64] }, // several query tiles, a ragged last one
    { q: [1, 1, 1000, 32], k: [1, 1, 700, 32], v: [1, 1, 700, 24] }, // one head split by query tiles
    { q: [2, 3, 70, 9], k: [2, 3, 131, 9], v: [2, 3, 131, 5] }, // odd sizes
    { q: [1, 6, 129, 16], k: [1, 2, 200, 16], v: [1, 2, 200, 16], gqa: true },
    { q: [1, 8, 256, 64], k: [1, 2, 256, 64], v: [1, 2, 256, 64], gqa: true }, // threaded, key planes packed in parallel
    { q: [5, 1, 8], k: [5, 1, 8], v: [5, 1, 8] }, // one query per head
  ];
  for (const c of cases) {
    const q = randomTensor(c.q, random),
      k = randomTensor(c.k, random),
      v = randomTensor(c.v, random);
    const L = c.q.at(-2),
      S = c.k.at(-2);
    const mask = randomTensor([L, S], random, 3);
    const boolMask = { data: Uint8Array.from(mask.data, (x) => (x > -2 ? 1 : 0)), shape: [L, S] };
    for (const options of [
      {},
      { isCausal: true },
      { attnMask: mask },
      { attnMask: boolMask },
      { returnWeights: true },
      { isCausal: true, returnIntermediates: true },
    ]) {
      const opts = { ...options, enableGqa: c.gqa ?? false };
      const one = single.scaledDotProductAttention(q, k, v, opts),
        many = threaded.scaledDotProductAttention(q, k, v, opts);
      const label = `${JSON.stringify(c)} ${Object.keys(options).join(',') || 'plain'}`;
      for (const name of Object.keys(one)) assertSameBytes(many[name], one[name], `${label} ${name}`);
    }
  }
});

test('matmul, linear and the modules: threaded byte-identical to one thread', () => {
  const random = rng(42);
  // [2, 256, 300] x [300, 260]: b of 78000 floats, blocks of 32 rows: the packed kernel on each thread
  for (const [a, b] of [
    [
      [300, 200],
      [200, 150],
    ],
    [
      [3, 67, 64],
      [64, 33],
    ],
    [
      [7, 5],
      [5, 3],
    ],
    [
      [2, 1, 129, 40],
      [4, 40, 8],
    ],
    [
      [2, 256, 300],
      [300, 260],
    ],
  ]) {
    const x = randomTensor(a, random),
      y = randomTensor(b, random);
    assertSameBytes(threaded.matmul(x, y), single.matmul(x, y), `matmul ${a} x ${b}`);
  }
  const x = randomTensor([4, 130, 96], random),
    w = randomTensor([200, 96], random),
    bias = randomTensor([200], random);
  assertSameBytes(threaded.linear(x, w, bias), single.linear(x, w, bias), 'linear');
  assertSameBytes(threaded.linear(x, w), single.linear(x, w), 'linear without bias');

  const opts = { dModel: 64, nhead: 4, dimFeedforward: 128, batchFirst: true };
  const one = new single.TransformerEncoderLayer(opts),
    many = new threaded.TransformerEncoderLayer(opts);
  many.loadStateDict(one.stateDict());
  const input = randomTensor([2, 100, 64], random);
  assertSameBytes(many.forward(input), one.forward(input), 'TransformerEncoderLayer');
});

test('dispose() ends the threads; the instance then runs on one thread with the same results', async () => {
  const A = await init({ threads: 2 });
  const q = randomTensor([1, 2, 200, 16], rng(43));
  const before = A.scaledDotProductAttention(q, q, q).output;
  A.dispose();
  assert.equal(A.threads, 1);
  assertSameBytes(A.scaledDotProductAttention(q, q, q).output, before, 'after dispose');
  A.dispose(); // idempotent
  single.dispose(); // nothing to do for the single-thread build
});

test("a threaded instance's memory is freed once it is disposed and dropped, or dropped alone", async () => {
  // The glue's main thread kept an Atomics.waitAsync pending on its mailbox for ever, and that
  // promise held the module and its shared memory (src/bindings/thread_mailbox.js): each
  // init({ threads }) of a long-lived process kept its heap. gc() as --expose-gc gives it.
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const q = randomTensor([1, 2, 200, 16], rng(44)); // large enough to run on the pool
  const refs = [];
  for (const disposed of [true, false]) {
    let A = await init({ threads: 2 });
    A.scaledDotProductAttention(q, q, q);
    refs.push({ disposed, ref: new WeakRef(A.raw) });
    if (disposed) A.dispose();
    A = null;
  }
  // a dropped instance's pool is ended by a finalizer after one collection, its module collected
  // at the next. deref() keeps its target alive to the end of the current job: each collection
  // runs in a job of its own, after the one that looked.
  const tick = () => new Promise((resolve) => setTimeout(resolve, 10));
  for (let i = 0; i < 100; i++) {
    await tick();
    gc();
    await tick();
    if (refs.every((r) => r.ref.deref() === undefined)) break;
  }
  for (const { disposed, ref } of refs)
    assert.equal(
      ref.deref(),
      undefined,
      `the module of an instance ${disposed ? 'disposed and ' : ''}dropped is collected`,
    );
});
