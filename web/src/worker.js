// The page's Web Worker: the heavier computations (multi-head attention at d_model = 512, the
// positional-encoding matrix, the benchmark) run here so that the page never freezes.
// Protocol: {id, kind, params} -> {id, result} or {id, error}. worker-client.js sends at most
// one request per example at a time, so nothing queued here is stale; self.computed counts the
// jobs run per kind (read by the page tests to check that superseded requests are dropped).
import { init } from 'attention-wasm';
import { jobs } from './jobs.js';

const ready = init();
self.computed = {};
self.onmessage = async ({ data: { id, kind, params } }) => {
  try {
    const A = await ready;
    const result = jobs[kind](A, params);
    self.computed[kind] = (self.computed[kind] ?? 0) + 1;
    self.postMessage({ id, result });
  } catch (err) {
    self.postMessage({ id, error: err.message });
  }
};
