// Navigation in headless Chromium: the table of contents lists the five documents and every
// example, each a link to a stable anchor (#E0.7); opening the page at #E4.6 scrolls there once
// the page is drawn; the entry of the section on screen is highlighted while scrolling; on wide
// screens the contents stay beside the page (sticky), on a phone they fold into a bar at the top.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openPage, openLoadedPage, artefacts } from './browser.mjs';

// every worked example of the five documents (/work/shared/seeds), in order
const EXAMPLES = [
  ...Array.from({ length: 10 }, (_, i) => `E0.${i + 1}`),
  ...Array.from({ length: 5 }, (_, i) => `E1.${i + 1}`),
  'E2.1',
  ...Array.from({ length: 5 }, (_, i) => `E3.${i + 1}`),
  ...Array.from({ length: 6 }, (_, i) => `E4.${i + 1}`),
];
const DOCUMENTS = ['000', '001', '002', '003', '004'];

let b;
before(async () => {
  b = await openLoadedPage();
});
after(async () => {
  await b?.close();
});

const tocLinks = (page) => page.$$eval('nav#toc a', (as) => as.map((a) => a.getAttribute('href')));
const current = (page) => page.getAttribute('nav#toc', 'data-current');
/** The top of an anchor's target relative to the window. */
const topOf = (page, id) => page.evaluate((i) => document.getElementById(i).getBoundingClientRect().top, id);

test('the table of contents lists the five documents and every example, each linking to its card', async () => {
  const links = await tocLinks(b.page);
  const want = [];
  for (const doc of DOCUMENTS) {
    want.push(`#document-${doc}`, ...EXAMPLES.filter((e) => e.startsWith(`E${Number(doc)}.`)).map((e) => `#${e}`));
    if (doc === '004') want.push('#explorer');
  }
  want.push('#generation', '#speed');
  assert.deepEqual(links, want);
  // every link has a target, and every example on the page is listed
  const targets = await b.page.$$eval('nav#toc a', (as) =>
    as.map((a) => Boolean(document.getElementById(decodeURIComponent(a.hash.slice(1))))),
  );
  assert.deepEqual(
    targets,
    links.map(() => true),
  );
  const onPage = await b.page.$$eval('[data-example]', (els) => els.map((e) => `#${e.id}`));
  assert.deepEqual(
    onPage,
    EXAMPLES.map((e) => `#${e}`),
  );
  assert.equal(await b.page.locator('nav#toc a[href="#E0.9"]').innerText(), 'E0.9 multi-head attention, h = 3');
  assert.equal(
    await b.page.locator('nav#toc a[href="#document-004"]').innerText(),
    '004 · Self-Attention Explained with Code',
  );
});

test('wide screen: the contents stay beside the page; following a link scrolls there; the highlight follows scrolling', async () => {
  const nav = b.page.locator('nav#toc');
  assert.equal(await nav.locator('details').evaluate((d) => d.open), true);
  assert.equal(await nav.locator('summary').isVisible(), false);
  await b.page.click('nav#toc a[href="#E2.1"]');
  await b.page.waitForFunction(() => location.hash === '#E2.1');
  assert.ok(Math.abs(await topOf(b.page, 'E2.1')) <= 16, `E2.1 at ${await topOf(b.page, 'E2.1')} px`);
  await b.page.waitForFunction(() => document.querySelector('nav#toc').dataset.current === 'E2.1');
  assert.equal(await nav.locator('a[aria-current]').getAttribute('href'), '#E2.1');
  assert.equal(await nav.locator('a[aria-current]').count(), 1);
  // sticky: the contents stay at the top of the window, beside the section
  const box = await nav.boundingBox();
  assert.ok(box.y >= 0 && box.y <= 1, `nav at y ${box.y}`);
  assert.ok(
    box.x + box.width <= (await b.page.locator('[data-example="E2.1"]').boundingBox()).x,
    'beside the examples',
  );
  // scroll by hand (no link): the highlight follows, in both directions
  for (const id of ['E3.3', 'E0.8', 'E4.5', 'E1.2']) {
    await b.page.evaluate((i) => document.getElementById(i).scrollIntoView({ block: 'start' }), id);
    await b.page.waitForFunction((i) => document.querySelector('nav#toc').dataset.current === i, id);
    // the highlighted entry is visible inside the contents
    const link = await nav.locator('a[aria-current]').boundingBox(),
      list = await nav.boundingBox();
    assert.ok(link.y >= list.y - 1 && link.y + link.height <= list.y + list.height + 1, `${id}: the entry is in view`);
  }
  await b.page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await b.page.waitForFunction(() => document.querySelector('nav#toc').dataset.current === 'speed');
  await b.page.evaluate(() => window.scrollTo(0, 0));
  await b.page.waitForFunction(() => document.querySelector('nav#toc').dataset.current === 'document-000');
  await b.page.screenshot({ path: join(artefacts, 'toc-desktop.png') });
});

