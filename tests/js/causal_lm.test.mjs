// Causal language models through the package (A.loadPretrained on the gpt2-* and llama-* fixture
// folders, F32 and BF16): lm.forward's logits, hidden states and attentions against the float64
// reference written from transformers' modeling_gpt2.py / modeling_llama.py
// (tests/js/reference/causal.mjs) to 1e-5 relative; the cache path (a prompt, then chunks)
// equal to it; a left-padded batch with positions from the mask; greedy generate equal to the
// reference's cached greedy decoding; the attention of each generated token equal to the rows of
// a full forward; and the errors of bad inputs, the module working afterwards.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadTokenizer } from 'attention-wasm';
import { library } from './helpers.mjs';
import { streamed } from '../../src/js/causal-lm.js';
import { CAUSAL_FIXTURES as CAUSAL, loadFixture } from './fixtures.mjs';
import {
  assertClose,
  causalShape,
  logitsWithMagnitudes,
  positionIdsFromMask,
  referenceCausalLM,
  referenceGreedy,
  rng,
} from './reference/index.mjs';

const TOL = { rel: 1e-5, abs: 0, floor: 1 };

/** Rows [from, to) of row n of (N, L, V) logits with their magnitudes. */
const logitRows = (want, n, L, V, from, to) => ({
  data: rowsOf(want.data, n, L, V, from, to),
  mag: rowsOf(want.mag, n, L, V, from, to),
});
const rowsOf = (a, n, L, X, from, to) => Array.from(a.slice((n * L + from) * X, (n * L + to) * X));
const randomIds = (seed, n, L, V) => {
  const r = rng(seed);
  return Array.from({ length: n }, () => Array.from({ length: L }, () => Math.floor(r() * V)));
};

const loaded = new Map();
async function model(name) {
  if (!loaded.has(name)) {
    const A = await library();
    const f = await loadFixture(name);
    loaded.set(name, { f, lm: await A.loadPretrained(f.dir) });
  }
  return loaded.get(name);
}

test('lm: loadPretrained gives a causal LM with its sizes, tokenizer and eos', async () => {
  for (const name of CAUSAL) {
    const { f, lm } = await model(name);
    const c = causalShape(f.config);
    assert.equal(lm.kind, 'causal-lm');
    assert.deepEqual(
      [lm.config.modelType, lm.config.numLayers, lm.config.numHeads, lm.config.numKvHeads, lm.config.hiddenSize],
      [f.config.model_type, c.layers, c.H, c.Hkv, c.D],
      name,
    );
    assert.equal(lm.config.vocabSize, c.V);
    assert.equal(lm.config.maxPositions, c.maxPositions);
    assert.equal(lm.eosTokenId, f.config.eos_token_id);
    assert.ok(lm.tokenizer, `${name}: tokenizer`);
    // loadTokenizer on the folder gives the model's tokenizer: no token type ids (model_input_names
    // of GPT-2's, Llama's and Qwen2's tokenizers), the model's positions as its maximum
    const alone = await loadTokenizer(f.dir);
    assert.equal(lm.tokenizer.returnsTokenTypeIds, false, name);
    assert.equal(alone.returnsTokenTypeIds, false, name);
    assert.equal(alone.maxLength, lm.tokenizer.maxLength, name);
    assert.deepEqual(alone.encode('hello world'), lm.tokenizer.encode('hello world'), name);
    assert.deepEqual(
      [...lm.ignoredTensors].sort(),
      f.spec.layout === 'original' ? Array.from({ length: c.layers }, (_, i) => `h.${i}.attn.bias`) : [],
    );
  }
});

