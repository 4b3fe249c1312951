// The documentation's code, checked as a user would use it:
//  - every ```js program of the README runs as written (a file of the package, so that
//    'attention-wasm' resolves to this build) and prints what its `// -> ...` comments say, in
//    order (a trailing `...` matches any rest of the line). Each program gets, as its first
//    argument, the tiny random folder that stands in for the one its first line names
//    (`/path/to/gpt2`: gpt2-tiny; otherwise DistilBERT's), and finds mha.safetensors in its folder.
//  - every ```js and ```ts block of the README and docs/*.md type-checks under
//    `tsc --noEmit --strict` (js blocks as checked JavaScript), importing 'attention-wasm' through
//    the package's exports as a user's project does. A block whose info string has `no-check` is
//    skipped (keep that rare); `no-run` keeps a README program from being run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { library } from './helpers.mjs';
import { loadFixture } from './fixtures.mjs';
import { root, documentFiles, readDocument, codeBlocks } from './docs.mjs';

const LANGS = { js: 'mjs', javascript: 'mjs', ts: 'ts', typescript: 'ts' };

/** The TypeScript-able blocks of every documentation file: { file, line, ext, code, flags }. */
function typedBlocks() {
  return documentFiles().flatMap((file) =>
    codeBlocks(readDocument(file))
      .filter((b) => LANGS[b.lang])
      .map((b) => ({ file, ...b, ext: LANGS[b.lang] })),
  );
}

/** safetensors bytes (F32, names sorted as safetensors' writer sorts them) of a state dict. */
function safetensorsFile(state) {
  const names = Object.keys(state).sort();
  const header = {};
  let offset = 0;
  for (const name of names) {
    const t = state[name];
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + 4 * t.data.length] };
    offset += 4 * t.data.length;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const bytes = new Uint8Array(8 + json.length + offset);
  new DataView(bytes.buffer).setUint32(0, json.length, true);
  bytes.set(json, 8);
  let p = 8 + json.length;
  for (const name of names) {
    bytes.set(new Uint8Array(Float32Array.from(state[name].data).buffer), p);
    p += 4 * state[name].data.length;
  }
  return bytes;
}

/** The fixture standing in for the folder a program's first line names (`node x.mjs /path/to/NAME`). */
const STAND_INS = { gpt2: 'gpt2-tiny', 'distilbert-base-uncased': 'distilbert-f32' };
function standIn(code) {
  const named = code.match(/^\/\/ .*\/path\/to\/([\w.-]+)/)?.[1];
  if (named === undefined) return 'distilbert-f32'; // the programs that read no folder
  assert.ok(Object.hasOwn(STAND_INS, named), `no fixture stands in for /path/to/${named}: add it to STAND_INS`);
  return STAND_INS[named];
}

/**
 * The `// -> text` comments of a program, in order: each is a whole line of the output, or its
 * beginning where the comment ends in `...` ({ text, prefix }).
 */
function expectedOutputs(code) {
  return Array.from(code.matchAll(/\/\/ -> (.*)$/gm), (m) => {
    const text = m[1].trim();
    const prefix = /\s*\.\.\.$/.test(text);
    return { text: prefix ? text.replace(/\s*\.\.\.$/, '') : text, prefix };
  });
}

test("the README's programs run and print what their `// ->` comments say", async () => {
  const dir = `${root}build/readme/`; // inside the package: 'attention-wasm' resolves to it
  mkdirSync(dir, { recursive: true });
  const A = await library();
  A.manualSeed(7);
  const mha = new A.MultiheadAttention({ embedDim: 16, numHeads: 4, batchFirst: true });
  writeFileSync(`${dir}mha.safetensors`, safetensorsFile(mha.stateDict()));
  const programs = codeBlocks(readDocument('README.md')).filter(
    (b) => LANGS[b.lang] === 'mjs' && !b.flags.includes('no-run'),
  );
  assert.ok(programs.length >= 3, 'the README has its tour programs');
  for (const { code, line } of programs) {
    const name = code.match(/^\/\/ ([\w-]+\.mjs)/)?.[1] ?? `readme-${line}.mjs`;
    writeFileSync(`${dir}${name}`, code);
    const flags = process.execArgv.filter((a) => a.startsWith('--experimental-wasm')); // the build under test
    const fx = await loadFixture(standIn(code));
    const r = spawnSync(process.execPath, [...flags, `${dir}${name}`, fx.dir], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, `README.md:${line} (${name}) failed:\n${r.stderr}`);
    // each comment is a line of the output, in order (lines no comment shows may come between)
    const printed = r.stdout.split('\n');
    let from = 0;
    for (const { text, prefix } of expectedOutputs(code)) {
      const at = printed.findIndex((l, i) => i >= from && (prefix ? l.startsWith(text) : l === text));
      assert.ok(
        at >= 0,
        `README.md:${line} (${name}) should print the line "${text}"${prefix ? '...' : ''} (after line ${from}), printed:\n${r.stdout}`,
      );
      from = at + 1;
    }
  }
});

test('every js and ts block of the README and docs/ type-checks under tsc --noEmit --strict', () => {
  const dir = `${root}build/doc-types/`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = [];
  for (const block of typedBlocks()) {
    if (block.flags.includes('no-check')) continue;
    const name = `${block.file.replace(/[/.]/g, '_')}_L${block.line}.${block.ext}`;
    writeFileSync(`${dir}${name}`, block.code);
    files.push(name);
  }
  assert.ok(files.length >= 5, `found ${files.length} blocks`);
  writeFileSync(
    `${dir}tsconfig.json`,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        allowJs: true,
        checkJs: true,
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        moduleDetection: 'force', // each block is a module of its own
        lib: ['es2022'],
        types: ['node'],
        typeRoots: [`${root}node_modules/@types`],
        skipLibCheck: false,
      },
      files,
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', `${dir}tsconfig.json`], { cwd: root, encoding: 'utf8' });
  // tsc names the generated file: README_md_L57.mjs(3,5) is README.md, the block at line 57, its line 3
  assert.equal(r.status, 0, `tsc --strict failed on the documentation's code:\n${r.stdout}${r.stderr}`);
});

test('a block that does not type-check fails the check', () => {
  const dir = `${root}build/doc-types-negative/`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // the README's first mistake of issue 26: weights without returnWeights may be absent
  writeFileSync(
    `${dir}wrong.mjs`,
    "import { init } from 'attention-wasm';\nconst A = await init();\nconst q = A.randn(2, 4);\n" +
      'console.log(A.scaledDotProductAttention(q, q, q).weights.shape);\n',
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(
    process.execPath,
    [
      tsc,
      '--noEmit',
      '--strict',
      '--allowJs',
      '--checkJs',
      '--module',
      'nodenext',
      '--target',
      'es2022',
      `${dir}wrong.mjs`,
    ],
    { cwd: root, encoding: 'utf8' },
  );
  assert.notEqual(r.status, 0);
  assert.match(r.stdout, /wrong\.mjs\(4,\d+\): error TS(18048|2532|2339): /);
});

test('the blocks are found as the info strings say', () => {
  const blocks = codeBlocks('a\n```js no-check\nx\n```\n```ts\ny\n```\n````md\n```js\nz\n```\n````\n');
  assert.deepEqual(
    blocks.map(({ lang, flags, code, line }) => [lang, flags, code, line]),
    [
      ['js', ['no-check'], 'x\n', 2],
      ['ts', [], 'y\n', 5],
      ['md', [], '```js\nz\n```\n', 8],
    ],
  );
});
