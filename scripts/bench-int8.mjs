// The int8 linear layer (A.quantize + A.linear) against the float32 one on the encoder's shapes
// (scripts/bench-int8-linear.mjs), relaxed-SIMD and SIMD128 builds, one thread, in this Node and
// optionally in headless Chromium. Build first (npm run build).
// Usage: node --experimental-wasm-relaxed-simd scripts/bench-int8.mjs [--quick] [--chromium]
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../tests/browsers.mjs';
import { init } from '../dist/node.js';
import { relaxedSimdSupported } from '../dist/builds.js';
import { loadAverage, machine } from './load-average.mjs';
import { markdownTable } from './bench-attention.mjs';
import { benchInt8Linear } from './bench-int8-linear.mjs';

const quick = process.argv.includes('--quick');
const root = new URL('..', import.meta.url);

async function builds(initFn, supported) {
  const libs = [];
  for (const simd of supported ? ['relaxed', 'simd128'] : ['simd128']) {
    const A = await initFn({ simd });
    libs.push({ name: simd, A, info: A.buildInfo() });
  }
  return libs;
}

console.log(`# ${machine()}, load average ${loadAverage()}`);
const libs = await builds(init, relaxedSimdSupported());
for (const l of libs)
  console.log(`# ${l.name}: int8 route ${l.info.int8Product}, relaxed dot(127, -1) = ${l.info.relaxedDotLowering}`);
console.log(`\n## Node ${process.version}\n`);
const node = await benchInt8Linear(libs, { quick, yieldTask: () => new Promise((r) => setImmediate(r)) });
console.log(markdownTable(node.header, node.rows));

if (process.argv.includes('--chromium')) {
  // the repository's dist/ and scripts/ on 127.0.0.1, cross-origin isolated (5 us timer steps)
  const serve = sirv(fileURLToPath(root), {
    dev: true,
    setHeaders: (res) => {
      res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    },
  });
  const page = `<!doctype html><script type="importmap">{"imports": {"@huggingface/tokenizers": "/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs"}}</script>
<script type="module">
import { init } from '/dist/index.js';
import { relaxedSimdSupported } from '/dist/builds.js';
import { benchInt8Linear } from '/scripts/bench-int8-linear.mjs';
window.run = async (quick) => {
  const libs = [];
  for (const simd of relaxedSimdSupported() ? ['relaxed', 'simd128'] : ['simd128']) {
    const A = await init({ simd });
    libs.push({ name: simd, A, info: A.buildInfo() });
  }
  const yieldTask = () => new Promise((resolve) => { const c = new MessageChannel(); c.port1.onmessage = resolve; c.port2.postMessage(null); });
  return { infos: libs.map((l) => [l.name, l.info]), ...(await benchInt8Linear(libs, { quick, yieldTask })) };
};
window.ready = true;
</script>`;
  const server = createServer((req, res) => {
    if (req.url === '/bench-int8.html') {
      res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
      res.setHeader('Content-Type', 'text/html');
      return res.end(page);
    }
    serve(req, res, () => res.writeHead(404).end());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    const tab = await browser.newPage();
    tab.on('pageerror', (e) => console.log(`# page error: ${e.message}`));
    await tab.goto(`http://127.0.0.1:${server.address().port}/bench-int8.html`);
    await tab.waitForFunction(() => window.ready);
    const { infos, header, rows } = await tab.evaluate((q) => window.run(q), quick);
    for (const [name, info] of infos)
      console.log(`# ${name}: int8 route ${info.int8Product}, relaxed dot(127, -1) = ${info.relaxedDotLowering}`);
    console.log(`\n## Chromium ${browser.version()}\n`);
    console.log(markdownTable(header, rows));
  } finally {
    await browser.close();
    server.close();
  }
}
console.log(`# load average after: ${loadAverage()}`);
process.exit(0);
