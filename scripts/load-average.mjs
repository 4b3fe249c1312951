// The machine, its load and the Node, as the benchmark scripts print them (bench.mjs,
// bench-builds.mjs, bench-browser.mjs): the VM swings ±30 % between runs and the Node version
// decides which build init() picks and how V8 lowers relaxed SIMD, so every table says all three.
import os from 'node:os';
import { readFileSync } from 'node:fs';

/**
 * What tells the VM's CPUs apart where the model name does not ("AMD EPYC" is Zen 4 as family 25
 * model 17): Linux's family and model, and the int8 dot-product extensions V8 may lower relaxed
 * SIMD's dot to (avx_vnni: Chromium's vpdpbusd). "" elsewhere.
 */
function cpuDetails() {
  try {
    const first = readFileSync('/proc/cpuinfo', 'utf8').split('\n\n')[0];
    const field = (name) => new RegExp(`^${name}\\s*: (.*)$`, 'm').exec(first)?.[1];
    const flags = new Set((field('flags') ?? '').split(' '));
    const dots = ['avx_vnni', 'avx512_vnni', 'amx_int8'].filter((f) => flags.has(f));
    return ` (family ${field('cpu family')} model ${field('model')}; ${dots.length ? dots.join(', ') : 'no VNNI'})`;
  } catch {
    return '';
  }
}

/** "AMD EPYC (family 25 model 17; avx512_vnni) x2": the CPU model and the number of cores. */
export const machine = () => `${os.cpus()[0]?.model ?? 'cpu'}${cpuDetails()} x${os.cpus().length}`;

/** The 1, 5 and 15 minute load averages, "1.02 0.98 1.10". */
export const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** "node v24.21.0 (V8 13.6.233.17-node.53), AMD EPYC (family 25 model 17; avx512_vnni) x2, load average 1.02 0.98 1.10" (with Node's flags, if any). */
export const machineLine = () =>
  [
    `node ${process.version} (V8 ${process.versions.v8})${process.execArgv.length ? ` ${process.execArgv.join(' ')}` : ''}`,
    machine(),
    `load average ${loadAverage()}`,
  ].join(', ');
