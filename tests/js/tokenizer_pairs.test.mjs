// Sentence pairs (issue 20): tokenizer.encode(text, { textPair, truncation, maxLength,
// returnOffsets }) and batches of pairs, against transformers' rules:
//   - the template: [CLS] A [SEP] B [SEP], token types 0 for [CLS] A [SEP] and 1 for B [SEP]
//     (BertConverter's TemplateProcessing, convert_slow_tokenizer.py);
//   - truncation as Hugging Face's tokenizers do it (tokenizers/src/utils/truncation.rs,
//     truncate_encodings, applied to max_length less the special tokens): 'longest_first' by
//     default, 'only_first', 'only_second', an error when the text to cut is too short; the
//     length table of that file's own tests, and texts of known lengths that force each branch;
//   - offsets as return_offsets_mapping gives them: per text, (0, 0) for special tokens; word ids
//     as word_ids() gives them;
//   - windows over a long text (return_overflowing_tokens with a stride, the question-answering
//     pipeline's doc_stride) as tokenizers' Encoding::truncate makes them, against the reference
//     written from it (tests/js/reference/heads.mjs, referenceContextWindows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTokenizer } from 'attention-wasm';
import { truncatedLengths } from '../../dist/tokenizer.js';
import { pipelineJson, asFile } from './fixtures/pipelines.mjs';
import { referenceContextWindows } from './reference/index.mjs';

const bert = await loadTokenizer('bert-base-uncased');
const distil = await loadTokenizer('distilbert-base-uncased');
/** n one-token words of the bert-base-uncased vocabulary: 'a b c ...'. */
const words = (n, from = 0) =>
  Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((from + i) % 26))).join(' ');

test("tokenizer('Question?', 'Answer'): [CLS] question ? [SEP] answer [SEP], token types 0 0 0 0 1 1", () => {
  const e = bert.encode('Question?', { textPair: 'Answer' });
  assert.deepEqual(e.inputIds, [101, 3160, 1029, 102, 3437, 102]);
  assert.deepEqual(e.tokens, ['[CLS]', 'question', '?', '[SEP]', 'answer', '[SEP]']);
  assert.deepEqual(e.tokenTypeIds, [0, 0, 0, 0, 1, 1]);
  assert.deepEqual(e.attentionMask, [1, 1, 1, 1, 1, 1]);
  assert.equal(bert.pairSpecialTokenCount, 3);
  assert.equal(bert.specialTokenCount, 2);
  // DistilBERT: the same ids, no token types (DistilBertTokenizer.model_input_names)
  const d = distil.encode('Question?', { textPair: 'Answer' });
  assert.deepEqual(d.inputIds, e.inputIds);
  assert.equal(d.tokenTypeIds, undefined);
  // one text as before
  assert.deepEqual(bert.encode('Question?').inputIds, [101, 3160, 1029, 102]);
  assert.deepEqual(bert.encode('Question?').tokenTypeIds, [0, 0, 0, 0]);
});

test('one text encodes exactly as the library encodes it', () => {
  for (const text of [
    'Write a poem about a man fishing on a river bank.',
    "Héllo, WORLD! l'été 世界 unaffable x😀y",
    'the [MASK] bank [SEP] [cls]',
    '  spaces\tand\nnewlines  ',
  ]) {
    const lib = bert.hf.encode(text, { return_token_type_ids: true });
    const e = bert.encode(text);
    assert.deepEqual(e.inputIds, lib.ids, text);
    assert.deepEqual(e.tokens, lib.tokens, text);
    assert.deepEqual(e.tokenTypeIds, lib.token_type_ids, text);
  }
});

