// The regular expressions of a tokenizer.json, checked before the tokenizer is built (issue 24):
// the two patterns that hung the first encode() (a Split pre-tokenizer '(a+)+$', a Replace
// normalizer '(x+x+)+y') and their kin, at every place a pattern can be and inside Sequences, are
// refused at load with the file, the JSON path and the pattern; the patterns of real tokenizers
// (BERT's pipeline has none; GPT-2, Llama 3, Qwen2, SmolLM, and 104 of the 105 patterns sampled
// from the hub's tokenizer.json files) load and encode as the library does without the check.
// The list of checked patterns the browser entry point trusts without the analysis
// (dist/checked-patterns.js) holds only patterns the analysis passes, and literals are literal.
// This is the Node entry point ('attention-wasm'), which always has the analysis
// (tokenizer_check_entry.test.mjs tests the default entry point without it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadTokenizer } from 'attention-wasm';
import { backtrackingPaths, catastrophicBacktracking, enableTokenizerCheck } from 'attention-wasm/tokenizer-check';
import {
  checkTokenizerPatterns,
  compilePattern,
  hasPatternAnalysis,
  isLiteral,
  maxInputCharsFor,
  PATTERN_LIMITS,
  PATTERN_PATHS_FULL,
} from '../../dist/tokenizer-patterns.js';
import { CHECKED_PATTERNS, CHECKED_PATTERN_PATHS } from '../../dist/checked-patterns.js';
import { pipelineJson, REAL_PATTERNS, asFile, byteSymbols } from './fixtures/pipelines.mjs';
import { rng } from './reference/random.mjs';

/** BERT's tokenizer.json (the shipped vocabulary's pipeline) with `edit` applied. */
async function bertJson(edit = () => {}) {
  const { bertTokenizerJson } = await import('../../dist/tokenizer.js');
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'a', 'x', 'y', '!', '##a'].join('\n');
  const json = bertTokenizerJson(vocab, {});
  edit(json);
  return json;
}
const load = (json) => loadTokenizer({ 'tokenizer.json': asFile(json) });
const split = (regex) => ({ type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false });
const replace = (regex, content = '') => ({ type: 'Replace', pattern: { Regex: regex }, content });

test("the issue's two files are refused at load, naming the file, the JSON path and the pattern", async () => {
  await assert.rejects(load(await bertJson((j) => (j.pre_tokenizer = split('(a+)+$')))), {
    name: 'Error',
    message:
      "loadTokenizer: tokenizer.json: pre_tokenizer.pattern.Regex '(a+)+$' can take exponential time on some texts ('a+' is repeated inside '(a+)+'): refused",
  });
  await assert.rejects(load(await bertJson((j) => (j.normalizer = replace('(x+x+)+y')))), {
    message:
      /^loadTokenizer: tokenizer\.json: normalizer\.pattern\.Regex '\(x\+x\+\)\+y' can take exponential time on some texts \(.*\): refused$/,
  });
  // the module and the shipped tokenizer work on
  const tok = await loadTokenizer('bert-base-uncased');
  assert.deepEqual(tok.encode('a '.repeat(40) + '!').inputIds.length, 43);
});