test('lm.forward: logits, hidden states and attentions equal the float64 reference', async () => {
  for (const name of CAUSAL) {
    const { f, lm } = await model(name);
    const { V, D, H, layers } = causalShape(f.config);
    const ids = randomIds(3, 2, 7, V);
    const want = referenceCausalLM(f, { inputIds: ids });
    const got = lm.forward(ids, { outputAttentions: true, outputHiddenStates: true });
    assert.deepEqual(got.logits.shape, [2, 7, V]);
    assertClose(got.logits.data, logitsWithMagnitudes(f, want), TOL, `${name} logits`);
    assert.equal(got.hiddenStates.length, layers + 1);
    got.hiddenStates.forEach((h, k) => {
      assert.deepEqual(h.shape, [2, 7, D]);
      assertClose(h.data, want.hiddenStates[k], TOL, `${name} hiddenStates[${k}]`);
    });
    assert.equal(got.attentions.length, layers);
    got.attentions.forEach((a, k) => {
      assert.deepEqual(a.shape, [2, H, 7, 7]);
      assertClose(a.data, want.attentions[k], TOL, `${name} attentions[${k}]`);
    });
    // one row as a plain array, and { inputIds } of a tokenizer's encoding
    const one = lm.forward(ids[1]);
    assertClose(one.logits.data, logitRows(logitsWithMagnitudes(f, want), 1, 7, V, 0, 7), TOL, `${name} one row`);
    const encoded = lm.tokenizer.encode('the cat sat');
    const ref = referenceCausalLM(f, { inputIds: [Array.from(encoded.inputIds)] });
    assertClose(lm.forward(encoded).logits.data, logitsWithMagnitudes(f, ref), TOL, `${name} encoded text`);
    // an encoding with its overflowing windows is taken as it is (its first window forwarded)
    const windows = lm.tokenizer.encode('the cat sat on the mat', {
      truncation: true,
      maxLength: 3,
      returnOverflowingTokens: true,
    });
    assert.ok(windows.overflowing.length > 0, name);
    assert.deepEqual(
      lm.forward(windows).logits.data,
      lm.forward(Array.from(windows.inputIds)).logits.data,
      `${name} overflowing`,
    );
    // token type ids are no input of these models (GPT-2's would add embeddings this model has not)
    assert.throws(() => lm.forward({ inputIds: [1, 2], tokenTypeIds: [0, 0] }), {
      name: 'TypeError',
      message:
        "lm.forward: unknown input field 'tokenTypeIds' (allowed: inputIds, ids, attentionMask, positionIds, and an encoding's tokens, offsets, sequenceIds, wordIds, overflowing)",
    });
  }
});

test('lm.forward with a cache: a prompt, then chunks of 1 and 2 tokens, equal to the full forward', async () => {
  for (const name of CAUSAL) {
    const { f, lm } = await model(name);
    const { V, H, layers } = causalShape(f.config);
    const N = 2,
      L = 8;
    const ids = randomIds(11, N, L, V);
    const full = referenceCausalLM(f, { inputIds: ids });
    const fullLogits = logitsWithMagnitudes(f, full);
    const cache = lm.createCache();
    assert.equal(cache.length, 0);
    let at = 0;
    for (const chunk of [4, 1, 1, 2]) {
      const got = lm.forward(
        ids.map((r) => r.slice(at, at + chunk)),
        { cache, outputAttentions: true },
      );
      const T = at + chunk;
      assert.equal(cache.length, T);
      for (let n = 0; n < N; n++) {
        assertClose(
          rowsOf(got.logits.data, n, chunk, V, 0, chunk),
          logitRows(fullLogits, n, L, V, at, T),
          TOL,
          `${name} ${at}..${T} row ${n}`,
        );
      }
      assert.deepEqual(got.attentions[layers - 1].shape, [N, H, chunk, T]);
      // the new rows over the first T keys of the full forward's (N, H, L, L)
      const a = got.attentions[layers - 1].data;
      const w = full.attentions[layers - 1];
      for (let n = 0; n < N; n++)
        for (let h = 0; h < H; h++)
          for (let i = 0; i < chunk; i++) {
            const base = ((n * H + h) * L + at + i) * L;
            assertClose(
              Array.from(a.slice(((n * H + h) * chunk + i) * T, ((n * H + h) * chunk + i + 1) * T)),
              Array.from(w.slice(base, base + T)),
              TOL,
              `${name} attention ${n} ${h} ${at + i}`,
            );
          }
      at = T;
    }
    cache.dispose();
    cache.dispose(); // idempotent
  }
});

