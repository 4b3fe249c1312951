// Mutated tokenizer.json files never hang the caller (issue 24): the fixture's BERT tokenizer.json
// and a Llama 3 pipeline, mutated in their patterns (catastrophic and harmless, at every place
// and depth), added tokens, vocabularies, model settings and nesting, plus random edits of any
// field; each loaded and used (tokenizer_mutation_child.mjs) in its own Node process under a
// time bound. A case passes if its process ends in time, without a crash, with the shipped
// tokenizer still working; a refused file names itself ('loadTokenizer: tokenizer.json: ...').
// The counts of refused and loaded files are printed. AW_MUTATIONS=n sets the number of random edits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTokenizer } from 'attention-wasm';
import { loadFixture } from './fixtures.mjs';
import { countFromEnv } from './helpers.mjs';
import { pipelineJson } from './fixtures/pipelines.mjs';
import { makeRandom } from './reference/random.mjs';

const child = fileURLToPath(new URL('./tokenizer_mutation_child.mjs', import.meta.url));
const BOUND_MS = 30000; // a hang detector, far above the ~0.3 s a case takes
const RANDOM_EDITS = countFromEnv('AW_MUTATIONS', 24);

const bertJson = JSON.parse(new TextDecoder().decode((await loadFixture('distilbert-f32')).files['tokenizer.json']));
const llamaJson = pipelineJson('llama3', ['Ġbank', 'Ġriver']);
const copy = (j) => structuredClone(j);

const BAD = ['(a+)+$', '(x+x+)+y', '(a|a)*$', '(\\s*\\s*)+$', '(?:a{1,50}){1,50}$', '(.*a){20}!'];
const HARMLESS = ['\\s+', "'s|'t| ?\\p{L}+|\\s+(?!\\S)|\\s+", 'a', '\\p{N}{1,3}', ''];
const split = (p) => ({ type: 'Split', pattern: { Regex: p }, behavior: 'Isolated', invert: false });
const replace = (p) => ({ type: 'Replace', pattern: { Regex: p }, content: 'z' });
const nest = (part, key, inner, depth) => {
  let node = inner;
  for (let i = 0; i < depth; i++) node = { type: 'Sequence', [key]: [node] };
  return node;
};

/** Named mutations of a base file: [label, json]. */
function mutations(base, name) {
  const out = [];
  const edit = (label, f) => {
    const j = copy(base);
    f(j);
    out.push([`${name}: ${label}`, j]);
  };
  for (const p of BAD) {
    edit(`pre_tokenizer Split ${p}`, (j) => (j.pre_tokenizer = split(p)));
    edit(
      `normalizer Replace ${p} in Sequence depth 3`,
      (j) => (j.normalizer = nest('n', 'normalizers', replace(p), 3)),
    );
    edit(`decoder Replace ${p}`, (j) => (j.decoder = replace(p)));
  }
  for (const p of HARMLESS) edit(`pre_tokenizer Split ${p}`, (j) => (j.pre_tokenizer = split(p)));
  edit('pre_tokenizer nested 200 deep', (j) => (j.pre_tokenizer = nest('p', 'pretokenizers', split('a'), 200)));
  edit('normalizer Sequence of 300 Replaces', (j) => {
    j.normalizer = { type: 'Sequence', normalizers: Array.from({ length: 300 }, () => replace('b')) };
  });
  edit('a pattern of unknown form', (j) => (j.pre_tokenizer = { type: 'Split', pattern: { Glob: '*' } }));
  edit('an invalid regex', (j) => (j.pre_tokenizer = split('(?<=a+')));
  edit('20,000 added tokens', (j) => {
    const n = Object.keys(j.model.vocab).length;
    for (let i = 0; i < 20000; i++)
      j.added_tokens.push({ id: n + i, content: `<extra_${i}>`, special: i % 2 === 0, normalized: i % 3 === 0 });
  });
  edit('added tokens: empty, huge, odd ids', (j) => {
    j.added_tokens.push(
      { id: -5, content: '', special: true },
      { id: 1e9, content: 'a'.repeat(100000), special: false, normalized: true },
      { id: 3.5, content: 'aa', lstrip: true, rstrip: true },
    );
  });
  edit('added token that is not a string', (j) => j.added_tokens.push({ id: 7, content: { x: 1 } }));
  edit('empty vocabulary', (j) => (j.model.vocab = {}));
  edit('vocabulary of huge and negative ids', (j) => {
    for (const k of Object.keys(j.model.vocab).slice(0, 50)) j.model.vocab[k] = -1e9;
    j.model.vocab.zz = 2 ** 31;
  });
  edit('vocabulary of lone surrogates', (j) => {
    for (let i = 0; i < 100; i++) j.model.vocab[`\ud800${i}`] = 1e6 + i;
  });
  edit('no unk token', (j) => delete j.model.unk_token);
  edit('max_input_chars_per_word huge', (j) => (j.model.max_input_chars_per_word = 1e9));
  edit('unknown part types', (j) => {
    j.normalizer = { type: 'Nope' };
    j.pre_tokenizer = { type: 'AlsoNope' };
  });
  edit('parts of the wrong kind', (j) => {
    j.normalizer = [1, 2];
    j.decoder = 'x';
    j.post_processor = 3;
  });
  return out;
}

