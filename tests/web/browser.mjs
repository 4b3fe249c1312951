// The bundled page in a headless browser (tests/browsers.mjs: Chromium through playwright-core,
// Firefox through puppeteer-core; neither downloads a browser), served by Vite's static preview
// server on a free port (with vite.config.js's headers: cross-origin isolated), or with
// {isolated: false} by a plain static server without them.
import { launchBrowser } from '../browsers.mjs';
import { preview } from 'vite';
import { staticServer } from './static-server.mjs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init } from '../../dist/node.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const artefacts = join(root, 'test-results');

/** The bundled page (build/site) served on 127.0.0.1; resolves with the node:http server. */
async function serve(isolated) {
  if (!isolated) return staticServer(join(root, 'build/site'));
  const server = await preview({
    configFile: join(root, 'vite.config.js'),
    preview: { port: 0, strictPort: false, host: '127.0.0.1', open: false },
    logLevel: 'silent',
  });
  return server.httpServer;
}

/**
 * A browser tab and the page's server: { engine, page, origin, outside, consoleErrors,
 * responses, close() }. `page` is Playwright's Page in Chromium and the same subset of it in
 * Firefox (tests/browsers.mjs); `outside` collects the requests that left the origin,
 * `consoleErrors` the console's errors, uncaught exceptions and HTTP errors, `responses` every
 * response ({url, headers}, the workers' included: the isolation headers).
 */
export async function openPage({ isolated = true, engine = 'chromium' } = {}) {
  const server = await serve(isolated);
  const address = server.address();
  const origin = `http://127.0.0.1:${address.port}`;
  const browser = await launchBrowser(engine);
  const outside = [];
  const consoleErrors = [];
  const responses = [];
  browser.watch({
    request(url) {
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url);
    },
    response({ url, status, headers }) {
      responses.push({ url, headers });
      if (status >= 400) consoleErrors.push(`HTTP ${status} for ${url}`);
    },
    consoleError: (text) => consoleErrors.push(text),
  });
  mkdirSync(artefacts, { recursive: true });
  return {
    engine,
    page: browser.page,
    origin,
    outside,
    consoleErrors,
    responses,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * openPage, then the page itself (at `path`: its test hooks in the query), ready and with the
 * worker's plots (E4.2, E4.5) drawn.
 */
export async function openLoadedPage({ path = '/', ...options } = {}) {
  const b = await openPage(options);
  try {
    await b.page.goto(b.origin + path);
    await b.page.waitForSelector('body[data-ready]', { timeout: 30000 });
    await b.page.waitForFunction(
      () =>
        document.querySelectorAll('[data-example="E4.5"] figure').length > 0 &&
        document.querySelector('[data-example="E4.2"] figure'),
      null,
      { timeout: 30000 },
    );
    return b;
  } catch (err) {
    await b.close();
    throw err;
  }
}

/** Every number in a printed result, in order ("tensor([ 0.3374, -0.1778" -> [0.3374, -0.1778]). */
export function numbersIn(text) {
  return (text.match(/-?\d+\.\d+(?:e[-+]?\d+)?|-?\d+(?=[.,\])\s]|$)/g) ?? []).map(Number);
}

/**
 * The library in Node on the build the page runs: Chromium validates relaxed SIMD, so the page's
 * init() picks the relaxed-SIMD build, whose fused multiply-adds round differently from the
 * SIMD128 build's. Comparisons byte for byte need the same build here, which Node 20 runs only
 * with --experimental-wasm-relaxed-simd (scripts/test.sh passes it).
 */
export async function initLikeThePage(options = {}) {
  try {
    return await init({ ...options, simd: 'relaxed' });
  } catch (err) {
    throw new Error(
      `the page runs the relaxed-SIMD build, which this Node cannot (${err.message}): ` +
        'run the page tests with node --experimental-wasm-relaxed-simd, as scripts/test.sh does',
    );
  }
}

/**
 * A DataTransfer of File objects in the page, made from files ([name, bytes]) read in Node: what a
 * folder dropped on a drop zone carries (`dispatchEvent('drop', { dataTransfer })`).
 */
export const fileTransfer = (page, files) =>
  page.evaluateHandle(
    (entries) => {
      const dt = new DataTransfer();
      for (const [name, base64] of entries)
        dt.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
      return dt;
    },
    files.map(([name, bytes]) => [name, Buffer.from(bytes).toString('base64')]),
  );
