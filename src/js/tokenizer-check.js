// `attention-wasm/tokenizer-check`: the full ReDoS analysis of tokenizer.json patterns, for
// patterns that are neither literals nor on the list of real tokenizers' patterns
// (tokenizer-patterns.js). Importing this module registers it:
//   import 'attention-wasm/tokenizer-check';
// The Node entry point (node.js) imports it; the browser entry points do not, because it costs
// every page that imports the package 250 KB gzip (docs/security.md). A compiled pattern is
// analysed as the JavaScript RegExp that would run (the library's Oniguruma-to-JavaScript
// rewrite: `\s` -> `\p{White_Space}`, `$` -> lookaheads, atomic groups and possessive
// quantifiers -> plain ones):
//   - scslre (MIT; the analysis behind eslint-plugin-regexp's no-super-linear-backtracking),
//     on refa's automata: a report it marks exponential (a quantifier repeated inside another,
//     '(a+)+', or two that trade characters inside a repetition, '(x+x+)+') refuses the pattern,
//     and so does a quantifier repeated 3 or more times inside a bounded one ('(.*a){12}x': the
//     12th power of the text's length, as hopeless as exponential on a few hundred characters);
//   - what scslre leaves to other tools (its README): alternatives of a repeated group that can
//     match the same text and go on alike ('(a|a)*', '(a|aa)+'), each pair's languages
//     intersected with refa (scslre's own automaton library), assertions counted as matching
//     anything (so that a doubt refuses);
//   - and, with no loop to blame, more than 65,536 ways through the text from one position
//     (backtrackingPaths: '(?:(?:a?){16}){16}b', 'a?' written forty times).
// Quadratic reports are allowed: the patterns of real tokenizers have them (Llama 3's
// '\s*[\r\n]+' is quadratic in a run of spaces on its own, though its later alternatives match
// first), and TextTokenizer bounds the length of a text (docs/security.md). The analysis
// libraries are CommonJS; scripts/bundle-regex-analysis.mjs bundles them into
// dist/regex-analysis.js, an ES module every bundler and an import map can load.
import { analyse, JS, NFA, RegExpParser } from './regex-analysis.js';
import { PATTERN_LIMITS, quote, registerPatternAnalysis } from './tokenizer-patterns.js';

/** A quantifier that repeats its element more than this many times counts as a repetition. */
const REPEATS = 16;

/**
 * The most ways through the text from one position a pattern may try (backtrackingPaths): real
 * tokenizers' patterns have at most 30,600 (a URL pattern of the hub; Llama 3's 37). V8 tries
 * about 10^8 a second: '(?:a?){15}b' (32,768) takes 333 s on 1,000,000 'a's, '(?:(?:a?){16}){16}b'
 * (2^256) 12 s on four. tokenizer-patterns.js lowers a tokenizer's maxInputChars past
 * PATTERN_PATHS.full.
 */
const PATHS_REFUSED = 2 ** 16;

/**
 * An upper bound of the ways a backtracking engine can take through a pattern from one
 * position, not counting how far its unbounded loops run (that, the text's length, is scslre's
 * part): an alternation takes any of its alternatives (the sum), a sequence each of its elements
 * (the product), a quantifier {m,n} each count k in [m, n] of its element (the sum of b^k; an
 * unbounded one 2b: stop or go on), a lookaround its own. A pattern of nested or repeated
 * optional parts ('(?:(?:a?){16}){16}b', 'a?' written forty times) has astronomically many,
 * and is not a loop scslre looks at. Capped at 2^60.
 * @param {RegExp} regexp the compiled pattern
 */
export function backtrackingPaths(regexp) {
  const cap = 2 ** 60;
  const plus = (a, b) => Math.min(cap, a + b),
    times = (a, b) => Math.min(cap, a * b);
  const ways = (node) => {
    switch (node.type) {
      case 'Pattern':
      case 'Group':
      case 'CapturingGroup':
        return node.alternatives.reduce((sum, a) => plus(sum, ways(a)), 0);
      case 'Alternative':
        return node.elements.reduce((product, e) => times(product, ways(e)), 1);
      case 'Quantifier': {
        const b = ways(node.element);
        if (node.max === Infinity) return times(2, b);
        // the sum of b^k for k in [min, max]: max - min + 1 for b = 1; else within ~60 terms
        // of b^min the cap (a{0,1000000000000} must not loop 10^12 times)
        if (b <= 1) return Math.min(cap, (node.max - node.min + 1) * b);
        let sum = 0;
        for (let k = node.min, power = Math.min(cap, b ** node.min); k <= node.max && sum < cap; k++)
          [sum, power] = [plus(sum, power), times(power, b)];
        return sum;
      }
      case 'Assertion': // lookarounds; ^, $, \b: one way
        return node.alternatives ? node.alternatives.reduce((sum, a) => plus(sum, ways(a)), 0) : 1;
      default:
        return 1; // a character, a class, a backreference
    }
  };
  const flags = regexp.flags;
  return ways(
    new RegExpParser().parsePattern(regexp.source, 0, regexp.source.length, {
      unicode: flags.includes('u'),
      unicodeSets: flags.includes('v'),
    }),
  );
}

