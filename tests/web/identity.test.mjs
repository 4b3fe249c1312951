// Cross-engine identity: the rows of identity-cases.mjs (attention fused and with its weights,
// matmul, linear on both of its paths, the int8 layer, layerNorm, softmax, gelu, the fixture
// DistilBERT's forward and the fixture Llama's logits, in float32 and q8) computed in Node 20, 22
// and 24, Node 24 without FMA3, Node 24 for arm64 under qemu-aarch64 (tests/nodes.mjs: the relaxed
// integer dot lowered to `sdot`), Chromium and Firefox, on the SIMD128 and the relaxed-SIMD build,
// and compared byte for byte within each build. The SIMD128 build must give the same bytes in
// every engine. The relaxed build's f32x4.relaxed_madd is fused or not as each engine and CPU
// choose: its rows hold what the table says (bytes, or a tolerance), and a difference in bytes
// where only a tolerance is promised is reported (a diagnostic line), not hidden.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { ENGINES, launchBrowser } from '../browsers.mjs';
import { NODES, arm64Node, nodeBinary } from '../nodes.mjs';
import { writeFixture } from '../../scripts/make-fixtures.mjs';
import { CASES, FIXTURES } from './identity-cases.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FLAVOURS = ['simd128', 'relaxed'];

/** The repository on 127.0.0.1 (dist/, the table, the tokenizer package), each fixture at /fixture/NAME/. */
async function serve(fixtureDirs) {
  const files = sirv(root, { dev: true });
  const fixtures = Object.fromEntries(
    Object.entries(fixtureDirs).map(([name, dir]) => [name, sirv(dir, { dev: true })]),
  );
  const importMap = {
    imports: { '@huggingface/tokenizers': '/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs' },
  };
  const server = createServer((req, res) => {
    const notFound = () => res.writeHead(404).end();
    if (req.url === '/identity.html')
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="importmap">${JSON.stringify(importMap)}</script><title>identity</title>`,
        );
    const fixture = req.url.match(/^\/fixture\/([^/]+)(\/.*)$/);
    if (fixture) {
      if (!Object.hasOwn(fixtures, fixture[1])) return notFound();
      req.url = fixture[2];
      return fixtures[fixture[1]](req, res, notFound);
    }
    return files(req, res, notFound);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** The table's outputs in a browser (names: { fixture: its files }): { build: { row: { type, base64 } } }. */
async function inBrowser(engine, origin, names) {
  const browser = await launchBrowser(engine);
  const errors = [];
  browser.watch({ consoleError: (e) => errors.push(e) });
  try {
    await browser.page.goto(`${origin}/identity.html`);
    const builds = await browser.page.evaluate(
      async ({ names, flavours }) => {
        const { init } = await import('/dist/index.js');
        const { computeAll } = await import('/tests/web/identity-cases.mjs');
        const fixtures = {};
        for (const [name, files] of Object.entries(names)) {
          fixtures[name] = {};
          for (const n of files)
            fixtures[name][n] = new Uint8Array(await (await fetch(`/fixture/${name}/${n}`)).arrayBuffer());
        }
        const builds = {};
        for (const simd of flavours) {
          const A = await init({ simd });
          builds[simd] = await computeAll(A, fixtures);
          A.dispose();
        }
        return builds;
      },
      { names, flavours: FLAVOURS },
    );
    assert.deepEqual(errors, [], `${engine}: console errors`);
    return { version: browser.version, builds };
  } finally {
    await browser.close();
  }
}

/**
 * The Node runs: every tested Node; Node 24 again with V8's FMA3 code generation off
 * (--no-enable-fma3), which lowers f32x4.relaxed_madd to a multiply then an add as on a CPU
 * without FMA: an engine that does not fuse, so the relaxed rows' promise is tested on every run;
 * and Node 24 for arm64 under qemu-aarch64, whose relaxed integer dot is one sdot.
 */
const ARM64 = 'Node %s arm64 (qemu-aarch64)';
const nodeRuns = () => {
  const arm64 = arm64Node();
  return [
    ...NODES.map((n) => ({ label: 'Node %s', bin: n.bin, flags: n.relaxedFlags })),
    { label: 'Node %s --no-enable-fma3', bin: nodeBinary(24), flags: ['--no-enable-fma3'] },
    { label: ARM64, bin: arm64.command, flags: arm64.args },
  ];
};

let results; // { engine label: { build: { simd, int8Product, relaxedDotLowering, rows: { row: { type, base64 } } } } }
let arm64Label; // the arm64 run's label in results
before(async () => {
  const dirs = {};
  for (const name of FIXTURES) dirs[name] = await writeFixture(name);
  results = {};
  const child = fileURLToPath(new URL('./identity-node.mjs', import.meta.url));
  for (const { label, bin, flags } of nodeRuns()) {
    const { node, builds } = JSON.parse(
      execFileSync(bin, [...flags, child, JSON.stringify(dirs)], { encoding: 'utf8', maxBuffer: 1 << 28 }),
    );
    results[label.replace('%s', node)] = builds;
    if (label === ARM64) arm64Label = label.replace('%s', node);
  }
  const server = await serve(dirs);
  try {
    const origin = `http://127.0.0.1:${server.address().port}`;
    const listing = Object.fromEntries(Object.entries(dirs).map(([name, dir]) => [name, readdirSync(dir)]));
    for (const engine of ENGINES) {
      const { version, builds } = await inBrowser(engine, origin, listing);
      results[`${engine} ${version}`] = builds;
    }
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const ARRAYS = { Float32Array, Float64Array, Int8Array, Uint8Array, Int16Array, Int32Array, Uint32Array };
const decode = ({ type, base64 }) => {
  const bytes = Buffer.from(base64, 'base64');
  const Type = ARRAYS[type];
  assert.ok(Type, `an output of type ${type}: add it to ARRAYS`);
  return new Type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
};

/** How two outputs differ: the count of unequal values and the largest relative difference. */
function difference(a, b) {
  let count = 0,
    worst = 0,
    at = -1;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    count++;
    const rel = Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i]));
    if (!(rel <= worst)) [worst, at] = [rel, i];
  }
  return { count, worst, at };
}