test('lm.forward: a left-padded batch, positions from the attention mask (as generate)', async () => {
  for (const name of CAUSAL) {
    const { f, lm } = await model(name);
    const { V } = causalShape(f.config);
    const [a, b] = randomIds(5, 2, 6, V);
    const inputIds = [[0, 0, 0, ...a.slice(0, 3)], b];
    const attentionMask = [
      [0, 0, 0, 1, 1, 1],
      [1, 1, 1, 1, 1, 1],
    ];
    const want = logitsWithMagnitudes(
      f,
      referenceCausalLM(f, { inputIds, attentionMask, positionIds: positionIdsFromMask(attentionMask) }),
    );
    const got = lm.forward({ inputIds, attentionMask });
    // the real tokens' rows (a padding query's row is not compared: see reference/causal.mjs)
    assertClose(rowsOf(got.logits.data, 0, 6, V, 3, 6), logitRows(want, 0, 6, V, 3, 6), TOL, `${name} row 0`);
    assertClose(rowsOf(got.logits.data, 1, 6, V, 0, 6), logitRows(want, 1, 6, V, 0, 6), TOL, `${name} row 1`);
    // each row as it gives alone
    const alone = lm.forward(a.slice(0, 3));
    assertClose(rowsOf(got.logits.data, 0, 6, V, 3, 6), Array.from(alone.logits.data), TOL, `${name} alone`);
    // then a step through the cache, with transformers' mask over the cached and new tokens
    const cache = lm.createCache();
    lm.forward({ inputIds, attentionMask }, { cache });
    const next = lm.forward(
      { inputIds: [[a[3]], [b[0]]], attentionMask: attentionMask.map((r) => [...r, 1]) },
      { cache },
    );
    const wantNext = logitsWithMagnitudes(
      f,
      referenceCausalLM(f, {
        inputIds: [
          [...inputIds[0], a[3]],
          [...b, b[0]],
        ],
        attentionMask: attentionMask.map((r) => [...r, 1]),
        positionIds: positionIdsFromMask(attentionMask.map((r) => [...r, 1])),
      }),
    );
    assertClose(Array.from(next.logits.data.slice(0, V)), logitRows(wantNext, 0, 7, V, 6, 7), TOL, `${name} next 0`);
    assertClose(Array.from(next.logits.data.slice(V)), logitRows(wantNext, 1, 7, V, 6, 7), TOL, `${name} next 1`);
    cache.dispose();
  }
});

test('lm.generate: greedy ids equal the reference greedy decoding with the cache', async () => {
  for (const name of CAUSAL) {
    const { f, lm } = await model(name);
    const prompt = Array.from(lm.tokenizer.encode('the quick brown fox').inputIds);
    const want = referenceGreedy(f, { inputIds: [prompt] }, { maxNewTokens: 12, eosTokenId: lm.eosTokenId });
    // compare while the reference's choice is clear of float32 rounding (its margin)
    let clear = want.newTokens[0].length;
    want.margins.forEach((m, i) => {
      if (m[0] < 1e-3 && i < clear) clear = i;
    });
    const result = await lm.generate(prompt, { maxNewTokens: 12 }).all();
    assert.deepEqual(result.newIds.slice(0, clear), want.newTokens[0].slice(0, clear), name);
    assert.ok(clear >= 4, `${name}: ${clear} clear steps`);
    assert.deepEqual(result.ids, [...prompt, ...result.newIds]);
    assert.equal(result.steps.length, result.newIds.length);
    result.steps.forEach((s, i) => {
      assert.equal(s.index, i);
      assert.equal(s.position, prompt.length + i);
      assert.equal(s.token, lm.tokenizer.idToToken(s.id));
    });
    // the steps' text is the decoded text, piece by piece
    assert.equal(result.steps.map((s) => s.text).join(''), result.text);
    assert.equal(result.text, lm.tokenizer.decode(result.newIds, { skipSpecialTokens: true }));
    assert.ok(['eos', 'length'].includes(result.finishReason));
    // a string prompt is tokenized as tokenizer.encode does
    const fromText = await lm.generate('the quick brown fox', { maxNewTokens: 3 }).all();
    assert.deepEqual(fromText.ids.slice(0, prompt.length), prompt);
  }
});

