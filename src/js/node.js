// The package's `node` export: Node's fetch cannot load file URLs, so read the .wasm of the
// build init() chooses from disk and hand it to the Emscripten factory. The threaded build's
// Worker script is CommonJS, which Node only accepts as .cjs here ("type": "module").
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { init as initWithPlatform } from './index.js';

export * from './index.js';

const nodePlatform = {
  cores: availableParallelism(),
  async moduleOptions(build) {
    const files = { wasmBinary: await readFile(new URL(`./${build}.wasm`, import.meta.url)) };
    if (build === 'attention_wasm_mt') {
      const worker = fileURLToPath(new URL('./attention_wasm_mt.worker.cjs', import.meta.url));
      files.locateFile = (path, prefix) => (path.endsWith('.worker.js') ? worker : prefix + path);
    }
    return files;
  },
};

export async function init(options = {}) {
  return initWithPlatform(options, nodePlatform);
}
