// lm.generate's sampling and inputs on the causal fixtures (gpt2-tiny, llama-tiny): a seeded
// generation draws from its own generator (the stream of A.manualSeed(seed), one A.rand(1) per
// step: its tokens alone are the tokens of an unseeded generation after A.manualSeed(seed)), so
// interleaved and concurrent generations and random calls between its steps leave them alone;
// topK keeps every token tied with the k-th (transformers' TopKLogitsWarper, on a copy of
// llama-tiny whose lm_head has two equal rows); string prompts' errors under lm.generate's name;
// options of the wrong type as TypeErrors; a generation made before dispose() or consumed twice; holes in ids and
// masks; attention masks mixing the two forms over a cache.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, cpSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { library } from './helpers.mjs';
import { stepDistribution } from '../../src/js/causal-lm.js';
import { flatInts } from '../../src/js/model-input.js';
import { loadFixture } from './fixtures.mjs';
import { WRONG_TYPE_OPTIONS } from './causal_cases.mjs';

const A = await library();
const loaded = new Map();
async function model(name) {
  if (!loaded.has(name)) {
    const f = await loadFixture(name);
    loaded.set(name, { f, lm: await A.loadPretrained(f.dir) });
  }
  return loaded.get(name);
}

const ids = (result) => result.newIds;

test('lm.generate: a seed gives the tokens of the generation run alone, whatever runs between its steps', async () => {
  for (const name of ['gpt2-tiny', 'llama-tiny']) {
    const { lm } = await model(name);
    const prompt = [1, 17, 30];
    const opts = { maxNewTokens: 10, doSample: true, temperature: 1.3, seed: 42, eosTokenId: null };
    const alone = ids(await lm.generate(prompt, opts).all());
    // as before the generator was the generation's own: A.manualSeed(seed), then A.rand(1) per step
    A.manualSeed(42);
    const unseeded = { ...opts, seed: undefined };
    assert.deepEqual(ids(await lm.generate(prompt, unseeded).all()), alone, `${name}: the stream of manualSeed`);
    // created first, consumed later, in either order
    const g1 = lm.generate(prompt, opts),
      g2 = lm.generate(prompt, opts);
    assert.deepEqual(ids(await g2.all()), alone, `${name}: second created, first run`);
    assert.deepEqual(ids(await g1.all()), alone, `${name}: first created, run second`);
    // concurrent (each awaits a task between steps), with an unseeded one drawing from A.rand
    const [a, , c] = await Promise.all([
      lm.generate(prompt, opts).all(),
      lm.generate(prompt, unseeded).all(),
      lm.generate(prompt, opts).all(),
    ]);
    assert.deepEqual(ids(a), alone, `${name}: concurrent, first`);
    assert.deepEqual(ids(c), alone, `${name}: concurrent, third`);
    // step by step, interleaved by hand, A.randn and A.rand called between the steps
    const it1 = lm.generate(prompt, opts)[Symbol.asyncIterator]();
    const it2 = lm.generate(prompt, opts)[Symbol.asyncIterator]();
    const seen1 = [],
      seen2 = [];
    for (;;) {
      const x = await it1.next();
      A.randn(5);
      const y = await it2.next();
      A.rand(3);
      if (x.done && y.done) break;
      if (!x.done) seen1.push(x.value.id);
      if (!y.done) seen2.push(y.value.id);
    }
    assert.deepEqual(seen1, alone, `${name}: interleaved, first`);
    assert.deepEqual(seen2, alone, `${name}: interleaved, second`);
    // the instance's generator is neither read nor moved by a seeded generation
    A.manualSeed(5);
    const before = Array.from(A.rand(4).data);
    A.manualSeed(5);
    await lm.generate(prompt, opts).all();
    assert.deepEqual(Array.from(A.rand(4).data), before, `${name}: A's generator untouched`);
    // other seeds, other tokens
    assert.notDeepEqual(ids(await lm.generate(prompt, { ...opts, seed: 43 }).all()), alone);
  }
});