test('lm.generate: the attention of each generated token equals the rows of a full forward', async () => {
  for (const name of CAUSAL) {
    const { f, lm } = await model(name);
    const { H, layers } = causalShape(f.config);
    const prompt = [3, 9, 4, 7];
    const result = await lm.generate(prompt, { maxNewTokens: 5, outputAttentions: true, eosTokenId: null }).all();
    assert.equal(result.steps.length, 5);
    const full = referenceCausalLM(f, { inputIds: [result.ids] });
    const T = result.ids.length;
    for (const step of result.steps) {
      assert.equal(step.attentions.length, layers);
      for (let l = 0; l < layers; l++) {
        const a = step.attentions[l];
        const S = step.position + 1;
        assert.deepEqual(a.shape, [H, S]);
        for (let h = 0; h < H; h++) {
          const base = (h * T + step.position) * T;
          assertClose(
            Array.from(a.data.slice(h * S, (h + 1) * S)),
            Array.from(full.attentions[l].slice(base, base + S)),
            TOL,
            `${name} step ${step.index} layer ${l} head ${h}`,
          );
        }
      }
    }
  }
});

test('lm.generate: EOS, stop strings and an AbortSignal end it; the text streams whole characters', async () => {
  const { lm } = await model('gpt2-tiny');
  const prompt = [5, 8, 2];
  const greedy = await lm.generate(prompt, { maxNewTokens: 10, eosTokenId: null }).all();
  assert.equal(greedy.finishReason, 'length');
  assert.equal(greedy.newIds.length, 10);
  // an eos id: the step that produces it is the last, and is yielded
  const eos = greedy.newIds[3];
  const first = greedy.newIds.indexOf(eos);
  const ended = await lm.generate(prompt, { maxNewTokens: 10, eosTokenId: [99999, eos] }).all();
  assert.deepEqual(ended.newIds, greedy.newIds.slice(0, first + 1));
  assert.equal(ended.finishReason, 'eos');
  // a stop string: ends at the step whose text completes it
  const at = greedy.steps.findIndex(
    (s, i) =>
      greedy.steps
        .slice(0, i + 1)
        .map((x) => x.text)
        .join('').length >= 3,
  );
  const stop = greedy.steps
    .slice(0, at + 1)
    .map((x) => x.text)
    .join('')
    .slice(-3);
  const stopped = await lm.generate(prompt, { maxNewTokens: 10, stop, eosTokenId: null }).all();
  assert.equal(stopped.finishReason, 'stop');
  assert.ok(stopped.text.includes(stop));
  assert.ok(stopped.newIds.length <= at + 1);
  // an AbortSignal: no step after the abort
  const controller = new AbortController();
  const seen = [];
  const generation = lm.generate(prompt, { maxNewTokens: 10, signal: controller.signal, eosTokenId: null });
  for await (const step of generation) {
    seen.push(step.id);
    if (seen.length === 2) controller.abort();
  }
  assert.deepEqual(seen, greedy.newIds.slice(0, 2));
  assert.equal(generation.finishReason, 'abort');
  // aborted before it starts: no steps
  const none = await lm.generate(prompt, { signal: AbortSignal.abort() }).all();
  assert.deepEqual(none.newIds, []);
});

test('lm.generate gives the event loop a turn between steps: an abort from a timer ends it', async () => {
  const { lm } = await model('gpt2-tiny');
  const controller = new AbortController();
  let ran = 0;
  setImmediate(() => {
    ran++;
    controller.abort(); // as a Stop button's click or AbortSignal.timeout would
  });
  const generation = lm.generate([1, 2, 3], { maxNewTokens: 10, signal: controller.signal, eosTokenId: null });
  const seen = [];
  for await (const step of generation) seen.push(step.id);
  assert.equal(ran, 1, 'the task queued before generate ran during it');
  assert.equal(seen.length, 1, 'the abort took effect before the second step');
  assert.equal(generation.finishReason, 'abort');
});

test('lm.generate: streamed text holds a character back until its last byte-level token', async () => {
  for (const name of ['gpt2-tiny', 'llama-tiny', 'llama-tiny-tied']) {
    const { lm } = await model(name);
    const text = 'a 🙂 é 日本 b';
    const ids = Array.from(lm.tokenizer.hf.encode(text, { add_special_tokens: false }).ids);
    let printed = '';
    const pieces = [];
    for (let i = 1; i <= ids.length; i++) {
      const r = streamed(printed, lm.tokenizer.decode(ids.slice(0, i), { skipSpecialTokens: true }));
      printed = r.printed;
      pieces.push(r.text);
      assert.ok(!r.text.includes('\uFFFD'), `${name}: step ${i} shows a broken character ${JSON.stringify(r.text)}`);
    }
    assert.ok(pieces.includes(''), `${name}: some step waited for a character's next token`);
    assert.equal(pieces.join(''), lm.tokenizer.decode(ids, { skipSpecialTokens: true }));
  }
});

