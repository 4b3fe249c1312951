// The page's side of `npm run bench:browser`: loads attention-wasm's two builds, onnxruntime-web
// and TensorFlow.js's wasm backend, and runs scripts/bench-attention.mjs's comparison when the
// driver (scripts/bench-browser.mjs) calls window.runBench.
import { init } from '/dist/index.js';
import { relaxedSimdSupported } from '/dist/builds.js';
import * as ort from 'onnxruntime-web';
import { attentionWasm, compareAttention, onnxruntimeWeb, tensorflowWasm } from '../bench-attention.mjs';
import { benchEncoder } from './encoder.mjs';

const tf = globalThis.tf;
const log = (line) => {
  document.getElementById('log').textContent += `${line}\n`;
  console.log(line);
};
// a macrotask turn without setTimeout's clamping: a message to ourselves
const yieldTask = () =>
  new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });

/**
 * @param {{quick: boolean, versions: {[name: string]: string}, also: {label: string, url: string}[]}} options
 *   also: other builds of the package (a dist/ folder served at url) that take turns too
 */
window.runBench = async ({ quick, versions, also = [] }) => {
  const libs = [];
  if (relaxedSimdSupported()) libs.push(attentionWasm(await init({ simd: 'relaxed' }), 'attention-wasm relaxed'));
  else log('# attention-wasm relaxed: this browser has no relaxed SIMD; left out');
  libs.push(attentionWasm(await init({ simd: 'simd128' }), 'attention-wasm simd128'));
  for (const { label, url } of also) {
    const other = await import(`${url}/index.js`);
    for (const simd of relaxedSimdSupported() ? ['relaxed', 'simd128'] : ['simd128']) {
      // a build from before the relaxed one has none (and may ignore the option)
      const A = await other.init({ simd }).catch((e) => (simd === 'relaxed' ? null : Promise.reject(e)));
      if (simd === 'relaxed' && A?.buildInfo().simd !== 'relaxed') log(`# ${label}: no relaxed-SIMD build`);
      else libs.push(attentionWasm(A, `${label} ${simd}`));
    }
  }
  libs.push(
    onnxruntimeWeb(
      ort,
      versions['onnxruntime-web'],
      new URL('/node_modules/onnxruntime-web/dist/', location.href).href,
    ),
  );
  // one thread, as in Node (the page is cross-origin isolated, where tfjs would take threads)
  tf.wasm.setWasmPaths(new URL('/node_modules/@tensorflow/tfjs-backend-wasm/dist/', location.href).href);
  tf.wasm.setThreadsCount?.(1);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  await tf.setBackend('wasm');
  await tf.ready();
  libs.push(tensorflowWasm(tf, versions['@tensorflow/tfjs-backend-wasm']));

  // ratio columns: ours (libs[0], relaxed where it runs) over SIMD128 and over each peer
  const simd128 = libs.findIndex((l) => l.name === 'attention-wasm simd128');
  const [ortIndex, tfIndex] = [libs.length - 2, libs.length - 1];
  const ours = libs[0].name.replace('attention-wasm ', '');
  const ratios =
    simd128 > 0
      ? [
          [0, simd128, 'relaxed / simd128'],
          [0, ortIndex, 'relaxed / onnxruntime-web'],
          [simd128, ortIndex, 'simd128 / onnxruntime-web'],
          [0, tfIndex, 'relaxed / tfjs-backend-wasm'],
        ]
      : [
          [0, ortIndex, `${ours} / onnxruntime-web`],
          [0, tfIndex, `${ours} / tfjs-backend-wasm`],
        ];
  const { header, rows } = await compareAttention(libs, { ratios, quick, log, yieldTask });
  return { header, rows, builds: libs.filter((l) => l.A).map((l) => l.A.buildInfo()) };
};

/** The encoder rows (./encoder.mjs), after the attention table. */
window.runEncoderBench = async ({ quick, versions, also = [] }) => {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = new URL('/node_modules/onnxruntime-web/dist/', location.href).href;
  ort.env.logLevel = 'error';
  const others = [];
  for (const { label, url } of also) others.push({ label, init: (await import(`${url}/index.js`)).init });
  return benchEncoder({ ort, ortVersion: versions['onnxruntime-web'], quick, log, yieldTask, also: others });
};
window.benchReady = true;
