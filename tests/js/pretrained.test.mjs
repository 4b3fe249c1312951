// A.loadPretrained on tiny random DistilBERT and BERT folders in Hugging Face's layout
// (scripts/make-fixtures.mjs: F32, F16, BF16; prefixed and bare names; heads to ignore; pooler or
// not): every output against the float64 reference written from transformers' modeling files
// (tests/js/reference/encoder.mjs), to 1e-5 relative to max(1, |x|); the padded batch, the
// sentence embeddings, the learned embeddings; every kind of source; progress; memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init, Tensor } from 'attention-wasm';
import { library } from './helpers.mjs';
import { ENCODER_FIXTURES, FIXTURES, loadFixture, S1, S2 } from './fixtures.mjs';
import { referenceEncoder, referenceMeanPool, assertClose } from './reference/index.mjs';

const A = await library();
/** 1e-5 relative to max(1, |x|); returns the largest such relative error. */
const assertMatches = (got, want, label) => assertClose(got, want, { rel: 1e-5, abs: 0, floor: 1 }, label);
const arch = (f) => f.spec.arch;

/** Compares every output of model.forward(input) with the reference on the same input. */
function checkAgainstReference(model, fx, input, label) {
  const out = model.forward(input, { outputHiddenStates: true, outputAttentions: true });
  const want = referenceEncoder({ arch: arch(fx), config: fx.config, weights: fx.weights }, input);
  const { N, L, D, H } = want.shape;
  const layers = fx.spec.layers;
  assert.deepEqual(out.lastHiddenState.shape, [N, L, D], `${label}: lastHiddenState shape`);
  assert.equal(out.hiddenStates.length, layers + 1, `${label}: n_layers + 1 hidden states`);
  assert.equal(out.attentions.length, layers, `${label}: n_layers attentions`);
  let worst = 0;
  out.hiddenStates.forEach((h, i) => {
    assert.deepEqual(h.shape, [N, L, D]);
    worst = Math.max(
      worst,
      assertMatches(h.data, want.hiddenStates[i], `${label}: hiddenStates[${i}]${i === 0 ? ' (embeddings)' : ''}`),
    );
  });
  out.attentions.forEach((a, i) => {
    assert.deepEqual(a.shape, [N, H, L, L]);
    worst = Math.max(worst, assertMatches(a.data, want.attentions[i], `${label}: attentions[${i}]`));
  });
  worst = Math.max(worst, assertMatches(out.lastHiddenState.data, want.lastHiddenState, `${label}: lastHiddenState`));
  assert.deepEqual(
    Array.from(out.lastHiddenState.data),
    Array.from(out.hiddenStates.at(-1).data),
    `${label}: last = hiddenStates[-1]`,
  );
  if (want.poolerOutput) {
    assert.deepEqual(out.poolerOutput.shape, [N, D]);
    worst = Math.max(worst, assertMatches(out.poolerOutput.data, want.poolerOutput, `${label}: poolerOutput`));
  } else {
    assert.equal(out.poolerOutput, undefined, `${label}: no pooler`);
  }
  return { out, want, worst };
}

