// A user's app: `import { init } from 'attention-wasm'`, document 000's omega_24, its result shown
// on the page (browsers) or printed (Node); and the tokenizer shipped in the package (its
// vocabulary is a file the bundler must emit too). Every consumer in tests/consumers builds this
// file unchanged with its bundler's defaults.
import { init, Tensor, loadTokenizer } from 'attention-wasm';
import { omega24 } from './omega24.js';

const A = await init();
const tokenizer = await loadTokenizer('bert-base-uncased');
const result = {
  omega24: omega24(A, Tensor),
  simd: A.buildInfo().simd,
  threads: A.threads,
  tokens: tokenizer.encode('The bank of the river.').inputIds,
};
if (typeof document === 'object') document.querySelector('#result').textContent = JSON.stringify(result);
else console.log(JSON.stringify(result));
