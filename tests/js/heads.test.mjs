// The task heads of DistilBERT and BERT checkpoints (issue 20) on the tiny fixtures of
// scripts/make-fixtures.mjs, each with the hub's tensor names and config: the head chosen from
// config.json's architectures[0], its logits through the padded-batch forward, and every helper
// (fillMask, classify, rerank, tagTokens, answer) against the float64 reference written from
// transformers' modeling files and pipelines (tests/js/reference/heads.mjs), to 1e-5; the base
// model on the same files; bad inputs, each a clear Error with the module still working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { library } from './helpers.mjs';
import { FIXTURES, loadFixture } from './fixtures.mjs';
import {
  assertClose,
  referenceEncoder,
  referenceHead,
  referenceFillMask,
  referenceClassify,
  referenceTokenClassification,
  referenceAnswer,
  referenceAnswerWindows,
} from './reference/index.mjs';

const A = await library();
/** 1e-5 relative to max(1, |x|). */
const near = (got, want, label) => assertClose(got, want, { rel: 1e-5, abs: 0, floor: 1 }, label);
const HEADS = Object.keys(FIXTURES).filter((n) => FIXTURES[n].head && FIXTURES[n].vocab === 'small');

/** The head's outputs of model.forward. */
const headOutputs = (model, input) => model.forward(input, { outputLogits: true });

/** A fixture's input rows (a padded batch) from the model's tokenizer. */
function batchOf(model, rows) {
  const b = model.tokenizer.encodeBatch(rows);
  const input = { inputIds: b.inputIds, attentionMask: b.attentionMask };
  if (b.tokenTypeIds) input.tokenTypeIds = b.tokenTypeIds;
  return input;
}

const TEXTS = ['My name is Wolfgang and I live in Berlin.', 'the river bank', 'I love this movie!'];
const PAIRS = [
  ['A man is playing a guitar.', 'A person plays music.'],
  ['how many people live in berlin?', 'Berlin has a population of three million people.'],
];

