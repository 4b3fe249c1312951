// How long the page's main thread is busy at a model's full context, in headless Chromium: the
// explorer of the 'distilbert-6x12' fixture (distilbert-base-uncased's 6 layers x 12 heads, 512
// positions) for a 512-token sentence. Not a test (no assertions; scale.test.mjs asserts no long
// task); rerun it with
//
//   bash scripts/build.sh && npx vite build --logLevel warn && node tests/web/explorer.bench.mjs [--runs=3]
//
// For each run and interaction it records a Chromium trace (CDP Tracing) and prints the longest
// task on the page's main thread (every task, not only those over 50 ms, and what took its time:
// script, style and layout, paint, the compositor's commit), with the page's own drawing steps
// (timing.js) and the load average (the VM is shared: read it with the figures). Interactions:
// an edit of 512 tokens drawn (the worker's result, the explorer, the 72 maps); the keys moving
// the selection through the model view (6 head redraws) and the cursor through the head (20
// moves); the other sentence and back (both views redrawn twice).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg, cpus } from 'node:os';
import { writeFixture } from '../../scripts/make-fixtures.mjs';
import { openLoadedPage } from './browser.mjs';

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 3);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const WORDS =
  'the bank of the river was quiet and a man sat fishing there while money moved in the other bank across town';
const text = (shift) => Array.from({ length: 510 }, (_, i) => WORDS.split(' ')[(i + shift) % 21]).join(' ');

/** The renderer main thread's tasks in a trace: [{ ms, parts: { name: ms } }], longest first. */
function mainTasks(events) {
  const names = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  const main = events.filter((e) => names.get(`${e.pid}:${e.tid}`) === 'CrRendererMain' && e.ph === 'X');
  const PARTS = {
    script: ['v8.callFunction', 'FunctionCall', 'TimerFire', 'EventDispatch', 'v8.run'],
    'style+layout': ['Document::UpdateStyleAndLayout'],
    paint: ['Paint'],
    layerize: ['Layerize'],
    commit: ['Commit'],
    gc: ['V8.GC_MARK_COMPACTOR', 'MajorGC', 'MinorGC', 'V8.GC_SCAVENGER'],
  };
  return main
    .filter((e) => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask')
    .map((t) => {
      const inside = main.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur);
      const parts = {};
      for (const [part, list] of Object.entries(PARTS)) {
        // outermost events of the part only
        const events = inside.filter((e) => list.includes(e.name));
        const outer = events.filter(
          (e) => !events.some((o) => o !== e && o.ts <= e.ts && o.ts + o.dur >= e.ts + e.dur),
        );
        const ms = outer.reduce((s, e) => s + e.dur / 1000, 0);
        if (ms >= 1) parts[part] = Number(ms.toFixed(1));
      }
      return { ms: t.dur / 1000, parts };
    })
    .sort((a, b) => b.ms - a.ms);
}

async function traced(page, interaction) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  const done = new Promise((resolve) => cdp.on('Tracing.tracingComplete', resolve));
  await page.evaluate(() => performance.clearMeasures());
  await cdp.send('Tracing.start', {
    categories: 'toplevel,devtools.timeline,v8,blink,cc,disabled-by-default-devtools.timeline',
    transferMode: 'ReportEvents',
  });
  await interaction();
  await page.waitForTimeout(300);
  await cdp.send('Tracing.end');
  await done;
  await cdp.detach();
  const steps = await page.evaluate(() => {
    const by = {};
    for (const e of performance.getEntriesByType('measure'))
      if (e.name.startsWith('aw: ')) by[e.name.slice(4)] = Math.max(by[e.name.slice(4)] ?? 0, e.duration);
    return Object.fromEntries(Object.entries(by).map(([k, v]) => [k, Number(v.toFixed(1))]));
  });
  const tasks = mainTasks(events);
  return { longest: tasks[0], over50: tasks.filter((t) => t.ms > 50).length, count: tasks.length, steps };
}

const dir = await writeFixture('distilbert-6x12');
const b = await openLoadedPage();
const p = b.page;
try {
  console.log(`${cpus()[0].model}, ${cpus().length} cores; headless Chromium; load average ${load()}`);
  const card = p.locator('[data-example="E4.6"]');
  await card.locator('input[name=files]').setInputFiles(readdirSync(dir).map((n) => join(dir, n)));
  await p.waitForFunction(() => document.querySelector('.loader').dataset.state === 'loaded', null, {
    timeout: 120000,
  });
  const drawn = (rows) =>
    p.waitForFunction(
      (r) =>
        document.querySelector('#explorer .head figure.heatmap')?.dataset.rows === String(r) &&
        document.querySelector('#explorer .heatmapgrid')?.dataset.painted === 'true',
      rows,
      { timeout: 120000 },
    );
  const interactions = {
    'edit of 512 tokens drawn': async (run) => {
      const before = await card.locator('.result').innerText();
      await card.locator('[name=s1]').fill(text(run));
      await p.waitForFunction(
        (old) => document.querySelector('[data-example="E4.6"] .result').innerText !== old,
        before,
        {
          timeout: 120000,
        },
      );
      await drawn(512);
    },
    'keys through the model view and the head': async () => {
      await p.locator('#explorer .heatmapgrid .map[tabindex="0"]').focus();
      for (const key of ['Home', 'PageUp', 'ArrowRight', 'ArrowDown', 'ArrowRight', 'End', 'PageDown']) {
        await p.keyboard.press(key);
        await p.waitForTimeout(30);
      }
      await p.waitForFunction(() => document.querySelector('#explorer .attention').dataset.head === '5,11');
      await p.locator('#explorer .head figure.heatmap canvas').focus();
      for (let k = 0; k < 20; k++) await p.keyboard.press(k % 3 ? 'Shift+ArrowRight' : 'PageDown');
    },
    'other sentence and back': async () => {
      const select = p.locator('#explorer [name=sentence]');
      await select.selectOption('1');
      await drawn(await p.evaluate(() => document.querySelector('#explorer [name=token]').options.length));
      await select.selectOption('0');
      await drawn(512);
    },
  };
  for (let run = 0; run < runs; run++)
    for (const [name, interaction] of Object.entries(interactions)) {
      const before = load();
      const r = await traced(p, () => interaction(run));
      console.log(
        `run ${run + 1}, ${name}: longest main-thread task ${r.longest.ms.toFixed(1)} ms ${JSON.stringify(r.longest.parts)}; ` +
          `${r.over50} of ${r.count} tasks over 50 ms; drawing steps (longest, ms) ${JSON.stringify(r.steps)}; load average ${before} -> ${load()}`,
      );
    }
  if (b.consoleErrors.length || b.outside.length)
    throw new Error(`console: ${b.consoleErrors.join('; ')}; outside: ${b.outside.join(', ')}`);
} finally {
  await b.close();
}
