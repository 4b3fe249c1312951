// Runs in threads-main.js's Worker: the threads opt-in (attention-wasm/threads) on two threads,
// document 000's omega_24 and a product large enough to be split over them.
import { init, Tensor } from 'attention-wasm/threads';
import { omega24 } from './omega24.js';

async function main() {
  const A = await init({ threads: 2 });
  const big = A.matmul(A.randn(256, 256), A.randn(256, 256));
  return {
    omega24: omega24(A, Tensor),
    simd: A.buildInfo().simd,
    threads: A.threads,
    isolated: self.crossOriginIsolated,
    bigShape: big.shape,
  };
}
main().then(
  (result) => postMessage(result),
  (e) => postMessage({ error: String(e) }),
);