/** refa's automaton of a JavaScript pattern, assertions counted as matching the empty string. */
function automaton(source, flags) {
  const factory = new NFA.LimitedNodeFactory(PATTERN_LIMITS.nodes);
  const { expression, maxCharacter } = JS.Parser.fromLiteral({ source, flags }).parse({
    assertions: 'ignore',
    backreferences: 'disable',
    maxNodes: PATTERN_LIMITS.nodes,
  });
  return NFA.fromRegex(expression, { maxCharacter }, { assertions: 'ignore', unknowns: 'disable' }, factory);
}

/**
 * Alternatives inside a repetition that can match the same text and continue the same way: for a
 * group (A1|A2|...) inside a repeated element E, followed within E by R, the languages of
 * Ai R E* and Aj R E* intersect. Then some text has two ways through each repetition, and a
 * backtracking engine tries 2^n of them before it rejects. Lookarounds are not entered (the
 * engine never backtracks into them). Returns a description, or null.
 * @param {object} pattern regexpp's AST of the pattern (scslre's parse)
 */
function overlappingAlternatives(pattern, flags) {
  const visitAlternatives = (node, loop) => {
    if (loop && node.alternatives.length > 1) {
      const languages = node.alternatives.map((a) => automaton(`(?:${a.raw})${loop.rest}`, flags));
      for (let i = 0; i < languages.length; i++)
        for (let j = i + 1; j < languages.length; j++) {
          const both = NFA.fromIntersection(
            languages[i],
            languages[j],
            new NFA.LimitedNodeFactory(PATTERN_LIMITS.nodes),
          );
          if (!both.isEmpty) {
            const [a, b] = [node.alternatives[i].raw, node.alternatives[j].raw];
            return `the alternatives ${quote(a)} and ${quote(b)} of the repeated ${quote(loop.raw)} can match the same text`;
          }
        }
    }
    for (const alternative of node.alternatives) {
      const found = visitSequence(alternative.elements, loop);
      if (found) return found;
    }
    return null;
  };
  const visitSequence = (elements, loop) => {
    for (let k = 0; k < elements.length; k++) {
      const after = elements
        .slice(k + 1)
        .map((e) => e.raw)
        .join('');
      const found = visit(elements[k], loop && { raw: loop.raw, rest: after + loop.rest });
      if (found) return found;
    }
    return null;
  };
  const visit = (node, loop) => {
    switch (node.type) {
      case 'Group':
      case 'CapturingGroup':
        return visitAlternatives(node, loop);
      case 'Quantifier': {
        // An element that may be taken or left ('aa?' in '(?:aa?)+'), inside a repetition: the
        // same two ways through each repetition if the text after taking it (once or more) can
        // also be the text after leaving it ('(?:aa?)+$' splits a run of 'a's in Fibonacci-many
        // ways). Unbounded ones too ('(?:aa*)+$'); scslre reports most of them, not all.
        if (loop && node.min < node.max) {
          const more = node.max === Infinity ? '+' : `{1,${node.max - node.min}}`;
          const take = automaton(`(?:${node.element.raw})${more}${loop.rest}`, flags);
          const leave = automaton(`(?:)${loop.rest}`, flags);
          const both = NFA.fromIntersection(take, leave, new NFA.LimitedNodeFactory(PATTERN_LIMITS.nodes));
          if (!both.isEmpty)
            return `${quote(node.raw)} inside the repeated ${quote(loop.raw)} can be taken or skipped with the same text after it`;
        }
        const again = `(?:${node.element.raw})*`;
        if (node.max > REPEATS) return visit(node.element, { raw: node.raw, rest: again });
        return visit(node.element, loop && { raw: loop.raw, rest: (node.max > 1 ? again : '') + loop.rest });
      }
      default:
        return null; // characters, classes, backreferences, and lookarounds (atomic in JavaScript)
    }
  };
  return visitAlternatives(pattern, null);
}

/**
 * The source with each range quantifier {m,n} (2 <= n, m < n) made unbounded, {m,}: scslre only
 * looks for unbounded repetitions, and '(?:a{1,9999}){1,9999}$' backtracks as '(?:a+)+$' does
 * within its bounds (measured here: doubling every two more 'a's). Counted repetitions ({n}),
 * '?' and the unbounded ones stay.
 */
