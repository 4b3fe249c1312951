// npm run bench:browser: the attention comparison of `npm run bench` (scripts/bench-attention.mjs)
// in headless Chromium: attention-wasm's relaxed-SIMD and SIMD128 builds (dist/, build it first),
// onnxruntime-web and the TensorFlow.js wasm backend in one page, one thread each, taking turns
// call by call; prints the same table. Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH)
// driven by playwright-core, which never downloads a browser; the page
// (scripts/bench-browser/index.html) and everything it loads are served from this repository
// (dist/, scripts/, node_modules/) on 127.0.0.1, and a request for anything else fails the run.
// Then the whole-encoder rows (scripts/bench-browser/encoder.mjs): a DistilBERT-base-shaped model's
// forward at 128 and 512 tokens, both builds in float32 and in q8 against onnxruntime-web's float32
// and q8 graphs, one thread.
// Usage: node scripts/bench-browser.mjs [--quick] [--also=LABEL=DIR ...] [--no-encoder | --only=encoder]
//   --also: another build of the package (a dist/ folder, e.g. an older one) takes turns too, as
//   "LABEL relaxed" and "LABEL simd128" in the attention rows, and its relaxed (or only) build's
//   float32 and q8 models in the encoder rows.
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../tests/browsers.mjs';
import { loadAverage, machine, machineLine } from './load-average.mjs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import sirv from 'sirv';
import { markdownTable } from './bench-attention.mjs';

const quick = process.argv.includes('--quick');
const encoder = !process.argv.includes('--no-encoder'),
  attention = !process.argv.includes('--only=encoder');
const also = process.argv
  .filter((a) => a.startsWith('--also='))
  .map((a) => {
    const [label, dir] = a.slice('--also='.length).split(/=(.*)/s);
    if (!dir) throw new Error(`${a}: expected --also=LABEL=DIR`);
    return { label, dir: resolve(dir), url: `/also/${encodeURIComponent(label)}` };
  });
const root = new URL('..', import.meta.url);
const version = async (name) =>
  JSON.parse(await readFile(new URL(`node_modules/${name}/package.json`, root), 'utf8')).version;
const versions = {
  'onnxruntime-web': await version('onnxruntime-web'),
  '@tensorflow/tfjs-backend-wasm': await version('@tensorflow/tfjs-backend-wasm'),
};

// Only the three folders the page needs (sirv in dev mode: files read per request, not indexed
// up front), cross-origin isolated (COOP + COEP): there Chromium's performance.now() has 5 us
// steps, rather than 100 us, which a 0.2 ms call needs. Every library is told to use one thread.
const isolation = (res) => {
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
};
const folders = [
  ...['dist', 'scripts', 'node_modules'].map((f) => [`/${f}/`, fileURLToPath(new URL(f, root))]),
  ...also.map(({ url, dir }) => [`${url}/`, dir]),
].map(([prefix, dir]) => [prefix, sirv(dir, { dev: true, setHeaders: isolation })]);
const server = createServer((req, res) => {
  const [prefix, serve] = folders.find(([p]) => req.url.startsWith(p)) ?? [];
  if (!serve) return res.writeHead(404).end();
  req.url = req.url.slice(prefix.length - 1);
  serve(req, res, () => res.writeHead(404).end());
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch(chromiumLaunchOptions);
const outside = [],
  wasmFiles = new Set();
try {
  const page = await browser.newPage();
  page.on('request', (req) => {
    if (!req.url().startsWith(origin) && !/^(data|blob):/.test(req.url())) outside.push(req.url());
    if (req.url().endsWith('.wasm')) wasmFiles.add(req.url().slice(origin.length));
  });
  page.on('console', (msg) => {
    if (msg.text().startsWith('#')) console.log(msg.text());
  });
  page.on('pageerror', (err) => console.log(`# page error: ${err.message}`));
  await page.goto(`${origin}/scripts/bench-browser/index.html`);
  await page.waitForFunction(() => window.benchReady, null, { timeout: 60000 });
  const [ua, isolated] = await page.evaluate(() => [navigator.userAgent, crossOriginIsolated]);
  if (!isolated) console.log('# warning: the page is not cross-origin isolated: timings in 100 us steps');
  const browserName = ua.match(/(Headless)?Chrom(e|ium)\/[\d.]+/)?.[0] ?? ua;
  if (attention) {
    console.log(`# attention forward, float32, batch 1, head dim 64, one thread, in ${browserName}`);
    console.log(`# ${machineLine()} (the Node that drives the browser)`);
    const { header, rows, builds } = await page.evaluate((options) => window.runBench(options), {
      quick,
      versions,
      also: also.map(({ label, url }) => ({ label, url })),
    });
    for (const b of builds) console.log(`# build: ${JSON.stringify(b)}`);
    console.log(`# .wasm files loaded: ${[...wasmFiles].join(', ')}`);
    console.log(`\n${markdownTable(header, rows)}`);
    console.log(`# ${machine()}, load average after: ${loadAverage()}`);
  }
  if (encoder) {
    console.log(
      `\n# whole encoder: DistilBERT-base shapes (6 layers, dim 768, 12 heads, FFN 3072), random F32 weights, one thread, in ${browserName}`,
    );
    console.log(`# ${machineLine()} (the Node that drives the browser)`);
    const { header, rows } = await page.evaluate((options) => window.runEncoderBench(options), {
      quick,
      versions,
      also: also.map(({ label, url }) => ({ label, url })),
    });
    console.log(`\n${markdownTable(header, rows)}`);
    console.log(`# ${machine()}, load average after: ${loadAverage()}`);
  }
  if (outside.length) throw new Error(`the page asked for something outside ${origin}: ${outside.join(', ')}`);
} finally {
  await browser.close();
  server.close();
}
