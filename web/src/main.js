// The page: one section per document, each computed live by attention-wasm, and a speed panel.
// The small examples run on the main thread (well under a millisecond each); the heavier ones
// (the PE heat map, multi-head at d_model = 512, the reader's DistilBERT, the benchmark) run in
// worker.js.
import { init } from 'attention-wasm';
import { codingSelfAttention } from './sections/coding-self-attention.js';
import { scalingAndMasking } from './sections/scaling-and-masking.js';
import { matrixForm } from './sections/matrix-form.js';
import { workedByHand } from './sections/worked-by-hand.js';
import { embeddingsAndHeads } from './sections/embeddings-and-heads.js';
import { benchPanel } from './bench.js';

const status = document.getElementById('status');
try {
  const A = await init();
  const root = document.getElementById('sections');
  for (const section of [codingSelfAttention, scalingAndMasking, matrixForm, workedByHand]) section(A, root);
  embeddingsAndHeads(A, root);
  benchPanel(root);
  status.textContent = 'Ready: every number below was computed in this page by attention-wasm.';
  document.body.dataset.ready = 'true';
} catch (err) {
  status.textContent = `Could not start attention-wasm: ${err.message}`;
  console.error(err);
  document.body.dataset.ready = 'error';
}
