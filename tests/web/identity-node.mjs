// Run by identity.test.mjs in a child Node (20 with --experimental-wasm-relaxed-simd, 22, 24, 24
// without FMA3, 24 for arm64 under qemu-aarch64): the identity table's outputs on each SIMD build,
// as JSON on stdout: { node, builds: { simd128: { simd, int8Product, relaxedDotLowering, rows:
// { row: { type, base64 } } }, relaxed: {...} } }.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../dist/node.js';
import { computeAll } from './identity-cases.mjs';

const dir = process.argv[2]; // the fixture folder (tests/js/fixtures.mjs writes it)
const fixture = Object.fromEntries(readdirSync(dir).map((n) => [n, new Uint8Array(readFileSync(join(dir, n)))]));
const builds = {};
for (const simd of ['simd128', 'relaxed']) {
  const A = await init({ simd });
  builds[simd] = await computeAll(A, fixture);
  A.dispose();
}
process.stdout.write(JSON.stringify({ node: process.version, builds }));
