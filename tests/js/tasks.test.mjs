// The task helpers' post-processing (src/js/tasks.js) against the float64 reference written from
// transformers' pipelines (tests/js/reference/heads.mjs), on logits drawn at random and on
// logits built to take each branch (B-/I- grouping, [UNK] words, several masks, answers that
// repeat across windows, spans widened to words). The helpers on real models:
// tests/js/heads.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTokenizer } from 'attention-wasm';
import {
  fillMaskPredictions,
  classificationScores,
  defaultFunction,
  rankLabels,
  labelsOf,
  tokenEntities,
  answerSpans,
} from '../../dist/tasks.js';
import {
  rng,
  referenceFillMask,
  referenceClassify,
  referenceTokenClassification,
  referenceAnswer,
  configNumLabels,
} from './reference/index.mjs';

const bert = await loadTokenizer('bert-base-uncased');
const decode = (ids, skipSpecialTokens) => bert.decode(ids, { skipSpecialTokens });

/** n values drawn in [-scale, scale] from a seeded generator. */
function draw(n, seed, scale = 4) {
  const r = rng(seed);
  return Float64Array.from({ length: n }, () => (r() * 2 - 1) * scale);
}

const close = (a, b, label) => assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${label}: ${a} vs ${b}`);

test('fill-mask: softmax over the vocabulary at each [MASK], top k, the filled text (one mask, several)', () => {
  const V = 30522;
  for (const [text, seed] of [
    ['Write a poem about a man fishing on a river [MASK].', 1],
    ['The [MASK] of France is [MASK].', 2],
    ['[MASK]', 3],
  ]) {
    const ids = bert.encode(text).inputIds;
    const positions = ids.flatMap((id, i) => (id === 103 ? [i] : []));
    const all = draw(ids.length * V, seed, 8);
    const rows = new Float64Array(positions.length * V);
    positions.forEach((p, m) => rows.set(all.subarray(p * V, (p + 1) * V), m * V));
    for (const topK of [1, 5, 12]) {
      const got = fillMaskPredictions({ rows, V, ids, positions, topK, padId: 0, decode });
      let want = referenceFillMask({ logits: all, V, inputIds: ids, maskId: 103, padId: 0, topK, decode });
      if (positions.length === 1) want = [want];
      assert.equal(got.length, want.length);
      got.forEach((mask, m) =>
        mask.forEach((g, k) => {
          const w = want[m][k];
          assert.deepEqual([g.id, g.token, g.sequence], [w.token, w.token_str, w.sequence], `${text} ${m} ${k}`);
          close(g.score, w.score, text);
        }),
      );
    }
  }
  // one mask: the sequence without special tokens; several: with them, the other mask kept
  const one = fillMaskPredictions({
    rows: Float64Array.from({ length: 30522 }, (_, i) => (i === 2314 ? 10 : 0)),
    V: 30522,
    ids: bert.encode('a [MASK] bank').inputIds,
    positions: [2],
    topK: 1,
    padId: 0,
    decode,
  });
  assert.equal(one[0][0].sequence, 'a river bank');
  assert.equal(one[0][0].token, 'river');
});

test('text classification: the default function from problem_type and the labels, softmax / sigmoid / none, top k', () => {
  const configs = [
    { id2label: { 0: 'NEGATIVE', 1: 'POSITIVE' } },
    { id2label: { 0: 'a', 1: 'b', 2: 'c' }, problem_type: 'single_label_classification' },
    { id2label: { 0: 'a', 1: 'b', 2: 'c', 3: 'd' }, problem_type: 'multi_label_classification' },
    { id2label: { 0: 'LABEL_0' } }, // a cross-encoder: sigmoid
    { id2label: { 0: 'score' }, problem_type: 'regression' }, // none
    {}, // no labels: 2, LABEL_0 and LABEL_1, softmax
  ];
  const want = ['softmax', 'softmax', 'sigmoid', 'sigmoid', 'none', 'softmax'];
  configs.forEach((config, c) => {
    const K = configNumLabels(config);
    assert.equal(defaultFunction(config, K), want[c]);
    const labels = labelsOf(config, K);
    const logits = draw(K, 10 + c);
    for (const functionToApply of [undefined, 'softmax', 'sigmoid', 'none']) {
      for (const topK of [1, 2, null, 10]) {
        const got = rankLabels(
          classificationScores(logits, functionToApply ?? defaultFunction(config, K)),
          labels,
          topK,
        );
        const ref = referenceClassify(logits, config, { functionToApply, topK });
        assert.deepEqual(
          got.map((g) => g.label),
          ref.map((r) => r.label),
        );
        got.forEach((g, i) => close(g.score, ref[i].score, `${c} ${functionToApply} ${topK}`));
      }
    }
  });
  assert.deepEqual(labelsOf({}, 2), ['LABEL_0', 'LABEL_1']);
});

/** Logits (L, K) where token t's label is labels[pick[t]] with probability well above the rest. */
function pickLogits(pick, K, seed) {
  const noise = draw(pick.length * K, seed, 0.5);
  pick.forEach((k, t) => (noise[t * K + k] += 5));
  return noise;
}

/** tokenEntities of a text that bert-base-uncased's tokenizer encoded ([UNK] is 100). */
const bertEntities = ({ logits, labels, encoding, text }, aggregation, ignoreLabels) =>
  tokenEntities({
    logits,
    K: labels.length,
    encoding,
    text,
    labels,
    unkId: 100,
    aggregation,
    ignoreLabels,
    tokensToString: (t) => bert.convertTokensToString(t),
  });

test('token classification: every aggregation (B-/I- grouping, words of several tokens, [UNK] words, offsets) as the pipeline', () => {
  const labels = ['O', 'B-MISC', 'I-MISC', 'B-PER', 'I-PER', 'B-ORG', 'I-ORG', 'B-LOC', 'I-LOC'];
  const config = { id2label: Object.fromEntries(labels.map((l, i) => [i, l])) };
  const K = labels.length;
  const text = 'My name is Wolfgang and I live in New York City 😀 now, unaffable Hugging Face';
  const e = bert.encode(text, { returnOffsets: true });
  const L = e.inputIds.length;
  const specialTokensMask = e.sequenceIds.map((s) => (s === null ? 1 : 0));
  // a sequence that takes each branch: B- then I- of one tag (grouped), I- alone (a group), B- after
  // B- (two groups), a tag change, O between, the [UNK] emoji tagged
  // [CLS] my name is wolfgang and i live in new york city [UNK] now , una ##ffa ##ble hugging face [SEP]
  const names = 'O O O O B-PER O I-PER O O B-LOC I-LOC I-LOC B-MISC O O I-ORG I-ORG I-ORG B-ORG B-ORG O'.split(' ');
  assert.equal(names.length, L, e.tokens.join(' '));
  const picked = pickLogits(
    names.map((n) => labels.indexOf(n)),
    K,
    7,
  );
  for (const logits of [picked, draw(L * K, 8), draw(L * K, 9, 1)]) {
    for (const aggregation of ['none', 'simple', 'first', 'average', 'max']) {
      for (const ignoreLabels of [['O'], [], ['O', 'MISC', 'B-MISC']]) {
        const args = {
          logits,
          K,
          sentence: text,
          tokens: e.tokens,
          inputIds: e.inputIds,
          specialTokensMask,
          offsets: e.offsets,
        };
        const want = referenceTokenClassification(
          { ...args, unkId: 100, config, tokensToString: (t) => bert.convertTokensToString(t) },
          { aggregation, ignoreLabels },
        );
        const got = bertEntities({ logits, labels, encoding: e, text }, aggregation, ignoreLabels);
        assert.equal(got.length, want.length);
        got.forEach((g, i) => {
          const w = want[i];
          const { score, ...rest } = g;
          const { score: ws, entity_group: group, ...wrest } = w;
          assert.deepEqual(rest, group === undefined ? wrest : { entityGroup: group, ...wrest }, `${aggregation} ${i}`);
          close(score, ws, aggregation);
        });
        if (logits === picked && aggregation === 'simple' && ignoreLabels.length === 1) {
          assert.deepEqual(
            got.map((g) => [g.entityGroup, g.word, text.slice(g.start, g.end)]),
            [
              ['PER', 'wolfgang', 'Wolfgang'],
              ['PER', 'i', 'I'],
              ['LOC', 'new york city', 'New York City'],
              ['MISC', '😀', '😀'],
              ['ORG', 'unaffable', 'unaffable'],
              ['ORG', 'hugging', 'Hugging'],
              ['ORG', 'face', 'Face'],
            ],
          );
        }
      }
    }
  }
});

test("token classification: 'first', 'average' and 'max' give a word of several tokens one label, each by its rule", () => {
  const labels = ['O', 'B-MISC', 'I-MISC', 'B-PER', 'I-PER', 'B-ORG', 'I-ORG', 'B-LOC', 'I-LOC'];
  const K = labels.length;
  const text = 'unaffable Hugging Face';
  const e = bert.encode(text, { returnOffsets: true });
  assert.deepEqual(e.tokens, ['[CLS]', 'una', '##ffa', '##ble', 'hugging', 'face', '[SEP]']);
  assert.deepEqual(e.wordIds, [null, 0, 0, 0, 1, 2, null]);
  // each token's probabilities (logits = their logs): una's best is B-PER (0.40), ##ffa's B-LOC
  // (0.60, the most confident token), ##ble's B-MISC (0.30); their mean's best is I-ORG
  // ((0.35 + 0.30 + 0.29) / 3 = 0.3133, against B-LOC's 0.2314 and B-PER's 0.1576 with the
  // other labels' shares of what is left)
  const probs = (spec) => {
    const rest = (1 - Object.values(spec).reduce((a, b) => a + b, 0)) / (K - Object.keys(spec).length);
    return labels.map((l) => spec[l] ?? rest);
  };
  const rows = [
    probs({}), // [CLS]
    probs({ 'B-PER': 0.4, 'I-ORG': 0.35 }),
    probs({ 'B-LOC': 0.6, 'I-ORG': 0.3 }),
    probs({ 'B-MISC': 0.3, 'I-ORG': 0.29 }),
    probs({ 'I-ORG': 0.9 }),
    probs({ O: 0.9 }),
    probs({}), // [SEP]
  ];
  const logits = Float64Array.from(rows.flat(), Math.log);
  const run = (aggregation) =>
    bertEntities({ logits, labels, encoding: e, text }, aggregation, ['O']).map((g) => [
      g.entityGroup,
      g.word,
      text.slice(g.start, g.end),
      Number(g.score.toFixed(6)),
    ]);
  const mean = (0.35 + 0.3 + 0.29) / 3;
  // 'first': unaffable is B-PER (0.4); 'max': B-LOC (0.6); either way hugging (I-ORG) is a group of its own
  assert.deepEqual(run('first'), [
    ['PER', 'unaffable', 'unaffable', 0.4],
    ['ORG', 'hugging', 'Hugging', 0.9],
  ]);
  assert.deepEqual(run('max'), [
    ['LOC', 'unaffable', 'unaffable', 0.6],
    ['ORG', 'hugging', 'Hugging', 0.9],
  ]);
  // 'average': unaffable is I-ORG, and hugging (I-ORG) joins it: the group's score is the mean of the words'
  assert.deepEqual(run('average'), [
    ['ORG', 'unaffable hugging', 'unaffable Hugging', Number(((mean + 0.9) / 2).toFixed(6))],
  ]);
  // 'simple' splits the word: una (PER), ##ffa (LOC), ##ble (MISC), then hugging (ORG)
  assert.deepEqual(
    run('simple').map(([group, , under]) => [group, under]),
    [
      ['PER', 'una'],
      ['LOC', 'ffa'],
      ['MISC', 'ble'],
      ['ORG', 'Hugging'],
    ],
  );
});

test('question answering: spans over the context of each window, widened to words, repeated answers summed, top k', () => {
  const question = 'Where does Wolfgang live?';
  const context =
    'My name is Wolfgang and I live in Berlin. Wolfgang lives in Berlin, unaffably, near the river bank. ' +
    'Berlin is the capital of Germany, and it has many museums.';
  for (const [maxLength, stride, seed] of [
    [384, 128, 21],
    [24, 6, 22],
    [20, 3, 23],
    [30, 0, 24],
  ]) {
    const first = bert.encode(question, {
      textPair: context,
      truncation: 'only_second',
      maxLength,
      stride,
      returnOverflowingTokens: true,
      returnOffsets: true,
    });
    const encodings = [first, ...first.overflowing];
    const windows = encodings.map((encoding, n) => {
      const L = encoding.inputIds.length;
      return { encoding, start: draw(L, seed * 10 + n), end: draw(L, seed * 10 + n + 5) };
    });
    for (const topK of [1, 3, 8]) {
      for (const maxAnswerLength of [1, 4, 15]) {
        const got = answerSpans(windows, context, topK, maxAnswerLength);
        const want = referenceAnswer(
          windows.map(({ encoding, start, end }) => ({
            start,
            end,
            pMask: encoding.sequenceIds.map((s, i) => (s === 1 || encoding.inputIds[i] === 101 ? 0 : 1)),
            offsets: encoding.offsets,
            wordIds: encoding.wordIds,
            sequenceIds: encoding.sequenceIds,
          })),
          context,
          { topK, maxAnswerLength },
        );
        const label = `${maxLength}/${stride} top ${topK} max ${maxAnswerLength}`;
        assert.deepEqual(
          got.map(({ answer, start, end }) => [answer, start, end]),
          want.map(({ answer, start, end }) => [answer, start, end]),
          label,
        );
        got.forEach((g, i) => close(g.score, want[i].score, label));
        for (const g of got) assert.equal(context.slice(g.start, g.end), g.answer);
      }
    }
  }
});

test('question answering: an answer found in two windows adds its scores; a span inside a word is widened to it', () => {
  const question = 'Where does Wolfgang live?';
  const context =
    'My name is Wolfgang and I live in Berlin. Wolfgang lives in Berlin, unaffably, near the river bank. ' +
    'Berlin is the capital of Germany, and it has many museums.';
  const first = bert.encode(question, {
    textPair: context,
    truncation: 'only_second',
    maxLength: 24,
    stride: 6,
    returnOverflowingTokens: true,
    returnOffsets: true,
  });
  const encodings = [first, ...first.overflowing];
  // every window: start and end on its first 'berlin'
  const berlin = encodings.map((encoding) => {
    const L = encoding.inputIds.length;
    const start = new Float64Array(L),
      end = new Float64Array(L);
    const at = encoding.tokens.indexOf('berlin');
    if (at > 6) start[at] = end[at] = 6;
    return { encoding, start, end };
  });
  // the second window: start and end on '##ffa', inside 'unaffably'
  const inside = [berlin[1]].map(({ encoding }) => {
    const L = encoding.inputIds.length;
    const start = new Float64Array(L),
      end = new Float64Array(L);
    const at = encoding.tokens.indexOf('##ffa');
    start[at] = end[at] = 6;
    return { encoding, start, end };
  });
  const asReference = (windows) =>
    windows.map(({ encoding, start, end }) => ({
      start,
      end,
      pMask: encoding.sequenceIds.map((s, i) => (s === 1 || encoding.inputIds[i] === 101 ? 0 : 1)),
      offsets: encoding.offsets,
      wordIds: encoding.wordIds,
      sequenceIds: encoding.sequenceIds,
    }));
  for (const [windows, answer] of [
    [berlin, 'Berlin'],
    [inside, 'unaffably'],
  ]) {
    const got = answerSpans(windows, context, 3, 15);
    const want = referenceAnswer(asReference(windows), context, { topK: 3, maxAnswerLength: 15 });
    assert.equal(got[0].answer, answer);
    assert.deepEqual(
      got.map((g) => [g.answer, g.start, g.end]),
      want.map((w) => [w.answer, w.start, w.end]),
    );
    got.forEach((g, i) => close(g.score, want[i].score, g.answer));
  }
  // 'Berlin' is the best span of three windows: its score is the sum of theirs
  const sum = berlin.slice(0, 3).reduce((total, w) => total + answerSpans([w], context, 1, 15)[0].score, 0);
  close(answerSpans(berlin, context, 1, 15)[0].score, sum, 'summed');
});
