// Builds scripts/int8-probe.cpp (Emscripten 3.1.69 in build/trixie, relaxed SIMD) and runs it in
// each engine asked for: how the engine lowers the relaxed integer dot on this CPU, and the int8
// GEMM tile's speed on each route against f32 (see the .cpp).
// Usage: node scripts/int8-probe.mjs [--node=PATH ...] [--chromium] [--no-build]
//   --node: a Node binary to run it under (Node 20 gets --experimental-wasm-relaxed-simd); the
//   Node running this script when none is given. --chromium: headless Debian Chromium too.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../tests/browsers.mjs';
import { loadAverage, machine } from './load-average.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}build/int8-probe`;
const args = process.argv.slice(2);
const nodes = args.filter((a) => a.startsWith('--node=')).map((a) => a.slice('--node='.length));
if (!nodes.length && !args.includes('--chromium')) nodes.push(process.execPath);

mkdirSync(out, { recursive: true });
writeFileSync(`${out}/package.json`, '{"type": "commonjs"}\n'); // the glue is CommonJS
writeFileSync(
  `${out}/index.html`,
  '<!doctype html><script>var Module = { print: (s) => console.log(s), onAbort: (e) => console.log(`aborted: ${e}`), onExit: () => console.log("done") };</script><script src="int8-probe.js"></script>\n',
);
if (!args.includes('--no-build')) {
  const build = spawnSync(
    'bash',
    [
      'scripts/in-trixie.sh',
      'em++',
      '-O3',
      '-msimd128',
      '-mrelaxed-simd',
      '-sENVIRONMENT=web,node',
      '-sALLOW_MEMORY_GROWTH=1',
      '-std=c++17',
      '-Isrc',
      '-Ibuild/deps/xsimd/include',
      'scripts/int8-probe.cpp',
      // the library's int8 kernel, measured beside the bare tiles
      'src/kernels/quantized_matmul.cpp',
      'src/kernels/quantize.cpp',
      'src/kernels/activation.cpp',
      '-o',
      'build/int8-probe/int8-probe.js',
    ],
    { cwd: root, stdio: 'inherit' },
  );
  if (build.status !== 0) process.exit(1);
}

console.log(`# ${machine()}, load average ${loadAverage()}`);
for (const node of nodes) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const flags = version.startsWith('v20') ? ['--experimental-wasm-relaxed-simd'] : [];
  console.log(`\n## Node ${version}`);
  spawnSync(node, [...flags, `${out}/int8-probe.js`], { stdio: 'inherit' });
}
if (args.includes('--chromium')) {
  const serve = sirv(out, { dev: true });
  const server = createServer((req, res) => serve(req, res, () => res.writeHead(404).end()));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    const page = await browser.newPage();
    let done;
    const finished = new Promise((resolve) => (done = resolve));
    page.on('console', (msg) => {
      if (msg.type() !== 'log') return;
      console.log(msg.text());
      if (msg.text() === 'done' || msg.text().startsWith('aborted')) done();
    });
    console.log(`\n## Chromium ${browser.version()}`);
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    await finished;
  } finally {
    await browser.close();
    server.close();
  }
}
console.log(`# load average after: ${loadAverage()}`);
