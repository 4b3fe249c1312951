// The page's Web Worker: the heavier computations (multi-head attention at d_model = 512, the
// positional-encoding matrix, the benchmark) and the reader's pretrained models (E4.6 and the
// model explorer; the generation explorer's GPT-2 or Llama) run here so that the page never freezes.
// Protocol: {id, kind, params} -> {id, started} when the job begins (the watchdog's bound counts
// from there), {id, progress} (any number, for a job that reports them), then {id, result} or
// {id, error} (a generation's steps are its progress). params.stall (the watchdog's test hook)
// makes a job never return.
// worker-client.js sends at most one request per key at a time, so
// nothing queued here is stale; self.computed counts the jobs run per kind (read by the page
// tests to check that superseded requests are dropped).
import { init } from 'attention-wasm/threads'; // the entry point that reaches the threaded build
// The reader's tokenizer.json may bring any pattern: the full ReDoS analysis (250 KB gzip) is
// loaded here, in the worker that builds tokenizers, and not in the page's main bundle.
import 'attention-wasm/tokenizer-check';
import { jobs } from './jobs.js';
import { encoderJobs } from './encoder-jobs.js';
import { generationJobs } from './generation-jobs.js';
import { transferables } from './transfer.js';

// The threaded build (one pthread Worker per extra core, nested in this one) needs shared
// memory, which a page has only when served cross-origin isolated (COOP + COEP headers; see
// vite.config.js). It runs here and not on the page's main thread because its calls block
// (Atomics.wait) until the pool's threads are done, which a page's main thread may not do.
async function load() {
  if (!self.crossOriginIsolated) return init({ threads: false });
  try {
    return await init({ threads: 'auto' }); // navigator.hardwareConcurrency threads; 1 core: single-thread
  } catch (err) {
    console.error('attention-wasm: the threaded build failed to start, using one thread:', err);
    return init({ threads: false });
  }
}

const all = { ...jobs, ...encoderJobs, ...generationJobs };
const ready = load();
self.computed = {};
self.onmessage = async ({ data: { id, kind, params } }) => {
  try {
    const A = await ready;
    self.postMessage({ id, started: true });
    if (params?.stall) for (;;); // the watchdog's test hook: a job that never returns
    const progress = (p) => self.postMessage({ id, progress: p }, transferables(p)); // a generation's steps: their attentions move
    const result = await all[kind](A, params, { progress });
    self.computed[kind] = (self.computed[kind] ?? 0) + 1;
    self.postMessage({ id, result }, transferables(result)); // the result's arrays move, uncopied
  } catch (err) {
    self.postMessage({ id, error: err.message });
  }
};
