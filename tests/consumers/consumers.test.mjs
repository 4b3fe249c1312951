// The package in the tools JS developers use, each with its default configuration (issue 14):
// every consumer is a scratch project with the `npm pack` tarball of the current build installed,
// building the same app (app/main.js: document 000's omega_24) with the tool's usual command;
// browser apps then run in Chromium and Firefox (tests/browsers.mjs), Node apps in Node 20, 22
// and 24 (tests/nodes.mjs). Each must print the document's omega_24
// (tests/web/oracles.mjs), no tool may print a warning naming the package, and a bundle of the
// default entry point must not hold the threaded build. The threads opt-in
// (attention-wasm/threads, app/threads-*.js) is built by each bundler too and run in a
// cross-origin-isolated page, where it must run on 2 threads.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { E0 } from '../web/oracles.mjs';
import {
  root,
  scratch,
  pack,
  project,
  page,
  run,
  runCommand,
  linesNamingThePackage,
  filesUnder,
  openInBrowser,
  openUrl,
  closeBrowsers,
  isolationHeaders,
} from './harness.mjs';
import { ENGINES } from '../browsers.mjs';
import { NODES } from '../nodes.mjs';

const OMEGA_24 = E0['E0.6.omega_24']; // the document prints tensor(11.1466)
const PAGES = ['main.js', 'omega24.js'];
const THREADS_PAGES = ['threads-main.js', 'threads-worker.js', 'omega24.js'];

let work, tarball, packedFiles, tokens;
before(async () => {
  work = scratch();
  ({ tarball, files: packedFiles } = pack(work.dir));
  // what the shipped tokenizer gives in Node, for the apps' own encode() to match
  const { loadTokenizer } = await import('../../dist/node.js');
  tokens = (await loadTokenizer('bert-base-uncased')).encode('The bank of the river.').inputIds;
});
after(async () => {
  await closeBrowsers();
  work?.cleanup();
});

/** omega_24 as the app printed it ("tensor(11.1466)"), equal to the document's at its 4 decimals. */
function assertOmega24(result, label) {
  assert.ok(!result.error, `${label}: ${result.error}`);
  const printed = /^tensor\((-?[\d.]+)\)$/.exec(result.omega24);
  assert.ok(printed, `${label}: omega_24 printed as ${JSON.stringify(result.omega24)}`);
  assert.ok(
    Math.abs(Number(printed[1]) - OMEGA_24) <= 0.5e-4 + 1e-6,
    `${label}: omega_24 ${printed[1]}, the document says ${OMEGA_24}`,
  );
}

/** A tool's output must not name the package (warnings, errors); `allowed` lines are its file listings. */
function assertQuiet(output, label, allowed) {
  assert.deepEqual(linesNamingThePackage(output, allowed), [], `${label} printed lines naming the package:\n${output}`);
}

/** No file of the threaded build in `dir`, and no output file names one. */
function assertSingleThreadOnly(dir, label) {
  const files = filesUnder(dir);
  assert.deepEqual(
    files.filter((f) => /_mt[-_.]/.test(f)),
    [],
    `${label}: threaded files in the output`,
  );
  for (const f of files.filter((f) => /\.(m?js|html)$/.test(f))) {
    assert.doesNotMatch(
      readFileSync(join(dir, f), 'utf8'),
      /attention_wasm(_relaxed)?_mt/,
      `${label}: ${f} names the threaded build`,
    );
  }
}

/**
 * Runs a bundled app in every browser engine: the single-thread one in a plain page (no
 * threaded file fetched), the threads one in a cross-origin-isolated page (on 2 threads).
 * Both engines run relaxed SIMD. Resolves with each engine's requests (paths), by engine.
 */
async function assertRunsInBrowsers(dir, label, { threads = false } = {}) {
  const requestsBy = {};
  for (const engine of ENGINES) {
    const { result, requests, errors } = await openInBrowser(dir, { isolated: threads, engine });
    const where = `${label} (${engine})`;
    assertOmega24(result, where);
    assert.equal(result.simd, 'relaxed', `${where}: runs relaxed SIMD`);
    assert.deepEqual(errors, [], `${where}: console errors`);
    if (threads) {
      assert.deepEqual([result.isolated, result.threads], [true, 2], `${where}: ${JSON.stringify(result)}`);
    } else {
      assert.equal(result.threads, 1);
      assert.deepEqual(result.tokens, tokens, `${where}: the shipped tokenizer`);
      assert.deepEqual(
        requests.filter((u) => /_mt[-_.]/.test(u)),
        [],
        `${where}: fetched the threaded build`,
      );
    }
    requestsBy[engine] = requests;
  }
  return requestsBy;
}

