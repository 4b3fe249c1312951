// Shared by the node --test suites: the package loaded by its own name (the `node` export of
// package.json, i.e. the built dist/). The float64 references, the seeded generator and the
// tolerance rule are in reference/ (index.mjs).
import { init } from 'attention-wasm';

let shared;
/** One module instance per test file (each file runs in its own process). */
export async function library() {
  shared ??= await init();
  return shared;
}

/**
 * A count from the environment variable `name` (`fallback` when unset): an integer >= min, or
 * the test file stops with an error naming the variable (a typo must not turn a test into zero
 * iterations that pass).
 */
export function countFromEnv(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new RangeError(`${name}=${raw}: expected an integer >= ${min}`);
  return n;
}
