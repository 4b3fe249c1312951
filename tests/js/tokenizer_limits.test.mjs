// The bounds on a tokenizer.json that keep one encode() short though its text is within
// tokenizer.maxInputChars (docs/security.md): without them, one added token of 100,000
// characters, a WordPiece max_input_chars_per_word of 1000, or a Unigram vocabulary 'a', 'aa', ...,
// 'a' x 300 made a single encode() of a text far inside the bound run for minutes (or exhaust
// V8's heap). Each is refused before the library builds anything, with the file, the JSON path,
// the value and the bound; a file just within each bound loads and encodes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTokenizer } from 'attention-wasm';
import { asFile, specialToken as addedToken } from './fixtures/pipelines.mjs';

/** BERT's tokenizer.json (a small vocabulary) with `edit` applied. */
async function bertJson(edit = () => {}) {
  const { bertTokenizerJson } = await import('../../dist/tokenizer.js');
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'a', 'q', '##q', '!', '##a'].join('\n');
  const json = bertTokenizerJson(vocab, {});
  edit(json);
  return json;
}
/** A Unigram tokenizer.json with these pieces after '<unk>'. */
function unigramJson(pieces) {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: null,
    post_processor: null,
    decoder: null,
    model: { type: 'Unigram', unk_id: 0, vocab: [['<unk>', 0], ...pieces.map((p, i) => [p, -1 - i])] },
  };
}
const load = (json) => loadTokenizer({ 'tokenizer.json': asFile(json) });

test('an added token longer than 256 characters is refused; 256 loads and splits the text', async () => {
  await assert.rejects(load(await bertJson((j) => j.added_tokens.push(addedToken(10, 'a'.repeat(100000) + 'b')))), {
    name: 'Error',
    message:
      'loadTokenizer: tokenizer.json: added_tokens[5].content has 100001 characters, more than 256 (splitting a text at added tokens costs its length times theirs)',
  });
  await assert.rejects(load(await bertJson((j) => j.added_tokens.push(addedToken(10, 'q'.repeat(257))))), {
    message: /^loadTokenizer: tokenizer\.json: added_tokens\[5\]\.content has 257 characters, more than 256 /,
  });
  const tok = await load(await bertJson((j) => j.added_tokens.push(addedToken(10, 'q'.repeat(256)))));
  assert.deepEqual(tok.encode(`a ${'q'.repeat(256)} a`).inputIds, [2, 5, 10, 5, 3]);
});

test('WordPiece max_input_chars_per_word over 100 is refused (1000 was allowed); 100 loads', async () => {
  for (const perWord of [101, 200, 1000, 1e9, -1, 1.5, '100'])
    await assert.rejects(load(await bertJson((j) => (j.model.max_input_chars_per_word = perWord))), {
      name: 'Error',
      message: `loadTokenizer: tokenizer.json: model.max_input_chars_per_word ${JSON.stringify(perWord)} is not an integer in [0, 100] (splitting a word costs the cube of its length)`,
    });
  const tok = await load(await bertJson((j) => (j.model.max_input_chars_per_word = 100)));
  // a word of 100 letters is split; one of 101 is [UNK]
  assert.equal(tok.encode('q'.repeat(100)).inputIds.length, 102);
  assert.deepEqual(tok.encode('q'.repeat(101)).inputIds, [2, 1, 3]);
});

test('a Unigram piece longer than 32 characters is refused; 32 loads and encodes', async () => {
  const long = Array.from({ length: 300 }, (_, i) => 'a'.repeat(i + 1)); // the review's file
  await assert.rejects(load(unigramJson(long)), {
    name: 'Error',
    message:
      'loadTokenizer: tokenizer.json: model.vocab[33][0] "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" has 33 characters, more than 32 (a Unigram lattice costs time as the square of its longest piece)',
  });
  const tok = await load(unigramJson(long.slice(0, 32)));
  const { tokens } = tok.encode('a'.repeat(66));
  assert.deepEqual(
    tokens.map((t) => t.length).sort((a, b) => a - b),
    [2, 32, 32],
  );
});

test('a Unigram vocabulary of more than 1,000,000 pieces is refused', async () => {
  const json = unigramJson([]);
  json.model.vocab = Array.from({ length: 1_000_001 }, () => ['a', 0]);
  await assert.rejects(load(json), {
    name: 'Error',
    message: 'loadTokenizer: tokenizer.json: model.vocab has 1000001 pieces, more than 1000000',
  });
});

test('added tokens of more than 2^18 characters together are refused (a trie object per character); fewer load', async () => {
  const many = (count, length) => (j) => {
    for (let i = 0; i < count; i++) j.added_tokens.push(addedToken(10 + i, `<${String(i).padStart(length - 2, 'x')}>`));
  };
  await assert.rejects(load(await bertJson(many(1025, 256))), {
    name: 'Error',
    message:
      /^loadTokenizer: tokenizer\.json: added_tokens\[0\.\.1028\] have 262170 characters together, more than 262144 /,
  });
  // 1023 of them and BERT's five: 261,914
  const tok = await load(await bertJson(many(1023, 256)));
  assert.equal(tok.encode(`a <${'0'.padStart(254, 'x')}> a`).inputIds[2], 10);
});