// ------------------------------------------------------------------------------------------------
test("Node ESM, on Node 20, 22 and 24: import { init } from 'attention-wasm' (relaxed SIMD where the engine runs it: Node 22+, Node 20 with the flag)", () => {
  const dir = project(join(work.dir, 'node-esm'), tarball, { files: PAGES });
  for (const node of NODES) {
    const plain = JSON.parse(run(dir, ['main.js'], node.bin));
    const label = `node ${node.version} main.js`;
    assertOmega24(plain, label);
    assert.deepEqual(
      [plain.simd, plain.threads, plain.tokens],
      [node.version < 22 ? 'simd128' : 'relaxed', 1, tokens],
      label,
    );
    if (node.relaxedFlags.length) {
      const relaxed = JSON.parse(run(dir, [...node.relaxedFlags, 'main.js'], node.bin));
      assertOmega24(relaxed, `node ${node.version} ${node.relaxedFlags.join(' ')} main.js`);
      assert.equal(relaxed.simd, 'relaxed');
    }
  }
});

test("Node CommonJS, on Node 20, 22 and 24: require('attention-wasm')", () => {
  const dir = project(join(work.dir, 'node-cjs'), tarball, { files: ['main.cjs', 'omega24.js'] });
  for (const node of NODES) {
    const output = run(dir, ['main.cjs'], node.bin);
    assertOmega24(JSON.parse(output.split('\n')[0]), `node ${node.version} main.cjs`);
  }
});

test('TypeScript: the example type-checks against the packed declarations (moduleResolution bundler and node16)', () => {
  const dir = project(join(work.dir, 'typescript'), tarball, { files: ['main.ts'], tools: ['typescript'] });
  const tsc = join(dir, 'node_modules/typescript/bin/tsc');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], types: [] },
      files: ['main.ts'],
    }),
  );
  run(dir, [tsc, '-p', '.', '--module', 'esnext', '--moduleResolution', 'bundler']);
  run(dir, [tsc, '-p', '.', '--module', 'node16', '--moduleResolution', 'node16']);
});

// ------------------------------------------------------------------------------------------------
// Vite: no config file; `vite build` bundles index.html and what it imports into dist/.
const viteListing = (line) => /^dist\/\S+\s+[\d.]+ kB/.test(line.trim());

test('Vite (no config file): builds without a warning naming the package, runs, no threaded build in the bundle', async () => {
  const dir = project(join(work.dir, 'vite'), tarball, { files: PAGES, tools: ['vite'] });
  writeFileSync(join(dir, 'index.html'), page('./main.js'));
  const output = run(dir, ['node_modules/vite/bin/vite.js', 'build']);
  assertQuiet(output, 'vite build', viteListing);
  assertSingleThreadOnly(join(dir, 'dist'), 'vite');
  await assertRunsInBrowsers(join(dir, 'dist'), 'vite');
});

test('Vite: the threads opt-in in a module Worker, cross-origin isolated', async () => {
  const dir = project(join(work.dir, 'vite-threads'), tarball, { files: THREADS_PAGES, tools: ['vite'] });
  writeFileSync(join(dir, 'index.html'), page('./threads-main.js'));
  assertQuiet(run(dir, ['node_modules/vite/bin/vite.js', 'build']), 'vite build (threads)', viteListing);
  await assertRunsInBrowsers(join(dir, 'dist'), 'vite threads', { threads: true });
});

test("Vite's dev server: works with the one setting it needs, optimizeDeps.exclude (its pre-bundling would move the JS away from the .wasm)", async () => {
  for (const [name, files, entry, threads] of [
    ['vite-dev', PAGES, './main.js', false],
    ['vite-dev-threads', THREADS_PAGES, './threads-main.js', true],
  ]) {
    const dir = project(join(work.dir, name), tarball, { files, tools: ['vite'] });
    writeFileSync(join(dir, 'index.html'), page(entry));
    const { createServer } = await import(join(dir, 'node_modules/vite/dist/node/index.js'));
    const server = await createServer({
      root: dir,
      configFile: false,
      logLevel: 'silent',
      optimizeDeps: { exclude: ['attention-wasm'] },
      server: { port: 0, host: '127.0.0.1', headers: isolationHeaders },
    });
    await server.listen();
    try {
      for (const engine of ENGINES) {
        const { result, errors } = await openUrl(server.resolvedUrls.local[0], engine);
        assertOmega24(result, `${name} (${engine})`);
        assert.deepEqual(
          [result.simd, result.threads, errors],
          ['relaxed', threads ? 2 : 1, []],
          `${name} (${engine})`,
        );
      }
    } finally {
      await server.close();
    }
  }
});

