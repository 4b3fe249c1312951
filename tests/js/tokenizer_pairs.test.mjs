// Sentence pairs (issue 20): tokenizer.encode(text, { textPair, truncation, maxLength,
// returnOffsets }) and batches of pairs, against transformers' rules:
//   - the template: [CLS] A [SEP] B [SEP], token types 0 for [CLS] A [SEP] and 1 for B [SEP]
//     (BertConverter's TemplateProcessing, convert_slow_tokenizer.py);
//   - truncation as Hugging Face's tokenizers do it (tokenizers/src/utils/truncation.rs,
//     truncate_encodings, applied to max_length less the special tokens): 'longest_first' by
//     default, 'only_first', 'only_second', an error when the text to cut is too short; the
//     length table of that file's own tests, and texts of known lengths that force each branch;
//   - offsets as return_offsets_mapping gives them: per text, (0, 0) for special tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTokenizer } from 'attention-wasm';
import { truncatedLengths } from '../../dist/tokenizer.js';
import { pipelineJson, asFile } from './fixtures/pipelines.mjs';

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
  assert.throws(() => bert.encode('a', { textPair: '' }), {
    name: 'RangeError',
    message: 'tokenizer.encode: the textPair has no tokens (an empty string)',
  });
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
    message: /unknown option 'text_pair' \(allowed: textPair, truncation, maxLength, returnOffsets\)/,
  });
  assert.throws(() => bert.encodeBatch(['a'], { textPairs: ['b', 'c'] }), {
    name: 'TypeError',
    message: /textPairs must be an array of 1 strings/,
  });
  assert.deepEqual(bert.encode('a b').inputIds, [101, 1037, 1038, 102], 'the tokenizer works on');
});
