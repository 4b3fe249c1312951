// Tiny BPE tokenizers for the causal-LM fixtures (scripts/make-fixtures.mjs), trained here on a
// fixed text so that nothing is downloaded and every run writes the same files. Two families, in
// the tokenizer.json layouts the hub's checkpoints use:
//   - byte-level BPE (GPT-2; SmolLM adds Digits(individual_digits) before ByteLevel): every byte
//     a symbol through GPT-2's bytes_to_unicode table, pre-tokenized with GPT-2's regex, ByteLevel
//     decoder. A character that no merge covers is several tokens (one per byte), e.g. the emoji
//     of the corpus, and some CJK characters are merged only in part.
//   - SentencePiece BPE with byte fallback (Llama 2, TinyLlama): normalizer Prepend('▁') +
//     Replace(' ' -> '▁'), no pre-tokenizer, <0xNN> byte tokens for characters outside the
//     vocabulary (newline, the emoji), decoder Replace + ByteFallback + Fuse + Strip.
// The trainer is plain BPE (count adjacent pairs over the words, merge the most frequent, ties by
// the pair's text), which is what the merges of such files mean to the tokenizer that applies
// them; the vocabularies are small (a few hundred tokens) so that the fixtures stay in KBs.

/** The training text: English with digits and punctuation, accents, CJK and an emoji. */
export const CORPUS = [
  'The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs.',
  'A man was fishing on the river bank, and the bank was quiet in the morning.',
  'She withdrew 250 dollars from the bank in 2024, then walked home at 7:30.',
  "It's the best day: we're going to the café, they'll meet us there, I'd say.",
  'Über den Fluss, über die Brücke: schön und grün. Café, crème brûlée, naïve résumé.',
  '日本語のテキストです。日本の川と日本の山。',
  'Attention is all you need; attention heads attend to the tokens that came before.',
  'Streaming text 🙂 must never show a broken character, even when one character spans tokens.',
  'def forward(self, x):\n    return self.linear(x) + 1\n',
  'Numbers: 0 1 2 3 4 5 6 7 8 9 10 100 1000, and   three spaces.',
].join('\n');

/** GPT-2's bytes_to_unicode: byte -> the printable character that stands for it. */
export function bytesToUnicode() {
  const bs = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  }
  const table = new Array(256);
  bs.forEach((b, i) => (table[b] = String.fromCodePoint(cs[i])));
  return { table, order: bs }; // order: the bytes in GPT-2's vocabulary order (ids 0..255)
}

