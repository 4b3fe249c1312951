// tokenizer.encode(text, { returnOffsets: true }) (model.tagTokens and model.answer use it on every
// call): the span of each token in the text, as Hugging Face's fast tokenizer gives it
// (return_offsets_mapping, word_ids()), where the library's whole-string normalisation differs
// from a character's alone, where the normaliser drops characters before a special token, for
// added tokens matched after normalisation and added tokens that strip white space; and work
// linear in the text. The expected offsets of the fixed texts are those of the tokenizers npm
// package (Hugging Face's Rust tokenizers, 0.23.2) for the same tokenizer.json, turned from code
// points into UTF-16 indices; texts on which it gives other tokens say so.
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { loadTokenizer } from 'attention-wasm';
import { bertTokenizerJson, lowercaseEach } from '../../dist/tokenizer.js';
import { asFile } from './fixtures/pipelines.mjs';

const bert = await loadTokenizer('bert-base-uncased');
const shipped = readFileSync(new URL('../../dist/vocab-bert-base-uncased.txt', import.meta.url), 'utf8');
/** bert-base-uncased's tokenizer.json (BertConverter's), changed by `edit`, as loadTokenizer builds it. */
const edited = (edit) => {
  const json = bertTokenizerJson(shipped, { do_lower_case: true });
  edit(json);
  return loadTokenizer({ 'tokenizer.json': asFile(json) });
};
/** The tokens, offsets and word ids of `text` without [CLS] and [SEP]. */
const spans = (tok, text, options = {}) => {
  const e = tok.encode(text, { returnOffsets: true, ...options });
  return { tokens: e.tokens.slice(1, -1), offsets: e.offsets.slice(1, -1), words: e.wordIds.slice(1, -1) };
};

test("lower-cased one character at a time, as tokenizers (Rust): 'ΟΔΟΣ' ends in 'σ', not the final 'ς'; CJK past U+FFFF split off", async () => {
  // BertTokenizerFast's ids (normalizer.rs lower-cases each char; the library alone lower-cased
  // the whole text, 'οδος', and gave 1169, 29722, 15297)
  assert.deepEqual(spans(bert, 'ΟΔΟΣ'), {
    tokens: ['ο', '##δ', '##ο', '##σ'],
    offsets: [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ],
    words: [0, 0, 0, 0],
  });
  assert.deepEqual(bert.encode('ΟΔΟΣ').inputIds, [101, 1169, 29722, 29730, 29733, 102]);
  // a word-final 'Σ' in the middle of a text, and the letters around it, as Rust gives them
  const greek = await loadTokenizer({
    'vocab.txt': new TextEncoder().encode(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'σ', '##α', '##σ'].join('\n')),
  });
  assert.deepEqual(spans(greek, 'ΣΑΣ ΣΑΣ'), {
    tokens: ['σ', '##α', '##σ', 'σ', '##α', '##σ'],
    offsets: [
      [0, 1],
      [1, 2],
      [2, 3],
      [4, 5],
      [5, 6],
      [6, 7],
    ],
    words: [0, 0, 0, 1, 1, 1],
  });
  // CJK Extension B (U+20000, two UTF-16 units): a word of its own, as is_chinese_char has it
  // (the library's loop over UTF-16 units never saw one)
  assert.deepEqual(spans(bert, 'a\u{20000}b'), {
    tokens: ['a', '[UNK]', 'b'],
    offsets: [
      [0, 1],
      [1, 3],
      [3, 4],
    ],
    words: [0, 1, 2],
  });
  assert.deepEqual(bert.encode('\u{20000}\u{20001}').inputIds, [101, 100, 100, 102]);
  // a Lowercase normalizer of a tokenizer.json too
  assert.equal(lowercaseEach('ΟΔΟΣ ΣΑΣ'), 'οδοσ σασ');
  assert.equal(lowercaseEach('İSTANBUL'), 'i\u0307stanbul');
});

