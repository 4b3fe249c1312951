// What the consumer tests share: the package as a user gets it (`npm pack` of the current build,
// installed offline into a scratch project), the bundlers run as their users run them (their
// CLIs, in the scratch project, with its node_modules holding links to this repository's
// installed copies: nothing is downloaded), a static server (optionally cross-origin isolated)
// and the headless browsers of tests/browsers.mjs (Chromium and Firefox).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  mkdtempSync,
  mkdirSync,
  writeFileSync,
  cpSync,
  symlinkSync,
  rmSync,
  readdirSync,
  statSync,
  readFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { gzipSync } from 'node:zlib';
import { launchBrowser } from '../browsers.mjs';
import sirv from 'sirv';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const appSources = fileURLToPath(new URL('./app', import.meta.url));

/** A scratch folder, removed by `cleanup()` (kept with AW_KEEP_CONSUMERS=1, to look at). */
export function scratch() {
  const dir = mkdtempSync(join(tmpdir(), 'aw-consumers-'));
  return { dir, cleanup: () => process.env.AW_KEEP_CONSUMERS || rmSync(dir, { recursive: true, force: true }) };
}

/**
 * `npm pack` of the repository (its dist/) into `dir`: the tarball's path and the files it holds.
 * AW_CONSUMER_PACKAGE=folder packs another copy of the package instead (package.json + dist/:
 * e.g. an older build, to see these tests fail on it).
 */
export function pack(dir) {
  const from = process.env.AW_CONSUMER_PACKAGE || root;
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: from,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [packed] = JSON.parse(out);
  return { tarball: join(dir, packed.filename), files: packed.files.map((f) => f.path) };
}

/**
 * A user's project in `dir`: package.json (an ES module project), the tarball installed offline
 * (the package has no dependencies), the app's sources, and links to the repository's installed
 * copies of the tools it builds with (as if they were its devDependencies).
 */
export function project(dir, tarball, { files = [], tools = [] } = {}) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer-app', version: '1.0.0', private: true, type: 'module' }),
  );
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-save', tarball], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const f of files) cpSync(join(appSources, f), join(dir, f));
  for (const tool of tools) {
    mkdirSync(dirname(join(dir, 'node_modules', tool)), { recursive: true });
    symlinkSync(join(root, 'node_modules', tool), join(dir, 'node_modules', tool));
  }
  return dir;
}

/** An HTML page whose one script is `src` (a module unless `classic`); results go to #result. */
export function page(src, { classic = false } = {}) {
  return (
    `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><link rel="icon" href="data:,"><title>consumer</title></head>\n` +
    `<body>\n<pre id="result"></pre>\n<script${classic ? '' : ' type="module"'} src="${src}"></script>\n</body>\n</html>\n`
  );
}

/** Runs `command args` in `cwd`; its output (stdout + stderr); throws if it fails. */
export function runCommand(cwd, command, args) {
  // Plain text whatever the caller's terminal or CI asks for: the checks read the output line by line.
  const env = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 26 });
  const output = `${r.stdout}${r.stderr}`;
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited with ${r.status}:\n${output}${r.error ?? ''}`);
  return output;
}

/** Runs `node args` in `cwd` (this Node, or the binary `node`): its output; throws if it fails. */
export const run = (cwd, args, node = process.execPath) => runCommand(cwd, node, args);

/** The lines of a bundler's output that name the package (warnings, errors), less `allowed` ones. */
export function linesNamingThePackage(output, allowed = () => false) {
  return stripVTControlCharacters(output)
    .split('\n')
    .filter((line) => /attention[-_]wasm/.test(line) && !allowed(line));
}

/** Every file under `dir` (paths relative to it). */
export function filesUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .filter((f) => statSync(join(dir, f)).isFile())
    .map(String);
}

/** Sizes of the JS and wasm files under `dir`, raw and gzipped (level 9), in bytes. */
export function bundleSize(dir) {
  const size = { js: 0, jsGzip: 0, wasm: 0, wasmGzip: 0 };
  for (const f of filesUnder(dir)) {
    const kind = f.endsWith('.wasm') ? 'wasm' : /\.m?js$/.test(f) ? 'js' : null;
    if (!kind) continue;
    const bytes = readFileSync(join(dir, f));
    size[kind] += bytes.length;
    size[`${kind}Gzip`] += gzipSync(bytes, { level: 9 }).length;
  }
  return size;
}

export const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Serves `dir` on 127.0.0.1 (a free port), with COOP/COEP when `isolated`. */
export async function serve(dir, { isolated = false } = {}) {
  const handler = sirv(dir, {
    dev: false,
    etag: false,
    setHeaders: (res) => {
      if (isolated) for (const [name, value] of Object.entries(isolationHeaders)) res.setHeader(name, value);
    },
  });
  const server = createServer((req, res) => handler(req, res, () => res.writeHead(404).end()));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  // close(): also the connections the browser keeps alive (server.close() alone waits for them)
  const close = () =>
    new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  return { origin: `http://127.0.0.1:${server.address().port}`, close };
}

const browsers = new Map(); // engine -> one headless browser for the whole file
async function browserFor(engine) {
  if (!browsers.has(engine)) browsers.set(engine, await launchBrowser(engine));
  return browsers.get(engine);
}
/** Closes the browsers openUrl started. */
export async function closeBrowsers() {
  for (const browser of browsers.values()) await browser.close();
  browsers.clear();
}

/**
 * Opens `url` in the browser `engine` (tests/browsers.mjs) and waits for the page's #result;
 * resolves with the parsed result, the paths fetched from the page's origin, and the console's
 * errors.
 */
export async function openUrl(url, engine = 'chromium') {
  const origin = new URL(url).origin;
  const browser = await browserFor(engine);
  // The browser's own tab, reused: a second tab is a background one, whose timers and wasm
  // compilation Chromium throttles (a first run took ~100 s there).
  const tab = browser.page;
  const requests = [];
  const errors = [];
  const unwatch = browser.watch({ request: (u) => requests.push(u), consoleError: (e) => errors.push(e) });
  try {
    await tab.goto(url);
    await tab
      .waitForFunction(() => document.querySelector('#result')?.textContent, null, { polling: 50, timeout: 60000 })
      .catch(async (err) => {
        const state = await tab
          .evaluate(() => [
            location.href,
            document.readyState,
            crossOriginIsolated,
            document.body?.innerHTML.slice(0, 300),
          ])
          .catch((e) => `(the page cannot be read: ${e.message})`);
        throw new Error(
          `${engine}: ${url} gave no #result: ${err.message}; the page: ${JSON.stringify(state)}; requests: ${requests.join(' ')}; errors: ${errors.join(' | ')}`,
        );
      });
    const result = JSON.parse(await tab.locator('#result').textContent());
    return {
      result,
      requests: requests.filter((u) => u.startsWith(origin)).map((u) => u.slice(origin.length)),
      errors,
    };
  } finally {
    await tab.goto('about:blank');
    unwatch();
  }
}

/** openUrl on `dir`/index.html served by a static server (`isolated`: with COOP/COEP). */
export async function openInBrowser(dir, { isolated = false, engine = 'chromium' } = {}) {
  const server = await serve(dir, { isolated });
  try {
    return await openUrl(`${server.origin}/`, engine);
  } finally {
    await server.close();
  }
}