function unboundedRanges(source, flags) {
  const pattern = new RegExpParser().parsePattern(source, 0, source.length, {
    unicode: flags.includes('u'),
    unicodeSets: flags.includes('v'),
  });
  const edits = []; // [start, end, text] of quantifier suffixes
  const visit = (node) => {
    if (node.type === 'Quantifier' && node.max !== Infinity && node.max >= 2 && node.min < node.max)
      edits.push([node.element.end, node.end, `{${node.min},}${node.greedy ? '' : '?'}`]);
    for (const child of [...(node.alternatives ?? []), ...(node.elements ?? []), node.element ?? []].flat())
      if (child && typeof child === 'object') visit(child);
  };
  visit(pattern);
  let out = source;
  for (const [start, end, text] of edits.sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + text + out.slice(end);
  return out;
}

const ordinal = (n) => `${n}${n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;

/**
 * Three or more quantifiers linked by scslre's (non-exponential) reports that two of them trade
 * characters ('\s*\s*\s*$': each pair trades): k of them share a run of n characters in about
 * n^(k-1) ways from one starting position (and the scan from every position multiplies by n), so
 * '\s*\s*\s*$' costs about n^4/24 steps. One pair ('\d+\.?\d*[eE]', a pattern of the hub, n^3
 * with the scan) is allowed. Returns a description, or null.
 */
function tradingChain(reports) {
  const parent = new Map(); // union-find over the quantifiers of Trade reports
  const root = (q) => {
    while (parent.get(q) !== q) q = parent.get(q);
    return q;
  };
  for (const r of reports) {
    if (r.type !== 'Trade') continue;
    for (const q of [r.startQuant, r.endQuant]) if (!parent.has(q)) parent.set(q, q);
    parent.set(root(r.startQuant), root(r.endQuant));
  }
  const groups = new Map();
  for (const q of parent.keys()) groups.set(root(q), [...(groups.get(root(q)) ?? []), q]);
  for (const group of groups.values()) {
    if (group.length < 3) continue;
    group.sort((a, b) => a.start - b.start);
    const names = group.map((q) => quote(q.raw));
    return (
      `can take time that grows as the ${ordinal(group.length)} or a higher power of the text's length ` +
      `(${names.slice(0, -1).join(', ')} and ${names.at(-1)} can take the same characters)`
    );
  }
  return null;
}

/**
 * What a compiled pattern can cost ('can take exponential time on some texts (why)'), if it can
 * take exponential time or time growing as a high power of the text's length ('(.*a){12}x':
 * n^12), or has more than PATHS_REFUSED ways from one position; else null. Degree 2 (two
 * quantifiers that trade characters, '\s*\s*$', or a scan from every position, '\s+$') is
 * allowed: real tokenizers' patterns have it.
 */
export function catastrophicBacktracking(regexp) {
  const flags = regexp.flags.replace('g', '');
  const { reports, parsed } = analyse({ source: unboundedRanges(regexp.source, flags), flags });
  const exponential = (why) => `can take exponential time on some texts (${why})`;
  for (const r of reports) {
    if (r.type === 'Self' && (r.exponential || r.parentQuant.max >= 3)) {
      const inside = `${quote(r.quant.raw)} is repeated inside ${quote(r.parentQuant.raw)}`;
      if (r.exponential || r.parentQuant.max === Infinity) return exponential(inside);
      const n = r.parentQuant.max;
      return `can take time that grows as the ${ordinal(n)} power of the text's length (${inside})`;
    }
    if (r.exponential)
      return exponential(
        `${quote(r.startQuant.raw)} and ${quote(r.endQuant.raw)} can take the same characters inside a repetition`,
      );
  }
  const chain = tradingChain(reports);
  if (chain) return chain;
  const overlap = overlappingAlternatives(parsed.pattern, flags);
  if (overlap) return exponential(overlap);
  // no loop to blame, but too many ways through it from each position
  const paths = backtrackingPaths(regexp);
  if (paths > PATHS_REFUSED)
    return `can try ${paths >= 2 ** 60 ? 'more than 2^60' : paths} ways through the text from each position, more than ${PATHS_REFUSED} (optional or alternative parts repeated or nested, or a repeat of a wide range): it can take hours on some texts`;
  return null;
}

/**
 * Registers the analysis for loadTokenizer and loadPretrained in this module instance of the
 * package (what importing this module does; idempotent).
 */
export function enableTokenizerCheck() {
  registerPatternAnalysis(catastrophicBacktracking, backtrackingPaths);
}

enableTokenizerCheck();
