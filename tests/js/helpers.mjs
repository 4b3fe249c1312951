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