test('Replace steps that lengthen a text more than 4 times are refused (a normalizer that multiplies the text)', async () => {
  const replace = (pattern, content) => ({ type: 'Replace', pattern, content });
  for (const [normalizer, growth] of [
    [replace({ String: 'a' }, 'b'.repeat(256)), '256'],
    [replace({ String: '' }, 'yyyy'), '5'], // the empty string: put between every two characters
    [{ type: 'Sequence', normalizers: [replace({ String: 'a' }, 'aaa'), replace({ String: 'a' }, 'aaa')] }, '9'],
  ])
    await assert.rejects(load(await bertJson((j) => (j.normalizer = normalizer))), {
      name: 'Error',
      message: `loadTokenizer: tokenizer.json: the Replace steps of normalizer can make a text ${growth} times longer, more than 4 (each Replace: its content's length over its pattern's shortest match)`,
    });
  // SentencePiece's ' ' -> '▁', and a Replace that shortens, load
  const tok = await load(
    await bertJson(
      (j) =>
        (j.normalizer = {
          type: 'Sequence',
          normalizers: [replace({ String: '``' }, '"'), replace({ String: ' ' }, ' '), j.normalizer],
        }),
    ),
  );
  assert.deepEqual(tok.encode('a q').inputIds, [2, 5, 6, 3]);
  // a Regex pattern's steps are bounded as they run: sixteen lookaheads that match nothing, each
  // doubling the text, stop with a RangeError at 4 x maxInputChars, and the tokenizer goes on
  const doubling = await load(
    await bertJson(
      (j) =>
        (j.normalizer = {
          type: 'Sequence',
          normalizers: [...Array.from({ length: 16 }, () => replace({ Regex: '(?=[\\s\\S])' }, 'q')), j.normalizer],
        }),
    ),
  );
  doubling.maxInputChars = 1000;
  assert.throws(() => doubling.encode('a'.repeat(100)), {
    name: 'RangeError',
    message:
      /^tokenizer: a Replace step of the tokenizer's pipeline \(pattern .*\) would add more than \d+ characters to a text of 3200 \(at most 4 x maxInputChars in one call\)$/,
  });
  // the budget is one call's: steps run on each piece of a pre-tokenizer draw from it too
  const pieces = await load(
    await bertJson(
      (j) =>
        (j.pre_tokenizer = {
          type: 'Sequence',
          pretokenizers: [{ type: 'WhitespaceSplit' }, replace({ Regex: '(?=a)' }, 'q'.repeat(100))],
        }),
    ),
  );
  pieces.maxInputChars = 1000;
  assert.throws(() => pieces.encode('a '.repeat(50)), {
    name: 'RangeError',
    message: /would add more than \d+ characters/,
  });
  // a content is put in as written, as tokenizers (Rust) puts it: '$&' is not the match
  const dollars = await load(await bertJson((j) => (j.normalizer = replace({ String: 'a' }, '$&'))));
  // ('$' and '&', two [UNK]s of this vocabulary; replaceAll's '$&' would have put 'a' back)
  assert.deepEqual(dollars.encode('a').inputIds, [2, 1, 1, 3]);
  // within the bound it runs: one character becomes 65,536, one word too long for WordPiece: [UNK]
  doubling.maxInputChars = 1_000_000;
  assert.deepEqual(doubling.encode('a').inputIds, [2, 1, 3]);
});

test('a model the tokenizers library would refuse is an Error at load, not ids that are not ids', async () => {
  const cases = [
    [(j) => (j.model.unk_token = '<nope>'), /model\.unk_token "<nope>" is not in model\.vocab/],
    [(j) => (j.model.vocab = Object.keys(j.model.vocab)), /model\.vocab of a WordPiece model must be an object/],
    [(j) => (j.model.type = 'Foo'), /model\.type "Foo" is not supported \(supported: WordPiece, BPE, Unigram\)/],
    // a post-processor without the template of pairs: the library's own error, with the file named
    [(j) => delete j.post_processor.pair, /^loadTokenizer: tokenizer\.json: /],
  ];
  for (const [edit, message] of cases) await assert.rejects(load(await bertJson(edit)), { name: 'Error', message });
  const unigram = unigramJson(['a']);
  unigram.model.unk_id = 7;
  await assert.rejects(load(unigram), {
    message:
      'loadTokenizer: tokenizer.json: model.unk_id 7 is not one of its 2 pieces (tokenizers: UnkIdNotInVocabulary)',
  });
});