for (const name of ENCODER_FIXTURES) {
  test(`${name}: embeddings, every hidden state, every attention, last hidden state${FIXTURES[name].pooler ? ', pooler' : ''} match the float64 reference`, async () => {
    const fx = await loadFixture(name);
    const model = await A.loadPretrained(fx.dir);
    try {
      assert.equal(model.modelType, fx.spec.arch);
      assert.equal(model.hasPooler, Boolean(fx.spec.pooler));
      assert.deepEqual(model.config, fx.config);
      let worst = 0;
      for (const text of [S1, S2, 'bank']) {
        const enc = model.tokenizer.encode(text);
        const input = { inputIds: [enc.inputIds] };
        if (enc.tokenTypeIds) input.tokenTypeIds = [enc.tokenTypeIds];
        worst = Math.max(worst, checkAgainstReference(model, fx, input, `${name} '${text}'`).worst);
        // ids alone (number[]) give the same as the object form
        const plain = model.forward(enc.inputIds).lastHiddenState;
        assert.deepEqual(plain.shape, [1, enc.inputIds.length, model.hiddenSize]);
        for (const same of [
          Int32Array.from(enc.inputIds),
          { inputIds: [Int32Array.from(enc.inputIds)] },
          { inputIds: enc.inputIds, attentionMask: enc.attentionMask },
        ]) {
          assert.deepEqual(Array.from(model.forward(same).lastHiddenState.data), Array.from(plain.data));
        }
      }
      if (arch(fx) === 'bert') {
        // a sentence pair: token types 0 then 1
        const a = model.tokenizer.encode('a man fishing'),
          b = model.tokenizer.encode('on a river bank');
        const ids = [...a.inputIds, ...b.inputIds.slice(1)],
          types = [...a.inputIds.map(() => 0), ...b.inputIds.slice(1).map(() => 1)];
        worst = Math.max(
          worst,
          checkAgainstReference(model, fx, { inputIds: [ids], tokenTypeIds: [types] }, `${name} pair`).worst,
        );
      }
      console.log(`${name}: largest relative error against float64 ${worst.toExponential(2)}`);
    } finally {
      model.dispose();
    }
  });
}

test('a padded batch gives the same rows as one text at a time, and matches the reference with its mask', async () => {
  for (const name of ['distilbert-f32', 'bert-bf16']) {
    const fx = await loadFixture(name);
    const model = await A.loadPretrained(fx.dir);
    const texts = [S1, 'bank', S2, 'a river'];
    const batch = model.tokenizer.encodeBatch(texts);
    const L = Math.max(...texts.map((t) => model.tokenizer.encode(t).inputIds.length));
    assert.deepEqual(
      batch.inputIds.map((r) => r.length),
      texts.map(() => L),
    );
    assert.equal(batch.attentionMask[1].filter(Boolean).length, 3, "'bank' is [CLS] bank [SEP] + padding");
    const { out } = checkAgainstReference(model, fx, batch, `${name} batch`);
    const D = model.hiddenSize;
    texts.forEach((text, n) => {
      const enc = model.tokenizer.encode(text);
      const single = model.forward(enc);
      const l = enc.inputIds.length;
      const row = out.lastHiddenState.data.subarray(n * L * D, n * L * D + l * D);
      assertMatches(row, Array.from(single.lastHiddenState.data), `${name}: batch row ${n} vs alone`);
      if (single.poolerOutput)
        assertMatches(
          out.poolerOutput.data.subarray(n * D, (n + 1) * D),
          Array.from(single.poolerOutput.data),
          `${name}: pooler row ${n}`,
        );
    });
    model.dispose();
  }
});

test('wordEmbeddings(ids): the learned embeddings, rows of word_embeddings exactly', async () => {
  for (const name of ['distilbert-f32', 'distilbert-f16', 'bert-bf16']) {
    const fx = await loadFixture(name);
    const model = await A.loadPretrained(fx.dir);
    const { inputIds: ids } = model.tokenizer.encode(S1);
    const le = model.wordEmbeddings(ids);
    assert.ok(le instanceof Tensor);
    const D = model.hiddenSize;
    assert.deepEqual(le.shape, [ids.length, D]);
    const word = fx.weights.get('embeddings.word_embeddings.weight').data;
    ids.forEach((id, i) =>
      assert.deepEqual(
        Array.from(le.data.subarray(i * D, (i + 1) * D)),
        Array.from(word.subarray(id * D, (id + 1) * D)),
        `${name} row ${i}`,
      ),
    );
    assert.deepEqual(model.wordEmbeddings(Int32Array.from([2924])).shape, [1, D]);
    assert.deepEqual(model.wordEmbeddings([]).shape, [0, D]);
    model.dispose();
  }
});

