// The two SIMD builds and how init() chooses (src/js/builds.js): relaxed SIMD where the engine
// validates it, else SIMD128; `simd` forces one. npm test runs this file in Node 20 with
// --experimental-wasm-relaxed-simd and again without it, so both answers of the engine occur, and
// in Node 22 and 24, which run relaxed SIMD by default (and reject the flag).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { relaxedSimd } from 'wasm-feature-detect';
import { init } from 'attention-wasm';
import { ternaryV128Module, relaxedSimdSupported } from '../../dist/builds.js';

const V128_BITSELECT = [0xfd, 0x52]; // SIMD128's one ternary v128 instruction

test('the relaxed-SIMD probe is a well-formed module: with v128.bitselect in its place it validates', () => {
  assert.equal(WebAssembly.validate(ternaryV128Module(V128_BITSELECT)), true);
  assert.equal(WebAssembly.validate(ternaryV128Module([0xfd, 0xff, 0x7f])), false, 'an unknown opcode does not');
});

test("the probe agrees with wasm-feature-detect's relaxedSimd() in this engine", async () => {
  assert.equal(relaxedSimdSupported(), await relaxedSimd());
  if (process.execArgv.includes('--experimental-wasm-relaxed-simd'))
    assert.equal(relaxedSimdSupported(), true, 'Node with the flag runs relaxed SIMD');
});

test('init() loads the relaxed-SIMD build where the engine validates it, else the SIMD128 build', async () => {
  const expected = relaxedSimdSupported() ? 'relaxed' : 'simd128';
  for (const options of [{ simd: 'auto' }, { simd: 'auto', threads: 2 }]) {
    const A = await init(options);
    assert.equal(A.buildInfo().simd, expected, JSON.stringify(options));
    A.dispose();
  }
});

test('init({ simd }) forces a build; relaxed where the engine cannot run it is a clear Error', async () => {
  for (const threads of [false, 2]) {
    const A = await init({ simd: 'simd128', threads });
    assert.deepEqual([A.buildInfo().simd, A.buildInfo().threaded], ['simd128', threads !== false]);
    A.dispose();
    if (relaxedSimdSupported()) {
      const R = await init({ simd: 'relaxed', threads });
      assert.deepEqual([R.buildInfo().simd, R.buildInfo().threaded], ['relaxed', threads !== false]);
      R.dispose();
    } else {
      await assert.rejects(init({ simd: 'relaxed', threads }), {
        name: 'Error',
        message:
          /^init: simd: 'relaxed' asks for the relaxed-SIMD build, but this engine does not support WebAssembly relaxed SIMD/,
      });
    }
  }
  await assert.rejects(init({ simd: 'fma' }), {
    name: 'TypeError',
    message: "init: simd must be 'auto', 'relaxed', 'simd128', got \"fma\"",
  });
  await assert.rejects(init({ simd: 128 }), {
    name: 'TypeError',
    message: /^init: simd must be 'auto', 'relaxed', 'simd128', got/,
  });
});

test('init: an unknown option is a TypeError; a wasmBinary of another build rejects naming the file, and the process still exits', async () => {
  await assert.rejects(init({ thread: 2 }), {
    name: 'TypeError',
    message: "init: unknown option 'thread' (allowed: simd, threads, wasmBinary, locateFile)",
  });
  // in a child: the threaded build's Workers, started before the module failed, must not keep it alive
  const node = fileURLToPath(new URL('../../dist/node.js', import.meta.url));
  const dist = (name) => fileURLToPath(new URL(`../../dist/${name}`, import.meta.url));
  const program = (options) =>
    `import { init } from ${JSON.stringify(node)}; import { readFileSync } from 'node:fs';` +
    `try { await init(${options}); console.log('resolved'); } catch (e) { console.log(e.name + ': ' + e.message); }`;
  const run = (code, env = {}) => {
    const { ATTENTION_WASM_SIMD, ...inherited } = process.env;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
      env: { ...inherited, ...env },
      encoding: 'utf8',
      timeout: 60000,
    });
    assert.equal(r.signal, null, `the process did not exit: ${r.stdout}${r.stderr}`);
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };
  for (const threads of [2, false]) {
    const wrong = JSON.stringify(dist(threads ? 'attention_wasm.wasm' : 'attention_wasm_mt.wasm'));
    const out = run(program(`{ threads: ${threads}, simd: 'simd128', wasmBinary: readFileSync(${wrong}) }`));
    assert.match(
      out,
      /^Error: init: the wasm module could not be instantiated \(.*\); wasmBinary must be the bytes of attention_wasm(_mt)?\.wasm$/,
    );
    assert.ok(out.endsWith(threads ? 'attention_wasm_mt.wasm' : 'attention_wasm.wasm'), out);
  }
  assert.equal(
    run(program('{}'), { ATTENTION_WASM_SIMD: 'fma' }),
    `TypeError: init: the environment's ATTENTION_WASM_SIMD (simd's default) must be 'auto', 'relaxed' or 'simd128', got "fma"`,
  );
  assert.equal(run(program("{ simd: 'simd128' }"), { ATTENTION_WASM_SIMD: 'fma' }), 'resolved');
});

