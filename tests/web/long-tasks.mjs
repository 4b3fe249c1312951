// The page's main-thread budget, as the scale tests measure it (scale.test.mjs,
// generation-scale.test.mjs): a PerformanceObserver of 'longtask' entries (tasks over 50 ms) in
// the page, and the longest of each drawing step from the page's user timing (web/src/timing.js).
// The VM is shared and a busy neighbour stretches any task, so an interaction gets three tries
// and passes when one of them has no long task; a drawing too slow for the budget is too slow
// every time.
import { loadavg } from 'node:os';

/** Starts collecting the page's long tasks (their durations in ms) into self.longTasks. */
export const observeLongTasks = (page) =>
  page.evaluate(() => {
    self.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) self.longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask' });
  });

/**
 * Runs `interaction` (async, the page's work included) up to three times until one run sees no
 * main-thread task over 50 ms; returns the long tasks of every run ([] last when one passed).
 */
export async function withoutLongTasks(page, interaction) {
  const runs = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.evaluate(() => {
      self.longTasks.length = 0;
      performance.clearMeasures();
    });
    await interaction(attempt);
    await page.waitForTimeout(300); // the observer reports after the task
    const long = await page.evaluate(() => [...self.longTasks]);
    runs.push(long);
    if (!long.length) break;
  }
  return runs;
}

/** The longest of each drawing step since the last clearMeasures: { name: 'max ms (count)' }. */
export const longestSteps = (page) =>
  page.evaluate(() => {
    const by = {};
    for (const e of performance.getEntriesByType('measure')) {
      if (!e.name.startsWith('aw: ')) continue;
      const s = (by[e.name.slice(4)] ??= { max: 0, count: 0 });
      s.max = Math.max(s.max, e.duration);
      s.count++;
    }
    return Object.fromEntries(Object.entries(by).map(([k, v]) => [k, `${v.max.toFixed(1)} ms (${v.count})`]));
  });

/** Prints what was measured: the long tasks of each try, the longest steps and the load average. */
export const reportLongTasks = async (page, what, runs) =>
  console.log(
    `${what}: long tasks per try ${JSON.stringify(runs)}; longest steps ${JSON.stringify(await longestSteps(page))}; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
