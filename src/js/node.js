// The package's `node` export: Node's fetch cannot load file URLs, so read the .wasm from disk
// and hand it to the Emscripten factory.
import { readFile } from 'node:fs/promises';
import { init as initWithOptions } from './index.js';

export * from './index.js';

export async function init(moduleOptions = {}) {
  const wasmBinary = moduleOptions.wasmBinary ?? (await readFile(new URL('./attention_wasm.wasm', import.meta.url)));
  return initWithOptions({ ...moduleOptions, wasmBinary });
}