test("truncation lengths: the table of tokenizers' own tests (truncation.rs, max_length 7)", () => {
  // [n1, n2] -> [kept1, kept2] for longest_first
  const table = [
    [0, 0, 0, 0],
    [0, 2, 0, 2],
    [0, 4, 0, 4],
    [0, 8, 0, 7],
    [2, 0, 2, 0],
    [2, 2, 2, 2],
    [2, 4, 2, 4],
    [2, 8, 2, 5],
    [4, 0, 4, 0],
    [4, 2, 4, 2],
    [4, 4, 3, 4],
    [4, 8, 3, 4],
    [8, 0, 7, 0],
    [8, 2, 5, 2],
    [8, 4, 4, 3],
    [8, 8, 3, 4],
  ];
  for (const [n1, n2, k1, k2] of table)
    assert.deepEqual(truncatedLengths(n1, n2, 7, 'longest_first'), [k1, k2], `${n1}, ${n2}`);
  // max_length 0 empties both (truncate_encodings_empty)
  for (const [n1, n2] of [
    [0, 2],
    [4, 4],
    [8, 8],
  ])
    assert.deepEqual(truncatedLengths(n1, n2, 0, 'longest_first'), [0, 0]);
  // the shorter text longer than the budget: both to half (the first the smaller half)
  assert.deepEqual(truncatedLengths(10, 12, 7, 'longest_first'), [3, 4]);
  assert.deepEqual(truncatedLengths(12, 10, 7, 'longest_first'), [4, 3]);
  // one text
  assert.deepEqual(truncatedLengths(9, null, 7, 'longest_first'), [7, null]);
  assert.deepEqual(truncatedLengths(9, null, 7, 'only_first'), [7, null]);
  assert.match(truncatedLengths(9, null, 7, 'only_second'), /needs a textPair/);
  // only_first / only_second remove total - budget from that text, or cannot
  assert.deepEqual(truncatedLengths(2, 8, 7, 'only_second'), [2, 5]);
  assert.deepEqual(truncatedLengths(8, 2, 7, 'only_first'), [5, 2]);
  assert.match(truncatedLengths(8, 2, 7, 'only_second'), /the second text has 2 tokens, and 3 must go/);
  assert.match(truncatedLengths(2, 8, 7, 'only_first'), /the first text has 2 tokens, and 3 must go/);
  // nothing to cut: no error even where the strategy could not cut (as tokenizers returns early)
  assert.deepEqual(truncatedLengths(3, null, 7, 'only_second'), [3, null]);
});

test('truncation through encode: each branch, with the special tokens taken off the maximum first', () => {
  const maxLength = 10; // 7 tokens of text beside [CLS] A [SEP] B [SEP]
  const cases = [
    // [n1, n2, strategy, kept1, kept2]
    [2, 2, true, 2, 2], // case 1: fits
    [2, 8, true, 2, 5], // case 2: only the longer is cut, to what the shorter leaves
    [8, 2, 'longest_first', 5, 2],
    [8, 8, true, 3, 4], // case 3: both to half, the first the smaller half
    [4, 8, true, 3, 4],
    [8, 4, true, 4, 3],
    [2, 8, 'only_second', 2, 5],
    [8, 2, 'only_first', 5, 2],
  ];
  for (const [n1, n2, truncation, k1, k2] of cases) {
    const a = words(n1),
      b = words(n2, 13);
    const e = bert.encode(a, { textPair: b, truncation, maxLength });
    const want = ['[CLS]', ...a.split(' ').slice(0, k1), '[SEP]', ...b.split(' ').slice(0, k2), '[SEP]'];
    assert.deepEqual(e.tokens, want, `${n1}, ${n2}, ${truncation}`);
    assert.deepEqual(e.tokenTypeIds, [...new Array(k1 + 2).fill(0), ...new Array(k2 + 1).fill(1)]);
    assert.equal(e.inputIds.length, Math.min(maxLength, n1 + n2 + 3));
  }
  // too long without truncation; a strategy that cannot cut enough; only_second without a pair
  assert.throws(() => bert.encode(words(8), { textPair: words(8), maxLength }), {
    name: 'RangeError',
    message:
      'tokenizer.encode: the pair has 19 tokens, more than maxLength of 10 (pass { truncation: true } to cut the longer text first)',
  });
  assert.throws(() => bert.encode(words(8), { textPair: words(2), maxLength, truncation: 'only_second' }), {
    name: 'RangeError',
    message:
      /the pair has 13 tokens, more than maxLength of 10; the second text has 2 tokens, and 3 must go: 'only_second' cannot cut it enough/,
  });
  assert.throws(() => bert.encode(words(12), { maxLength, truncation: 'only_second' }), {
    name: 'RangeError',
    message: /'only_second' needs a textPair/,
  });
  assert.deepEqual(bert.encode(words(12), { maxLength, truncation: 'only_first' }).tokens.length, 10);
  assert.throws(() => bert.encode('a', { textPair: 'b c', maxLength: 3, truncation: true }), {
    message: /maxLength 3 leaves no room for text beside 3 special tokens/,
  });
  // the model's maximum by default (512): a long context cut, the question kept
  const context = 'the river bank '.repeat(300);
  const e = bert.encode('where is the bank?', { textPair: context, truncation: 'only_second' });
  assert.equal(e.inputIds.length, 512);
  assert.deepEqual(e.tokens.slice(0, 7), ['[CLS]', 'where', 'is', 'the', 'bank', '?', '[SEP]']);
  assert.throws(() => bert.encode('where?', { textPair: context }), {
    message: /the pair has 905 tokens, more than the model's maximum of 512/,
  });
});

