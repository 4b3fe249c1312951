// Headless Chromium (Debian's /usr/bin/chromium driven by playwright-core, which never downloads
// a browser) against the bundled page, served by Vite's static preview server on a free port
// (with vite.config.js's headers: cross-origin isolated), or with {isolated: false} by a plain
// static server without them.
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../chromium.mjs';
import { preview } from 'vite';
import { staticServer } from './static-server.mjs';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

export async function openPage({ isolated = true } = {}) {
  const server = await serve(isolated);
  const address = server.address();
  const origin = `http://127.0.0.1:${address.port}`;
  const profile = mkdtempSync(join(tmpdir(), 'aw-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    ...chromiumLaunchOptions,
    viewport: { width: 1100, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const outside = [];
  const consoleErrors = [];
  const responses = []; // {url, headers}: every response, the workers' included (isolation headers)
  context.on('response', (res) => responses.push({ url: res.url(), headers: res.headers() }));
  context.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(String(err)));
  page.on('response', (res) => {
    if (res.status() >= 400) consoleErrors.push(`HTTP ${res.status()} for ${res.url()}`);
  });
  mkdirSync(artefacts, { recursive: true });
  return {
    page,
    origin,
    outside,
    consoleErrors,
    responses,
    async close() {
      await context.close();
      await new Promise((resolve) => server.close(resolve));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** openPage, then the page itself, ready and with the worker's plots (E4.2, E4.5) drawn. */
export async function openLoadedPage(options) {
  const b = await openPage(options);
  try {
    await b.page.goto(b.origin + '/');
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
