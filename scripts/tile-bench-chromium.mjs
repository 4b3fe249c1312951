// Runs the tile-bench builds (scripts/tile-bench.sh) in headless Chromium, one page each, served
// cross-origin isolated from 127.0.0.1 (Chromium's clock then has 5 us steps), and prints what
// they print. Usage: node scripts/tile-bench-chromium.mjs build/tile-bench/tile-bench-relaxed.js ...
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { chromiumLaunchOptions } from '../tests/browsers.mjs';

const scripts = process.argv.slice(2).map((p) => resolve(p));
const dir = dirname(scripts[0]);
const server = createServer(async (req, res) => {
  const name = basename(new URL(req.url, 'http://x').pathname);
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
  if (name === 'index.html') return res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html>');
  try {
    const body = await readFile(resolve(dir, name));
    const type = name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
    res.writeHead(200, { 'content-type': type }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch(chromiumLaunchOptions);
try {
  console.log(`# ${(await browser.version()).replace(/^/, 'Chromium ')}`);
  for (const script of scripts) {
    const page = await browser.newPage();
    let done;
    const finished = new Promise((r) => (done = r));
    page.on('console', (msg) => {
      console.log(msg.text());
      if (msg.text().startsWith('# checksum')) done();
    });
    page.on('pageerror', (e) => {
      console.log(`# page error: ${e.message}`);
      done();
    });
    await page.goto(`${origin}/index.html`);
    await page.addScriptTag({ url: `${origin}/${basename(script)}` });
    await finished;
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
