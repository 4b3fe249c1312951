// The tokenizer.json pattern check in a browser bundle (issue 24): the default entry point has no
// ReDoS analysis, so Llama 3's pattern (on the package's list of checked patterns) loads, an
// unknown pattern is refused with the fix in its message unless the caller trusts the file, and
// patterns-checked.js, which imports 'attention-wasm/tokenizer-check', analyses it.
import { loadTokenizer } from 'attention-wasm';

const LLAMA3 =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const UNKNOWN = '\\p{L}+|\\s+';
const HOSTILE = '(a+)+$';

/** A tokenizer.json: a Split on `regex`, then a vocabulary of whole pre-tokens. */
function tokenizerJson(regex) {
  const words = ['[UNK]', 'How', ' are', ' you', 'are', 'you', ' '];
  return {
    version: '1.0',
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: { type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false },
    post_processor: null,
    decoder: null,
    model: {
      type: 'BPE',
      unk_token: '[UNK]',
      ignore_merges: true,
      vocab: Object.fromEntries(words.map((w, i) => [w, i])),
      merges: [],
    },
  };
}

async function tokens(regex, options) {
  const files = { 'tokenizer.json': new TextEncoder().encode(JSON.stringify(tokenizerJson(regex))) };
  try {
    return (await loadTokenizer(files, options)).encode('How are you').tokens;
  } catch (e) {
    return { error: e.message };
  }
}

/** Each pattern's tokens of 'How are you', or the error that refused it; shown in #result. */
export async function showPatternResults() {
  const result = {
    listed: await tokens(LLAMA3),
    unknown: await tokens(UNKNOWN),
    trusted: await tokens(UNKNOWN, { trustPatterns: true }),
    hostile: await tokens(HOSTILE),
  };
  document.querySelector('#result').textContent = JSON.stringify(result);
}
