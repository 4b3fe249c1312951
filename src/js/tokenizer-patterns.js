// The regular expressions of a tokenizer.json, checked before the tokenizer is built. Hugging
// Face's JS tokenizers run them with the JavaScript engine's backtracking RegExp, so a pattern
// such as '(a+)+$' in a Split pre-tokenizer would hold the caller's thread for ever on a text of
// forty 'a's and a '!' (issue 24). Every `pattern` of the normalizer, the pre-tokenizer, the
// decoder and the post-processor, at any depth of their Sequences, is compiled as the library
// compiles it, and runs only if it is
//   1. a literal: it compiles to plain characters (every `{ "String": ... }` pattern does: the
//      library escapes it), which a backtracking engine matches in at most n * m steps;
//   2. on the list of real tokenizers' patterns (checked-patterns.js), each of which the full
//      analysis passes (a test runs it over the list);
//   3. else, passed by the full analysis (tokenizer-check.js: scslre and refa, 250 KB gzip),
//      which `attention-wasm/tokenizer-check` registers here when imported; the Node entry point
//      registers a loader that imports it the first time a file brings such a pattern (its ~12 MiB
//      of resident memory are paid only then), so Node callers always have it. Without it (the default browser entry point,
//      whose users would otherwise all download it) such a pattern is refused, with the fix;
//   4. or the caller opted out for this file (loadTokenizer / loadPretrained's trustPatterns).
// The structural bounds (the pattern's form, its length, how many, how deep) always apply.
import { ReplaceNormalizer } from '@huggingface/tokenizers';
import { CHECKED_PATTERNS, CHECKED_PATTERN_PATHS } from './checked-patterns.js';

/** Where patterns live: the pipeline's parts (the model's vocabulary and merges have none). */
const PARTS = ['normalizer', 'pre_tokenizer', 'decoder', 'post_processor'];
/** Bounds that keep the check itself short on a hostile file. */
export const PATTERN_LIMITS = {
  depth: 32, // nesting of Sequences (real files: 2)
  count: 256, // patterns in one file (real files: 0 to 3)
  length: 10000, // characters of one pattern (the longest seen on the hub: about 1,000)
  nodes: 20000, // automaton states for one check (tokenizer-check.js)
};
/**
 * What importing the analysis adds to a page: dist/tokenizer-check.js and dist/regex-analysis.js
 * (tests/js/tokenizer_check_entry.test.mjs measures it).
 */
export const ANALYSIS_SIZE = '250 KB gzip';

const CHECKED = new Set(CHECKED_PATTERNS);
/** The registered analysis: (RegExp) -> why it is catastrophic, or null. */
let analysis = null;
/** The registered bound of the ways through a pattern from one position (backtrackingPaths). */
let pathsOf = null;

/**
 * Registers the full analysis (tokenizer-check.js calls this when imported).
 * @param {(regexp: RegExp) => string | null} analyse
 * @param {(regexp: RegExp) => number} [paths]
 */
export function registerPatternAnalysis(analyse, paths = null) {
  analysis = analyse;
  pathsOf = paths;
}

/**
 * The ways through the text from one position a tokenizer's patterns may take before its
 * maxInputChars is lowered (maxInputCharsFor): 1,024 ways cost V8 about 11 s on a text of
 * 1,000,000 characters at worst ('(?:a?){10}b' on 'a's, AMD EPYC Zen 4, Node 20).
 */
export const PATTERN_PATHS_FULL = 1024;

/**
 * A tokenizer's maxInputChars for patterns of at most `paths` ways from one position: the
 * default (maxInputChars) up to PATTERN_PATHS_FULL, then less in proportion, so that one call's
 * worst stays that of the default's.
 */
export const maxInputCharsFor = (paths, maxInputChars) =>
  paths <= PATTERN_PATHS_FULL ? maxInputChars : Math.max(1, Math.floor((maxInputChars * PATTERN_PATHS_FULL) / paths));

/** What imports the analysis on first need (the Node entry point's dynamic import), or null. */
let analysisLoader = null;

/**
 * Registers a function that imports the analysis (which then registers itself): called by
 * preparePatternAnalysis the first time a file has a pattern that needs it.
 * @param {() => Promise<unknown>} load
 */
export function registerPatternAnalysisLoader(load) {
  analysisLoader = load;
}

/** Whether the full analysis is registered. */
export const hasPatternAnalysis = () => analysis !== null;

