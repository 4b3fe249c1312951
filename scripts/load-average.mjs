// The machine and its load, as the Node benchmark scripts print them (bench.mjs, bench-builds.mjs,
// bench-browser.mjs): the VM swings ±30 % between runs, so every table says how busy it was.
import os from 'node:os';

/** "AMD EPYC x2": the CPU model and the number of cores. */
export const machine = () => `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}`;

/** The 1, 5 and 15 minute load averages, "1.02 0.98 1.10". */
export const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
