// Every relative link of the README and docs/*.md resolves: the file or folder exists in the
// repository, and a #anchor names a heading of the Markdown file it points to (as GitHub makes
// heading anchors). Links to other sites are not fetched (no network in tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
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