/** Random edits anywhere but the vocabulary: a value replaced by another kind. */
function randomEdits(base, name, n, seed) {
  const r = makeRandom(seed);
  const values = [null, 0, -1, 1e300, '', 'x'.repeat(10000), [], {}, [[[]]], true, { Regex: '(a+)+$' }];
  const out = [];
  for (let k = 0; k < n; k++) {
    const j = copy(base);
    const paths = [];
    const walk = (node, path) => {
      if (node === null || typeof node !== 'object' || (path[0] === 'model' && path[1] === 'vocab')) return;
      for (const key of Object.keys(node)) {
        paths.push([...path, key]);
        if (paths.length < 5000) walk(node[key], [...path, key]);
      }
    };
    walk(j, []);
    const path = r.pick(paths);
    let node = j;
    for (const key of path.slice(0, -1)) node = node[key];
    const value = r.pick(values);
    node[path.at(-1)] = structuredClone(value);
    out.push([`${name}: random ${path.join('.')} = ${JSON.stringify(value)?.slice(0, 30)}`, j]);
  }
  return out;
}

/** Runs one case in a child: { label, ms, result, error }. */
function runCase(dir, label, json, i) {
  const file = join(dir, `case-${i}.json`);
  writeFileSync(file, JSON.stringify(json));
  const t0 = performance.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [child, file], { timeout: BOUND_MS, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      const ms = performance.now() - t0;
      let result = null;
      try {
        result = JSON.parse(stdout.trim().split('\n').at(-1));
      } catch {}
      resolve({
        label,
        ms,
        result,
        error: error && `${error.killed ? 'killed (time bound)' : error.code}: ${stderr.slice(0, 300)}`,
      });
    });
  });
}

test(
  'mutated tokenizer.json files: every case ends in time, no crash, the module healthy after',
  { timeout: 600000 },
  async () => {
    const cases = [
      ...mutations(bertJson, 'bert'),
      ...mutations(llamaJson, 'llama3'),
      ...randomEdits(bertJson, 'bert', RANDOM_EDITS, 24),
      ...randomEdits(llamaJson, 'llama3', Math.ceil(RANDOM_EDITS / 2), 25),
    ];
    const dir = mkdtempSync(join(tmpdir(), 'aw-mutations-'));
    const results = [];
    try {
      // two at a time (the machine has two cores)
      for (let i = 0; i < cases.length; i += 2)
        results.push(
          ...(await Promise.all(cases.slice(i, i + 2).map(([label, json], k) => runCase(dir, label, json, i + k)))),
        );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const failed = results.filter((c) => c.error || !c.result?.healthy);
    assert.deepEqual(
      failed.map((c) => `${c.label}: ${c.error ?? JSON.stringify(c.result)}`),
      [],
    );
    for (const c of results) {
      if (c.result.load !== 'ok') assert.match(c.result.load, /^\w*Error: loadTokenizer: tokenizer\.json/, c.label);
    }
    // every catastrophic pattern is refused wherever it was put
    for (const c of results.filter((c) => BAD.some((p) => c.label.endsWith(` ${p}`) || c.label.includes(` ${p} in `))))
      assert.match(c.result.load, /can take (exponential time|time that grows)/, c.label);
    const refused = results.filter((c) => c.result.load !== 'ok').length;
    const slowest = results.reduce((a, b) => (a.ms > b.ms ? a : b));
    console.log(
      `# ${results.length} mutated files: ${refused} refused at load, ${results.length - refused} loaded and used; slowest case ${(slowest.ms / 1000).toFixed(1)} s (${slowest.label})`,
    );
    const tok = await loadTokenizer('bert-base-uncased');
    assert.deepEqual(tok.encode('Question?', { textPair: 'Answer' }).inputIds, [101, 3160, 1029, 102, 3437, 102]);
  },
);
