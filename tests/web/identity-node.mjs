// Run by identity.test.mjs in a child Node (20 with --experimental-wasm-relaxed-simd, 22, 24, 24
// without FMA3, 24 for arm64 under qemu-aarch64): the identity table's outputs on each SIMD build,
// as JSON on stdout: { node, builds: { simd128: { simd, int8Product, relaxedDotLowering, rows:
// { row: { type, base64 } } }, relaxed: {...} } }.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../dist/node.js';
import { computeAll } from './identity-cases.mjs';

// { fixture name: its folder } (scripts/make-fixtures.mjs writes them), as JSON
const dirs = JSON.parse(process.argv[2]);
const fixtures = {};
for (const [name, dir] of Object.entries(dirs))
  fixtures[name] = Object.fromEntries(readdirSync(dir).map((n) => [n, new Uint8Array(readFileSync(join(dir, n)))]));
const builds = {};
for (const simd of ['simd128', 'relaxed']) {
  const A = await init({ simd });
  builds[simd] = await computeAll(A, fixtures);
  A.dispose();
}
process.stdout.write(JSON.stringify({ node: process.version, builds }));