test('offsets (return_offsets_mapping) and sequence ids: per text, (0, 0) for special tokens', () => {
  const e = bert.encode('Question?', { textPair: 'Answer', returnOffsets: true });
  assert.deepEqual(e.offsets, [
    [0, 0],
    [0, 8],
    [8, 9],
    [0, 0],
    [0, 6],
    [0, 0],
  ]);
  assert.deepEqual(e.sequenceIds, [null, 0, 0, null, 1, null]);
  const text = 'Héllo, WORLD! x😀y the [MASK] bank unaffable 世界';
  const t = bert.encode(text, { returnOffsets: true });
  const pieces = t.offsets.map(([s, end]) => text.slice(s, end));
  assert.deepEqual(t.tokens, [
    '[CLS]',
    'hello',
    ',',
    'world',
    '!',
    '[UNK]',
    'the',
    '[MASK]',
    'bank',
    'una',
    '##ffa',
    '##ble',
    '世',
    '[UNK]', // 界 is not in the vocabulary
    '[SEP]',
  ]);
  assert.deepEqual(pieces, [
    '',
    'Héllo',
    ',',
    'WORLD',
    '!',
    'x😀y', // [UNK] covers the whole word
    'the',
    '[MASK]', // an added token: its own text
    'bank',
    'una', // WordPiece pieces: each its own characters
    'ffa',
    'ble',
    '世',
    '界',
    '',
  ]);
  // a decomposed accent (e + U+0301) belongs to the character before it
  const nfd = 'cafe\u0301 bank';
  const o = bert.encode(nfd, { returnOffsets: true });
  assert.deepEqual(o.tokens.slice(1, -1), ['cafe', 'bank']);
  assert.deepEqual(o.offsets.slice(1, -1), [
    [0, 4],
    [6, 10],
  ]);
  // truncated: the offsets of the tokens kept
  const cut = bert.encode('a b c d', { textPair: 'e f g h', maxLength: 7, truncation: true, returnOffsets: true });
  assert.deepEqual(cut.offsets, [
    [0, 0],
    [0, 1],
    [2, 3],
    [0, 0],
    [0, 1],
    [2, 3],
    [0, 0],
  ]);
});

