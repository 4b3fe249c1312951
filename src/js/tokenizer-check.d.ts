// `attention-wasm/tokenizer-check`: the ReDoS analysis of tokenizer.json patterns, an opt-in for
// browser bundles (the Node entry point always has it).

/**
 * Registers the ReDoS analysis, so that `loadTokenizer` and `loadPretrained` accept any
 * tokenizer.json pattern it passes, not only literals and the real tokenizers' patterns the
 * package has checked. Importing the module does this already:
 * ```js
 * import 'attention-wasm/tokenizer-check'; // 250 KB gzip, in the bundle that builds tokenizers
 * ```
 * Call it where a bundler or a lint rule would drop a bare import. Idempotent.
 */
export function enableTokenizerCheck(): void;

/**
 * The analysis of one pattern as JavaScript runs it: why it can take exponential time (or time
 * growing as the third or a higher power of the text's length, or more than 65,536 ways from one
 * position) on some texts, or null.
 * Quadratic patterns pass (real tokenizers have them: `\s+$`).
 * @example catastrophicBacktracking(/(a+)+$/u) // "can take exponential time on some texts ('a+' is repeated inside '(a+)+')"
 */
export function catastrophicBacktracking(regexp: RegExp): string | null;

/**
 * An upper bound of the ways a backtracking engine can take through the pattern from one
 * position, not counting how far its unbounded loops run: past 65,536 `catastrophicBacktracking`
 * refuses it; past 1,024 a tokenizer using it gets a lower `maxInputChars`.
 * @example backtrackingPaths(/(?:a?){10}b/u) // 1024
 */
export function backtrackingPaths(regexp: RegExp): number;
