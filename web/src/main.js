// The page: one section per document, each computed live by attention-wasm.
import { init } from 'attention-wasm';
import { seed000 } from './sections/seed000.js';

const status = document.getElementById('status');
try {
  const A = await init();
  const root = document.getElementById('sections');
  seed000(A, root);
  status.textContent = 'Ready: every number below was computed in this page by attention-wasm.';
  document.body.dataset.ready = 'true';
} catch (err) {
  status.textContent = `Could not start attention-wasm: ${err.message}`;
  console.error(err);
  document.body.dataset.ready = 'error';
}
