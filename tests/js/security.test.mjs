// Security properties of what is shipped: no eval / new Function in the package or the page
// bundle (the page's CSP forbids them; Emscripten links with DYNAMIC_EXECUTION=0), one runtime
// dependency (Hugging Face's tokenizers, which has none of its own), and a page CSP that allows only its own origin. (That the page requests nothing
// outside its origin is checked in Chromium: tests/web/page.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function scripts(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .filter((f) => /\.(m?js|html)$/.test(f))
    .map((f) => join(dir, f));
}

test('no eval( or new Function in dist/ and build/site', () => {
  const files = [...scripts(join(root, 'dist')), ...scripts(join(root, 'build/site'))];
  assert.ok(
    files.some((f) => f.endsWith('attention_wasm.js')),
    'dist/ is not built',
  );
  assert.ok(
    files.some((f) => f.includes('build/site')),
    'build/site is not built (scripts/build.sh)',
  );
  const found = [];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(\s*['"`]/g)) {
      found.push(`${f.slice(root.length)}: ...${text.slice(Math.max(0, m.index - 40), m.index + 40)}...`);
    }
  }
  assert.deepEqual(found, []);
});

test('one runtime dependency: @huggingface/tokenizers (Apache-2.0), with no dependencies of its own', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(pkg.dependencies ?? {}), ['@huggingface/tokenizers']);
  for (const field of ['peerDependencies', 'optionalDependencies', 'bundledDependencies', 'bundleDependencies']) {
    assert.deepEqual(pkg[field] ?? {}, {}, field);
  }
  const tokenizers = JSON.parse(readFileSync(join(root, 'node_modules/@huggingface/tokenizers/package.json'), 'utf8'));
  assert.equal(tokenizers.license, 'Apache-2.0');
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'])
    assert.deepEqual(tokenizers[field] ?? {}, {}, field);
  // and it holds no eval either
  const files = scripts(join(root, 'node_modules/@huggingface/tokenizers/dist'));
  assert.ok(files.length);
  for (const f of files) assert.doesNotMatch(readFileSync(f, 'utf8'), /\beval\s*\(|\bnew\s+Function\b/, f);
});

test("the page's CSP allows only its own origin and no eval", () => {
  for (const file of ['web/index.html', 'build/site/index.html']) {
    const html = readFileSync(join(root, file), 'utf8');
    const meta = html.match(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i);
    assert.ok(meta, `${file} has no CSP meta`);
    const directives = Object.fromEntries(
      meta[1]
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([k, ...v]) => [k, v]),
    );
    assert.deepEqual(directives['default-src'], ["'self'"], file);
    // every source is this origin (or nothing); exceptions named: data: images (the favicon),
    // inline styles, and wasm compilation (not JS eval)
    const allowed = {
      'img-src': ["'self'", 'data:'],
      'style-src': ["'self'", "'unsafe-inline'"],
      'script-src': ["'self'", "'wasm-unsafe-eval'"],
    };
    for (const [name, sources] of Object.entries(directives)) {
      for (const s of sources) {
        assert.ok(["'self'", "'none'", ...(allowed[name] ?? [])].includes(s), `${file}: ${name} allows ${s}`);
      }
    }
    assert.ok(!meta[1].includes("'unsafe-eval'"), file);
  }
});
