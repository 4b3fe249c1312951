// The speed panel: SDPA on 8 heads x 512 tokens x 64 dimensions in the Web Worker, repeated
// after a warm-up; GFLOP/s counts the two matrix products, 4 * S * S * D * H operations. It also
// says which build the worker runs: the threaded one only where the page is cross-origin isolated.
import { run } from './worker-client.js';

const SIMD_NAMES = { relaxed: 'WebAssembly relaxed SIMD, fused multiply-add', simd128: 'WebAssembly SIMD128' };

/** "WebAssembly relaxed SIMD, fused multiply-add (4 float lanes), threaded (2 threads), Emscripten 3.1.69" */
function describeBuild(b) {
  const threads = b.threaded ? `threaded (${b.threads} threads)` : 'single-threaded';
  return `${SIMD_NAMES[b.simd] ?? b.simd} (${b.floatLanes} float lanes), ${threads}, Emscripten ${b.emscripten}`;
}

/** Why the worker runs the build it runs. */
function buildReason(b) {
  if (b.threaded)
    return 'this page is cross-origin isolated, so the worker uses the threaded build, one thread per core.';
  if (b.isolated && b.cores <= 1) return 'this machine reports one core, so the worker uses the single-thread build.';
  if (b.isolated)
    return 'the threaded build failed to start (see the console), so the worker uses the single-thread build.';
  return 'this page is not cross-origin isolated (it was served without the COOP/COEP headers), so it has no shared memory and the worker uses the single-thread build.';
}

export function benchPanel(root) {
  const section = document.createElement('section');
  section.className = 'document bench';
  section.dataset.document = 'bench';
  section.id = 'speed';
  section.innerHTML = `<h2>Speed</h2>
    <p>scaledDotProductAttention on (H, S, D) = (8, 512, 64) in a Web Worker: 2 warm-up calls, then
    the mean of 10. GFLOP/s = 4·S·S·D·H / time (QKᵀ and the weighted sum of V).</p>
    <p class="build" aria-live="polite">Worker build: loading…</p>
    <div class="controls"><button type="button" name="run">Run the benchmark</button></div>
    <pre class="result" aria-live="polite">(not run yet)</pre>`;
  const out = section.querySelector('.result');
  const button = section.querySelector('[name=run]');
  const info = section.querySelector('.build');
  run('build').then(
    (b) => {
      info.textContent = `Worker build: ${describeBuild(b)}; ${buildReason(b)}`;
      section.dataset.threads = String(b.threads);
    },
    (e) => {
      info.textContent = `Worker build: unknown (${e.message})`;
    },
  );
  button.addEventListener('click', async () => {
    button.disabled = true;
    out.textContent = 'running…';
    try {
      const r = await run('bench', { H: 8, S: 512, D: 64, warmup: 2, reps: 10 });
      out.textContent =
        `H=${r.H} S=${r.S} D=${r.D}: ${r.ms.toFixed(2)} ms per call, ${r.gflops.toFixed(2)} GFLOP/s\n` +
        `build: ${describeBuild(r.build)}\n` +
        `output checksum: ${r.checksum} (FNV-1a of its float32 bytes: the same on any number of threads)`;
      section.dataset.checksum = r.checksum;
      section.dataset.gflops = String(r.gflops);
    } catch (e) {
      out.textContent = `failed: ${e.message}`;
    } finally {
      button.disabled = false;
    }
  });
  root.append(section);
}