const clip = (s, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
export const quote = (s) => `'${clip(s)}'`;

/** Every `pattern` under the pipeline's parts: { path, pattern }, the path in JSON terms. */
function collectPatterns(json, file) {
  const found = [];
  const walk = (node, path, depth) => {
    if (node === null || typeof node !== 'object') return;
    if (depth > PATTERN_LIMITS.depth)
      throw new Error(`${file}: ${path} is nested more than ${PATTERN_LIMITS.depth} levels deep`);
    if (Array.isArray(node)) {
      node.forEach((child, i) => walk(child, `${path}[${i}]`, depth + 1));
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      const at = `${path}.${key}`;
      if (key === 'pattern' && value !== null) found.push({ path: at, pattern: value });
      else walk(value, at, depth + 1);
    }
    if (found.length > PATTERN_LIMITS.count)
      throw new Error(`${file}: more than ${PATTERN_LIMITS.count} patterns (the last at ${found.at(-1).path})`);
  };
  for (const part of PARTS) walk(json[part], part, 0);
  return found;
}

/** The JavaScript RegExp @huggingface/tokenizers builds for a { Regex } or { String } pattern. */
export function compilePattern(pattern, where) {
  const kinds = pattern && typeof pattern === 'object' && !Array.isArray(pattern) ? Object.keys(pattern) : [];
  const kind = kinds.length === 1 ? kinds[0] : null;
  if ((kind !== 'Regex' && kind !== 'String') || typeof pattern[kind] !== 'string')
    throw new Error(
      `${where} must be { "Regex": string } or { "String": string }, got ${clip(JSON.stringify(pattern))}`,
    );
  const text = pattern[kind];
  const at = `${where}.${kind} ${quote(text)}`;
  if (text.length > PATTERN_LIMITS.length)
    throw new Error(`${at} has ${text.length} characters, more than ${PATTERN_LIMITS.length}`);
  try {
    return { at, kind, text, regexp: new ReplaceNormalizer({ type: 'Replace', pattern, content: '' }).pattern };
  } catch (e) {
    throw new Error(`${at} is not a valid regular expression (${e.message})`);
  }
}

// A RegExp source made of literal characters only: any character but the syntax ones, a syntax
// character escaped, or the escapes RegExp.prototype.source writes for '/' and line terminators
// and that \uXXXX / \xXX spell. No class, quantifier, alternation, group or assertion. The empty
// pattern's source is '(?:)'.
const LITERAL_SOURCE = /^(?:[^\\^$.*+?()[\]{}|]|\\[\\^$.*+?()[\]{}|/nrtfv]|\\u[\dA-Fa-f]{4}|\\x[\dA-Fa-f]{2})*$/;

/** Whether a compiled pattern matches one fixed string: at most n * m steps on a text of n characters. */
export const isLiteral = (regexp) => regexp.source === '(?:)' || LITERAL_SOURCE.test(regexp.source);

/**
 * Imports the analysis through the registered loader if this tokenizer.json has a pattern that
 * needs it (neither a literal nor on the list, and not trusted); checkTokenizerPatterns follows.
 * @param {object} json the parsed tokenizer.json
 * @param {string} file its name in messages
 * @param {{ trustPatterns?: boolean }} [options]
 */
export async function preparePatternAnalysis(json, file = 'tokenizer.json', { trustPatterns = false } = {}) {
  if (analysis || !analysisLoader || trustPatterns) return;
  for (const { path, pattern } of collectPatterns(json, file)) {
    const { kind, text, regexp } = compilePattern(pattern, `${file}: ${path}`);
    if (regexp === null || isLiteral(regexp) || (kind === 'Regex' && CHECKED.has(text))) continue;
    await analysisLoader();
    return;
  }
}

/**
 * Checks every pattern of a tokenizer.json before @huggingface/tokenizers builds it. A pattern
 * that is not { Regex } / { String }, not valid, or over the bounds is an Error naming the file,
 * the JSON path and the pattern; so is one the analysis finds can backtrack exponentially, or
 * cannot decide within its bounds, and, without the analysis registered, one that is neither a
 * literal nor on the list (unless `trustPatterns`). Returns the most ways through the text from
 * one position of the file's patterns (1 for literals, those of the list as it has them, the
 * analysis' bound for the rest, 1 when unchecked: maxInputCharsFor).
 * @param {object} json the parsed tokenizer.json
 * @param {string} file its name in messages
 * @param {{ trustPatterns?: boolean }} [options] trustPatterns: run the file's patterns unchecked
 */
export function checkTokenizerPatterns(json, file = 'tokenizer.json', { trustPatterns = false } = {}) {
  const checked = new Map(); // one analysis per distinct RegExp
  let paths = 1; // the most ways from one position of the patterns checked (backtrackingPaths)
  for (const { path, pattern } of collectPatterns(json, file)) {
    const { at, kind, text, regexp } = compilePattern(pattern, `${file}: ${path}`);
    if (regexp === null || trustPatterns || isLiteral(regexp)) continue;
    if (kind === 'Regex' && CHECKED.has(text)) {
      paths = Math.max(paths, CHECKED_PATTERN_PATHS[text] ?? 1);
      continue;
    }
    if (!analysis)
      throw new Error(
        `${at} is not one of the tokenizer patterns attention-wasm has checked, and this entry point does ` +
          `not analyse patterns: import 'attention-wasm/tokenizer-check' (the ReDoS analysis, ${ANALYSIS_SIZE}) ` +
          `to check it, or pass { trustPatterns: true } to run this file's patterns unchecked, at your own risk`,
      );
    const key = `${regexp.flags}/${regexp.source}`;
    if (!checked.has(key)) {
      try {
        checked.set(key, analysis(regexp));
      } catch (e) {
        throw new Error(`${at} could not be checked for exponential backtracking (${e.message}): refused`);
      }
    }
    const why = checked.get(key);
    if (why) throw new Error(`${at} ${why}: refused`);
    if (pathsOf) paths = Math.max(paths, pathsOf(regexp));
  }
  return paths;
}