test('lm.generate: sampling is reproducible for a seed and draws from softmax(logits / T) cut to topK', async () => {
  const A = await library();
  const { lm } = await model('llama-tiny');
  const prompt = [1, 17, 30, 22];
  const opts = { maxNewTokens: 6, doSample: true, temperature: 1.5, seed: 1234, eosTokenId: null };
  const a = await lm.generate(prompt, opts).all();
  const b = await lm.generate(prompt, opts).all();
  assert.deepEqual(a.newIds, b.newIds);
  const c = await lm.generate(prompt, { ...opts, seed: 99 }).all();
  assert.notDeepEqual(a.newIds, c.newIds);
  // the first token's distribution: chi-square of 3000 draws against the top-5 of softmax(logits / 1.5)
  const logits = lm.forward(prompt).logits.data.slice(-lm.config.vocabSize);
  const top = Array.from(logits.keys())
    .sort((x, y) => logits[y] - logits[x] || x - y)
    .slice(0, 5);
  const weights = top.map((i) => Math.exp((logits[i] - logits[top[0]]) / 1.5));
  const total = weights.reduce((s, w) => s + w, 0);
  const counts = new Map(top.map((i) => [i, 0]));
  A.manualSeed(7);
  const n = 3000;
  for (let i = 0; i < n; i++) {
    const r = await lm.generate(prompt, { maxNewTokens: 1, doSample: true, temperature: 1.5, topK: 5 }).all();
    assert.ok(counts.has(r.newIds[0]), `drawn ${r.newIds[0]} outside the top 5`);
    counts.set(r.newIds[0], counts.get(r.newIds[0]) + 1);
  }
  let chi2 = 0;
  top.forEach((id, k) => {
    const expected = (n * weights[k]) / total;
    chi2 += (counts.get(id) - expected) ** 2 / expected;
  });
  assert.ok(chi2 < 18.47, `chi-square ${chi2.toFixed(2)} (4 degrees of freedom, p = 0.001: 18.47)`);
  // candidates: the step's distribution, top-p's kept set
  const step = (await lm.generate(prompt, { maxNewTokens: 1, doSample: true, topP: 0.5, candidates: 4, seed: 3 }).all())
    .steps[0];
  assert.equal(step.candidates.length, 4);
  const p = step.candidates.map((x) => x.probability);
  assert.deepEqual(
    p,
    [...p].sort((x, y) => y - x),
  );
  assert.ok(step.candidates[0].kept);
  const keptMass = step.candidates.filter((x) => x.kept).reduce((s, x) => s + x.probability, 0);
  const allKept = step.candidates.every((x) => x.kept);
  assert.ok(allKept || keptMass >= 0.5 - 1e-12, 'top-p keeps at least its mass');
  assert.ok(step.candidates.some((x) => x.id === step.id && x.kept) || !allKept);
});

