// A model whose weights sit above 2 GiB in the wasm heap (the module is linked with
// MAXIMUM_MEMORY=4GB): every pointer the glue passes to JS is then >= 2^31, which a signed shift
// in the glue or Embind would turn negative. A ballast model's arena (just under 2 GiB, created
// through the glue and never written, so its pages are never touched: the process's resident
// memory stays small) fills the heap's lower half first; the fixture model loaded after it must
// give the same outputs, errors and memory accounting as in a fresh module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { distilbertHeader, loadFixture, S1, S2 } from './fixtures.mjs';

const GiB2 = 2 ** 31;

/** A model opened through the glue and never loaded: its arena holds vocabSize x 1024 floats (about 2 GiB by default). */
function ballast(raw, vocabSize = 520000) {
  const { config, header, dataBytes } = distilbertHeader({
    vocab: vocabSize,
    dim: 1024,
    ffn: 1,
    positions: 1,
    heads: 1,
  });
  const opened = raw._modelOpen(
    new TextEncoder().encode(JSON.stringify(config)),
    header,
    8 + header.length + dataBytes,
    'fp32',
    'auto',
  );
  assert.equal(opened.error, undefined, opened.error);
  return { handle: opened.handle, bytes: dataBytes };
}

test('weights above 2 GiB: the same outputs, errors and memory accounting as in a fresh module', async () => {
  const A = await init(),
    fresh = await init();
  const fx = await loadFixture('bert-f32');
  const base = A.memoryStats().allocatedBytes;
  const held = ballast(A.raw);
  assert.ok(held.bytes > 2.1e9, `${held.bytes} bytes`);
  assert.ok(
    A.memoryStats().allocatedBytes > GiB2,
    `malloc holds ${A.memoryStats().allocatedBytes} bytes, past 2^31 (and reads back positive)`,
  );

  const model = await A.loadPretrained(fx.dir);
  const reference = await fresh.loadPretrained(fx.dir);
  const batch = model.tokenizer.encodeBatch([S1, S2, 'bank']);
  const opts = { outputHiddenStates: true, outputAttentions: true };
  const got = model.forward(batch, opts),
    want = reference.forward(batch, opts);
  assert.deepEqual(Array.from(got.lastHiddenState.data), Array.from(want.lastHiddenState.data));
  got.hiddenStates.forEach((h, i) =>
    assert.deepEqual(Array.from(h.data), Array.from(want.hiddenStates[i].data), `hiddenStates[${i}]`),
  );
  got.attentions.forEach((a, i) =>
    assert.deepEqual(Array.from(a.data), Array.from(want.attentions[i].data), `attentions[${i}]`),
  );
  assert.deepEqual(Array.from(got.poolerOutput.data), Array.from(want.poolerOutput.data));
  assert.deepEqual(Array.from(model.wordEmbeddings([2924]).data), Array.from(reference.wordEmbeddings([2924]).data));
  assert.deepEqual(
    Array.from(model.embed([S1, S2], { normalize: true }).data),
    Array.from(reference.embed([S1, S2], { normalize: true }).data),
  );
  // error strings are built in memory above 2 GiB too
  assert.throws(() => model.forward([101, 40000]), {
    message: 'model.forward: inputIds at [0, 1] = 40000 is not a token id in [0, 30522)',
  });
  // the ops work up there as well
  const x = { data: Float32Array.from({ length: 64 }, (_, i) => Math.sin(i)), shape: [4, 16] };
  assert.deepEqual(
    Array.from(A.scaledDotProductAttention(x, x, x).output.data),
    Array.from(fresh.scaledDotProductAttention(x, x, x).output.data),
  );

  // where the heap hands out memory now: a new model's staging buffer, as JS sees its address
  const probe = ballast(A.raw, 2);
  assert.ok(A.raw._modelStagingView(probe.handle).byteOffset > GiB2, 'allocations land past 2^31');
  A.raw._modelDispose(probe.handle);

  model.dispose();
  reference.dispose();
  A.raw._modelDispose(held.handle);
  assert.equal(A.memoryStats().allocatedBytes, base, 'back to the baseline');
  console.log(
    `heap ${(A.memoryStats().heapBytes / 2 ** 30).toFixed(2)} GiB; process resident ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
  );
});
