// The mistakes a newcomer makes first, each answered by a message that says what to do instead
// (issue 26): a hub name for loadPretrained, a folder without a tokenizer (an encoder's or a causal
// LM's), a string given to
// model.forward, JS arrays where a tensor is expected; and model.embed of one string, which is
// one text. After each the module keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tensor, loadTokenizer } from 'attention-wasm';
import { library } from './helpers.mjs';
import { loadFixture, S1 } from './fixtures.mjs';

const A = await library();
const fx = await loadFixture('distilbert-f32');

test('loadPretrained of a hub name or a missing folder: only local folders are read, nothing is downloaded', async () => {
  await assert.rejects(A.loadPretrained('distilbert-base-uncased'), {
    name: 'Error',
    code: 'ENOENT',
    message:
      "loadPretrained: there is no folder distilbert-base-uncased: only local folders are read, nothing is downloaded; pass the path of a model folder you have (as save_pretrained() writes it, or downloaded once, e.g. huggingface-cli download NAME --local-dir DIR). Only its tokenizer ships in the package (loadTokenizer('distilbert-base-uncased') needs no folder); the model's weights must be a local copy of its folder",
  });
  // another name: the shipped tokenizers are named as the one exception
  await assert.rejects(A.loadPretrained('sentence-transformers/all-MiniLM-L6-v2'), {
    message:
      /^loadPretrained: there is no folder sentence-transformers\/all-MiniLM-L6-v2: only local folders are read, nothing is downloaded; .*\. The one exception is a tokenizer: loadTokenizer\('bert-base-uncased'\) or loadTokenizer\('distilbert-base-uncased'\) reads a vocabulary shipped in the package$/,
  });
  // loadTokenizer says the same, listing what it ships
  await assert.rejects(loadTokenizer('gpt2'), {
    message:
      /^loadTokenizer: there is no folder gpt2: only local folders are read, nothing is downloaded; .*the vocabularies shipped in the package need no folder: bert-base-uncased, distilbert-base-uncased$/,
  });
  assert.equal((await loadTokenizer('distilbert-base-uncased')).encode('bank').inputIds[1], 2924);
});

test('a model whose folder has no tokenizer: one error naming the files it needs when the tokenizer is used', async () => {
  const { 'tokenizer.json': _json, 'vocab.txt': _vocab, 'tokenizer_config.json': _config, ...weights } = fx.files;
  const model = await A.loadPretrained(weights);
  try {
    assert.equal(model.hasTokenizer, false);
    const message =
      "model.tokenizer: the files given had no tokenizer: add the model's tokenizer.json, or vocab.txt (with tokenizer_config.json), to the folder and load it again, or tokenize with loadTokenizer(...) and pass the ids (model.hasTokenizer says whether there is one)";
    assert.throws(() => model.tokenizer.encode(S1), { name: 'Error', message });
    assert.throws(() => model.embed(['a river bank']), { name: 'Error', message });
    // the weights work with ids from another tokenizer
    const ids = (await loadTokenizer('distilbert-base-uncased')).encode('a river bank').inputIds;
    assert.deepEqual(model.forward(ids).lastHiddenState.shape, [1, ids.length, model.hiddenSize]);
  } finally {
    model.dispose();
  }
  const withTokenizer = await A.loadPretrained(fx.dir);
  assert.equal(withTokenizer.hasTokenizer, true);
  assert.equal(withTokenizer.tokenizer.encode('bank').tokens[1], 'bank');
  withTokenizer.dispose();
});