// GPT-2's pre-tokenizer pattern (the ByteLevel pre-tokenizer's use_regex), as in tokenizers'
// byte_level.rs and GPT-2's encoder.py.
const GPT2_PATTERN = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** Plain BPE: words (arrays of symbols) with counts -> merges [a, b] in order. */
function trainBpe(words, merges) {
  const out = [];
  const seqs = [...words.entries()].map(([w, count]) => ({ symbols: [...w.symbols], count }));
  for (let m = 0; m < merges; m++) {
    const pairs = new Map();
    for (const { symbols, count } of seqs) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = `${symbols[i]}\u0000${symbols[i + 1]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + count);
      }
    }
    let best = null,
      bestCount = 1; // a pair seen once is not merged
    for (const [key, count] of pairs) {
      if (count > bestCount || (count === bestCount && best !== null && key < best)) {
        best = key;
        bestCount = count;
      }
    }
    if (best === null) break;
    const [a, b] = best.split('\u0000');
    out.push([a, b]);
    for (const s of seqs) {
      const next = [];
      for (let i = 0; i < s.symbols.length; i++) {
        if (i + 1 < s.symbols.length && s.symbols[i] === a && s.symbols[i + 1] === b) {
          next.push(a + b);
          i++;
        } else next.push(s.symbols[i]);
      }
      s.symbols = next;
    }
  }
  return out;
}

const countWords = (pieces, toSymbols) => {
  const words = new Map();
  for (const p of pieces) {
    const entry = words.get(p) ?? { symbols: toSymbols(p), count: 0 };
    entry.count++;
    words.set(p, entry);
  }
  return new Map([...words.values()].map((w) => [w, w.count]));
};

/**
 * A byte-level BPE tokenizer.json (+ its merges and vocabulary).
 * @param {{merges: number, style: 'gpt2' | 'smollm'}} options
 *   gpt2: ByteLevel pre-tokenizer, <|endoftext|> the last id (GPT-2: 50256);
 *   smollm: Digits(individual_digits) then ByteLevel, the special tokens first (SmolLM:
 *   <|endoftext|> 0, <|im_start|> 1, <|im_end|> 2).
 */
export function byteLevelBpe({ merges: mergeCount, style }) {
  const { table, order } = bytesToUnicode();
  const utf8 = new TextEncoder();
  const pieces = [];
  for (const line of CORPUS.split('\n')) {
    for (const part of style === 'smollm' ? line.split(/(\p{N})/u) : [line]) {
      for (const m of part.matchAll(GPT2_PATTERN)) pieces.push(m[0]);
    }
  }
  const words = countWords(pieces, (p) => [...utf8.encode(p)].map((b) => table[b]));
  const merges = trainBpe(words, mergeCount);
  const specials = style === 'smollm' ? ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] : [];
  const vocab = {};
  let id = 0;
  for (const s of specials) vocab[s] = id++;
  for (const b of order) vocab[table[b]] = id++;
  for (const [a, b] of merges) if (!(a + b in vocab)) vocab[a + b] = id++;
  if (style === 'gpt2') vocab['<|endoftext|>'] = id++;
  const added = (style === 'gpt2' ? ['<|endoftext|>'] : specials).map((content) => ({
    id: vocab[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: style === 'gpt2', // as in gpt2's file; SmolLM's special tokens are not normalized
    special: true,
  }));
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer:
      style === 'smollm'
        ? { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: true }, byteLevel] }
        : byteLevel,
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: style === 'gpt2' ? '' : null,
      end_of_word_suffix: style === 'gpt2' ? '' : null,
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: merges.map(([a, b]) => `${a} ${b}`),
    },
  };
  return { tokenizer, vocab, merges, size: id, specials: Object.fromEntries(added.map((t) => [t.content, t.id])) };
}

/**
 * A SentencePiece-style BPE tokenizer.json with byte fallback (Llama 2 / TinyLlama layout):
 * <unk> 0, <s> 1, </s> 2, <0x00>..<0xFF> 3..258, the merged pieces in merge order, then the
 * single characters seen at least twice (others, and newline, fall back to bytes).
 */
export function sentencePieceBpe({ merges: mergeCount }) {
  const text = CORPUS.split('\n');
  const pieces = [];
  for (const line of text) {
    const normalized = `▁${line.replaceAll(' ', '▁')}`;
    for (const m of normalized.matchAll(/▁+[^▁]*/gu)) pieces.push(m[0]); // whitespace-split words
  }
  const charCount = new Map();
  for (const p of pieces) for (const c of p) charCount.set(c, (charCount.get(c) ?? 0) + 1);
  const chars = [...charCount]
    .filter(([c, n]) => n >= 2 && c !== '\n' && c !== '\t')
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([c]) => c);
  const known = new Set(chars);
  // words made of known characters only are trained on (merges never include a byte token)
  const words = countWords(
    pieces.filter((p) => [...p].every((c) => known.has(c))),
    (p) => [...p],
  );
  const merges = trainBpe(words, mergeCount);
  const vocab = { '<unk>': 0, '<s>': 1, '</s>': 2 };
  let id = 3;
  for (let b = 0; b < 256; b++) vocab[`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`] = id++;
  for (const [a, b] of merges) if (!(a + b in vocab)) vocab[a + b] = id++;
  for (const c of chars) if (!(c in vocab)) vocab[c] = id++;
  const special = (content, i) => ({
    id: i,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special('<unk>', 0), special('<s>', 1), special('</s>', 2)],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'Prepend', prepend: '▁' },
        { type: 'Replace', pattern: { String: ' ' }, content: '▁' },
      ],
    },
    pre_tokenizer: null,
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '<s>', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '<s>', type_id: 1 } },
        { Sequence: { id: 'B', type_id: 1 } },
      ],
      special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } },
    },
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        { type: 'Strip', content: ' ', start: 1, stop: 0 },
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<unk>',
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      vocab,
      merges: merges.map(([a, b]) => `${a} ${b}`),
    },
  };
  return { tokenizer, vocab, merges, size: id, specials: { '<unk>': 0, '<s>': 1, '</s>': 2 } };
}