test('embed(texts): mean pooling over the mask (and L2 normalisation), cls pooling, as sentence-transformers', async () => {
  const fx = await loadFixture('bert-bf16');
  const model = await A.loadPretrained(fx.dir);
  const texts = [S1, S2, 'bank'];
  const batch = model.tokenizer.encodeBatch(texts);
  const want = referenceEncoder({ arch: 'bert', config: fx.config, weights: fx.weights }, batch);
  const { N, L, D } = want.shape;
  for (const normalize of [false, true]) {
    const e = model.embed(texts, { pooling: 'mean', normalize });
    assert.deepEqual(e.shape, [3, D]);
    assertMatches(
      e.data,
      referenceMeanPool(want.lastHiddenState, batch.attentionMask, N, L, D, normalize),
      `mean normalize=${normalize}`,
    );
  }
  const norms = model
    .embed(texts, { normalize: true })
    .toArray()
    .map((v) => Math.hypot(...v));
  norms.forEach((n) => assert.ok(Math.abs(n - 1) < 1e-6, `norm ${n}`));
  // batches of 2 give the same as one batch of 3 (pooling ignores the padding)
  assertMatches(model.embed(texts, { batchSize: 2 }).data, Array.from(model.embed(texts).data), 'batchSize 2');
  const cls = model.embed(texts, { pooling: 'cls' });
  for (let n = 0; n < N; n++)
    assertMatches(
      cls.data.subarray(n * D, (n + 1) * D),
      want.lastHiddenState.subarray(n * L * D, n * L * D + D),
      `cls ${n}`,
    );
  assert.deepEqual(model.embed('bank').shape, [1, D]);
  model.dispose();
});

/** A sentence-transformers Pooling module's config.json (models/Pooling.py's keys) with the given modes on. */
function poolingConfig(...modes) {
  const keys = {
    cls: 'pooling_mode_cls_token',
    mean: 'pooling_mode_mean_tokens',
    max: 'pooling_mode_max_tokens',
    mean_sqrt_len: 'pooling_mode_mean_sqrt_len_tokens',
  };
  const config = { word_embedding_dimension: 16 };
  for (const [mode, key] of Object.entries(keys)) config[key] = modes.includes(mode);
  return config;
}

