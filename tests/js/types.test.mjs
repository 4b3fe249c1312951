// The hand-written declarations (src/js/index.d.ts, shipped as dist/index.d.ts) against a usage
// file that calls every public function and class with its options (tests/js/types/usage.ts).
// `tsc --noEmit --strict` resolves 'attention-wasm' as a user's project would, through
// package.json's `exports` / `types`: once as Node (nodenext) and once as a bundler. The usage
// file's `@ts-expect-error` lines (wrong option names and types) fail the check if the types
// decay to `any`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const project = fileURLToPath(new URL('./types/tsconfig.json', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function typecheck(...flags) {
  const r = spawnSync(process.execPath, [tsc, '-p', project, '--noEmit', '--strict', ...flags], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `tsc ${flags.join(' ')} failed:\n${r.stdout}${r.stderr}`);
}

test('the package declares its types through exports, and dist/ has the current declarations', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  for (const [entry, types] of [
    ['.', 'index.d.ts'],
    ['./tokenizer-check', 'tokenizer-check.d.ts'],
  ]) {
    assert.equal(pkg.exports[entry].types, `./dist/${types}`);
    assert.equal(Object.keys(pkg.exports[entry])[0], 'types', `${entry}: types must be the first condition`);
    assert.equal(
      readFileSync(new URL(`../../dist/${types}`, import.meta.url), 'utf8'),
      readFileSync(new URL(`../../src/js/${types}`, import.meta.url), 'utf8'),
      `dist/${types} is stale: run the build`,
    );
  }
});

test('usage.ts type-checks under --strict, resolved as Node does (nodenext)', () => {
  typecheck('--module', 'nodenext', '--moduleResolution', 'nodenext');
});

test('usage.ts type-checks under --strict, resolved as a bundler does', () => {
  typecheck('--module', 'esnext', '--moduleResolution', 'bundler');
});

test("the three entry points' types resolve under moduleResolution node10 (typesVersions), as older CommonJS projects have it", () => {
  // node10 reads node_modules (no self-reference, no exports): a project with the package installed
  const dir = mkdtempSync(join(tmpdir(), 'aw-node10-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules', 'attention-wasm'), 'dir');
    copyFileSync(fileURLToPath(new URL('./types/node10.ts', import.meta.url)), join(dir, 'node10.ts'));
    const options = { strict: true, noEmit: true, target: 'es2022', module: 'commonjs', moduleResolution: 'node10' };
    const config = { compilerOptions: { ...options, lib: ['es2022'], types: [] }, files: ['node10.ts'] };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
    const r = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    assert.equal(r.status, 0, `tsc (node10) failed:\n${r.stdout}${r.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Every value the declarations export (classes, functions, constants) is exported by both entry
// points at run time: a declared class a user imports for instanceof must exist.
test('every value index.d.ts exports exists in dist/index.js, dist/node.js and dist/threads.js', async () => {
  const declared = [
    ...readFileSync(new URL('../../src/js/index.d.ts', import.meta.url), 'utf8').matchAll(
      /^export (?:declare )?(?:abstract )?(?:class|function|const|let|enum) (\w+)/gm,
    ),
  ].map((m) => m[1]);
  assert.ok(declared.includes('CausalLM') && declared.includes('init'), `declared: ${declared}`);
  for (const entry of ['index.js', 'node.js', 'threads.js']) {
    const runtime = await import(new URL(`../../dist/${entry}`, import.meta.url));
    const missing = [...new Set(declared)].filter((name) => !(name in runtime));
    assert.deepEqual(missing, [], `dist/${entry} does not export what index.d.ts declares`);
  }
});