test('a causal LM whose folder has no tokenizer: lm.tokenizer throws as the encoders do, and generate takes ids', async () => {
  const gpt2 = await loadFixture('gpt2-tiny');
  const {
    'tokenizer.json': _json,
    'tokenizer_config.json': _config,
    'vocab.json': _vocab,
    'merges.txt': _merges,
    ...weights
  } = gpt2.files;
  const lm = await A.loadPretrained(weights);
  try {
    assert.equal(lm.kind, 'causal-lm');
    assert.equal(lm.hasTokenizer, false);
    assert.throws(() => lm.tokenizer.encode('the cat'), {
      name: 'Error',
      message:
        "lm.tokenizer: the files given had no tokenizer: add the model's tokenizer.json to the folder and load it again, or pass token ids (lm.hasTokenizer says whether there is one)",
    });
    assert.throws(() => lm.generate('the cat'), {
      name: 'Error',
      message: 'lm.generate: the model folder had no tokenizer: pass token ids',
    });
    // ids work: each step's token is its id, and there is no text
    const { steps, text } = await lm.generate([1, 2, 3], { maxNewTokens: 2, doSample: false }).all();
    assert.deepEqual(
      steps.map((s) => s.token),
      steps.map((s) => String(s.id)),
    );
    assert.equal(text, '');
  } finally {
    lm.dispose();
  }
  const withTokenizer = await A.loadPretrained(gpt2.dir);
  assert.equal(withTokenizer.hasTokenizer, true);
  assert.equal(withTokenizer.tokenizer.decode(withTokenizer.tokenizer.encode('the cat').inputIds), 'the cat');
  withTokenizer.dispose();
});

test('model.forward of a string points to model.tokenizer.encode', async () => {
  const model = await A.loadPretrained(fx.dir);
  try {
    assert.throws(() => model.forward('a river bank'), {
      name: 'TypeError',
      message:
        'model.forward: input is a string; tokenize it first: model.forward(model.tokenizer.encode(text)), or model.embed(texts) for sentence embeddings',
    });
    assert.throws(() => model.forward(['a river bank']), { name: 'TypeError', message: /inputIds\[0\]\[0\] = string/ });
    // what the message says works, with encode's and encodeBatch's results as they are
    const one = model.forward(model.tokenizer.encode('a river bank')).lastHiddenState;
    const batch = model.forward(model.tokenizer.encodeBatch(['a river bank', 'bank'])).lastHiddenState;
    const first = batch.data.subarray(0, one.size); // the batch's first row is the text alone (to rounding)
    assert.ok(one.data.every((x, i) => Math.abs(x - first[i]) <= 1e-5 * Math.max(1, Math.abs(x))));
  } finally {
    model.dispose();
  }
});

test('nested JS arrays where a tensor is expected point to Tensor.fromArray', () => {
  const x = A.randn(2, 3);
  assert.throws(() => A.matmul([[1, 2, 3]], x), {
    name: 'TypeError',
    message:
      'matmul: input must have Float32Array data, got Array(1), not a tensor: make one from nested arrays with Tensor.fromArray(rows)',
  });
  assert.throws(() => A.softmax({ data: [1, 2], shape: [2] }), {
    name: 'TypeError',
    message:
      'softmax: input must have Float32Array data, got Array(2) with shape [2]: make one from nested arrays with Tensor.fromArray(rows)',
  });
  // a mask: both kinds named
  assert.throws(() => A.scaledDotProductAttention(x, x, x, { attnMask: [[1, 0]] }), {
    name: 'TypeError',
    message:
      'scaledDotProductAttention: attnMask must have Uint8Array (boolean) or Float32Array (additive) data, got Array(1), not a tensor: make one from nested arrays with Tensor.fromArray(rows) (float, added to the scores) or new Tensor(Uint8Array.from(rows.flat()), shape) (boolean)',
  });
  const mha = new A.MultiheadAttention({ embedDim: 4, numHeads: 2 });
  assert.throws(
    () => {
      mha.outProjWeight = [
        [1, 0],
        [0, 1],
      ];
    },
    {
      name: 'TypeError',
      message:
        /^MultiheadAttention\.outProj: weight must have Float32Array data, got Array\(2\), not a tensor: .*Tensor\.fromArray\(rows\)$/,
    },
  );
  // what the message says works
  assert.deepEqual(A.matmul(Tensor.fromArray([[1, 2, 3]]), A.randn(3, 2)).shape, [1, 2]);
});

test('model.embed of one string is one text: [1, hiddenSize], the same as [text]', async () => {
  const model = await A.loadPretrained(fx.dir);
  try {
    const one = model.embed(S1);
    assert.deepEqual(one.shape, [1, model.hiddenSize]);
    assert.deepEqual(Array.from(one.data), Array.from(model.embed([S1]).data));
  } finally {
    model.dispose();
  }
});