test('characters the normaliser drops (U+200B, soft hyphen, NUL) right before a special token', () => {
  for (const dropped of ['\u200b', '\u00ad', '\u0000']) {
    const text = `hello${dropped}[SEP] there`;
    assert.deepEqual(
      spans(bert, text),
      {
        tokens: ['hello', '[SEP]', 'there'],
        offsets: [
          [0, 5],
          [6, 11],
          [12, 17],
        ],
        words: [0, 1, 2],
      },
      JSON.stringify(text),
    );
  }
  // the question-answering pair: the context's offsets are its own
  const e = bert.encode('where?', { textPair: 'I live in Berlin\u00ad[SEP] now', returnOffsets: true });
  assert.deepEqual(e.tokens.slice(4), ['i', 'live', 'in', 'berlin', '[SEP]', 'now', '[SEP]']);
  assert.deepEqual(e.offsets.slice(4), [
    [0, 1],
    [2, 6],
    [7, 9],
    [10, 16],
    [17, 22],
    [23, 26],
    [0, 0],
  ]);
});

test('an added token with "normalized": true (tokenizer.add_tokens) is matched in the normalised text', async () => {
  const added = await edited((json) =>
    json.added_tokens.push({
      id: 30522,
      content: 'newword',
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: true,
      special: false,
    }),
  );
  assert.deepEqual(spans(added, 'I said NewWord today'), {
    tokens: ['i', 'said', 'newword', 'today'],
    offsets: [
      [0, 1],
      [2, 6],
      [7, 14],
      [15, 20],
    ],
    words: [0, 1, 2, 3],
  });
  assert.deepEqual(spans(added, 'NEWWORD,newword [SEP] NewWordy'), {
    tokens: ['newword', ',', 'newword', '[SEP]', 'newword', 'y'],
    offsets: [
      [0, 7],
      [7, 8],
      [8, 15],
      [16, 21],
      [22, 29],
      [29, 30],
    ],
    words: [0, 1, 2, 3, 4, 5],
  });
});

test('an added token with lstrip / rstrip covers the white space it strips, as tokenizers does', async () => {
  const strips = await edited((json) => {
    const mask = json.added_tokens.find((t) => t.content === '[MASK]');
    mask.lstrip = mask.rstrip = true;
  });
  assert.deepEqual(spans(strips, 'the  [MASK]  bank'), {
    tokens: ['the', '[MASK]', 'bank'],
    offsets: [
      [0, 3],
      [3, 13],
      [13, 17],
    ],
    words: [0, 1, 2],
  });
  assert.deepEqual(spans(strips, 'a\t[MASK]\nb [MASK]').offsets, [
    [0, 1],
    [1, 9],
    [9, 10],
    [10, 17],
  ]);
});

test('a normaliser that joins characters (NFC): the joined character comes from the first of them', async () => {
  const nfc = await edited((json) => {
    json.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Lowercase' }] };
  });
  // 'Ά' from 'Α' U+0301, 'é' from 'e' U+0301: tokenizers leaves the absorbed accent out of the span
  assert.deepEqual(spans(nfc, 'Ά cafe\u0301 ffa\u0301 bank'), {
    tokens: ['[UNK]', '[UNK]', '[UNK]', 'bank'],
    offsets: [
      [0, 1],
      [2, 6],
      [8, 11],
      [13, 17],
    ],
    words: [0, 1, 2, 3],
  });
  assert.deepEqual(spans(nfc, 'Σ\u0301ΑΣ e\u0301\u0301x').offsets, [
    [0, 4],
    [5, 9],
  ]);
});

/** n words of every kind above (and [UNK]s), each with its tokens and offsets as when alone. */
function mixedText(n) {
  const kinds = [
    '😀',
    'x😀y',
    'ΟΔΟΣ',
    'Héllo,',
    'unaffable',
    'hello\u200b[SEP]',
    '世界',
    '[MASK]',
    'cafe\u0301',
    "don't",
    'ΣΑΣ',
  ];
  const words = Array.from({ length: n }, (_, i) => kinds[(i * 7 + (i >> 3)) % kinds.length]);
  return { text: words.join(' '), words };
}