test("the browser entry point: locateFile is asked for the chosen build's own .wasm; one that is not there names where it was looked for", async () => {
  // (in Node the browsers' glue fetches the .wasm, which Node's fetch cannot do from a file: the
  // page and consumer tests load it in browsers)
  const { init: browserInit } = await import('../../dist/index.js');
  for (const simd of relaxedSimdSupported() ? ['relaxed', 'simd128'] : ['simd128']) {
    const file = simd === 'relaxed' ? 'attention_wasm_relaxed.wasm' : 'attention_wasm.wasm';
    const asked = [];
    const locateFile = (path) => (asked.push(path), `/nowhere/${path}`);
    await assert.rejects(browserInit({ simd, locateFile }), {
      name: 'Error',
      message: new RegExp(
        `^init: the wasm module could not be instantiated \\(.*\\); ${file} was looked for at /nowhere/${file}: serve dist/\\*\\.wasm from there .*docs/bundlers\\.md.*or pass init\\(\\{ locateFile \\}\\) or \\{ wasmBinary \\}$`,
      ),
    });
    assert.ok(asked.length > 0 && asked.every((p) => p === file), `locateFile was asked for ${asked}`);
  }
  // null is no locateFile, as the glue takes it
  await assert.rejects(browserInit({ simd: 'simd128', locateFile: null }), {
    name: 'Error',
    message: /^init: the wasm module could not be instantiated \(.*\); attention_wasm\.wasm was looked for at file:/,
  });
  await assert.rejects(browserInit({ locateFile: 'dist/' }), {
    name: 'TypeError',
    message: 'init: locateFile must be a function (path, prefix) => url, got string',
  });
});

// A workload in a child process: its build and its outputs.
const child = fileURLToPath(new URL('./builds_child.mjs', import.meta.url));
function runChild(nodeFlags, env = {}) {
  const { ATTENTION_WASM_SIMD, ...inherited } = process.env;
  const r = spawnSync(process.execPath, [...nodeFlags, child], {
    env: { ...inherited, ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const nodeMajor = Number(process.versions.node.split('.')[0]);
/** What gives this Node relaxed SIMD: the flag on Node 20; nothing on 22+ (which reject the flag). */
const relaxedFlags = nodeMajor < 22 ? ['--experimental-wasm-relaxed-simd'] : [];

test("Node's default build: SIMD128 on Node 20 without --experimental-wasm-relaxed-simd, relaxed SIMD on Node 20 with it and on Node 22+; the two builds' results within tolerance", () => {
  const relaxed = runChild(relaxedFlags);
  const byDefault = runChild([]);
  assert.equal(relaxed.simd, 'relaxed');
  assert.equal(byDefault.simd, byDefault.relaxedSupported ? 'relaxed' : 'simd128');
  assert.equal(byDefault.simd, nodeMajor < 22 ? 'simd128' : 'relaxed', `Node ${process.version}`);
  // ATTENTION_WASM_SIMD sets the default of init's simd option
  const plain = runChild(relaxedFlags, { ATTENTION_WASM_SIMD: 'simd128' });
  assert.equal(plain.simd, 'simd128');
  // the kernels' tolerance against their scalar references and float64 (tests/kernels): 1e-5 relative
  assert.deepEqual(Object.keys(plain.outputs), Object.keys(relaxed.outputs));
  for (const [name, values] of Object.entries(plain.outputs)) {
    const other = relaxed.outputs[name];
    assert.equal(values.length, other.length, name);
    values.forEach((x, i) =>
      assert.ok(
        Math.abs(x - other[i]) <= 1e-5 * (1 + Math.abs(other[i])),
        `${name}[${i}]: ${x} (SIMD128) vs ${other[i]} (relaxed)`,
      ),
    );
  }
});

test("the browsers' entry point (dist/index.js) has no threaded build: asked for threads it could run, it names attention-wasm/threads", async () => {
  const { init: initBrowserEntry } = await import('../../dist/index.js');
  await assert.rejects(initBrowserEntry({ threads: 2 }), {
    name: 'Error',
    message:
      /^init: threads: 2 needs the threaded build, which the 'attention-wasm' entry point leaves out of bundles; import \{ init \} from 'attention-wasm\/threads'/,
  });
});