test("the review's patterns: an optional element inside a repetition, three quantifiers that trade characters", async () => {
  // '(?:aa?)+$' splits a run of 'a's in Fibonacci-many ways (7.4 s on 40 'a's and a '!'), and
  // scslre reports it as no more than a scan; '\\s*\\s*\\s*$' is three pairs of quantifiers that
  // trade characters, each reported as quadratic, together the 4th power of a run of spaces
  await assert.rejects(load(await bertJson((j) => (j.pre_tokenizer = split('(?:aa?)+$')))), {
    name: 'Error',
    message:
      "loadTokenizer: tokenizer.json: pre_tokenizer.pattern.Regex '(?:aa?)+$' can take exponential time on some texts ('a?' inside the repeated '(?:aa?)+' can be taken or skipped with the same text after it): refused",
  });
  await assert.rejects(load(await bertJson((j) => (j.normalizer = replace('\\s*\\s*\\s*$')))), {
    name: 'Error',
    message:
      "loadTokenizer: tokenizer.json: normalizer.pattern.Regex '\\s*\\s*\\s*$' can take time that grows as the 3rd or a higher power of the text's length ('\\p{White_Space}*', '\\p{White_Space}*' and '\\p{White_Space}*' can take the same characters): refused",
  });
  // their kin
  for (const bad of [
    '(?:ab?b?)+$',
    '(?:a[ab]?)*!',
    '(?:\\p{L}[\\p{L}\\p{M}]?)+$',
    '\\s*\\s*\\s*\\s*x',
    ' *\\s* *$',
    '(?:aa*)+$',
  ])
    assert.match(catastrophicBacktracking(compilePattern({ Regex: bad }, 'x').regexp) ?? 'passed', /can take/, bad);
  // one pair that trades, and optional elements that cannot be taken and skipped alike, pass
  for (const good of [
    '\\s*\\s*$',
    '(?:ab?)+$',
    '(?:\\p{L}\\p{M}?)+$',
    '(?:\\r?\\n)+(?!\\r?\\n)',
    '(?:\\p{L}\\p{M}*)+',
    '\\d+\\.?\\d*[eE]',
  ])
    assert.equal(catastrophicBacktracking(compilePattern({ Regex: good }, 'x').regexp), null, good);
});

test('catastrophic patterns at every place a pattern can be, inside Sequences, in both forms of the dialect', async () => {
  const bad = [
    '(a+)+$',
    '(x+x+)+y',
    '(a|a)*$', // alternatives that match the same text (scslre leaves these to other tools)
    '(a|aa)+$',
    '(?i:(a|A)+)$', // the Oniguruma case-insensitive group, rewritten by the library
    '(\\w+\\s?)+$', // \w and \s as the library rewrites them (Unicode classes)
    '([a-z]+)*$',
    '(a*)*b',
    '(\\p{L}+\\p{L}+)+!',
    '(?>a+)+b', // an atomic group: safe in Oniguruma, a plain group once rewritten for JavaScript
    '(?:a{1,9999}){1,9999}$', // bounded, but as '(?:a+)+$' within its bounds
    '(.*a){12}x', // not exponential, but the 12th power of the length
  ];
  const places = {
    'pre_tokenizer.pattern.Regex': (j, p) => (j.pre_tokenizer = split(p)),
    'pre_tokenizer.pretokenizers[1].pattern.Regex': (j, p) =>
      (j.pre_tokenizer = { type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, split(p)] }),
    'normalizer.pattern.Regex': (j, p) => (j.normalizer = replace(p)),
    'normalizer.normalizers[0].normalizers[2].pattern.Regex': (j, p) =>
      (j.normalizer = {
        type: 'Sequence',
        normalizers: [{ type: 'Sequence', normalizers: [{ type: 'Lowercase' }, { type: 'NFC' }, replace(p, ' ')] }],
      }),
    'decoder.pattern.Regex': (j, p) => (j.decoder = replace(p)),
    'decoder.decoders[1].pattern.Regex': (j, p) =>
      (j.decoder = { type: 'Sequence', decoders: [{ type: 'Fuse' }, replace(p)] }),
    'pre_tokenizer.pretokenizers[0].pattern.Regex': (j, p) =>
      (j.pre_tokenizer = {
        type: 'Sequence',
        pretokenizers: [{ type: 'Replace', pattern: { Regex: p }, content: '' }],
      }),
  };
  for (const pattern of bad) {
    for (const [path, edit] of Object.entries(places)) {
      const json = await bertJson((j) => edit(j, pattern));
      await assert.rejects(load(json), (e) => {
        assert.equal(e.name, 'Error');
        const start = `loadTokenizer: tokenizer.json: ${path} '${pattern}' can take `;
        assert.ok(e.message.startsWith(start), `${pattern} at ${path}:\n${e.message}\nexpected: ${start}`);
        assert.match(e.message, /: refused$/);
        return true;
      });
    }
  }
});