test('offsets need a WordPiece tokenizer: a byte-level one says so', async () => {
  const gpt2 = await loadTokenizer({ 'tokenizer.json': asFile(pipelineJson('gpt2')) });
  assert.throws(() => gpt2.encode('hello', { returnOffsets: true }), {
    message:
      /^tokenizer\.encode: returnOffsets needs a WordPiece tokenizer \(the BERT family\); this one's model is BPE$/,
  });
  // pairs through a ByteLevel post-processor that leaves them apart: A then B, types 0 then 1
  const e = gpt2.encode('ab', { textPair: 'cd' });
  assert.deepEqual(e.tokens, ['a', 'b', 'c', 'd']);
  assert.deepEqual(e.tokenTypeIds, [0, 0, 1, 1]);
  const llama = await loadTokenizer({ 'tokenizer.json': asFile(pipelineJson('llama3')) });
  assert.deepEqual(llama.encode('ab', { textPair: 'cd' }).tokens, [
    '<|begin_of_text|>',
    'a',
    'b',
    '<|begin_of_text|>',
    'c',
    'd',
  ]);
});

test('batches of pairs: [text, textPair] rows or textPairs, padded with [PAD], mask 0, token type 0', () => {
  const b = bert.encodeBatch([
    ['Question?', 'Answer'],
    ['a', 'b c d'],
  ]);
  assert.deepEqual(b.inputIds, [
    [101, 3160, 1029, 102, 3437, 102, 0],
    [101, 1037, 102, 1038, 1039, 1040, 102],
  ]);
  assert.deepEqual(b.attentionMask, [
    [1, 1, 1, 1, 1, 1, 0],
    [1, 1, 1, 1, 1, 1, 1],
  ]);
  assert.deepEqual(b.tokenTypeIds, [
    [0, 0, 0, 0, 1, 1, 0],
    [0, 0, 0, 1, 1, 1, 1],
  ]);
  const same = bert.encodeBatch(['Question?', 'a'], { textPairs: ['Answer', 'b c d'] });
  assert.deepEqual(same.inputIds, b.inputIds);
  const o = bert.encodeBatch(
    [
      ['Question?', 'Answer'],
      ['a', 'b c d'],
    ],
    { returnOffsets: true },
  );
  assert.deepEqual(o.offsets[0].at(-1), [0, 0]);
  assert.deepEqual(o.sequenceIds[0], [null, 0, 0, null, 1, null, null]);
  const cut = bert.encodeBatch([[words(8), words(8)]], { truncation: true, maxLength: 10 });
  assert.equal(cut.inputIds[0].length, 10);
  assert.throws(
    () =>
      bert.encodeBatch(
        [
          ['a', 'b'],
          [words(8), words(8)],
        ],
        { maxLength: 10 },
      ),
    {
      name: 'RangeError',
      message: /^tokenizer\.encodeBatch: texts\[1\]: the pair has 19 tokens/,
    },
  );
});