// ------------------------------------------------------------------------------------------------
// webpack 5: a config with only entry and output; the page is the user's own (webpack's output
// is a classic script). --stats errors-warnings: webpack prints only its warnings and errors.
function webpackProject(name, entry) {
  const dir = project(join(work.dir, name), tarball, {
    files: entry === 'main.js' ? PAGES : THREADS_PAGES,
    tools: ['webpack', 'webpack-cli'],
  });
  writeFileSync(
    join(dir, 'webpack.config.js'),
    `export default { entry: './${entry}', output: { path: new URL('./dist', import.meta.url).pathname } };\n`,
  );
  const output = run(dir, [
    'node_modules/webpack-cli/bin/cli.js',
    '--mode',
    'production',
    '--stats',
    'errors-warnings',
  ]);
  writeFileSync(join(dir, 'dist/index.html'), page('./main.js', { classic: true }));
  return { dir, output };
}

test('webpack 5 (entry and output only): builds without a warning naming the package, runs, no threaded build in the bundle', async () => {
  const { dir, output } = webpackProject('webpack', 'main.js');
  assertQuiet(output, 'webpack');
  assertSingleThreadOnly(join(dir, 'dist'), 'webpack');
  await assertRunsInBrowsers(join(dir, 'dist'), 'webpack');
});

test('webpack 5: the threads opt-in in a module Worker, cross-origin isolated', async () => {
  const { dir, output } = webpackProject('webpack-threads', 'threads-main.js');
  assertQuiet(output, 'webpack (threads)');
  await assertRunsInBrowsers(join(dir, 'dist'), 'webpack threads', { threads: true });
});

// ------------------------------------------------------------------------------------------------
// Rollup with its usual plugins: @rollup/plugin-node-resolve (bare imports from node_modules)
// and rollup-plugin-copy for the files Rollup does not emit itself (it leaves
// new URL('x.wasm', import.meta.url) alone): the package's .wasm files and the tokenizer's
// vocabulary, and for threads the threaded glue, beside the bundle.
function rollupProject(name, inputs, copied) {
  const dir = project(join(work.dir, name), tarball, {
    files: inputs.includes('main.js') ? PAGES : THREADS_PAGES,
    tools: ['rollup', '@rollup/plugin-node-resolve', 'rollup-plugin-copy'],
  });
  writeFileSync(
    join(dir, 'rollup.config.mjs'),
    `import { nodeResolve } from '@rollup/plugin-node-resolve';
import copy from 'rollup-plugin-copy';

export default {
  input: ${JSON.stringify(inputs)},
  output: { dir: 'dist', format: 'es' },
  plugins: [nodeResolve(), copy({ targets: [{ src: ${JSON.stringify(copied.map((f) => `node_modules/attention-wasm/dist/${f}`))}, dest: 'dist' }] })],
};
`,
  );
  const output = run(dir, ['node_modules/rollup/dist/bin/rollup', '-c']);
  writeFileSync(join(dir, 'dist/index.html'), page(`./${inputs[0]}`));
  return { dir, output };
}

test('Rollup (node-resolve, copy): builds without a warning naming the package, runs, no threaded build in the bundle', async () => {
  const { dir, output } = rollupProject(
    'rollup',
    ['main.js'],
    ['attention_wasm.wasm', 'attention_wasm_relaxed.wasm', 'vocab-bert-base-uncased.txt'],
  );
  assertQuiet(output, 'rollup');
  assertSingleThreadOnly(join(dir, 'dist'), 'rollup');
  await assertRunsInBrowsers(join(dir, 'dist'), 'rollup');
});

test('Rollup: the threads opt-in (the Worker a second input), cross-origin isolated', async () => {
  const { dir, output } = rollupProject(
    'rollup-threads',
    ['threads-main.js', 'threads-worker.js'],
    ['*.wasm', '*.txt', 'attention_wasm_mt.js'],
  );
  assertQuiet(output, 'rollup (threads)');
  await assertRunsInBrowsers(join(dir, 'dist'), 'rollup threads', { threads: true });
});

