// The machine, its load and the Node, as the benchmark scripts print them (bench.mjs,
// bench-builds.mjs, bench-browser.mjs): the VM swings ±30 % between runs and the Node version
// decides which build init() picks and how V8 lowers relaxed SIMD, so every table says all three.
import os from 'node:os';

/** "AMD EPYC x2": the CPU model and the number of cores. */
export const machine = () => `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}`;

/** The 1, 5 and 15 minute load averages, "1.02 0.98 1.10". */
export const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** "node v24.21.0 (V8 13.6.233.17-node.53), AMD EPYC x2, load average 1.02 0.98 1.10" (with Node's flags, if any). */
export const machineLine = () =>
  [
    `node ${process.version} (V8 ${process.versions.v8})${process.execArgv.length ? ` ${process.execArgv.join(' ')}` : ''}`,
    machine(),
    `load average ${loadAverage()}`,
  ].join(', ');