test('bad arguments: clear errors naming them', () => {
  assert.throws(() => bert.encode('a', { textPair: 3 }), {
    name: 'TypeError',
    message: 'tokenizer.encode: textPair must be a string, got number',
  });
  // an empty second text: no pair in the single call (transformers' fast tokenizer drops a falsy
  // pair: tokenizer('a', '') is [CLS] a [SEP]), a pair in the batched one (tokenizer(['a'], ['']):
  // [CLS] a [SEP] [SEP], the last [SEP] of type 1)
  assert.deepEqual(bert.encode('a', { textPair: '' }).tokens, ['[CLS]', 'a', '[SEP]']);
  const batched = bert.encodeBatch([['a', '']]);
  assert.deepEqual(batched.tokens[0], ['[CLS]', 'a', '[SEP]', '[SEP]']);
  assert.deepEqual(batched.tokenTypeIds[0], [0, 0, 0, 1]);
  assert.deepEqual(bert.encode('', { textPair: 'b' }).tokenTypeIds, [0, 0, 1, 1]);
  assert.throws(() => bert.encode('a', { truncation: 'longest' }), {
    name: 'TypeError',
    message: /truncation must be a boolean or one of 'longest_first', 'only_first', 'only_second', got 'longest'/,
  });
  assert.throws(() => bert.encode('a', { maxLength: 0 }), {
    name: 'RangeError',
    message: /maxLength must be a positive integer/,
  });
  assert.throws(() => bert.encode('a', { returnOffsets: 1 }), {
    name: 'TypeError',
    message: /returnOffsets must be a boolean/,
  });
  assert.throws(() => bert.encode('a', { text_pair: 'b' }), {
    name: 'TypeError',
    message:
      /unknown option 'text_pair' \(allowed: textPair, truncation, maxLength, returnOffsets, stride, returnOverflowingTokens\)/,
  });
  assert.throws(() => bert.encodeBatch(['a'], { textPairs: ['b', 'c'] }), {
    name: 'TypeError',
    message: /textPairs must be an array of 1 strings/,
  });
  assert.throws(() => bert.encode('a', { stride: 2 }), {
    name: 'TypeError',
    message: 'tokenizer.encode: stride needs returnOverflowingTokens: true (it is the overlap of the windows)',
  });
  assert.throws(() => bert.encode('a', { stride: -1, returnOverflowingTokens: true }), {
    name: 'RangeError',
    message: 'tokenizer.encode: stride must be a non-negative integer, got -1',
  });
  assert.throws(() => bert.encode('a', { textPair: 'b', truncation: true, returnOverflowingTokens: true }), {
    name: 'TypeError',
    message: /returnOverflowingTokens with a textPair needs truncation 'only_first' or 'only_second'/,
  });
  assert.deepEqual(bert.encode('a b').inputIds, [101, 1037, 1038, 102], 'the tokenizer works on');
});