test('a long text: the offsets of each token are those of its word alone, moved to where the word is', () => {
  const { text, words } = mixedText(3000);
  const all = spans(bert, text, { maxLength: Infinity });
  // the straightforward check: each word encoded alone, its offsets moved by the word's start
  const want = { tokens: [], offsets: [], words: [] };
  let at = 0;
  for (const word of words) {
    const alone = spans(bert, word);
    const base = want.words.length ? want.words.at(-1) + 1 : 0;
    want.tokens.push(...alone.tokens);
    want.offsets.push(...alone.offsets.map(([s, e]) => [at + s, at + e]));
    want.words.push(...alone.words.map((w) => base + w));
    at += word.length + 1;
  }
  assert.equal(all.tokens.length, want.tokens.length);
  assert.deepEqual(all, want);
  // every [UNK] covers a whole word of the pre-tokenizer's (界, a CJK character, is one of its own)
  all.tokens.forEach((t, i) => {
    if (t === '[UNK]') assert.match(text.slice(...all.offsets[i]), /^(😀|x😀y|界)$/u);
  });
  // truncated: the offsets of the tokens kept, the same as in the whole text
  const cut = bert.encode(text, { truncation: true, returnOffsets: true });
  assert.equal(cut.offsets.length, 512);
  assert.deepEqual(cut.offsets.slice(1, -1), all.offsets.slice(0, 510));
  assert.deepEqual(cut.wordIds.slice(1, -1), all.words.slice(0, 510));
});

test('returnOffsets does work linear in the text: the pre-tokenizer and the normaliser see each character a few times', async () => {
  // the offsets once re-joined and pre-tokenized the rest of the text for every [UNK] (quadratic:
  // 48,000 characters took 80 s); count the characters the library's steps are given instead of
  // timing them. The library's own encode gives each step the text once; the offsets once more,
  // and the normaliser each distinct character alone.
  const tok = await loadTokenizer('bert-base-uncased');
  const seen = { normalizer: 0, pre_tokenizer: 0 };
  for (const step of Object.keys(seen)) {
    const run = tok.hf[step];
    tok.hf[step] = (text, ...rest) => {
      seen[step] += text.length;
      return run(text, ...rest);
    };
  }
  const text = '😀 '.repeat(4000); // 4000 [UNK] words, 12,000 characters
  const e = tok.encode(text, { maxLength: Infinity, returnOffsets: true });
  assert.equal(e.tokens.length, 4002);
  assert.deepEqual(e.offsets[4000], [3 * 3999, 3 * 3999 + 2]);
  assert.ok(seen.pre_tokenizer <= 2 * text.length, `the pre-tokenizer saw ${seen.pre_tokenizer} characters`);
  assert.ok(seen.normalizer <= 2 * text.length + 10, `the normaliser saw ${seen.normalizer} characters`);
  // truncated to the model's maximum: the offsets stop at the tokens kept
  seen.pre_tokenizer = 0;
  tok.encode(text, { truncation: true, returnOffsets: true });
  assert.ok(seen.pre_tokenizer <= 2 * text.length, `the pre-tokenizer saw ${seen.pre_tokenizer} characters`);
});

test('added tokens matched after normalisation ("normalized": true) are matched under the per-character lower-casing too', async () => {
  const vocab = { '[UNK]': 0, '[CLS]': 1, '[SEP]': 2, α: 3, '##σ': 4, '##ς': 5, x: 6 };
  const added = (id, content) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: true,
    special: false,
  });
  const json = {
    version: '1.0',
    added_tokens: [added(7, 'ΑΣ'), added(8, '\u{20000}x')],
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: null,
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
  const tok = await loadTokenizer({ 'tokenizer.json': new TextEncoder().encode(JSON.stringify(json)) });
  // 'ΑΣ' normalises to 'ασ' (Rust's), which is where the added token is matched; 'ας' is not it
  assert.deepEqual(tok.encode('x ΑΣ x').inputIds, [6, 7, 6]);
  assert.deepEqual(tok.encode('x ας x').inputIds, [6, 3, 5, 6]);
  // an ideograph past U+FFFF split off in the token as in the text
  assert.deepEqual(tok.encode('x \u{20000}x x').inputIds, [6, 8, 6]);
  // a token matched as written keeps its text when another's normalised form was that text
  const both = await loadTokenizer({
    'tokenizer.json': new TextEncoder().encode(
      JSON.stringify({
        ...json,
        normalizer: { type: 'Lowercase' },
        added_tokens: [{ ...added(9, 'xς'), normalized: false }, added(10, 'XΣ')],
      }),
    ),
  });
  assert.deepEqual(both.encode('xς').inputIds, [9]);
  assert.deepEqual(both.encode('XΣ').inputIds, [10]);
});