test('every engine ran the build asked for', () => {
  for (const [engine, builds] of Object.entries(results))
    for (const flavour of FLAVOURS) assert.equal(builds[flavour].simd, flavour, `${engine}, ${flavour}`);
});

// The q8 rows promise the same bytes whatever the relaxed dot's lowering (docs/performance.md,
// "Why 7-bit activations"): they test that only if the engines here lower it in more than one way.
// x86 without AVX-VNNI emulates it with pmaddubsw (65534; 131068 from Node 20's baseline tier),
// arm64 runs sdot (-508, its i7 operand read signed); AVX-VNNI's vpdpbusd (129540) only where the
// CPU has it (Chromium and Node 24 on Intel since Alder Lake and Sapphire Rapids). An emulated dot
// must take the int16 sums' route; arm64's sdot the one-instruction route (the library also checks
// that a one-instruction dot is exact before it takes that route, so elsewhere either is allowed).
test("the int8 products ran on arm64's sdot beside the x86 engines' lowerings, each on its route", (t) => {
  const seen = {};
  for (const [engine, { relaxed }] of Object.entries(results)) {
    (seen[relaxed.relaxedDotLowering] ??= []).push(`${engine} (${relaxed.int8Product})`);
    const oneInstruction = [129540, -508].includes(relaxed.relaxedDotLowering);
    const allowed = oneInstruction ? ['relaxed-dot', 'relaxed-i16-dot'] : ['relaxed-i16-dot'];
    assert.ok(
      allowed.includes(relaxed.int8Product),
      `${engine}: lowering ${relaxed.relaxedDotLowering}, route ${relaxed.int8Product}`,
    );
  }
  for (const [lowering, engines] of Object.entries(seen))
    t.diagnostic(`relaxed dot(127, -1) = ${lowering}: ${engines.join(', ')}`);
  const arm64 = results[arm64Label].relaxed;
  assert.equal(arm64.relaxedDotLowering, -508, `${arm64Label}: the relaxed dot is not sdot`);
  assert.equal(arm64.int8Product, 'relaxed-dot', `${arm64Label}: sdot, yet the int16 sums' route`);
});

const differing = { simd128: {}, relaxed: {} }; // engine -> rows whose bytes differ from the first engine's
for (const flavour of FLAVOURS) {
  for (const row of CASES) {
    const promise = flavour === 'simd128' ? 'bytes' : row.relaxed;
    test(`${flavour}: ${row.name}: ${promise === 'bytes' ? 'the same bytes' : `within ${promise.relative} relative`} in every engine`, (t) => {
      const engines = Object.keys(results);
      const [first, ...others] = engines;
      const reference = results[first][flavour].rows[row.name];
      for (const engine of others) {
        const got = results[engine][flavour].rows[row.name];
        if (got.base64 === reference.base64) continue;
        differing[flavour][engine] = (differing[flavour][engine] ?? 0) + 1;
        const a = decode(got),
          b = decode(reference);
        assert.equal(a.length, b.length, `${engine}: ${a.length} values, ${first} ${b.length}`);
        const d = difference(a, b);
        const what = `${engine} vs ${first}: ${d.count} of ${a.length} values differ, the largest by ${d.worst.toExponential(2)} relative ([${d.at}]: ${a[d.at]} vs ${b[d.at]})`;
        if (promise === 'bytes') assert.fail(`${flavour}: ${row.name}: ${what}`);
        t.diagnostic(`not byte-identical (a tolerance is what the table promises): ${what}`);
        assert.ok(d.worst <= promise.relative, `${flavour}: ${row.name}: ${what}`);
      }
    });
  }
}

test('the engines compared, and the rows that gave the same bytes in all of them', (t) => {
  t.diagnostic(`engines: ${Object.keys(results).join(', ')}`);
  const first = Object.keys(results)[0];
  for (const flavour of FLAVOURS) {
    const d = Object.entries(differing[flavour]);
    t.diagnostic(
      `${flavour}: every row the same bytes as ${first} in ${d.length ? 'every engine but: ' + d.map(([e, n]) => `${e} (${n} of ${CASES.length} rows differ)`).join(', ') : 'every engine'}`,
    );
  }
  assert.equal(Object.keys(results).length, nodeRuns().length + ENGINES.length);
});
