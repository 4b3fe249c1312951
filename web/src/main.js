// The page: a table of contents, one section per document, each computed live by attention-wasm,
// the generation explorer (the reader's GPT-2 or Llama) and a speed panel. The small examples
// run on the main thread (well under a millisecond each); the heavier ones (the PE heat map,
// multi-head at d_model = 512, the reader's DistilBERT and language model, the benchmark) run in
// worker.js.
import { init } from 'attention-wasm';
import { documents, extraEntries } from './content/index.js';
import { tableOfContents, followScroll, scrollToHashWhen } from './toc.js';
import { codingSelfAttention } from './sections/coding-self-attention.js';
import { scalingAndMasking } from './sections/scaling-and-masking.js';
import { matrixForm } from './sections/matrix-form.js';
import { workedByHand } from './sections/worked-by-hand.js';
import { embeddingsAndHeads } from './sections/embeddings-and-heads.js';
import { generationExplorer } from './sections/generation-explorer.js';
import { benchPanel } from './bench.js';

const nav = document.getElementById('toc');
tableOfContents(nav, documents, extraEntries);
const status = document.getElementById('status');
try {
  const A = await init();
  const root = document.getElementById('sections');
  for (const section of [codingSelfAttention, scalingAndMasking, matrixForm, workedByHand]) section(A, root);
  const { ready } = embeddingsAndHeads(A, root);
  generationExplorer(root);
  benchPanel(root);
  followScroll(nav);
  status.textContent = 'Ready: every number below was computed in this page by attention-wasm.';
  document.body.dataset.ready = 'true';
  // the worker's first results change the sections' heights: jump to #E4.6 after them (or 10 s)
  await scrollToHashWhen(Promise.race([ready.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 10000))]));
  document.body.dataset.settled = 'true';
} catch (err) {
  status.textContent = `Could not start attention-wasm: ${err.message}`;
  console.error(err);
  document.body.dataset.ready = 'error';
}