test('lm.generate: seed is an integer in [0, 2^53), checked by lm.generate (2^53 - 1 is the stream of manualSeed)', async () => {
  const { lm } = await model('gpt2-tiny');
  const opts = { maxNewTokens: 4, doSample: true, eosTokenId: null };
  const message = /^lm\.generate: seed must be an integer in \[0, 2\^53\), got /;
  for (const seed of [2 ** 53, -1, 0.5, NaN, Infinity])
    assert.throws(() => lm.generate([1, 2], { ...opts, seed }), { name: 'RangeError', message }, String(seed));
  for (const seed of ['1', null, {}])
    assert.throws(() => lm.generate([1, 2], { ...opts, seed }), { name: 'TypeError', message }, String(seed));
  for (const seed of [2 ** 53 - 1, 2 ** 32 + 9]) {
    const seeded = ids(await lm.generate([1, 2], { ...opts, seed }).all());
    A.manualSeed(seed);
    assert.deepEqual(seeded, ids(await lm.generate([1, 2], opts).all()), `seed ${seed}`);
  }
});

test('stepDistribution: topK keeps every token tied with the k-th (TopKLogitsWarper), compared as scores', () => {
  const logits = Float32Array.from([1, 3, 2, 3, 0.5, 2]);
  let d = stepDistribution(logits, { topK: 1 });
  assert.deepEqual(d.order, [1, 3, 2, 5, 0, 4]);
  assert.equal(d.kept, 2, 'topK 1: both 3s');
  assert.equal(stepDistribution(logits, { topK: 2 }).kept, 2);
  assert.equal(stepDistribution(logits, { topK: 3 }).kept, 4, 'topK 3: both 2s');
  assert.equal(stepDistribution(logits, { topK: 3, temperature: 0.7 }).kept, 4);
  assert.equal(stepDistribution(logits, { topK: 6 }).kept, 6);
  assert.equal(stepDistribution(logits, { topK: 9 }).kept, 6);
  // then topP over the tied set: the two 3s hold most of its mass, one kept alone would not reach it
  d = stepDistribution(logits, { topK: 3, topP: 0.5 });
  assert.equal(d.kept, 2);
  // ties are equal float32 scores, logits / temperature rounded as transformers' float32 division
  // rounds them: 1.9 and the next float32 are two scores over 1 or 1.5, one over 1.7
  const near = new Float32Array([1.9, 1.9, 0]);
  new Uint32Array(near.buffer)[1]++;
  assert.equal(stepDistribution(near, { topK: 1 }).kept, 1);
  assert.equal(stepDistribution(near, { topK: 1, temperature: 1.5 }).kept, 1);
  assert.equal(Math.fround(near[0] / Math.fround(1.7)), Math.fround(near[1] / Math.fround(1.7)));
  assert.equal(stepDistribution(near, { topK: 1, temperature: 1.7 }).kept, 2);
});

test('stepDistribution ranks only the ids the cut needs: its kept set and order are those of a sort of every id', () => {
  // the definition, every id sorted (the kept set as stepDistribution's comment gives it)
  const reference = (logits, { temperature = 1, topK = 0, topP = 1 }) => {
    const V = logits.length;
    const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => logits[b] - logits[a] || a - b);
    const score = (i) => Math.fround(logits[i] / Math.fround(temperature));
    let kept = V;
    if (topK > 0 && topK < V) kept = order.filter((i) => score(i) >= score(order[topK - 1])).length;
    const p = Array.from(logits, (x) => Math.exp(x / temperature - logits[order[0]] / temperature));
    const total = order.slice(0, kept).reduce((sum, i) => sum + p[i], 0);
    for (let i = 1, tail = order.slice(1, kept).reduce((sum, j) => sum + p[j], 0); i < kept; tail -= p[order[i++]])
      if (tail / total <= 1 - topP + 1e-12) return { order, kept: i, near: Math.abs(tail / total - (1 - topP)) < 1e-9 };
    return { order, kept, near: false };
  };
  let seed = 7;
  const uniform = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let checked = 0;
  for (const V of [1, 2, 5, 63, 64, 65, 300, 5000]) {
    for (let rep = 0; rep < 30; rep++) {
      // integers (ties everywhere) or spread values
      const logits = Float32Array.from({ length: V }, () =>
        rep % 3 === 0 ? Math.round(uniform() * 6) : (uniform() - 0.5) * (rep % 2 ? 10 : 40),
      );
      const options = {
        temperature: [1, 0.7, 1.5][rep % 3],
        topK: [0, 1, 3, 50, 64, 200][rep % 6],
        topP: [1, 0.9, 0.5, 0.99, 0.1][rep % 5],
      };
      const need = [0, 5, 100][rep % 3];
      const got = stepDistribution(logits, options, need);
      const want = reference(logits, options);
      const label = `V ${V} ${JSON.stringify(options)} need ${need}`;
      if (!want.near) assert.equal(got.kept, want.kept, label); // a tail at 1 - topP to 1e-9: rounding decides
      const ranked = Math.max(got.kept, Math.min(need, V));
      assert.ok(got.order.length >= ranked, label);
      assert.deepEqual(got.order.slice(0, ranked), want.order.slice(0, ranked), label);
      if (options.topK === 0 || options.topK >= V) assert.equal(got.order.length, V, `${label}: every id ranked`);
      checked++;
    }
  }
  assert.equal(checked, 240);
});