test('opening the page at #E4.6 scrolls to E4.6 once it is drawn, and highlights it', async () => {
  const c = await openPage();
  try {
    await c.page.goto(`${c.origin}/#E4.6`);
    await c.page.waitForSelector('body[data-settled]', { timeout: 30000 });
    const top = await topOf(c.page, 'E4.6');
    assert.ok(top >= 0 && top <= 16, `E4.6 at ${top} px`);
    await c.page.waitForFunction(() => document.querySelector('nav#toc').dataset.current === 'E4.6');
    // and an anchor of an example in the middle of a document
    await c.page.goto(`${c.origin}/#E0.7`);
    await c.page.waitForSelector('body[data-settled]', { timeout: 30000 });
    assert.ok(Math.abs(await topOf(c.page, 'E0.7')) <= 16);
    assert.deepEqual(c.outside, []);
    assert.deepEqual(c.consoleErrors, []);
  } finally {
    await c.close();
  }
});

test('phone: the contents fold into a bar at the top that opens, follows a link and closes again', async () => {
  await b.page.setViewportSize({ width: 390, height: 844 });
  await b.page.evaluate(() => window.scrollTo(0, 0));
  const nav = b.page.locator('nav#toc');
  const details = nav.locator('details');
  await b.page.waitForFunction(() => !document.querySelector('nav#toc details').open);
  assert.equal(await nav.locator('summary').isVisible(), true);
  assert.equal(await nav.locator('a[href="#E1.4"]').isVisible(), false);
  await nav.locator('summary').click();
  assert.equal(await details.evaluate((d) => d.open), true);
  await b.page.screenshot({ path: join(artefacts, 'toc-phone-open.png') });
  await nav.locator('a[href="#E1.4"]').click();
  await b.page.waitForFunction(() => location.hash === '#E1.4' && !document.querySelector('nav#toc details').open);
  // the bar stays at the top and does not hide the heading of the example
  const bar = await nav.boundingBox();
  assert.ok(bar.y >= 0 && bar.y <= 1 && bar.height < 60, `bar at ${bar.y}, ${bar.height} px high`);
  const top = await topOf(b.page, 'E1.4');
  assert.ok(
    top >= bar.y + bar.height - 1 && top <= bar.y + bar.height + 40,
    `E1.4 at ${top} px under a ${bar.height} px bar`,
  );
  await b.page.waitForFunction(() => document.querySelector('nav#toc').dataset.current === 'E1.4');
  assert.match(await nav.locator('summary .here').innerText(), /^E1\.4 look-ahead/);
  const width = await b.page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 392, `page is ${width}px wide`);
  await b.page.screenshot({ path: join(artefacts, 'toc-phone.png') });
  await b.page.setViewportSize({ width: 1100, height: 900 });
  await b.page.waitForFunction(() => document.querySelector('nav#toc details').open);
});

test('no request left the origin and the console has no errors', () => {
  assert.deepEqual(b.outside, []);
  assert.deepEqual(b.consoleErrors, []);
});
