// tests/js/types.test.mjs: the package's three entry points resolve under the resolution older
// CommonJS projects still use (moduleResolution node10, which reads `types` and `typesVersions`,
// not `exports`).
import { init, type AttentionWasm } from 'attention-wasm';
import { init as initThreaded } from 'attention-wasm/threads';
import { enableTokenizerCheck } from 'attention-wasm/tokenizer-check';

export async function start(): Promise<[AttentionWasm, AttentionWasm]> {
  enableTokenizerCheck();
  return [await init(), await initThreaded({ threads: 2 })];
}
