// The page's Web Worker: the heavier computations (multi-head attention at d_model = 512, the
// positional-encoding matrix, the benchmark) run here so that the page never freezes.
// Protocol: {id, kind, params} -> {id, result} or {id, error}.
import { init } from 'attention-wasm';
import { jobs } from './jobs.js';

const ready = init();
self.onmessage = async ({ data: { id, kind, params } }) => {
  try {
    const A = await ready;
    const result = jobs[kind](A, params);
    self.postMessage({ id, result });
  } catch (err) {
    self.postMessage({ id, error: err.message });
  }
};
