// The page: one section per document, each computed live by attention-wasm, plus a speed panel.
// The small examples run on the main thread (well under a millisecond each); the heavier ones
// (the PE heat map, multi-head at d_model = 512, the benchmark) run in worker.js.
import { init } from 'attention-wasm';
import { seed000 } from './sections/seed000.js';
import { seed001 } from './sections/seed001.js';
import { seed002 } from './sections/seed002.js';
import { seed003 } from './sections/seed003.js';
import { seed004 } from './sections/seed004.js';
import { benchPanel } from './bench.js';

const status = document.getElementById('status');
try {
  const A = await init();
  const root = document.getElementById('sections');
  for (const section of [seed000, seed001, seed002, seed003, seed004]) section(A, root);
  benchPanel(root);
  status.textContent = 'Ready: every number below was computed in this page by attention-wasm.';
  document.body.dataset.ready = 'true';
} catch (err) {
  status.textContent = `Could not start attention-wasm: ${err.message}`;
  console.error(err);
  document.body.dataset.ready = 'error';
}