test("embed follows the Pooling module's config.json, and refuses modules it does not compute", async () => {
  const fx = await loadFixture('bert-bf16');
  const utf8 = (x) => new TextEncoder().encode(JSON.stringify(x));
  const module = (idx, type, path) => ({ idx, name: String(idx), path, type: `sentence_transformers.models.${type}` });
  const modules = [module(0, 'Transformer', ''), module(1, 'Pooling', '1_Pooling')];
  const texts = [S1, 'bank'];
  const plain = await A.loadPretrained(fx.dir);
  const folder = (extra) => A.loadPretrained({ ...fx.files, 'modules.json': utf8(modules), ...extra });
  // CLS pooling (BAAI/bge-*'s): embed's default is the first token, as encode's
  const cls = await folder({ '1_Pooling/config.json': utf8(poolingConfig('cls')) });
  assert.equal(cls.sentenceTransformers.pooling, 'cls');
  assert.deepEqual(Array.from(cls.embed(texts).data), Array.from(plain.embed(texts, { pooling: 'cls' }).data));
  assert.notDeepEqual(Array.from(cls.embed(texts).data), Array.from(plain.embed(texts).data));
  assert.deepEqual(Array.from(cls.embed(texts, { pooling: 'mean' }).data), Array.from(plain.embed(texts).data));
  cls.dispose();
  // the same from a folder on disk: 1_Pooling/config.json is read one folder down
  const dir = join(fx.dir, '..', `${fx.dir.split('/').pop()}-st-cls`);
  const { mkdirSync, writeFileSync, rmSync } = await import('node:fs');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, '1_Pooling'), { recursive: true });
  for (const [name, bytes] of Object.entries(fx.files)) writeFileSync(join(dir, name), bytes);
  writeFileSync(join(dir, 'modules.json'), utf8(modules));
  writeFileSync(join(dir, '1_Pooling', 'config.json'), utf8(poolingConfig('cls')));
  const onDisk = await A.loadPretrained(dir);
  assert.equal(onDisk.sentenceTransformers.pooling, 'cls');
  onDisk.dispose();
  rmSync(dir, { recursive: true });
  // the Pooling module's config not given: embed asks for `pooling` rather than guess
  const unknown = await folder({});
  assert.equal(unknown.sentenceTransformers.pooling, null);
  assert.throws(() => unknown.embed(texts), {
    name: 'Error',
    message: /1_Pooling\/config\.json.*pass pooling: 'mean' or 'cls'/,
  });
  assert.deepEqual(Array.from(unknown.embed(texts, { pooling: 'mean' }).data), Array.from(plain.embed(texts).data));
  unknown.dispose();
  // Pooling(**config)'s defaults and its pooling_mode string: a config with only the CLS flag
  // pools CLS and mean (concatenated), one without flags means, pooling_mode chooses one
  for (const [config, want] of [
    [{ word_embedding_dimension: 16 }, 'mean'],
    [{ word_embedding_dimension: 16, pooling_mode: 'CLS' }, 'cls'],
    [{ word_embedding_dimension: 16, pooling_mode: 'mean', pooling_mode_cls_token: true }, 'mean'],
    [{ word_embedding_dimension: 16, pooling_mode_cls_token: 1, pooling_mode_mean_tokens: 0 }, 'cls'],
  ]) {
    const model = await folder({ '1_Pooling/config.json': utf8(config) });
    assert.equal(model.sentenceTransformers.pooling, want, JSON.stringify(config));
    model.dispose();
  }
  const both = await folder({
    '1_Pooling/config.json': utf8({ word_embedding_dimension: 16, pooling_mode_cls_token: true }),
  });
  assert.deepEqual(both.sentenceTransformers.unsupported, [
    '1_Pooling/config.json: pooling_mode_cls_token + pooling_mode_mean_tokens (embed computes one of pooling_mode_cls_token, pooling_mode_mean_tokens)',
  ]);
  both.dispose();
  await assert.rejects(folder({ '1_Pooling/config.json': utf8({ pooling_mode: 'median' }) }), {
    message: /1_Pooling\/config\.json: pooling_mode must be one of 'cls', 'max', 'mean'.*got "median"/,
  });
  // modes and modules embed does not compute: refused, naming them (forward still runs)
  for (const [label, extra, message] of [
    ['max pooling', { '1_Pooling/config.json': utf8(poolingConfig('max')) }, /pooling_mode_max_tokens/],
    [
      'two modes at once (concatenated by Pooling.forward)',
      { '1_Pooling/config.json': utf8(poolingConfig('cls', 'mean')) },
      /pooling_mode_cls_token \+ pooling_mode_mean_tokens/,
    ],
    [
      'a Dense module (LaBSE, distiluse-*)',
      {
        '1_Pooling/config.json': utf8(poolingConfig('mean')),
        'modules.json': utf8([...modules, module(2, 'Dense', '2_Dense')]),
      },
      /modules\.json\[2\]: sentence_transformers\.models\.Dense \(2_Dense\)/,
    ],
  ]) {
    const model = await folder(extra);
    assert.equal(model.sentenceTransformers.unsupported.length, 1, label);
    assert.throws(() => model.embed(texts, { pooling: 'mean' }), { name: 'Error', message }, label);
    assert.deepEqual(
      Array.from(model.forward({ inputIds: [[101, 2924, 102]] }).lastHiddenState.data),
      Array.from(plain.forward({ inputIds: [[101, 2924, 102]] }).lastHiddenState.data),
      label,
    );
    model.dispose();
  }
  plain.dispose();
});