test('the same checks, called directly, and the bounds that keep the check itself short', () => {
  const json = (p) => ({ pre_tokenizer: { type: 'Sequence', pretokenizers: [p] }, model: {} });
  assert.doesNotThrow(() => checkTokenizerPatterns(json(split('\\s+|\\w+'))));
  assert.throws(() => checkTokenizerPatterns(json(split('(a+)+$')), 'x.json'), {
    message: /^x\.json: pre_tokenizer\.pretokenizers\[0\]\.pattern\.Regex '\(a\+\)\+\$' can take exponential time/,
  });
  // a String pattern is a literal: never catastrophic; a pattern of neither form is refused
  assert.doesNotThrow(() => checkTokenizerPatterns(json({ type: 'Split', pattern: { String: '(a+)+$' } })));
  assert.throws(() => checkTokenizerPatterns(json({ type: 'Split', pattern: { Regex: 1 } })), {
    message: /pre_tokenizer\.pretokenizers\[0\]\.pattern must be \{ "Regex": string \} or \{ "String": string \}/,
  });
  assert.throws(() => checkTokenizerPatterns(json({ type: 'Split', pattern: { Regex: 'a', String: 'b' } })), {
    message: /must be \{ "Regex": string \}/,
  });
  assert.throws(() => checkTokenizerPatterns(json(split('(a'))), {
    message: /pattern\.Regex '\(a' is not a valid regular expression/,
  });
  assert.throws(() => checkTokenizerPatterns(json(split('a'.repeat(PATTERN_LIMITS.length + 1)))), {
    message: /has 10001 characters, more than 10000/,
  });
  let deep = split('a');
  for (let i = 0; i < 40; i++) deep = { type: 'Sequence', pretokenizers: [deep] };
  assert.throws(() => checkTokenizerPatterns({ pre_tokenizer: deep, model: {} }), {
    message: /is nested more than 32 levels deep/,
  });
  const many = { type: 'Sequence', pretokenizers: Array.from({ length: 300 }, (_, i) => split(`a{${i}}`)) };
  assert.throws(() => checkTokenizerPatterns({ pre_tokenizer: many, model: {} }), {
    message: /more than 256 patterns/,
  });
});