// ------------------------------------------------------------------------------------------------
// esbuild: one command (docs/bundlers.md), then the .wasm files and the tokenizer's vocabulary (and for
// threads the threaded glue) copied beside the bundle: esbuild leaves new URL('x.wasm',
// import.meta.url) alone.
function esbuildProject(name, entries, copied, files = entries.includes('main.js') ? PAGES : THREADS_PAGES) {
  const dir = project(join(work.dir, name), tarball, { files, tools: ['esbuild'] });
  const output = runCommand(dir, join(dir, 'node_modules/esbuild/bin/esbuild'), [
    ...entries,
    '--bundle',
    '--format=esm',
    '--outdir=dist',
  ]);
  const from = join(dir, 'node_modules/attention-wasm/dist');
  for (const f of readdirSync(from).filter((f) => copied.test(f))) cpSync(join(from, f), join(dir, 'dist', f));
  writeFileSync(join(dir, 'dist/index.html'), page(`./${entries[0]}`));
  return { dir, output };
}

test('esbuild (one command + the .wasm copied): builds without a warning naming the package, runs, no threaded build', async () => {
  const { dir, output } = esbuildProject('esbuild', ['main.js'], /^attention_wasm(_relaxed)?\.wasm$|\.txt$/);
  assertQuiet(output, 'esbuild');
  assertSingleThreadOnly(join(dir, 'dist'), 'esbuild');
  await assertRunsInBrowsers(join(dir, 'dist'), 'esbuild');
});

test('esbuild: the threads opt-in (the Worker a second entry point), cross-origin isolated', async () => {
  const { dir, output } = esbuildProject(
    'esbuild-threads',
    ['threads-main.js', 'threads-worker.js'],
    /\.wasm$|\.txt$|^attention_wasm_mt\.js$/,
  );
  assertQuiet(output, 'esbuild (threads)');
  await assertRunsInBrowsers(join(dir, 'dist'), 'esbuild threads', { threads: true });
});

// ------------------------------------------------------------------------------------------------
// tokenizer.json patterns in a browser bundle (app/patterns-*.js): the default entry point checks
// them against the package's list of real tokenizers' patterns, without the ReDoS analysis (250 KB
// gzip), and refuses the others with the fix in the message; 'attention-wasm/tokenizer-check'
// brings the analysis into the bundle that imports it, and only that one. In each engine.
test("esbuild: the default entry point loads a listed pattern, refuses an unknown one naming the fix; with 'attention-wasm/tokenizer-check' it is analysed", async () => {
  const { dir, output } = esbuildProject(
    'esbuild-patterns',
    ['patterns.js', 'patterns-checked.js'],
    /^attention_wasm(_relaxed)?\.wasm$/,
    ['patterns.js', 'patterns-checked.js', 'patterns-app.js'],
  );
  assertQuiet(output, 'esbuild (patterns)');
  const gzip = (f) => gzipSync(readFileSync(join(dir, 'dist', f)), { level: 9 }).length;
  const [plain, checked] = [gzip('patterns.js'), gzip('patterns-checked.js')];
  assert.ok(plain < 100e3, `the default entry point's bundle is ${plain} bytes gzip`);
  assert.ok(checked - plain > 200e3, `the analysis adds ${checked - plain} bytes gzip`);

  const words = ['How', ' are', ' you'];
  const split = ['How', ' ', 'are', ' ', 'you'];
  for (const engine of ENGINES) {
    const opened = async (script) => {
      writeFileSync(join(dir, 'dist/index.html'), page(`./${script}`));
      const { result, errors } = await openInBrowser(join(dir, 'dist'), { engine });
      assert.deepEqual(errors, [], `${script} (${engine}): console errors`);
      return result;
    };
    const without = await opened('patterns.js');
    assert.deepEqual([without.listed, without.trusted], [words, split], `${engine}: ${JSON.stringify(without)}`);
    for (const [what, pattern] of [
      ['unknown', '\\p{L}+|\\s+'],
      ['hostile', '(a+)+$'],
    ]) {
      assert.equal(
        without[what].error,
        `loadTokenizer: tokenizer.json: pre_tokenizer.pattern.Regex '${pattern}' is not one of the tokenizer patterns ` +
          "attention-wasm has checked, and this entry point does not analyse patterns: import 'attention-wasm/tokenizer-check' " +
          "(the ReDoS analysis, 250 KB gzip) to check it, or pass { trustPatterns: true } to run this file's patterns unchecked, at your own risk",
        `${engine}: ${what}`,
      );
    }
    const withCheck = await opened('patterns-checked.js');
    assert.deepEqual([withCheck.listed, withCheck.unknown, withCheck.trusted], [words, split, split], engine);
    assert.match(
      withCheck.hostile.error,
      /^loadTokenizer: tokenizer\.json: pre_tokenizer\.pattern\.Regex '\(a\+\)\+\$' can take exponential time/,
      engine,
    );
  }
});