test("embed in a sentence-transformers folder: its max_seq_length, modules.json's Normalize, do_lower_case", async () => {
  const fx = await loadFixture('bert-bf16');
  const utf8 = (x) => new TextEncoder().encode(JSON.stringify(x));
  const modules = [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
  ];
  // the folder's tokenizer keeping case, so that do_lower_case shows
  const tokenizerJson = JSON.parse(new TextDecoder().decode(fx.files['tokenizer.json']));
  tokenizerJson.normalizer.lowercase = false;
  const cased = { ...fx.files, 'tokenizer.json': utf8(tokenizerJson) };
  const plain = await A.loadPretrained(fx.dir);
  const st = await A.loadPretrained({
    ...cased,
    'sentence_bert_config.json': utf8({ max_seq_length: 8, do_lower_case: true }),
    'modules.json': utf8(modules),
    '1_Pooling/config.json': utf8(poolingConfig('mean')),
  });
  assert.equal(plain.sentenceTransformers, null);
  assert.deepEqual(st.sentenceTransformers, {
    maxSeqLength: 8,
    normalize: true,
    doLowerCase: true,
    pooling: 'mean',
    unsupported: [],
  });
  const text = S1; // more than 8 tokens
  assert.ok(plain.tokenizer.encode(text).inputIds.length > 8);
  // SentenceTransformer.encode: cut to max_seq_length, mean pooling, then Normalize
  const cut = plain.tokenizer.encodeBatch([text], { truncation: true, maxLength: 8 });
  const want = referenceEncoder({ arch: 'bert', config: fx.config, weights: fx.weights }, cut);
  const { N, L, D } = want.shape;
  const expected = referenceMeanPool(want.lastHiddenState, cut.attentionMask, N, L, D, true);
  assertMatches(st.embed(text).data, expected, 'cut to 8, normalized');
  assertMatches(st.embed(text.toUpperCase()).data, expected, 'do_lower_case: the text lower-cased first');
  assert.notDeepEqual(
    Array.from(st.embed(text.toUpperCase(), { normalize: false }).data),
    Array.from(plain.embed(text.toUpperCase(), { truncation: true }).data),
    'the cased tokenizer alone',
  );
  // options given win: no normalisation; no truncation is the usual error, at max_seq_length
  assertMatches(
    st.embed(text, { normalize: false }).data,
    referenceMeanPool(want.lastHiddenState, cut.attentionMask, N, L, D, false),
    'normalize: false',
  );
  assert.throws(() => st.embed(text, { truncation: false }), {
    name: 'RangeError',
    message: /more than maxLength of 8/,
  });
  // a max_seq_length past the model's maximum is cut to it; bad files are Errors naming them
  const long = await A.loadPretrained({ ...fx.files, 'sentence_bert_config.json': utf8({ max_seq_length: 100000 }) });
  assert.deepEqual(long.sentenceTransformers, {
    maxSeqLength: long.maxPositions,
    normalize: false,
    doLowerCase: false,
    pooling: 'mean', // no modules.json: sentence-transformers builds mean pooling
    unsupported: [],
  });
  long.dispose();
  // without max_seq_length, the model's and its tokenizer's maximum (Transformer.py's default)
  const short = await A.loadPretrained({
    ...fx.files,
    'sentence_bert_config.json': utf8({ max_seq_length: null }),
    'tokenizer_config.json': utf8({
      ...JSON.parse(new TextDecoder().decode(fx.files['tokenizer_config.json'])),
      model_max_length: 10,
    }),
  });
  assert.equal(short.sentenceTransformers.maxSeqLength, 10);
  short.dispose();
  for (const [name, body, message] of [
    [
      'sentence_bert_config.json',
      { max_seq_length: 0 },
      /sentence_bert_config\.json: max_seq_length must be a positive integer, got 0/,
    ],
    ['sentence_bert_config.json', [], /sentence_bert_config\.json: expected a JSON object/],
    ['modules.json', {}, /modules\.json: expected a JSON array of modules/],
  ])
    await assert.rejects(A.loadPretrained({ ...fx.files, [name]: utf8(body) }), { message });
  st.dispose();
  plain.dispose();
});

