// The speed panel: SDPA on 8 heads x 512 tokens x 64 dimensions in the Web Worker, repeated
// after a warm-up; GFLOP/s counts the two matrix products, 4 * S * S * D * H operations.
import { run } from './worker-client.js';

export function benchPanel(root) {
  const section = document.createElement('section');
  section.className = 'document bench';
  section.dataset.document = 'bench';
  section.innerHTML = `<h2>Speed</h2>
    <p>scaledDotProductAttention on (H, S, D) = (8, 512, 64) in a Web Worker: 2 warm-up calls, then
    the mean of 10. GFLOP/s = 4·S·S·D·H / time (QKᵀ and the weighted sum of V).</p>
    <div class="controls"><button type="button" name="run">Run the benchmark</button></div>
    <pre class="result" aria-live="polite">(not run yet)</pre>`;
  const out = section.querySelector('.result');
  const button = section.querySelector('[name=run]');
  button.addEventListener('click', async () => {
    button.disabled = true;
    out.textContent = 'running…';
    try {
      const r = await run('bench', { H: 8, S: 512, D: 64, warmup: 2, reps: 10 });
      const b = r.build;
      out.textContent = `H=${r.H} S=${r.S} D=${r.D}: ${r.ms.toFixed(2)} ms per call, ${r.gflops.toFixed(2)} GFLOP/s\n` +
        `build: ${b.simd === 'wasm' ? 'WebAssembly SIMD128' : b.simd} (${b.floatLanes} float lanes), ` +
        `${b.threads ? 'threaded' : 'single-threaded'}, Emscripten ${b.emscripten}`;
      section.dataset.gflops = String(r.gflops);
    } catch (e) {
      out.textContent = `failed: ${e.message}`;
    } finally {
      button.disabled = false;
    }
  });
  root.append(section);
}
