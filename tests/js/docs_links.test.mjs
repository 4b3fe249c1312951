// Every relative link of the README and docs/*.md resolves: the file or folder exists in the
// repository, and a #anchor names a heading of the Markdown file it points to (as GitHub makes
// heading anchors). Links to other sites are not fetched (no network in tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { root, documentFiles, readDocument, links, anchors } from './docs.mjs';

const external = /^[a-z][a-z0-9+.-]*:/i; // https:, mailto:, ...

test('the documentation files link to the README and each other', () => {
  const files = documentFiles();
  for (const required of ['architecture', 'performance', 'toolchain', 'testing', 'page', 'bundlers'])
    assert.ok(files.includes(`docs/${required}.md`), `docs/${required}.md exists`);
  const readme = new Set(links(readDocument('README.md')).map((l) => l.target.split('#')[0]));
  for (const doc of files.slice(1)) assert.ok(readme.has(doc), `the README links ${doc}`);
});

test('the README stays a short user document (at most 300 lines; internals go in docs/)', () => {
  const lines = readDocument('README.md').split('\n').length;
  assert.ok(lines <= 300, `README.md has ${lines} lines`);
});

for (const file of documentFiles()) {
  test(`${file}: every relative link and #anchor resolves`, () => {
    const problems = [];
    for (const { target, line } of links(readDocument(file))) {
      if (external.test(target)) continue;
      const [path, anchor] = target.split('#');
      const resolved = path ? posix.normalize(posix.join(posix.dirname(file), decodeURIComponent(path))) : file;
      if (resolved.startsWith('..') || !existsSync(root + resolved)) {
        problems.push(`${file}:${line}: ${target}: ${resolved} does not exist`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!resolved.endsWith('.md') || statSync(root + resolved).isDirectory()) {
        problems.push(`${file}:${line}: ${target}: an anchor into a file that is not Markdown`);
      } else if (!anchors(readDocument(resolved)).has(anchor)) {
        problems.push(`${file}:${line}: ${target}: ${resolved} has no heading with the anchor #${anchor}`);
      }
    }
    assert.deepEqual(problems, []);
  });
}

test('anchors are made as GitHub makes them', () => {
  const text = [
    '# Why: fused multiply-add and the register tile',
    '### E4.6: DistilBERT\'s "bank", with your own copy of the model',
    '## Charts (`web/src/charts/`)',
    '## Tests',
    '## Tests',
    '```sh',
    '# a comment in code is not a heading',
    '```',
  ].join('\n');
  assert.deepEqual(
    [...anchors(text)],
    [
      'why-fused-multiply-add-and-the-register-tile',
      'e46-distilberts-bank-with-your-own-copy-of-the-model',
      'charts-websrccharts',
      'tests',
      'tests-1',
    ],
  );
});

test('code comments cite docs/ for their measurements, never the README', () => {
  // The README is the user's document and changes shape; "(README, performance)" in a comment
  // would point at nothing. Sources may name README.md itself (as what it is), not a section of it
  // (another package's README, "scslre's README", is not ours).
  const problems = [];
  const walk = (dir) => {
    for (const entry of readdirSync(root + dir, { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(c|h)pp$|\.(m?js|ts|sh)$/.test(entry.name)) {
        readFileSync(root + path, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            // "(README, performance)", "costs more: README, threads)": a section of our README
            if (/\(README\b(?!\.md)|\bREADME,/.test(line)) problems.push(`${path}:${i + 1}: ${line.trim()}`);
          });
      }
    }
  };
  for (const dir of ['src', 'scripts', 'web/src']) walk(dir);
  assert.deepEqual(problems, []);
});