test('lm: bad inputs and folders are clear errors, the module working afterwards', async () => {
  const A = await library();
  const { lm } = await model('gpt2-tiny');
  const { lm: other } = await model('llama-tiny');
  const P = lm.config.maxPositions;
  assert.throws(() => lm.forward(new Array(P + 1).fill(1)), {
    name: 'RangeError',
    message: new RegExp(`^lm.forward: ${P + 1} tokens are more than the model's maxPositions ${P}`),
  });
  assert.throws(() => lm.generate(new Array(P + 1).fill(1)), {
    name: 'RangeError',
    message: new RegExp(`^lm.generate: the prompt has ${P + 1} tokens, more than the model's maxPositions ${P}`),
  });
  assert.throws(() => lm.generate([1, 2, 3], { maxNewTokens: P }), {
    name: 'RangeError',
    message: new RegExp(
      `^lm.generate: the prompt's 3 tokens \\+ maxNewTokens ${P} are more than the model's maxPositions ${P}`,
    ),
  });
  assert.throws(() => lm.forward([1, lm.config.vocabSize]), {
    name: 'RangeError',
    message: /^lm.forward: inputIds at \[0, 1\] = \d+ is not a token id in \[0, \d+\)/,
  });
  assert.throws(() => lm.forward({ inputIds: [1, 2], attentionMask: [1, 2] }), {
    name: 'RangeError',
    message: /^lm.forward: attentionMask\[0\]\[1\] = 2 is not 0 or 1/,
  });
  const cache = lm.createCache();
  lm.forward([1, 2, 3], { cache });
  assert.throws(() => other.forward([1], { cache }), { message: /^lm.forward: cache belongs to another model/ });
  assert.throws(() => lm.forward([[1], [2]], { cache }), {
    name: 'RangeError',
    message: /^lm.forward: cache holds 1 sequences, inputIds has 2/,
  });
  assert.throws(() => lm.forward(new Array(P - 2).fill(1), { cache }), {
    name: 'RangeError',
    message: new RegExp(`^lm.forward: 3 cached \\+ ${P - 2} tokens are more than the model's maxPositions ${P}`),
  });
  assert.equal(cache.length, 3);
  assert.throws(() => lm.forward([1], { cache: {} }), {
    name: 'TypeError',
    message: /^lm.forward: cache must be a KvCache/,
  });
  assert.throws(() => lm.generate([1], { maxNewTokens: -1 }), { name: 'RangeError', message: /maxNewTokens/ });
  assert.throws(() => lm.generate([1], { topP: 0 }), { name: 'RangeError', message: /topP/ });
  assert.throws(() => lm.generate([1], { temprature: 1 }), { name: 'TypeError', message: /temprature/ });
  // still working: the cache continues as the full forward
  const step = lm.forward([4], { cache });
  const full = lm.forward([1, 2, 3, 4]);
  assertClose(step.logits.data, full.logits.data.slice(-lm.config.vocabSize), TOL, 'after the errors');
  cache.dispose();
  assert.throws(() => lm.forward([1], { cache }), { message: /^lm.forward: the cache has been disposed/ });

  // folders: an unknown model_type, a missing tensor
  const { mkdtempSync, cpSync, readFileSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { f } = await model('llama-tiny');
  const dir = mkdtempSync(join(tmpdir(), 'aw-causal-'));
  try {
    cpSync(f.dir, dir, { recursive: true });
    const config = JSON.parse(readFileSync(join(f.dir, 'config.json'), 'utf8'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, model_type: 'mistral' }));
    await assert.rejects(A.loadPretrained(dir), {
      message:
        /^loadPretrained: config.json: model_type 'mistral' is not supported \(supported: distilbert, bert, gpt2, llama, qwen2\)/,
    });
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ ...config, rope_scaling: { rope_type: 'yarn', factor: 4 } }),
    );
    await assert.rejects(A.loadPretrained(dir), { message: /rope_scaling: rope_type 'yarn' is not supported/ });
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    const bytes = readFileSync(join(f.dir, 'model.safetensors'));
    const edited = Buffer.from(
      bytes.toString('latin1').replace('"model.norm.weight"', '"model.nurm.weight"'),
      'latin1',
    );
    writeFileSync(join(dir, 'model.safetensors'), edited);
    await assert.rejects(A.loadPretrained(dir), {
      message:
        /^loadPretrained: model.safetensors: tensor 'model.norm.weight' is missing .* needs it for the final_norm/,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(lm.forward([1, 2]).logits.shape[1], 2);
});