test('lm.generate: topK keeps the tokens tied at the cut (a copy of llama-tiny with two equal lm_head rows)', async () => {
  const { f, lm } = await model('llama-tiny');
  const prompt = [1, 324, 293];
  const V = lm.config.vocabSize;
  const last = lm.forward(prompt).logits.data.slice(-V);
  const order = Array.from(last.keys()).sort((x, y) => last[y] - last[x] || x - y);
  const [a, b] = order;
  const dir = mkdtempSync(join(tmpdir(), 'aw-tied-'));
  try {
    cpSync(f.dir, dir, { recursive: true });
    // lm_head row b := row a, so that logits[a] === logits[b] exactly
    const buf = readFileSync(join(dir, 'model.safetensors'));
    const n = Number(buf.readBigUInt64LE(0));
    const t = JSON.parse(buf.subarray(8, 8 + n).toString())['lm_head.weight'];
    assert.equal(t.dtype, 'F32');
    const D = t.shape[1],
      base = 8 + n + t.data_offsets[0];
    buf.copy(buf, base + b * D * 4, base + a * D * 4, base + (a + 1) * D * 4);
    writeFileSync(join(dir, 'model.safetensors'), buf);
    const tied = await A.loadPretrained(dir);
    try {
      const l = tied.forward(prompt).logits.data.slice(-V);
      assert.equal(l[a], l[b], 'the two rows give one logit');
      const opts = { maxNewTokens: 1, doSample: true, topK: 1, candidates: 3 };
      const step = (await tied.generate(prompt, { ...opts, seed: 0 }).all()).steps[0];
      assert.deepEqual(
        step.candidates.map((c) => [c.id, c.kept]),
        [
          [a, true],
          [b, true],
          [order[2], false],
        ],
      );
      const drawn = new Set();
      for (let seed = 0; seed < 40; seed++) drawn.add((await tied.generate(prompt, { ...opts, seed }).all()).newIds[0]);
      assert.deepEqual([...drawn].sort(), [a, b].sort(), 'topK 1 draws both tied tokens');
      // greedy: the first largest logit, the only one kept
      const greedy = (await tied.generate(prompt, { maxNewTokens: 1, candidates: 2 }).all()).steps[0];
      assert.equal(greedy.id, Math.min(a, b));
      assert.deepEqual(
        greedy.candidates.map((c) => c.kept),
        [true, false],
      );
    } finally {
      tied.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("lm.generate: a string prompt's errors are lm.generate's, naming the prompt", async () => {
  for (const name of ['gpt2-tiny', 'llama-tiny']) {
    const { lm } = await model(name);
    const P = lm.config.maxPositions;
    const text = 'the bank '.repeat(40);
    const count = lm.tokenizer.encode(text, { maxLength: Infinity }).inputIds.length;
    assert.ok(count > P);
    assert.throws(() => lm.generate(text), {
      name: 'RangeError',
      message: `lm.generate: the prompt has ${count} tokens, more than the model's maxPositions ${P}`,
    });
    // a prompt that fits maxPositions but not prompt + maxNewTokens
    assert.throws(() => lm.generate('the bank', { maxNewTokens: P }), {
      name: 'RangeError',
      message: /^lm\.generate: the prompt's \d+ tokens \+ maxNewTokens \d+ are more than the model's maxPositions/,
    });
    // (an empty prompt: GPT-2's has no tokens, Llama's is <s>: the test below)
    if (name === 'gpt2-tiny')
      assert.throws(() => lm.generate(''), {
        name: 'RangeError',
        message: 'lm.generate: the prompt has no tokens (an empty string)',
      });
    const long = 'x'.repeat(lm.tokenizer.maxInputChars + 1);
    assert.throws(() => lm.generate(long), {
      name: 'RangeError',
      message: /^lm\.generate: prompt has \d+ characters, more than tokenizer\.maxInputChars/,
    });
    // a plain for...of says to use for await, and leaves the generation to be taken
    const generation = lm.generate('the bank', { maxNewTokens: 2, eosTokenId: null });
    assert.throws(
      () => {
        for (const step of generation) assert.fail(`a step ${step}`);
      },
      {
        name: 'TypeError',
        message:
          'lm.generate: a generation is iterated with for await (const step of lm.generate(...)), or awaited whole with all()',
      },
    );
    assert.equal((await generation.all()).newIds.length, 2);
    // still working
    assert.equal((await lm.generate('the bank', { maxNewTokens: 2, eosTokenId: null }).all()).newIds.length, 2);
  }
});

test('lm.generate: an option of the wrong type is a TypeError naming it, a number out of range a RangeError', async () => {
  const { lm } = await model('gpt2-tiny');
  const g = (options) => () => lm.generate([1, 2], options);
  for (const [key, value, shown] of WRONG_TYPE_OPTIONS)
    assert.throws(g({ doSample: true, [key]: value }), {
      name: 'TypeError',
      message: new RegExp(`^lm\\.generate: ${key} must be .*, got ${shown}$`),
    });
  const outOfRange = [
    ['maxNewTokens', -1],
    ['maxNewTokens', NaN],
    ['temperature', 0],
    ['topK', 1.5],
    ['topP', 1.5],
    ['candidates', -2],
    ['seed', 2 ** 53],
  ];
  for (const [key, value] of outOfRange)
    assert.throws(g({ doSample: true, [key]: value }), {
      name: 'RangeError',
      message: new RegExp(`^lm\\.generate: ${key} must be .*, got ${value}$`),
    });
});

test('lm.generate: a generation made before dispose() and run after fails as lm.generate', async () => {
  const { f } = await model('gpt2-tiny');
  const lm = await A.loadPretrained(f.dir);
  const early = lm.generate([1, 2], { maxNewTokens: 3 });
  const iterated = lm.generate([1, 2], { maxNewTokens: 3 });
  lm.dispose();
  const disposed = { name: 'Error', message: 'lm.generate: the model has been disposed' };
  await assert.rejects(early.all(), disposed);
  await assert.rejects(async () => {
    for await (const step of iterated) assert.fail(`a step ${step.id} after dispose`);
  }, disposed);
});

test('lm.generate: a generation is consumed once; a second all() is the same result, iterating again a TypeError', async () => {
  const { lm } = await model('gpt2-tiny');
  const opts = { maxNewTokens: 3, doSample: false, eosTokenId: null };
  const again = /^TypeError: lm\.generate: this generation was already consumed by (for await|all\(\))/;
  const g = lm.generate([1, 2], opts);
  const streamed = [];
  for await (const step of g) streamed.push(step.id);
  assert.equal(streamed.length, 3);
  await assert.rejects(g.all(), (e) => again.test(`${e.name}: ${e.message}`) && /for await/.test(e.message));
  assert.throws(() => g[Symbol.asyncIterator](), again);
  const h = lm.generate([1, 2], opts);
  const [first, second] = await Promise.all([h.all(), h.all()]); // one run, not its steps split in two
  assert.equal(first, second);
  assert.deepEqual(first.newIds, streamed);
  assert.throws(() => h[Symbol.asyncIterator](), /already consumed by all\(\)/);
});

test('lm.forward / lm.generate: a hole in ids or a mask is refused as undefined is (not read as 0)', async () => {
  const { lm } = await model('gpt2-tiny');
  /* eslint-disable no-sparse-arrays */
  assert.throws(() => lm.forward([5, , 7]), {
    name: 'TypeError',
    message: 'lm.forward: inputIds[0][1] = undefined is not an integer id',
  });
  assert.throws(() => lm.forward([[1, 2], , [3, 4]]), {
    name: 'RangeError',
    message: /^lm\.forward: inputIds row 1 has undefined values, expected 2/,
  });
  assert.throws(() => lm.forward({ inputIds: [5, 6, 7], attentionMask: [1, , 1] }), {
    name: 'TypeError',
    message: 'lm.forward: attentionMask[0][1] = undefined is not 0 or 1',
  });
  assert.throws(() => lm.forward({ inputIds: [5, 6, 7], positionIds: [0, , 2] }), {
    name: 'TypeError',
    message: 'lm.forward: positionIds[0][1] = undefined is not an integer id',
  });
  assert.throws(() => lm.generate([5, , 7]), {
    name: 'TypeError',
    message: 'lm.generate: prompt[1] = undefined is not an integer token id',
  });
  // with a cache and transformers' form of the mask (cached + new)
  const cache = lm.createCache();
  lm.forward([1, 2, 3], { cache });
  assert.throws(() => lm.forward({ inputIds: [4], attentionMask: [1, 1, , 1] }, { cache }), {
    name: 'TypeError',
    message: 'lm.forward: attentionMask[0][2] = undefined is not 0 or 1',
  });
  assert.equal(cache.length, 3);
  cache.dispose();
  // the encoders' forward shares flatInts: their messages name model.forward
  assert.throws(() => flatInts([[1, , 3]], 1, 3, 'inputIds'), {
    name: 'TypeError',
    message: 'model.forward: inputIds[0][1] = undefined is not an integer id',
  });
  assert.throws(() => flatInts([[1, , 1]], 1, 3, 'attentionMask', { bool: true }), {
    name: 'TypeError',
    message: 'model.forward: attentionMask[0][1] = undefined is not 0 or 1',
  });
  /* eslint-enable no-sparse-arrays */
});

test('lm.forward with a cache: a mask of neither length, or mixing the two forms, is reported as such', async () => {
  const { lm } = await model('gpt2-tiny');
  const cache = lm.createCache();
  lm.forward(
    [
      [1, 2, 3],
      [4, 5, 6],
    ],
    { cache },
  );
  const next = (attentionMask) => () => lm.forward({ inputIds: [[7], [8]], attentionMask }, { cache });
  assert.throws(
    next([
      [1, 1, 1, 1],
      [1, 1],
    ]),
    {
      name: 'RangeError',
      message:
        "lm.forward: attentionMask row 1 has 2 values, expected 1 (the new tokens) or 4 (the cache's 3 and the new 1)",
    },
  );
  assert.throws(next([[1, 1, 1, 1], [1]]), {
    name: 'RangeError',
    message:
      "lm.forward: attentionMask rows mix the two forms: row 0 has 4 values (the cache's 3 and the new 1), row 1 has 1 (the new tokens); give every row the same form",
  });
  assert.throws(next([[1], [1, 1, 1, 1]]), {
    name: 'RangeError',
    message: /rows mix the two forms: row 1 has 4 values/,
  });
  assert.equal(cache.length, 3);
  // either form alone gives the same logits
  const mask = [
    [1, 1, 1, 1],
    [1, 1, 1, 1],
  ];
  const before = JSON.stringify(mask);
  const other = lm.createCache();
  lm.forward(
    [
      [1, 2, 3],
      [4, 5, 6],
    ],
    { cache: other },
  );
  const full = lm.forward({ inputIds: [[7], [8]], attentionMask: mask }, { cache }).logits.data;
  const short = lm.forward({ inputIds: [[7], [8]], attentionMask: [[1], [1]] }, { cache: other }).logits.data;
  assert.deepEqual(Array.from(full), Array.from(short));
  assert.equal(JSON.stringify(mask), before, "the caller's mask unchanged");
  cache.dispose();
  other.dispose();
});

test("lm.generate: options left out take generation_config.json's do_sample, temperature, top_k, top_p (config.json's without the file), else GenerationConfig's defaults", async () => {
  const { f, lm } = await model('gpt2-tiny');
  const prompt = [1, 17, 30];
  const V = lm.config.vocabSize;
  const logits = lm.forward(prompt).logits.data.slice(-V);
  const keptOf = async (model, options) =>
    (await model.generate(prompt, { maxNewTokens: 1, candidates: V, ...options }).all()).steps[0].candidates.filter(
      (c) => c.kept,
    ).length;
  // the fixture's file has none of them: greedy, and sampling keeps top_k 50 (GenerationConfig's)
  assert.equal(lm.generationConfig.top_k, undefined);
  assert.equal(await keptOf(lm, {}), 1, 'greedy by default');
  assert.equal(await keptOf(lm, { doSample: true, seed: 1 }), stepDistribution(logits, { topK: 50 }).kept);
  assert.equal(await keptOf(lm, { doSample: true, seed: 1 }), 50);
  assert.equal(await keptOf(lm, { doSample: true, topK: 0, seed: 1 }), V, 'topK 0: every token');

  const dir = mkdtempSync(join(tmpdir(), 'aw-genconfig-'));
  try {
    cpSync(f.dir, dir, { recursive: true });
    const file = join(dir, 'generation_config.json');
    const sampling = { do_sample: true, temperature: 0.6, top_k: 20, top_p: 0.9 };
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), ...sampling }));
    const chat = await A.loadPretrained(dir);
    try {
      const want = stepDistribution(logits, { temperature: 0.6, topK: 20, topP: 0.9 });
      const step = (await chat.generate(prompt, { maxNewTokens: 1, candidates: 3, seed: 5 }).all()).steps[0];
      assert.ok(want.kept < 20, `top_p cuts inside top_k: ${want.kept}`);
      assert.equal(await keptOf(chat, { seed: 5 }), want.kept, 'sampled with the file values');
      assert.deepEqual(
        step.candidates.map((c) => c.probability),
        want.order.slice(0, 3).map((i) => want.probs[i]),
        'temperature 0.6',
      );
      // the same as passing the file's values, draw for draw
      const explicit = { doSample: true, temperature: 0.6, topK: 20, topP: 0.9 };
      for (const seed of [0, 1, 2, 3])
        assert.deepEqual(
          (await chat.generate(prompt, { maxNewTokens: 6, seed, eosTokenId: null }).all()).newIds,
          (await lm.generate(prompt, { maxNewTokens: 6, seed, eosTokenId: null, ...explicit }).all()).newIds,
        );
      // an option given overrides the file: greedy
      assert.equal(await keptOf(chat, { doSample: false }), 1);
    } finally {
      chat.dispose();
    }
    // a value of the file that is not valid is an Error naming it, unless the option is given
    writeFileSync(file, JSON.stringify({ do_sample: true, top_p: 0 }));
    const bad = await A.loadPretrained(dir);
    try {
      assert.throws(() => bad.generate(prompt), {
        name: 'RangeError',
        message:
          /^lm\.generate: .*generation_config\.json's top_p = 0 is not in \(0, 1\] \(pass topP to override it\)$/,
      });
      assert.equal((await bad.generate(prompt, { maxNewTokens: 2, topP: 1, seed: 0 }).all()).newIds.length, 2);
    } finally {
      bad.dispose();
    }
    // greedy reads no sampling value: an invalid one does not stop it
    writeFileSync(file, JSON.stringify({ top_p: 0, top_k: -1 }));
    const greedy = await A.loadPretrained(dir);
    try {
      assert.equal((await greedy.generate(prompt, { maxNewTokens: 2 }).all()).newIds.length, 2);
    } finally {
      greedy.dispose();
    }
    // config.json's generation keys: read only when the folder has no generation_config.json
    // (GenerationConfig.from_model_config); beside the file, transformers reads the file alone
    writeFileSync(file, JSON.stringify({ eos_token_id: 7 }));
    const configFile = join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({ ...JSON.parse(readFileSync(configFile, 'utf8')), do_sample: true, top_k: 5, eos_token_id: 9 }),
    );
    const beside = await A.loadPretrained(dir);
    try {
      assert.equal(await keptOf(beside, { seed: 1 }), 1, "greedy: the file's default, not config.json's do_sample");
      assert.equal(beside.eosTokenId, 7);
    } finally {
      beside.dispose();
    }
    writeFileSync(file, JSON.stringify({}));
    const empty = await A.loadPretrained(dir);
    try {
      assert.equal(await keptOf(empty, { seed: 1 }), 1, 'an empty file: GenerationConfig() defaults');
      assert.equal(empty.eosTokenId, null, "an empty file: no EOS (config.json's is not read)");
    } finally {
      empty.dispose();
    }
    rmSync(file);
    const legacy = await A.loadPretrained(dir);
    try {
      assert.equal(await keptOf(legacy, { seed: 1 }), stepDistribution(logits, { topK: 5 }).kept);
      assert.equal(legacy.eosTokenId, 9);
      assert.deepEqual(legacy.generationConfig, {});
    } finally {
      legacy.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("lm.generate(''): Llama's empty prompt is <s>, and the generation starts there (the pipeline allows empty prompts); GPT-2's has no tokens", async () => {
  const A = await library();
  const llama = await A.loadPretrained((await loadFixture('llama-tiny')).dir);
  const bos = llama.tokenizer.encode('').inputIds;
  assert.deepEqual(bos, [1]);
  const fromEmpty = await llama.generate('', { maxNewTokens: 3, eosTokenId: null }).all();
  const fromIds = await llama.generate(bos, { maxNewTokens: 3, eosTokenId: null }).all();
  assert.deepEqual(fromEmpty.ids, fromIds.ids);
  assert.equal(fromEmpty.ids.length, 4);
  llama.dispose();
  const gpt2 = await A.loadPretrained((await loadFixture('gpt2-tiny')).dir);
  assert.throws(() => gpt2.generate(''), {
    name: 'RangeError',
    message: 'lm.generate: the prompt has no tokens (an empty string)',
  });
  gpt2.dispose();
});
