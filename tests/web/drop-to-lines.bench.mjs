// How long a reader waits between dropping a DistilBERT-base-sized folder on the page and seeing
// E4.6's three lines, in headless Chromium. Not a test (no timing assertions); rerun it with
//
//   bash scripts/build.sh && npx vite build --logLevel warn && node tests/web/drop-to-lines.bench.mjs [--runs=3]
//
// The folder: scripts/bench-encoder.mjs's DistilBERT-base shapes (6 layers, dim 768, 12 heads,
// FFN 3072, vocab 30522; random F32 weights, model.safetensors ~266 MB) with the shipped
// vocabulary as tokenizer.json and vocab.txt, in a temporary folder. Each run opens the page
// afresh (a reader's first drop: the worker's wasm memory has yet to grow), loads the folder
// through the page's files input (setInputFiles: the browser reads the files from disk, as a
// picker or a drop does) and reads the page's own measurement, from the input's change event to
// the lines on screen (data-ms of the lines), and the wall time seen from outside; and the
// longest task the page's main thread ran meanwhile (PerformanceObserver 'longtask': tasks over
// 50 ms), which says whether the page stayed responsive. The page loads the model in its Web
// Worker, on the threaded build (the page is served cross-origin isolated). Prints the load
// average (the VM is shared: read it with the figures).
import { mkdtempSync, writeFileSync, rmSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir, loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import { DISTILBERT_BASE, randomTensors, writeFolder } from '../../scripts/bench-encoder.mjs';
import { bertTokenizerJson } from '../../dist/tokenizer.js';
import { openLoadedPage } from './browser.mjs';

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

const dir = mkdtempSync(join(tmpdir(), 'aw-drop-bench-'));
let b;
try {
  const bytes = writeFolder(dir, DISTILBERT_BASE, randomTensors(DISTILBERT_BASE));
  const vocab = readFileSync(new URL('../../dist/vocab-bert-base-uncased.txt', import.meta.url), 'utf8');
  writeFileSync(join(dir, 'vocab.txt'), vocab);
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(bertTokenizerJson(vocab, { do_lower_case: true })));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ do_lower_case: true, model_max_length: 512 }));
  const files = readdirSync(dir).map((n) => join(dir, n));
  console.log(
    `folder: ${(bytes / 1e6).toFixed(0)} MB model.safetensors (F32, DistilBERT-base shapes) + tokenizer files; ${cpus().length} cores`,
  );
  const rows = [];
  for (let run = 1; run <= runs; run++) {
    await b?.close();
    b = await openLoadedPage();
    const card = b.page.locator('[data-example="E4.6"]');
    await b.page.evaluate(() => {
      self.longest = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) self.longest = Math.max(self.longest, e.duration);
      }).observe({ type: 'longtask' });
    });
    const before = load();
    const t0 = performance.now();
    await card.locator('input[name=files]').setInputFiles(files);
    await b.page.waitForFunction(
      () => ['loaded', 'failed'].includes(document.querySelector('.loader').dataset.state),
      null,
      { timeout: 300000 },
    );
    const outside = performance.now() - t0;
    const error = await card.locator('.loader .error').innerText();
    if (error) throw new Error(error);
    const ms = Number(await card.locator('[data-out=lines]').getAttribute('data-ms'));
    const status = await card.locator('.loader .status').innerText();
    const read = Number(status.match(/read in ([\d.]+) s/)[1]) * 1000;
    const threads = status.match(/\((\d+) threads?\)/)[1];
    const longest = await b.page.evaluate(() => self.longest);
    rows.push({ ms, outside, read });
    console.log(
      `run ${run}: drop to the three lines ${(ms / 1000).toFixed(2)} s in the page (${(outside / 1000).toFixed(2)} s seen from outside; ` +
        `model read in ${(read / 1000).toFixed(2)} s; ${threads} threads; longest main-thread task ${longest ? `${longest.toFixed(0)} ms` : 'under 50 ms'}); ` +
        `load average ${before} -> ${load()}`,
    );
    if (run === runs)
      console.log((await card.locator('[data-out=lines]').innerText()).split('\n').slice(-3).join('\n'));
  }
  console.log(
    `median of ${runs}: ${(median(rows.map((r) => r.ms)) / 1000).toFixed(2)} s from the drop to the three lines ` +
      `(${(median(rows.map((r) => r.read)) / 1000).toFixed(2)} s of it reading the weights)`,
  );
  if (b.consoleErrors.length || b.outside.length)
    throw new Error(`console: ${b.consoleErrors.join('; ')}; outside: ${b.outside.join(', ')}`);
} finally {
  await b?.close();
  rmSync(dir, { recursive: true, force: true });
}