test("lm: a transformers 5 config.json (rope_parameters) gives the logits of the same model's older form", async () => {
  // transformers >= 5 saves rope_theta and rope_scaling as one object, rope_parameters
  // (modeling_rope_utils.py): read as the older fields are, not left for the defaults
  const { mkdtempSync, cpSync, readFileSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const A = await library();
  for (const name of ['llama-tiny-rope-linear', 'llama-tiny-rope-llama3', 'qwen2-tiny']) {
    const { f, lm } = await model(name);
    const { rope_theta, rope_scaling, ...rest } = f.config;
    assert.ok(rope_theta !== 10000 || rope_scaling, `${name}: rotary settings of its own`);
    const dir = mkdtempSync(join(tmpdir(), 'aw-rope5-'));
    try {
      cpSync(f.dir, dir, { recursive: true });
      const rope_parameters = { rope_type: 'default', ...(rope_scaling ?? {}), rope_theta };
      delete rope_parameters.type;
      if (rope_scaling?.type) rope_parameters.rope_type = rope_scaling.type;
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...rest, rope_theta: null, rope_parameters }));
      const v5 = await A.loadPretrained(dir);
      const ids = [[1, 5, 9, 2, 7, 3, 11, 4]];
      const want = lm.forward(ids).logits.data,
        got = v5.forward(ids).logits.data;
      assert.deepEqual(Array.from(got), Array.from(want), `${name}: ${JSON.stringify(rope_parameters)}`);
      v5.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test("lm.generate: repetitionPenalty is transformers' RepetitionPenaltyLogitsProcessor; the files' value is its default; other processors they set are warned about", async () => {
  const { mkdtempSync, cpSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const A = await library();
  for (const name of ['gpt2-tiny', 'qwen2-tiny']) {
    const { f, lm } = await model(name);
    const prompt = [5, 9, 5, 2, 7];
    const opts = { maxNewTokens: 16, doSample: false, eosTokenId: null };
    const want = referenceGreedy(f, { inputIds: [prompt] }, { ...opts, repetitionPenalty: 1.3 });
    const plain = referenceGreedy(f, { inputIds: [prompt] }, opts);
    assert.notDeepEqual(want.newTokens[0], plain.newTokens[0], `${name}: the penalty changes the tokens`);
    let clear = want.newTokens[0].length; // while the reference's choice is clear of float32 rounding
    want.margins.forEach((m, i) => {
      if (m[0] < 1e-3 && i < clear) clear = i;
    });
    assert.ok(clear >= 8, `${name}: ${clear} clear steps`);
    assert.notDeepEqual(want.newTokens[0].slice(0, clear), plain.newTokens[0].slice(0, clear), `${name}: within them`);
    const got = (await lm.generate(prompt, { ...opts, repetitionPenalty: 1.3 }).all()).newIds;
    assert.deepEqual(got.slice(0, clear), want.newTokens[0].slice(0, clear), name);
    // the folder's generation_config.json sets it (greedy reads it too); others it sets are named once
    const dir = mkdtempSync(join(tmpdir(), 'aw-penalty-'));
    try {
      cpSync(f.dir, dir, { recursive: true });
      writeFileSync(
        join(dir, 'generation_config.json'),
        JSON.stringify({
          repetition_penalty: 1.3,
          no_repeat_ngram_size: 3,
          encoder_repetition_penalty: 1.5,
          typical_p: 0.9,
          penalty_alpha: 0.6, // contrastive search: greedy decoding only
          // values with which transformers builds no processor: no warning
          ...{ num_beams: 1, min_length: 0, min_new_tokens: 0, min_p: 0, guidance_scale: 1 },
        }),
      );
      const warnings = [];
      const warn = console.warn;
      console.warn = (...args) => warnings.push(args.join(' '));
      try {
        const folder = await A.loadPretrained(dir);
        const fromFile = (await folder.generate(prompt, opts).all()).newIds;
        await folder.generate(prompt, { ...opts, maxNewTokens: 1 }).all();
        assert.deepEqual(fromFile, got, `${name}: the file's repetition_penalty`);
        assert.deepEqual(
          (await folder.generate(prompt, { ...opts, repetitionPenalty: 1 }).all()).newIds.slice(0, clear),
          plain.newTokens[0].slice(0, clear),
        );
        // typical_p is read by sampling only: named once the model samples
        await folder.generate(prompt, { ...opts, maxNewTokens: 1, doSample: true, seed: 0 }).all();
        await folder.generate(prompt, { ...opts, maxNewTokens: 1, doSample: true, seed: 0 }).all();
        folder.dispose();
      } finally {
        console.warn = warn;
      }
      assert.equal(warnings.length, 2, warnings.join('\n'));
      assert.match(
        warnings[0],
        /^lm\.generate: .*: generation_config\.json's penalty_alpha = 0\.6, generation_config\.json's no_repeat_ngram_size = 3, generation_config\.json's encoder_repetition_penalty = 1\.5: lm\.generate does not apply these \(transformers' generate would\)/,
      );
      assert.match(warnings[1], /: generation_config\.json's typical_p = 0\.9: lm\.generate does not apply it /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.throws(() => lm.generate(prompt, { repetitionPenalty: 0 }), {
      name: 'RangeError',
      message: 'lm.generate: repetitionPenalty must be a positive number, got 0',
    });
  }
});