test('sources: a folder path, { name: Uint8Array | ArrayBuffer | Blob }, File[] (a dropped folder) load the same model', async () => {
  const fx = await loadFixture('distilbert-bf16');
  const input = { inputIds: [[101, 4339, 2924, 1012, 102]] };
  const reference = await A.loadPretrained(fx.dir);
  const want = Array.from(reference.forward(input).lastHiddenState.data);
  reference.dispose();
  const bytes = Object.fromEntries(Object.entries(fx.files).map(([n, b]) => [n, b.slice()]));
  const buffers = Object.fromEntries(Object.entries(fx.files).map(([n, b]) => [n, b.slice().buffer]));
  const blobs = Object.fromEntries(Object.entries(fx.files).map(([n, b]) => [n, new Blob([b])]));
  const dropped = Object.entries(fx.files).map(([n, b]) => {
    const f = new File([b], n);
    Object.defineProperty(f, 'webkitRelativePath', { value: `distilbert-bf16/${n}` });
    return f;
  });
  // a sentence-transformers folder has 1_Pooling/config.json: the top-level config.json wins
  const nested = new File(['{"word_embedding_dimension": 18}'], 'config.json');
  Object.defineProperty(nested, 'webkitRelativePath', { value: 'distilbert-bf16/1_Pooling/config.json' });
  // index.d.ts's structural types (ModelFileBlob, ModelFileList) and a record without a prototype
  const blobLike = (b) => ({ size: b.length, slice: (s, e) => ({ arrayBuffer: async () => b.slice(s, e).buffer }) });
  const shaped = Object.entries(fx.files).map(([n, b]) => ({ ...blobLike(b), name: n }));
  const fileList = { length: shaped.length, item: (i) => shaped[i] ?? null, ...shaped };
  const bare = Object.assign(Object.create(null), bytes);
  for (const [label, source] of [
    ['Uint8Array', bytes],
    ['ArrayBuffer', buffers],
    ['Blob', blobs],
    ['File[]', [nested, ...dropped]],
    ['ModelFileBlob records', Object.fromEntries(Object.entries(fx.files).map(([n, b]) => [n, blobLike(b)]))],
    ['ModelFileList', fileList],
    ['a record without a prototype', bare],
  ]) {
    const model = await A.loadPretrained(source);
    assert.deepEqual(Array.from(model.forward(input).lastHiddenState.data), want, label);
    assert.deepEqual(
      model.tokenizer.encode(S1).inputIds,
      [101, 4339, 1037, 5961, 2055, 1037, 2158, 5645, 2006, 1037, 2314, 2924, 1012, 102],
      label,
    );
    model.dispose();
  }
  // a list's length is checked before it is read: 2^32 - 1 'files' are not copied
  await assert.rejects(A.loadPretrained({ length: 2 ** 32 - 1, item: () => null }), {
    name: 'RangeError',
    message: /^loadPretrained: a list of 4294967295 files, more than the 10000 a model folder may have$/,
  });
  // an object shaped as a Blob whose reads come up short: an Error naming the file, not stale bytes
  const short = {
    ...blobLike(fx.files['model.safetensors']),
    slice: () => ({ arrayBuffer: async () => new ArrayBuffer(3) }),
  };
  await assert.rejects(A.loadPretrained({ ...bytes, 'model.safetensors': short }), {
    message: /^loadPretrained: model\.safetensors: bytes \[0, 8\) read as 3 bytes/,
  });
});

