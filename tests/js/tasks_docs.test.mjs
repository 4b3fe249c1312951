// docs/tasks.md's programs run as written (each the ```js block starting with `// name.mjs`; the
// README's task example is docs/tasks.md's fill-mask.mjs, the same text), on
// the tiny fixtures with the head the program needs: what each prints is what the helper returns
// here (the helpers themselves are checked against the float64 reference in heads.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { library } from './helpers.mjs';
import { loadFixture } from './fixtures.mjs';

const A = await library();
const doc = readFileSync(new URL('../../docs/tasks.md', import.meta.url), 'utf8');

/** Runs docs/tasks.md's program `name` (as a file of the package) on a folder: its printed lines. */
function run(name, folder) {
  const program = doc.match(new RegExp(`\`\`\`js\\n(// ${name.replace('.', '\\.')}[\\s\\S]*?)\`\`\``))?.[1];
  assert.ok(program, `docs/tasks.md has the ${name} block`);
  const dir = fileURLToPath(new URL('../../build/readme/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}`, program);
  // with this process's wasm flags: the same build (relaxed SIMD or not), so the same numbers
  const flags = process.execArgv.filter((a) => a.startsWith('--experimental-wasm'));
  return execFileSync(process.execPath, [...flags, `${dir}${name}`, folder], { encoding: 'utf8' })
    .trim()
    .split('\n');
}

async function withModel(fixture, f) {
  const fx = await loadFixture(fixture);
  const model = await A.loadPretrained(fx.dir);
  try {
    return f(model, fx.dir);
  } finally {
    model.dispose();
  }
}

test('fill-mask.mjs prints the five tokens, their probabilities and the filled sentences', () =>
  withModel('distilbert-mlm', (model, dir) => {
    const want = model
      .fillMask('Write a poem about a man fishing on a river [MASK].')
      .map((p) => `${p.token} ${p.score.toFixed(4)} ${p.sequence}`);
    assert.equal(want.length, 5);
    assert.deepEqual(run('fill-mask.mjs', dir), want);
  }));

test('classify.mjs prints the labels, one text, every label of another, and a batch with a pair', () =>
  withModel('bert-seq', (model, dir) => {
    assert.deepEqual(run('classify.mjs', dir), [
      model.labels.join(', '),
      JSON.stringify(model.classify('I love this movie!')),
      JSON.stringify(model.classify('This was a terrible film.', { topK: null })),
      JSON.stringify(
        model.classify(['A man is playing a guitar.', ['A man is playing a guitar.', 'A person plays music.']], {
          topK: 2,
        }),
      ),
    ]);
  }));

test('rerank.mjs prints the passages best first', () =>
  withModel('bert-rerank', (model, dir) => {
    const passages = [
      'Berlin has a population of three million people.',
      'New York City is famous for the Metropolitan Museum of Art.',
      'The river bank was green in the sun.',
    ];
    const want = model
      .rerank('how many people live in berlin?', passages)
      .map((r) => `${r.index} ${r.score.toFixed(4)}`);
    assert.deepEqual(run('rerank.mjs', dir), want);
  }));

test('tag-tokens.mjs prints the tokens with their labels, then the entities', () =>
  withModel('bert-tok', (model, dir) => {
    const text = 'My name is Wolfgang and I live in Berlin.';
    const lines = run('tag-tokens.mjs', dir);
    assert.equal(lines[0], JSON.stringify(model.tagTokens(text)));
    assert.deepEqual(
      lines.slice(1),
      model
        .tagTokens(text, { aggregation: 'simple' })
        .map((e) => `${e.entityGroup} ${text.slice(e.start, e.end)} ${e.score.toFixed(4)}`),
    );
  }));

test('answer.mjs prints the best answer and the top 3', () =>
  withModel('distilbert-qa', (model, dir) => {
    const context = 'My name is Wolfgang and I live in Berlin. Berlin is the capital of Germany.';
    assert.deepEqual(run('answer.mjs', dir), [
      JSON.stringify(model.answer('Where do I live?', context)),
      JSON.stringify(model.answer('What is the capital of Germany?', context, { topK: 3 })),
    ]);
  }));

test("README's task example is docs/tasks.md's fill-mask.mjs, word for word", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = (text) => text.match(/```js\n(\/\/ fill-mask\.mjs[\s\S]*?)```/)?.[1];
  assert.ok(block(readme), 'README has the fill-mask.mjs block');
  assert.equal(block(readme), block(doc));
});