test('windows over a truncated text: returnOverflowingTokens with a stride, as tokenizers makes them', () => {
  // question-answering's case, [CLS] question [SEP] context [SEP] with 'only_second': every branch of
  // truncate_encodings and Encoding::truncate (fits; the context too short to cut; stride >= what
  // a window keeps; stride 0; windows that end exactly at the end; a short last window)
  const cases = [
    // [question tokens, context tokens, maxLength, stride]
    [3, 4, 10, 2], // fits: one window
    [3, 4, 10, 0],
    [3, 20, 10, 0], // windows of 4, no overlap
    [3, 20, 10, 2], // 4 kept, steps of 2: ends exactly at 20
    [3, 21, 10, 2], // ... one token past
    [3, 20, 10, 3], // steps of 1
    [2, 17, 12, 5], // 7 kept, steps of 2, a short last window
    [3, 20, 10, 4], // stride = what a window keeps: an error
    [3, 20, 10, 5],
    [7, 3, 10, 0], // no room for the context: an error
    [8, 3, 10, 0],
    [6, 30, 10, 0], // one context token per window
  ];
  for (const [nq, nc, maxLength, stride] of cases) {
    const q = words(nq),
      c = words(nc, 5);
    const label = `${nq}, ${nc}, maxLength ${maxLength}, stride ${stride}`;
    const want = referenceContextWindows(nq, nc, maxLength, 3, stride);
    const run = () =>
      bert.encode(q, {
        textPair: c,
        truncation: 'only_second',
        maxLength,
        stride,
        returnOverflowingTokens: true,
        returnOffsets: true,
      });
    if (typeof want === 'string') {
      // the reference's reason, in our words
      const message = {
        SequenceTooShort: /'only_second' cannot cut it enough$/,
        'stride >= max_len': /stride \d+ must be less than the \d+ tokens of the second text/,
      }[want];
      assert.ok(message, `${label}: no message for the reference's ${want}`);
      assert.throws(run, { name: 'RangeError', message }, `${label}: ${want}`);
      continue;
    }
    const e = run();
    const windows = [e, ...e.overflowing];
    assert.equal(windows.length, want.length, label);
    const cTokens = c.split(' '),
      cOffsets = bert.encode(c, { returnOffsets: true }).offsets.slice(1, -1);
    windows.forEach((w, i) => {
      const [from, to] = want[i];
      assert.deepEqual(w.tokens, ['[CLS]', ...q.split(' '), '[SEP]', ...cTokens.slice(from, to), '[SEP]'], label);
      assert.deepEqual(w.tokenTypeIds, [...new Array(nq + 2).fill(0), ...new Array(to - from + 1).fill(1)]);
      assert.deepEqual(
        w.inputIds,
        bert.encode(w.tokens.slice(1, nq + 1).join(' '), { textPair: w.tokens.slice(nq + 2, -1).join(' ') }).inputIds,
      );
      // offsets and word ids of the context tokens: those of the whole context
      assert.deepEqual(w.offsets.slice(nq + 2, -1), cOffsets.slice(from, to), label);
      assert.deepEqual(
        w.wordIds.slice(nq + 2, -1),
        Array.from({ length: to - from }, (_, k) => from + k),
      );
      assert.equal(w.overflowing, i === 0 ? w.overflowing : undefined);
    });
  }
  // the errors say why
  assert.throws(
    () =>
      bert.encode(words(3), {
        textPair: words(20, 5),
        truncation: 'only_second',
        maxLength: 10,
        stride: 4,
        returnOverflowingTokens: true,
      }),
    {
      message:
        'tokenizer.encode: stride 4 must be less than the 4 tokens of the second text that fit in maxLength 10 (beside the other text and 3 special tokens)',
    },
  );
  assert.throws(
    () =>
      bert.encode(words(7), {
        textPair: words(3),
        truncation: 'only_second',
        maxLength: 10,
        returnOverflowingTokens: true,
      }),
    {
      message: /the pair has 13 tokens, more than maxLength of 10; the second text has 3 tokens, and 3 must go/,
    },
  );
  // 'only_first' windows the first text; one text windows itself
  const f = bert.encode(words(9), {
    textPair: words(2, 20),
    truncation: 'only_first',
    maxLength: 9,
    stride: 1,
    returnOverflowingTokens: true,
  });
  assert.deepEqual(
    [f, ...f.overflowing].map((w) => w.tokens.join(' ')),
    ['[CLS] a b c d [SEP] u v [SEP]', '[CLS] d e f g [SEP] u v [SEP]', '[CLS] g h i [SEP] u v [SEP]'],
  );
  const one = bert.encode(words(7), { truncation: true, maxLength: 5, stride: 1, returnOverflowingTokens: true });
  assert.deepEqual(
    [one, ...one.overflowing].map((w) => w.tokens.join(' ')),
    ['[CLS] a b c [SEP]', '[CLS] c d e [SEP]', '[CLS] e f g [SEP]'],
  );
  // nothing to cut: no windows beyond the first
  assert.deepEqual(bert.encode('a', { returnOverflowingTokens: true }).overflowing, []);
});

test('word ids (word_ids()): a continuation joins the word before it, punctuation and added tokens are words', () => {
  const text = "unaffable [MASK], don't x😀y";
  const e = bert.encode(text, { textPair: 'fishing bank', returnOffsets: true });
  assert.deepEqual(e.tokens, [
    '[CLS]',
    'una',
    '##ffa',
    '##ble',
    '[MASK]',
    ',',
    'don',
    "'",
    't',
    '[UNK]',
    '[SEP]',
    'fishing',
    'bank',
    '[SEP]',
  ]);
  assert.deepEqual(e.wordIds, [null, 0, 0, 0, 1, 2, 3, 4, 5, 6, null, 0, 1, null]);
  const b = bert.encodeBatch([['a', 'b'], 'unaffable'], { returnOffsets: true });
  assert.deepEqual(b.wordIds, [
    [null, 0, null, 0, null],
    [null, 0, 0, 0, null],
  ]);
});