test('onProgress: bytes read grow to the total (the header and the tensors used; heads not loaded are not read)', async () => {
  const fx = await loadFixture('distilbert-f32');
  const calls = [];
  const model = await A.loadPretrained(fx.dir, { onProgress: (p) => calls.push({ ...p }), head: 'none' });
  const size = fx.files['model.safetensors'].length;
  const total = calls[0].total;
  assert.ok(calls.length >= 2);
  calls.forEach((c, i) => {
    assert.equal(c.total, total);
    if (i) assert.ok(c.loaded > calls[i - 1].loaded, 'loaded grows');
  });
  assert.equal(calls.at(-1).loaded, total);
  // the masked-LM head (vocab_projector.bias alone is 30522 floats) is skipped
  assert.ok(total < size - 30522 * 4, `total ${total} of a ${size}-byte file`);
  assert.deepEqual(model.ignoredTensors.sort(), [
    'vocab_layer_norm.bias',
    'vocab_layer_norm.weight',
    'vocab_projector.bias',
    'vocab_transform.bias',
    'vocab_transform.weight',
  ]);
  model.dispose();
  // with its masked-LM head (architectures[0] DistilBertForMaskedLM), every tensor of the file is read
  let last = null;
  const withHead = await A.loadPretrained(fx.dir, { onProgress: (p) => (last = p) });
  assert.equal(withHead.head, 'masked-lm');
  assert.deepEqual(withHead.ignoredTensors, []);
  assert.equal(last.total, size);
  withHead.dispose();
  await assert.rejects(
    A.loadPretrained(fx.dir, {
      onProgress: () => {
        throw new Error('stop');
      },
    }),
    /stop/,
  );
  await assert.rejects(A.loadPretrained(fx.dir, { onProgress: 1 }), {
    name: 'TypeError',
    message: /onProgress must be a function/,
  });
  await assert.rejects(A.loadPretrained(fx.dir, { progress: () => {} }), {
    name: 'TypeError',
    message: /unknown option 'progress'/,
  });
});

test('a load gives the event loop a turn after each chunk it reads (Node reads chunks synchronously)', async () => {
  const fx = await loadFixture('distilbert-f32');
  assert.ok(fx.files['model.safetensors'].length > 2 << 20, 'the fixture spans several 1 MiB chunks');
  let turns = 0,
    scheduled = false;
  const chunks = [];
  const model = await A.loadPretrained(fx.dir, {
    onProgress: () => {
      chunks.push(turns);
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => ((scheduled = false), turns++));
      }
    },
  });
  model.dispose();
  // progress(0) before the first chunk, then one call per chunk: each after a turn of the loop
  assert.ok(chunks.length >= 3, `${chunks.length} progress calls`);
  chunks.slice(1).forEach((t, i) => assert.ok(t > chunks[i], `chunk ${i + 1}: the event loop ran since the last`));
});