test('hostile patterns that could make the check itself slow are decided: each accepted or refused as it must be', () => {
  const json = (p) => ({ pre_tokenizer: split(p), model: {} });
  for (const [p, refusal] of [
    ['((a{100}){100}){100}', null], // a fixed string of 10^6 a's: linear
    ['(a|b|c|d|e|f|g|h){500}x', /can try more than 2\^60 ways through the text from each position/],
    ['[\\s\\S]{65535}', null],
    [`(${Array.from({ length: 2000 }, (_, i) => `w${i}`).join('|')})*`, /has 10892 characters, more than 10000/],
    ['(?:(?:(?:(?:a*)*)*)*)*b', /can take exponential time on some texts \('a\*' is repeated inside/],
    ['(a|(b|(c|(d|(e|a)))))*$', /can take exponential time on some texts \(the alternatives 'a' and/],
  ]) {
    if (refusal) assert.throws(() => checkTokenizerPatterns(json(p)), { name: 'Error', message: refusal }, p);
    else assert.doesNotThrow(() => checkTokenizerPatterns(json(p)), p);
  }
});

test('the patterns of real tokenizers pass, and encode as the library does without the check', async () => {
  const texts = [
    'How are you doing?',
    "You should've done this",
    "HELLO'S WORLD'LL 0123456789 1000",
    'def main():\n\tpass\r\n\n  x  ',
    'naïve café 世界 — 😀',
  ];
  const words = {
    gpt2: ['How', 'Ġare', 'Ġyou', 'Ġdoing', 'You', 'Ġshould', "'ve", 'Ġdone', 'Ġthis'],
    llama3: [
      'How',
      'Ġare',
      'Ġyou',
      'Ġdoing',
      'You',
      'Ġshould',
      "'ve",
      'Ġdone',
      'Ġthis',
      '012',
      '345',
      '678',
      'HELLO',
      "'S",
    ],
    qwen2: ['How', 'Ġare', 'Ġyou', 'Ġdoing', 'You', 'Ġshould', "'ve", 'Ġdone', 'Ġthis'],
    smollm: ['How', 'Ġare', 'Ġyou', 'Ġdoing', 'You', 'Ġshould', "'ve", 'Ġdone', 'Ġthis'],
  };
  for (const [name, list] of Object.entries(words)) {
    const json = pipelineJson(name, list);
    const tok = await load(json);
    const plain = new Tokenizer(json, {});
    for (const text of texts) assert.deepEqual(tok.encode(text).inputIds, plain.encode(text).ids, `${name}: ${text}`);
    // pre-tokenization as the hub's tokenizers give it (huggingface/tokenizers.js model tests)
    assert.deepEqual(
      tok.encode('How are you doing?').tokens.filter((t) => t !== '<|begin_of_text|>'),
      ['How', 'Ġare', 'Ġyou', 'Ġdoing', '?'],
      name,
    );
    assert.deepEqual(
      tok.encode("You should've done this").tokens.filter((t) => t !== '<|begin_of_text|>'),
      ['You', 'Ġshould', "'ve", 'Ġdone', 'Ġthis'],
      name,
    );
  }
  const llama = await load(pipelineJson('llama3', words.llama3));
  assert.deepEqual(llama.encode("HELLO'S 0123456789").tokens, [
    '<|begin_of_text|>',
    'HELLO',
    "'S", // (?i:'s|...): the case-insensitive group, rewritten by the library
    'Ġ',
    '012',
    '345',
    '678',
    '9',
  ]);
  const qwen = await load(pipelineJson('qwen2'));
  assert.deepEqual(
    qwen.encode('0123 10').tokens,
    ['0', '1', '2', '3', 'Ġ', '1', '0'],
    'Qwen2 splits digits one by one',
  );
  const smol = await load(pipelineJson('smollm'));
  assert.deepEqual(smol.encode('2016').tokens, ['2', '0', '1', '6'], 'SmolLM: Digits(individual_digits)');
  // the BERT pipeline (BertNormalizer, BertPreTokenizer, WordPiece) has no pattern at all
  assert.doesNotThrow(() => checkTokenizerPatterns(JSON.parse(JSON.stringify(pipelineJson('gpt2')))));
  assert.equal(byteSymbols().length, 256);
});

test("the list of checked patterns: every entry passes the full analysis; it holds Llama 3's and Qwen2's", () => {
  assert.ok(hasPatternAnalysis(), 'the Node entry point registers the analysis');
  enableTokenizerCheck(); // idempotent
  assert.equal(CHECKED_PATTERNS.length, 104);
  assert.equal(new Set(CHECKED_PATTERNS).size, CHECKED_PATTERNS.length, 'no pattern twice');
  const refused = [];
  CHECKED_PATTERNS.forEach((regex, i) => {
    const { regexp } = compilePattern({ Regex: regex }, `CHECKED_PATTERNS[${i}]`); // throws if the library cannot compile it
    const why = catastrophicBacktracking(regexp);
    if (why) refused.push(`CHECKED_PATTERNS[${i}] '${regex}' ${why}`);
  });
  assert.deepEqual(refused, []);
  // their ways from one position: at most 1,024, or as CHECKED_PATTERN_PATHS has them
  const counts = Object.fromEntries(
    CHECKED_PATTERNS.map((regex) => [regex, backtrackingPaths(compilePattern({ Regex: regex }, 'x').regexp)]),
  );
  assert.deepEqual(
    Object.fromEntries(Object.entries(counts).filter(([, n]) => n > PATTERN_PATHS_FULL)),
    CHECKED_PATTERN_PATHS,
  );
  // the real tokenizers' patterns, as the fixtures write them from the published files
  for (const [name, regex] of Object.entries(REAL_PATTERNS))
    assert.ok(CHECKED_PATTERNS.includes(regex), `${name}'s pattern is not on the list`);
});

test('optional or alternative parts repeated or nested: no loop, but too many ways from each position, refused', async () => {
  // '(?:(?:a?){16}){16}b' took 11.9 s to encode four 'a's, 93.9 s six; the other two seconds to hours
  for (const [regex, ways] of [
    ['(?:(?:a?){16}){16}b', 'more than 2^60'],
    ['a?'.repeat(40) + 'b', String(2 ** 40)],
    ['(?:a|a)'.repeat(40) + 'b', String(2 ** 40)],
    ['(?:a?){16}a?b', String(2 ** 17)],
    // counted in closed form: a trillion repeats are not a trillion steps of the check
    ['a{0,1000000000000}', '1000000000001'],
    ['(?:a|b){1000000000000}', 'more than 2^60'],
  ])
    await assert.rejects(load(await bertJson((j) => (j.pre_tokenizer = split(regex)))), {
      name: 'Error',
      message: `loadTokenizer: tokenizer.json: pre_tokenizer.pattern.Regex '${regex.length > 60 ? `${regex.slice(0, 59)}…` : regex}' can try ${ways} ways through the text from each position, more than 65536 (optional or alternative parts repeated or nested, or a repeat of a wide range): it can take hours on some texts: refused`,
    });
  // within the bound, a tokenizer takes texts as much shorter as its patterns have more ways than
  // 1,024 (V8: about 11 s per 1,000,000 characters at 1,024 ways)
  assert.equal((await load(await bertJson((j) => (j.pre_tokenizer = split('(?:a?){10}b'))))).maxInputChars, 1_000_000);
  const slow = await load(await bertJson((j) => (j.pre_tokenizer = split('(?:a?){12}b'))));
  assert.equal(slow.maxInputChars, 250_000);
  assert.throws(() => slow.encode('a'.repeat(250_001)), {
    name: 'RangeError',
    message: /more than tokenizer\.maxInputChars \(250000\)/,
  });
  // a pattern of the list with more ways: its count from the list (the browser entry has no analysis)
  const url = Object.keys(CHECKED_PATTERN_PATHS).find((regex) => regex.startsWith('(http'));
  assert.equal(
    (await load(await bertJson((j) => (j.pre_tokenizer = split(url))))).maxInputChars,
    Math.floor(1024e6 / 30600),
  );
  assert.equal(maxInputCharsFor(2048, 1000), 500);
});

test('a pattern the hub has, refused by the analysis, is not on the list: a URL pattern that is exponential', () => {
  // hub-031 of the sample (huggingface/tokenizers.js tests/fixtures/splitRegexPatterns.json)
  const hub031 = '@(https?|ftp)://(-\\.)?([^\\s/?\\.#-]+\\.?)+(/[^\\s]*)?$@iS';
  assert.ok(!CHECKED_PATTERNS.includes(hub031));
  // and it is: 2^n steps on 'http://' and n letters and dots with no end in sight
  assert.throws(() => checkTokenizerPatterns({ pre_tokenizer: split(hub031), model: {} }), {
    message:
      /^tokenizer\.json: pre_tokenizer\.pattern\.Regex '@\(https\?\|ftp\):\/\/\(-\\\.\)\?\(\[\^\\s\/\?\\\.#-\]\+\\\.\?\)\+.*can take exponential time/,
  });
});

test('literals: every String pattern compiles to one (the library escapes it), which the analysis passes too', () => {
  const strings = [
    ' ',
    '▁',
    '``',
    "''",
    '\n',
    '\r\n',
    '.',
    '(a+)+$',
    '[x]{2,}|\\d*',
    '^$',
    'a/b',
    '\u2028',
    '😀😀',
    '',
  ];
  // random strings of syntax characters, letters, backslashes and line terminators
  const chars = [...'\\^$.*+?()[]{}|/-aZ0 \n\r\t\u2028\u2029é😀'];
  const random = rng(24);
  for (let n = 0; n < 200; n++)
    strings.push(Array.from({ length: 1 + (n % 12) }, () => chars[Math.floor(random() * chars.length)]).join(''));
  for (const text of strings) {
    const { regexp } = compilePattern({ String: text }, 'x');
    assert.ok(isLiteral(regexp), `String ${JSON.stringify(text)} compiles to /${regexp.source}/, not judged a literal`);
    assert.equal(catastrophicBacktracking(regexp), null, JSON.stringify(text));
    // it matches exactly its text
    if (text) assert.deepEqual(`<${text}>`.match(regexp), [text]);
  }
  // Regex patterns are literals only when they are
  for (const regex of ['a', '▁', '\\n', '://', '\\.\\.\\.'])
    assert.ok(isLiteral(compilePattern({ Regex: regex }, 'x').regexp), regex);
  for (const regex of [
    'a+',
    'a?',
    'a*',
    'a{2}',
    '[a]',
    'a|b',
    '(a)',
    '(?:a)',
    '\\d',
    '\\s',
    '\\p{L}',
    '.',
    '^a',
    'a$',
    '\\bx',
    '(?=a)',
    '(a)\\1',
  ])
    assert.ok(!isLiteral(compilePattern({ Regex: regex }, 'x').regexp), regex);
});