// ------------------------------------------------------------------------------------------------
// No bundler: a static folder (the app, and node_modules as npm installed it) and an import map
// naming the package's browser entry point and its dependency; <script type="module"> imports
// the app as it is. (Threads need a Worker, which import maps do not reach: a bundler's job.)
function staticProject(name, files, script) {
  const dir = project(join(work.dir, name), tarball, { files });
  const importMap = {
    imports: {
      'attention-wasm': './node_modules/attention-wasm/dist/index.js',
      '@huggingface/tokenizers': './node_modules/@huggingface/tokenizers/dist/tokenizers.mjs',
    },
  };
  writeFileSync(
    join(dir, 'index.html'),
    page(script).replace('<body>', `<script type="importmap">${JSON.stringify(importMap)}</script>\n<body>`),
  );
  return dir;
}

test('a static folder, <script type="module"> and an import map, no bundler', async () => {
  const dir = staticProject('static', PAGES, './main.js');
  for (const [engine, requests] of Object.entries(await assertRunsInBrowsers(dir, 'static')))
    assert.ok(
      requests.includes('/node_modules/attention-wasm/dist/attention_wasm_relaxed.wasm'),
      `${engine}: ${requests.join('\n')}`,
    );
});

test('fallback in Chromium: where relaxed SIMD does not validate, init() loads the SIMD128 build, same omega_24', async () => {
  const dir = staticProject('static-fallback', PAGES, './main.js');
  // An engine without relaxed SIMD: before the app runs, WebAssembly.validate rejects every
  // module with the relaxed_madd opcode (0xfd 0x85 0x02), as such an engine's would.
  const noRelaxedSimd = `<script>
    const validate = WebAssembly.validate;
    const relaxed = (b) => b.some((x, i) => x === 0xfd && b[i + 1] === 0x85 && b[i + 2] === 0x02);
    WebAssembly.validate = (bytes) => !relaxed(new Uint8Array(bytes)) && validate(bytes);
  </script>`;
  const html = join(dir, 'index.html');
  writeFileSync(
    html,
    readFileSync(html, 'utf8').replace('<script type="importmap">', `${noRelaxedSimd}\n<script type="importmap">`),
  );
  const { result, requests, errors } = await openInBrowser(dir);
  assertOmega24(result, 'static, relaxed validation failing');
  assert.deepEqual([result.simd, errors], ['simd128', []]);
  assert.deepEqual(
    requests.filter((u) => u.endsWith('.wasm')),
    ['/node_modules/attention-wasm/dist/attention_wasm.wasm'],
  );
});

test('the tarball holds the files the consumers need and nothing of the sources', () => {
  const listed = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(listed.exports), ['.', './threads', './tokenizer-check', './package.json']);
  for (const f of [
    'dist/attention_wasm.js',
    'dist/attention_wasm.wasm',
    'dist/attention_wasm_relaxed.wasm',
    'dist/attention_wasm_mt.js',
    'dist/attention_wasm_mt.wasm',
    'dist/attention_wasm_relaxed_mt.wasm',
    'dist/attention_wasm_mt_node.js',
    'dist/threads.js',
    'dist/threads.d.ts',
    'dist/node.js',
    'dist/index.js',
    'dist/index.d.ts',
    'dist/vocab-bert-base-uncased.txt',
    'dist/checked-patterns.js',
    'dist/tokenizer-check.js',
    'dist/tokenizer-check.d.ts',
    'dist/regex-analysis.js',
    'LICENSE',
    'NOTICE', // the vocabulary's Apache-2.0 attribution
  ]) {
    assert.ok(packedFiles.includes(f), `${f} missing from the tarball: ${packedFiles.join(', ')}`);
  }
  // the documents, and docs/*.md, which the README links to
  const documents = ['package.json', 'README.md', 'LICENSE', 'NOTICE', 'CHANGELOG.md'];
  assert.deepEqual(
    packedFiles.filter((f) => !f.startsWith('dist/') && !documents.includes(f) && !/^docs\/[\w-]+\.md$/.test(f)),
    [],
  );
});