test('the head comes from architectures[0]: each fixture loads its head, labels and vocabulary size', async () => {
  const want = {
    'distilbert-f32': ['masked-lm', null],
    'bert-f32': ['masked-lm', null], // BertForPreTraining: its masked-LM half
    'distilbert-mlm': ['masked-lm', null],
    'distilbert-seq': ['sequence-classification', ['NEGATIVE', 'POSITIVE']],
    'distilbert-tok': ['token-classification', ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC']],
    'distilbert-qa': ['question-answering', null],
    'bert-mlm': ['masked-lm', null],
    'bert-seq': ['sequence-classification', ['contradiction', 'entailment', 'neutral']],
    'bert-multilabel': ['sequence-classification', ['toxic', 'obscene', 'insult', 'threat']],
    'bert-rerank': ['sequence-classification', ['LABEL_0']],
    'bert-tok': ['token-classification', FIXTURES['bert-tok'].labels],
    'bert-qa': ['question-answering', null],
    'distilbert-f16': [null, null],
    'bert-bf16': [null, null],
  };
  for (const [name, [head, labels]] of Object.entries(want)) {
    const fx = await loadFixture(name);
    const model = await A.loadPretrained(fx.dir);
    assert.equal(model.head, head, name);
    assert.deepEqual(model.labels, labels, name);
    assert.equal(model.vocabSize, fx.config.vocab_size);
    // every tensor of the file is read but those of heads not loaded (and buffers)
    const unread = name === 'bert-f32' ? ['cls.seq_relationship.bias', 'cls.seq_relationship.weight'] : [];
    if (fx.spec.positionIds) unread.push('embeddings.position_ids');
    assert.deepEqual(model.ignoredTensors.sort(), unread, name);
    model.dispose();
    // head: 'none' reads the base model alone, as AutoModel; its outputs are the same
    const base = await A.loadPretrained(fx.dir, { head: 'none' });
    assert.equal(base.head, null);
    if (head) assert.ok(base.ignoredTensors.length > 0, `${name}: the head's tensors are not read`);
    base.dispose();
  }
});

for (const name of HEADS) {
  test(`${name}: the head's logits through the padded batch match the float64 reference`, async () => {
    const fx = await loadFixture(name);
    const model = await A.loadPretrained(fx.dir);
    const ref = { arch: fx.spec.arch, config: fx.config, weights: fx.weights };
    try {
      const rows = fx.spec.head === 'sequence-classification' && fx.spec.arch === 'bert' ? [...TEXTS, ...PAIRS] : TEXTS;
      const input = batchOf(model, rows);
      const out = headOutputs(model, input);
      const want = referenceHead(ref, input, model.head);
      const [N, L] = [input.inputIds.length, input.inputIds[0].length];
      // the base outputs as before
      near(out.lastHiddenState.data, want.encoder.lastHiddenState, `${name}: lastHiddenState`);
      /** The rows of a (N, L, ...) output at the positions that are tokens (padding is not compared). */
      const tokensOf = (data, width) =>
        Array.from({ length: N * L }, (_, i) => i).flatMap((i) =>
          input.attentionMask[Math.floor(i / L)][i % L] ? Array.from(data.slice(i * width, (i + 1) * width)) : [],
        );
      // the logits graded by the size of the terms their last layer sums (mag), the one tolerance rule
      const withMag = (data, mag, width) =>
        width ? { data: tokensOf(data, width), mag: tokensOf(mag, width) } : { data, mag };
      if (model.head === 'question-answering') {
        assert.deepEqual(out.startLogits.shape, [N, L]);
        near(tokensOf(out.startLogits.data, 1), withMag(want.startLogits, want.startMag, 1), `${name}: startLogits`);
        near(tokensOf(out.endLogits.data, 1), withMag(want.endLogits, want.endMag, 1), `${name}: endLogits`);
      } else {
        assert.deepEqual(out.logits.shape, want.logitsShape);
        if (model.head === 'sequence-classification')
          near(out.logits.data, withMag(want.logits, want.logitsMag), `${name}: logits`);
        else {
          const width = want.logitsShape[2];
          near(tokensOf(out.logits.data, width), withMag(want.logits, want.logitsMag, width), `${name}: logits`);
        }
      }
      // one text alone gives its row of the batch
      const one = headOutputs(model, batchOf(model, [rows[1]]));
      const mine = model.head === 'question-answering' ? one.startLogits : one.logits;
      const wantOne = referenceHead(ref, batchOf(model, [rows[1]]), model.head);
      near(
        mine.data,
        model.head === 'question-answering'
          ? { data: wantOne.startLogits, mag: wantOne.startMag }
          : { data: wantOne.logits, mag: wantOne.logitsMag },
        `${name}: one row`,
      );
      // without outputLogits, the base model's outputs only
      assert.equal(model.forward(input).logits, undefined);
    } finally {
      model.dispose();
    }
  });
}

/** The reference's logits of one encoded text (batch of 1), as the pipelines run it. */
function referenceOf(fx, model, encoding) {
  const input = { inputIds: [encoding.inputIds] };
  if (encoding.tokenTypeIds) input.tokenTypeIds = [encoding.tokenTypeIds];
  return referenceHead({ arch: fx.spec.arch, config: fx.config, weights: fx.weights }, input, model.head);
}

const closeScores = (got, want, label) =>
  near(
    got.map((g) => g.score),
    want.map((w) => w.score),
    label,
  );

for (const name of ['distilbert-mlm', 'bert-mlm', 'distilbert-f32']) {
  test(`${name}: fillMask = the fill-mask pipeline over the reference's logits (one mask, several)`, async () => {
    const fx = await loadFixture(name);
    const model = await A.loadPretrained(fx.dir);
    const tok = model.tokenizer;
    const decode = (ids, skip) => tok.decode(ids, { skipSpecialTokens: skip });
    for (const text of [
      'Write a poem about a man fishing on a river [MASK].',
      'The [MASK] of France is [MASK].',
      '[MASK]',
    ]) {
      const encoding = tok.encode(text);
      const want = referenceFillMask({
        logits: referenceOf(fx, model, encoding).logits,
        V: model.vocabSize,
        inputIds: encoding.inputIds,
        maskId: tok.tokenToId('[MASK]'),
        padId: tok.padId,
        topK: 5,
        decode,
      });
      const got = model.fillMask(text);
      const lists = text.split('[MASK]').length === 2 ? [[got, want]] : got.map((g, m) => [g, want[m]]);
      for (const [g, w] of lists) {
        assert.deepEqual(
          g.map((p) => [p.id, p.token, p.sequence]),
          w.map((p) => [p.token, p.token_str, p.sequence]),
          `${name}: ${text}`,
        );
        closeScores(g, w, `${name}: ${text}`);
      }
      assert.equal(model.fillMask(text, { topK: 2 }).flat().length, 2 * (text.split('[MASK]').length - 1));
    }
    model.dispose();
  });
}

for (const name of ['distilbert-seq', 'bert-seq', 'bert-multilabel', 'bert-rerank']) {
  test(`${name}: classify = the text-classification pipeline (its default function, topK, pairs, a batch)`, async () => {
    const fx = await loadFixture(name);
    const model = await A.loadPretrained(fx.dir);
    const tok = model.tokenizer;
    const inputs = fx.spec.arch === 'bert' ? [...TEXTS, ...PAIRS] : TEXTS;
    const logitsOf = (x) =>
      referenceOf(fx, model, typeof x === 'string' ? tok.encode(x) : tok.encode(x[0], { textPair: x[1] })).logits;
    for (const options of [
      {},
      { topK: null },
      { topK: 2 },
      { functionToApply: 'none', topK: null },
      { functionToApply: 'sigmoid' },
    ]) {
      const got = model.classify(inputs, options);
      assert.equal(got.length, inputs.length);
      inputs.forEach((x, i) => {
        const want = referenceClassify(logitsOf(x), fx.config, options);
        assert.deepEqual(
          got[i].map((g) => g.label),
          want.map((w) => w.label),
          `${name} ${JSON.stringify(options)} ${i}`,
        );
        closeScores(got[i], want, `${name} ${JSON.stringify(options)} ${i}`);
      });
      // one input: its list (to float32 noise: no padding); a pair as { text, textPair }
      const same = (one, row, label) => {
        assert.deepEqual(
          one.map((x) => x.label),
          row.map((x) => x.label),
          label,
        );
        closeScores(one, row, label);
      };
      same(model.classify(inputs[0], options), got[0], `${name}: one input`);
      if (Array.isArray(inputs.at(-1))) {
        const [text, textPair] = inputs.at(-1);
        same(model.classify({ text, textPair }, options), got.at(-1), `${name}: one pair`);
      }
      // batches of 2 give the same (to float32 noise: other padding)
      near(
        model.classify(inputs, { ...options, batchSize: 2 }).flatMap((r) => r.map((x) => x.score)),
        got.flatMap((r) => r.map((x) => x.score)),
        `${name}: batchSize 2`,
      );
    }
    model.dispose();
  });
}

test("rerank: a one-label cross-encoder scores (query, passage) pairs with CrossEncoder's activation, best first", async () => {
  const fx = await loadFixture('bert-rerank');
  const model = await A.loadPretrained(fx.dir);
  const tok = model.tokenizer;
  const query = 'how many people live in berlin?';
  const passages = [
    'Berlin has a population of three million people.',
    'New York City is famous for the Metropolitan Museum of Art.',
    'the river bank',
    'Paris is the capital of France.',
  ];
  const want = passages
    .map((p, index) => ({
      index,
      text: p,
      score: referenceClassify(
        referenceOf(fx, model, tok.encode(query, { textPair: p, truncation: true })).logits,
        fx.config,
      )[0].score,
    }))
    .sort((a, b) => b.score - a.score);
  const got = model.rerank(query, passages);
  assert.deepEqual(
    got.map((r) => [r.index, r.text]),
    want.map((r) => [r.index, r.text]),
  );
  closeScores(got, want, 'rerank');
  assert.deepEqual(
    model.rerank(query, passages, { topK: 2 }).map((r) => r.index),
    want.slice(0, 2).map((r) => r.index),
  );
  // CrossEncoder's activation: config.json's sentence_transformers.activation_fn, else
  // sbert_ce_default_activation_function (ms-marco-MiniLM's: Identity), else Sigmoid;
  // problem_type is not read
  const logits = passages.map(
    (p) => referenceOf(fx, model, tok.encode(query, { textPair: p, truncation: true })).logits[0],
  );
  const byLogit = logits.slice().sort((a, b) => b - a);
  const sigmoid = (x) => 1 / (1 + Math.exp(-x));
  for (const [extra, scores, label] of [
    [{ sbert_ce_default_activation_function: 'torch.nn.modules.linear.Identity' }, byLogit, 'Identity: the logits'],
    [
      {
        sbert_ce_default_activation_function: 'torch.nn.modules.linear.Identity',
        sentence_transformers: { activation_fn: 'torch.nn.modules.activation.Tanh' },
      },
      byLogit.map(Math.tanh),
      'activation_fn first: Tanh',
    ],
    [{ problem_type: 'regression' }, byLogit.map(sigmoid), 'problem_type is not read: Sigmoid'],
  ]) {
    const variant = await A.loadPretrained({
      ...fx.files,
      'config.json': new TextEncoder().encode(JSON.stringify({ ...fx.config, ...extra })),
    });
    near(
      variant.rerank(query, passages).map((r) => r.score),
      scores,
      label,
    );
    variant.dispose();
  }
  const unknown = await A.loadPretrained({
    ...fx.files,
    'config.json': new TextEncoder().encode(
      JSON.stringify({ ...fx.config, sbert_ce_default_activation_function: 'torch.nn.modules.activation.Softsign' }),
    ),
  });
  assert.throws(() => unknown.rerank(query, passages), {
    name: 'Error',
    message:
      /^model\.rerank: .*: config\.json's sbert_ce_default_activation_function "torch\.nn\.modules\.activation\.Softsign" is not supported \(supported: torch\.nn\.modules\.activation\.Sigmoid, torch\.nn\.modules\.linear\.Identity, torch\.nn\.modules\.activation\.Tanh\)$/,
  });
  unknown.dispose();
  model.dispose();
});

for (const name of ['distilbert-tok', 'bert-tok']) {
  test(`${name}: tagTokens = the token-classification pipeline (every aggregation, subwords, offsets, [UNK])`, async () => {
    const fx = await loadFixture(name);
    const model = await A.loadPretrained(fx.dir);
    const tok = model.tokenizer;
    for (const text of [
      'My name is Wolfgang and I live in Berlin.',
      'Hugging Face Inc. is a company based in New York City 😀.',
      'a '.repeat(60), // longer than the model's 40 positions: cut, as the pipeline does
    ]) {
      const encoding = tok.encode(text, { truncation: true, returnOffsets: true });
      const logits = referenceOf(fx, model, encoding).logits;
      // the small vocabulary splits 'wolfgang' and 'hugging' into '##' pieces: words of several tokens
      if (text.startsWith('My') || text.startsWith('Hugging'))
        assert.ok(
          encoding.wordIds.some((w, t) => w !== null && w === encoding.wordIds[t - 1]),
          encoding.tokens.join(' '),
        );
      const words = new Set(encoding.wordIds.filter((w) => w !== null)).size;
      for (const aggregation of ['none', 'simple', 'first', 'average', 'max']) {
        const want = referenceTokenClassification(
          {
            logits,
            K: model.labels.length,
            sentence: text,
            tokens: encoding.tokens,
            inputIds: encoding.inputIds,
            specialTokensMask: encoding.sequenceIds.map((s) => (s === null ? 1 : 0)),
            offsets: encoding.offsets,
            unkId: tok.unkId,
            config: fx.config,
            tokensToString: (t) => tok.convertTokensToString(t),
          },
          { aggregation },
        );
        const got = model.tagTokens(text, { aggregation });
        const strip = (e) => {
          const { score, entity_group: group, ...rest } = e;
          return group === undefined ? rest : { entityGroup: group, ...rest };
        };
        assert.deepEqual(
          got.map(({ score, ...rest }) => rest),
          want.map(strip),
          `${name} ${aggregation}: ${text}`,
        );
        closeScores(got, want, `${name} ${aggregation}`);
        for (const e of got) assert.ok(e.start <= e.end && e.end <= text.length);
        if (['first', 'average', 'max'].includes(aggregation)) {
          // a word is never split: every entity starts and ends on the tokenizer's word boundaries
          const all = model.tagTokens(text, { aggregation, ignoreLabels: [] });
          const starts = new Set(
            encoding.offsets.filter((_, t) => encoding.wordIds[t] !== encoding.wordIds[t - 1]).map(([a]) => a),
          );
          for (const e of all) assert.ok(starts.has(e.start), `${aggregation}: ${e.word} starts inside a word`);
          assert.ok(all.length <= words);
          // and together the entities hold every token of the text once, in order
          const pieces = encoding.tokens.map((t, i) =>
            encoding.sequenceIds[i] === null
              ? ''
              : encoding.inputIds[i] === tok.unkId
                ? text.slice(...encoding.offsets[i])
                : t.replace(/^##/, ''),
          );
          assert.equal(all.map((e) => e.word.replace(/ /g, '')).join(''), pieces.join(''));
        }
      }
      assert.ok(model.tagTokens(text, { ignoreLabels: [] }).length >= encoding.inputIds.length - 2);
    }
    model.dispose();
  });
}

for (const name of ['distilbert-qa', 'bert-qa']) {
  test(`${name}: answer = the question-answering pipeline (windows, spans widened to words, top k)`, async () => {
    const fx = await loadFixture(name);
    const model = await A.loadPretrained(fx.dir);
    const tok = model.tokenizer;
    const context =
      'My name is Wolfgang and I live in Berlin. Wolfgang lives in Berlin, unaffably, near the river bank. ' +
      'Berlin is the capital of Germany, and it has many museums.';
    for (const [question, options] of [
      ['Where does Wolfgang live?', {}],
      ['Where does Wolfgang live?', { topK: 3 }],
      ['What is the capital?', { topK: 5, maxAnswerLength: 3 }],
      ['Where?', { topK: 2, docStride: 0 }],
      ['Where?', { topK: 2, maxSeqLength: 24, docStride: 5 }],
      // the windows in batches of one and of three give the answers of one batch
      ['Where?', { topK: 2, maxSeqLength: 24, docStride: 5, batchSize: 1 }],
      ['Where does Wolfgang live?', { topK: 3, maxSeqLength: 20, docStride: 4, batchSize: 3 }],
    ]) {
      const { encodings, windows } = referenceAnswerWindows(tok, question, context, options, (e) =>
        referenceOf(fx, model, e),
      );
      assert.ok(encodings.length > 1, 'the context takes several windows');
      const want = referenceAnswer(windows, context, {
        topK: options.topK ?? 1,
        maxAnswerLength: options.maxAnswerLength ?? 15,
      });
      const got = model.answer(question, context, options);
      const list = options.topK === undefined ? [got] : got;
      assert.deepEqual(
        list.map(({ answer, start, end }) => [answer, start, end]),
        want.map(({ answer, start, end }) => [answer, start, end]),
        `${name}: ${question} ${JSON.stringify(options)}`,
      );
      closeScores(list, want, `${name}: ${question}`);
      for (const a of list) assert.equal(context.slice(a.start, a.end), a.answer);
    }
    model.dispose();
  });
}

test("answer: a long context's windows run batchSize at a time, so its memory does not grow with the context", async () => {
  // an instance of its own: its heap is this test's alone
  const B = await init();
  const model = await B.loadPretrained((await loadFixture('distilbert-qa')).dir);
  const words = 'the man lives in berlin and the woman lives in paris with many people of the city'.split(' ');
  const context = Array.from({ length: 8000 }, (_, i) => words[i % words.length]).join(' ');
  const heap = B.memoryStats().heapBytes;
  const best = model.answer('where does the man live?', context);
  assert.equal(context.slice(best.start, best.end), best.answer);
  // all ~1300 windows in one batch grew the heap from 16 to 28 MiB
  assert.ok(B.memoryStats().heapBytes - heap <= 4 * 2 ** 20, `heap ${heap} -> ${B.memoryStats().heapBytes}`);
  assert.deepEqual(model.answer('where does the man live?', context, { batchSize: 64 }), best);
  assert.throws(() => model.answer('where?', 'a bank', { batchSize: 0 }), {
    name: 'RangeError',
    message: 'model.answer: batchSize must be a positive integer, got 0',
  });
  model.dispose();
});

test('bad inputs: each a clear Error naming the argument, the module still working', async () => {
  const baseline = A.memoryStats().allocatedBytes;
  const mlm = await A.loadPretrained((await loadFixture('distilbert-mlm')).dir);
  const seq = await A.loadPretrained((await loadFixture('bert-seq')).dir);
  const qa = await A.loadPretrained((await loadFixture('distilbert-qa')).dir);
  const tok = await A.loadPretrained((await loadFixture('bert-tok')).dir);
  const works = (label) => assert.equal(mlm.fillMask('a [MASK] bank', { topK: 1 }).length, 1, `${label}: works on`);

  assert.throws(() => mlm.fillMask('a river bank'), {
    name: 'Error',
    message: 'model.fillMask: the text has no [MASK] token (put [MASK] where a token is to be predicted)',
  });
  works('no mask');
  assert.throws(() => mlm.fillMask('a [MASK]', { topK: 0 }), {
    name: 'RangeError',
    message: /topK must be a positive integer, got 0/,
  });
  assert.throws(() => mlm.fillMask('a [MASK]', { topK: 1e6 }), {
    name: 'RangeError',
    message: /more than the vocabulary's/,
  });
  assert.throws(() => mlm.fillMask(3), {
    name: 'TypeError',
    message: 'model.fillMask: text must be a string, got number',
  });
  assert.throws(() => mlm.fillMask('a [MASK] '.repeat(30)), {
    name: 'RangeError',
    message: /^model\.fillMask: the text has \d+ tokens, more than the model's maximum of 40/,
  });
  // the hint's option is fillMask's own: truncation keeps the first 40 tokens (their masks)
  const cut = mlm.fillMask('a [MASK] '.repeat(30), { truncation: true, topK: 1 });
  assert.equal(cut.length, 19, 'the masks among the first 40 tokens ([CLS] + 19 x "a [MASK]" + [SEP])');
  assert.throws(() => mlm.fillMask('a river '.repeat(30) + '[MASK]', { truncation: true }), {
    name: 'Error',
    message: /^model\.fillMask: the text has no \[MASK\] token left after truncation to 40 tokens/,
  });
  // a batch's errors name the element by its index in the whole batch, as the caller's argument
  const inputs = Array.from({ length: 40 }, (_, i) => (i === 35 ? 'word '.repeat(60) : 'short text'));
  for (const batchSize of [undefined, 4])
    assert.throws(() => seq.classify(inputs, { batchSize }), {
      name: 'RangeError',
      message: /^model\.classify: input\[35\]: the text has \d+ tokens, more than the model's maximum of 40/,
    });
  const embedTexts = Array.from({ length: 40 }, (_, i) => (i === 35 ? 'a '.repeat(50) : 'a'));
  assert.throws(() => seq.embed(embedTexts, { batchSize: 8 }), {
    name: 'RangeError',
    message: /^model\.embed: texts\[35\]: the text has 52 tokens, more than the model's maximum of 40/,
  });
  // a helper on a model without its head
  assert.throws(() => mlm.classify('a'), {
    name: 'Error',
    message:
      "model.classify needs a model with the 'sequence-classification' head (config.json's architectures[0] a ...ForSequenceClassification); its head is 'masked-lm'",
  });
  assert.throws(() => seq.answer('q', 'c'), {
    message: /model\.answer needs a model with the 'question-answering' head/,
  });
  assert.throws(() => seq.tagTokens('q'), {
    message: /model\.tagTokens needs a model with the 'token-classification' head/,
  });
  assert.throws(() => qa.fillMask('[MASK]'), { message: /model\.fillMask needs a model with the 'masked-lm' head/ });
  assert.throws(() => seq.rerank('q', ['p']), {
    message:
      /model\.rerank needs a cross-encoder with one output; config\.json has 3 labels \(contradiction, entailment, neutral\)/,
  });
  works('wrong head');
  // a pair longer than the maximum with truncation off (the default), and on
  const long = 'the river bank '.repeat(20);
  assert.throws(() => seq.classify({ text: 'a man', textPair: long }), {
    name: 'RangeError',
    message:
      /^model\.classify: (texts\[0\]: )?the pair has \d+ tokens, more than the model's maximum of 40 \(pass \{ truncation: true \}/,
  });
  assert.throws(
    () =>
      seq.classify([
        ['a', 'b'],
        ['a man', long],
      ]),
    { name: 'RangeError', message: /^model\.classify: input\[1\]: the pair has/ },
  );
  assert.equal(seq.classify({ text: 'a man', textPair: long }, { truncation: true }).length, 1);
  assert.throws(() => seq.classify('a', { functionToApply: 'relu' }), {
    name: 'TypeError',
    message: "model.classify: functionToApply must be 'softmax', 'sigmoid' or 'none', got 'relu'",
  });
  assert.throws(() => seq.classify([]), { name: 'TypeError', message: 'model.classify: input is an empty array' });
  assert.throws(() => seq.classify([['a', 'b', 'c']]), {
    name: 'TypeError',
    message: /input\[0\] must be a text, a pair/,
  });
  assert.throws(() => seq.classify({ text: 'a', pair: 'b' }), {
    name: 'TypeError',
    message: /input must be a text, a pair/,
  });
  // a question-answering context that leaves no room beside the question
  const question = 'where does the man who lives by the river bank fish in the river today?';
  assert.throws(() => qa.answer(question, 'a man fishing on a river bank. '.repeat(10)), {
    name: 'RangeError',
    message:
      /^model\.answer: the question's \d+ tokens leave \d+ tokens for the context in windows of maxSeqLength 40 \(with 3 special tokens\), and a window must hold more than docStride 20/,
  });
  assert.throws(() => qa.answer('where?', 'a bank', { docStride: 50 }), {
    name: 'RangeError',
    message: /docStride 50 is more than maxSeqLength 40/,
  });
  assert.throws(() => qa.answer('where?', 'a bank', { maxSeqLength: 100 }), {
    name: 'RangeError',
    message: /more than the model's maximum of 40/,
  });
  assert.throws(() => qa.answer('', 'a bank'), {
    name: 'RangeError',
    message: 'model.answer: the question has no tokens (an empty string)',
  });
  assert.throws(() => qa.answer('where?', 'a bank', { max_answer_len: 3 }), {
    name: 'TypeError',
    message: /unknown option 'max_answer_len'/,
  });
  assert.throws(() => tok.tagTokens('x', { aggregation: 'FIRST' }), {
    name: 'RangeError',
    message: "model.tagTokens: aggregation must be 'none', 'simple', 'first', 'average' or 'max', got 'FIRST'",
  });
  assert.throws(() => tok.tagTokens('x', { aggregation: 1 }), {
    name: 'TypeError',
    message: /^model\.tagTokens: aggregation must be 'none', 'simple', 'first', 'average' or 'max', got /,
  });
  works('bad arguments');
  // an unknown head; a head whose tensors the file lacks
  const base = await loadFixture('distilbert-f16');
  await assert.rejects(A.loadPretrained(base.dir, { head: 'summarization' }), {
    name: 'TypeError',
    message:
      "loadPretrained: head must be 'auto', 'none', 'masked-lm', 'sequence-classification', 'token-classification' or 'question-answering', got 'summarization'",
  });
  // null is not a spelling of 'auto' (a model's head is null when it has none)
  await assert.rejects(A.loadPretrained(base.dir, { head: null }), {
    name: 'TypeError',
    message: /^loadPretrained: head must be 'auto', .* got null$/,
  });
  await assert.rejects(A.loadPretrained(base.dir, { head: 'sequence-classification' }), {
    message: /model\.safetensors: tensor 'pre_classifier\.weight' is missing/,
  });
  const relabelled = {
    ...base.files,
    'config.json': new TextEncoder().encode(
      JSON.stringify({ ...base.config, architectures: ['DistilBertForTokenClassification'] }),
    ),
  };
  await assert.rejects(A.loadPretrained(relabelled), { message: /tensor 'classifier\.weight' is missing/ });
  const headless = await A.loadPretrained(relabelled, { head: 'none' });
  assert.equal(headless.head, null);
  assert.throws(() => headless.forward([2, 3], { outputLogits: true }), {
    name: 'Error',
    message:
      "model.forward: outputLogits needs a task head; the model was loaded without one (config.json's architectures[0] is 'DistilBertForTokenClassification')",
  });
  assert.equal(headless.forward([2, 3]).lastHiddenState.shape[1], 2);
  headless.dispose();
  works('bad folders');
  for (const m of [mlm, seq, qa, tok]) m.dispose();
  await new Promise((r) => setTimeout(r, 0));
  assert.ok(A.memoryStats().allocatedBytes <= baseline + 64 * 1024, 'the models are freed');
});

test("empty texts as transformers' pipelines take them: an empty second text is no pair in classify, a pair in rerank; answer's context of spaces has no answer", async () => {
  const seq = await A.loadPretrained((await loadFixture('bert-seq')).dir);
  // the text-classification pipeline tokenizes each input alone: tokenizer('the river bank', '')
  assert.deepEqual(seq.classify({ text: 'the river bank', textPair: '' }), seq.classify('the river bank'));
  const rerank = await A.loadPretrained((await loadFixture('bert-rerank')).dir);
  // CrossEncoder tokenizes its pairs in one call: ('q', '') is [CLS] q [SEP] [SEP]
  const fx = await loadFixture('bert-rerank');
  const [{ score }] = rerank.rerank('the river bank', ['']);
  const encoding = rerank.tokenizer.encodeBatch([['the river bank', '']]);
  assert.deepEqual(encoding.tokens[0].slice(-2), ['[SEP]', '[SEP]']);
  const one = { inputIds: encoding.inputIds[0], tokenTypeIds: encoding.tokenTypeIds[0] };
  const want = referenceClassify(referenceOf(fx, rerank, one).logits, fx.config)[0].score;
  assert.ok(Math.abs(score - want) <= 1e-5 * Math.max(1, Math.abs(want)), `${score} vs ${want}`);
  const qa = await A.loadPretrained((await loadFixture('distilbert-qa')).dir);
  assert.equal(qa.answer('where?', '   '), null);
  assert.deepEqual(qa.answer('where?', '   ', { topK: 2 }), []);
  assert.equal(typeof qa.answer('   ', 'a man fishing by the river bank').answer, 'string'); // a question of spaces runs
  for (const m of [seq, rerank, qa]) m.dispose();
});
