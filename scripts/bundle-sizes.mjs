// Bundle sizes of a user's app (tests/consumers/app) built with Vite (no config file) and webpack
// 5 (entry and output only) from the `npm pack` tarball of dist/, against the same kind of app on
// onnxruntime-web's default import (app/ort-main.js): JS and wasm emitted, raw and gzip -9, and
// what a page load fetches (ours: the glue and the one .wasm init() picks). Each app is also run
// in Chromium once, so that a broken bundle is not measured.
// Usage: node scripts/bundle-sizes.mjs      (after scripts/build.sh; AW_CONSUMER_PACKAGE=folder measures
// another copy of the package, as tests/consumers/harness.mjs says)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  scratch,
  pack,
  project,
  page,
  run,
  bundleSize,
  openInChromium,
  closeBrowser,
} from '../tests/consumers/harness.mjs';

const work = scratch();
const { tarball } = pack(work.dir);
const kB = (n) => (n / 1024).toFixed(1);
const rows = [];

async function measure(label, dir, outDir) {
  const { result, requests } = await openInChromium(outDir);
  if (result.error) throw new Error(`${label}: ${result.error}`);
  const size = bundleSize(outDir);
  const fetched = requests
    .filter((u) => /\.(m?js|wasm)$/.test(u))
    .map((u) => readFileSync(join(outDir, decodeURIComponent(u.replace(/^\//, '')))));
  const fetchedGzip = fetched.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0);
  rows.push([
    label,
    `${kB(size.js)} / ${kB(size.jsGzip)}`,
    `${kB(size.wasm)} / ${kB(size.wasmGzip)}`,
    kB(size.jsGzip + size.wasmGzip),
    kB(fetchedGzip),
  ]);
  console.log(`# ${rows.at(-1).join(' | ')}`);
}

for (const [label, entry, files] of [
  ['attention-wasm', 'main.js', ['main.js', 'omega24.js']],
  ['onnxruntime-web', 'ort-main.js', ['ort-main.js']],
]) {
  const vite = project(join(work.dir, `vite-${label}`), tarball, { files, tools: ['vite', 'onnxruntime-web'] });
  writeFileSync(join(vite, 'index.html'), page(`./${entry}`));
  try {
    run(vite, ['node_modules/vite/bin/vite.js', 'build']);
    await measure(`Vite, ${label}`, vite, join(vite, 'dist'));
  } catch (e) {
    rows.push([
      `Vite, ${label}`,
      `the build failed: ${e.message.split('\n').find((l) => /error/i.test(l)) ?? ''}`,
      '',
      '',
      '',
    ]);
  }

  const webpack = project(join(work.dir, `webpack-${label}`), tarball, {
    files,
    tools: ['webpack', 'webpack-cli', 'onnxruntime-web'],
  });
  writeFileSync(
    join(webpack, 'webpack.config.js'),
    `export default { entry: './${entry}', output: { path: new URL('./dist', import.meta.url).pathname } };\n`,
  );
  run(webpack, ['node_modules/webpack-cli/bin/cli.js', '--mode', 'production', '--stats', 'none']);
  writeFileSync(join(webpack, 'dist/index.html'), page('./main.js', { classic: true }));
  await measure(`webpack, ${label}`, webpack, join(webpack, 'dist'));
}
await closeBrowser();
work.cleanup();

const header = [
  'app',
  'JS KiB (raw / gzip)',
  'wasm KiB (raw / gzip)',
  'all emitted, gzip KiB',
  'fetched by a page load, gzip KiB',
];
console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => ' --- ').join('|')}|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