test('memory: weights resident once (forward allocates nothing that stays), dispose() and Symbol.dispose free them', async () => {
  const fx = await loadFixture('bert-f32');
  const baseline = A.memoryStats().allocatedBytes;
  const model = await A.loadPretrained(fx.dir);
  const loaded = A.memoryStats().allocatedBytes;
  // every tensor but the next-sentence head's (BertForPreTraining: its masked-LM half is loaded)
  const params = [...fx.weights]
    .filter(([n]) => !n.startsWith('cls.seq_relationship.'))
    .reduce((s, [, t]) => s + t.data.length, 0);
  assert.ok(
    model.residentBytes >= params * 4 && model.residentBytes < params * 4 + 64 * 1024,
    `resident ${model.residentBytes} for ${params} floats`,
  );
  // the weights and the model's small bookkeeping (parameter names and shapes); the 1 MiB staging buffer is freed
  assert.ok(
    loaded - baseline >= model.residentBytes && loaded - baseline < model.residentBytes + 64 * 1024,
    `loading holds ${loaded - baseline} bytes for ${model.residentBytes} of weights`,
  );
  const enc = model.tokenizer.encode(S1);
  for (let i = 0; i < 20; i++) model.forward(enc, { outputHiddenStates: true, outputAttentions: true });
  assert.equal(A.memoryStats().allocatedBytes, loaded, 'forward keeps nothing');
  model.dispose();
  assert.equal(A.memoryStats().allocatedBytes, baseline, 'dispose frees the weights');
  model.dispose(); // idempotent
  assert.throws(() => model.forward(enc), { message: 'model.forward: the model has been disposed' });
  assert.throws(() => model.wordEmbeddings([1]), { message: 'model.wordEmbeddings: the model has been disposed' });
  assert.throws(() => model.embed('x'), { message: 'model.embed: the model has been disposed' });

  const second = await A.loadPretrained(fx.dir);
  second[Symbol.dispose]();
  assert.equal(A.memoryStats().allocatedBytes, baseline, 'Symbol.dispose frees the weights');
  // two models at once are independent
  const a = await A.loadPretrained(fx.dir),
    b = await A.loadPretrained((await loadFixture('bert-f16')).dir);
  const outA = Array.from(a.forward(enc).lastHiddenState.data);
  b.dispose();
  assert.deepEqual(Array.from(a.forward(enc).lastHiddenState.data), outA);
  a.dispose();
  assert.equal(A.memoryStats().allocatedBytes, baseline);
});

test('the threaded build gives byte-identical outputs', async () => {
  const threaded = await init({ threads: 2 });
  const fx = await loadFixture('distilbert-f32');
  const one = await A.loadPretrained(fx.dir),
    two = await threaded.loadPretrained(fx.dir);
  const batch = one.tokenizer.encodeBatch([S1, S2, 'bank']);
  const o1 = one.forward(batch, { outputAttentions: true }),
    o2 = two.forward(batch, { outputAttentions: true });
  assert.deepEqual(Array.from(o2.lastHiddenState.data), Array.from(o1.lastHiddenState.data));
  o1.attentions.forEach((a, i) => assert.deepEqual(Array.from(o2.attentions[i].data), Array.from(a.data)));
  one.dispose();
  two.dispose();
  threaded.dispose();
});

test('the shipped vocabulary and the fixtures agree (vocab.txt is bert-base-uncased: 30,522 tokens)', async () => {
  const fx = await loadFixture('distilbert-f16');
  const lines = readFileSync(join(fx.dir, 'vocab.txt'), 'utf8').split('\n');
  assert.equal(lines.length - 1, 30522);
  assert.deepEqual(
    [lines[0], lines[100], lines[101], lines[102], lines[1012], lines[1996], lines[2924]],
    ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '.', 'the', 'bank'],
  );
});

test('many calls, valid and invalid, and load/dispose cycles: the wasm heap and malloc stay flat', async () => {
  const fx = await loadFixture('bert-bf16');
  const calls = (model, n) => {
    const enc = model.tokenizer.encode(S1);
    for (let i = 0; i < n; i++) {
      model.forward(enc, { outputHiddenStates: i % 2 === 0, outputAttentions: i % 3 === 0 });
      model.wordEmbeddings(enc.inputIds);
      try {
        model.forward([101, 1e6]);
      } catch {
        /* expected */
      }
      try {
        model.forward({ inputIds: [[101]], tokenTypeIds: [[5]] });
      } catch {
        /* expected */
      }
    }
    model.embed([S1, S2]);
  };
  let model = await A.loadPretrained(fx.dir);
  calls(model, 50); // warm-up: the heap reaches its working size
  model.dispose();
  const before = A.memoryStats();
  for (let cycle = 0; cycle < 10; cycle++) {
    model = await A.loadPretrained(fx.dir);
    calls(model, 50);
    model.dispose();
  }
  const after = A.memoryStats();
  assert.equal(after.allocatedBytes, before.allocatedBytes, 'malloc holds more than before');
  assert.equal(after.heapBytes, before.heapBytes, 'the wasm memory grew');
});
