// The browsers the tests drive, behind one small interface, so that one assertion runs in every
// engine (the page's core tests, the consumer apps, the cross-engine identity):
//   chromium  Debian's /usr/bin/chromium (or CHROMIUM_PATH) through playwright-core
//   firefox   Debian's /usr/bin/firefox-esr (or FIREFOX_PATH) through puppeteer-core, over
//             WebDriver BiDi (Playwright drives only its own patched Firefox, which cannot be
//             downloaded here)
// Neither tool ever downloads a browser. Both run headless, with nothing of the browser's own
// reaching the network, so that "no request left the origin" means the page's.
//
// launchBrowser(engine) gives one tab, `page`: for Chromium Playwright's Page itself; for Firefox
// a FirefoxPage, which implements the part of Playwright's Page that the shared tests use (listed
// on the class) with the same arguments and results. A test that needs more of Playwright
// (keyboard, hover, drag and drop) is a Chromium test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';

export const ENGINES = ['chromium', 'firefox'];

export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

export const firefoxLaunchOptions = {
  browser: 'firefox',
  executablePath: process.env.FIREFOX_PATH || '/usr/bin/firefox-esr',
  headless: true,
  // puppeteer's Firefox preferences already turn off updates, telemetry and the like; these
  // are the background fetches left (remote settings, captive-portal and connectivity checks)
  extraPrefsFirefox: {
    'network.captive-portal-service.enabled': false,
    'network.connectivity-service.enabled': false,
    'services.settings.server': 'http://127.0.0.1:9/',
    'browser.safebrowsing.update.enabled': false,
  },
};

/**
 * A headless browser with one tab: { engine, version, page, watch(handlers), close() }.
 * watch({ request(url), response({ url, status, headers }), consoleError(text) }) reports the
 * tab's and its workers' requests, responses and console errors (uncaught exceptions included)
 * until the function it returns is called.
 */
export async function launchBrowser(engine, { viewport = { width: 1100, height: 900 } } = {}) {
  if (engine === 'chromium') return launchChromium(viewport);
  if (engine === 'firefox') return launchFirefox(viewport);
  throw new Error(`launchBrowser: engine must be one of ${ENGINES.join(', ')}, got ${engine}`);
}

async function launchChromium(viewport) {
  const profile = mkdtempSync(join(tmpdir(), 'aw-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { ...chromiumLaunchOptions, viewport });
  // the context's own tab: a second tab is a background one, whose timers Chromium throttles
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    engine: 'chromium',
    version: context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent)),
    page,
    watch({ request, response, consoleError }) {
      const onRequest = (r) => request?.(r.url());
      const onResponse = (r) => response?.({ url: r.url(), status: r.status(), headers: r.headers() });
      const onConsole = (m) => m.type() === 'error' && consoleError?.(m.text());
      const onError = (e) => consoleError?.(String(e));
      context.on('request', onRequest); // the context's: workers' requests included
      context.on('response', onResponse);
      page.on('console', onConsole);
      page.on('pageerror', onError);
      return () => {
        context.off('request', onRequest);
        context.off('response', onResponse);
        page.off('console', onConsole);
        page.off('pageerror', onError);
      };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

async function launchFirefox(viewport) {
  const browser = await puppeteer.launch({ ...firefoxLaunchOptions, defaultViewport: viewport });
  const tab = (await browser.pages())[0] ?? (await browser.newPage());
  return {
    engine: 'firefox',
    version: await browser.version(),
    page: new FirefoxPage(tab),
    watch({ request, response, consoleError }) {
      // the tab's events include its workers' requests and console (WebDriver BiDi realms)
      const onRequest = (r) => request?.(r.url());
      const onResponse = (r) => response?.({ url: r.url(), status: r.status(), headers: r.headers() });
      const onConsole = (m) => m.type() === 'error' && consoleError?.(m.text());
      const onError = (e) => consoleError?.(String(e));
      tab.on('request', onRequest);
      tab.on('response', onResponse);
      tab.on('console', onConsole);
      tab.on('pageerror', onError);
      return () => {
        tab.off('request', onRequest);
        tab.off('response', onResponse);
        tab.off('console', onConsole);
        tab.off('pageerror', onError);
      };
    },
    close: () => browser.close(),
  };
}

const TIMEOUT = 30000; // Playwright's default for waits

/** Playwright's polling option ('raf' or milliseconds) as puppeteer takes it. */
const polling = (p) => (p === undefined || p === 'raf' ? 'raf' : Number(p));

/**
 * The subset of Playwright's Page the shared tests use, over a puppeteer Page: goto, evaluate,
 * waitForFunction, waitForSelector, getAttribute, fill, click, $$eval, locator, workers,
 * setViewportSize, screenshot, url.
 */
export class FirefoxPage {
  constructor(page) {
    this.raw = page;
  }
  goto(url) {
    return this.raw.goto(url);
  }
  evaluate(fn, arg) {
    return this.raw.evaluate(fn, arg);
  }
  waitForFunction(fn, arg, options = {}) {
    return this.raw.waitForFunction(
      fn,
      { timeout: options.timeout ?? TIMEOUT, polling: polling(options.polling) },
      arg,
    );
  }
  waitForSelector(selector, options = {}) {
    return this.raw.waitForSelector(selector, { timeout: options.timeout ?? TIMEOUT });
  }
  getAttribute(selector, name) {
    return this.locator(selector).getAttribute(name);
  }
  fill(selector, value) {
    return this.locator(selector).fill(value);
  }
  click(selector) {
    return this.locator(selector).click();
  }
  $$eval(selector, fn, arg) {
    return this.raw.$$eval(selector, fn, arg);
  }
  locator(selector) {
    return new FirefoxLocator(this.raw, selector);
  }
  /** The page's dedicated workers (a WebWorker has url() and evaluate(fn, arg), as Playwright's). */
  workers() {
    return this.raw.workers();
  }
  setViewportSize({ width, height }) {
    return this.raw.setViewport({ width, height });
  }
  screenshot(options) {
    return this.raw.screenshot(options);
  }
  url() {
    return this.raw.url();
  }
}

/**
 * Playwright's Locator over a CSS selector, for the methods the shared tests use. As
 * Playwright's, an action waits for the element to be there; unlike Playwright's, it takes the
 * first match rather than insisting on one.
 */
class FirefoxLocator {
  constructor(page, selector) {
    this.page = page;
    this.selector = selector;
  }
  locator(selector) {
    return new FirefoxLocator(this.page, `${this.selector} ${selector}`);
  }
  first() {
    return this;
  }
  async element() {
    const handle = await this.page.waitForSelector(this.selector, { timeout: TIMEOUT });
    if (!handle) throw new Error(`no element matches ${this.selector}`);
    return handle;
  }
  async evaluate(fn, arg) {
    const handle = await this.element();
    try {
      return await handle.evaluate(fn, arg);
    } finally {
      await handle.dispose();
    }
  }
  evaluateAll(fn, arg) {
    return this.page.$$eval(this.selector, fn, arg);
  }
  count() {
    return this.page.$$eval(this.selector, (els) => els.length);
  }
  innerText() {
    return this.evaluate((e) => e.innerText);
  }
  textContent() {
    return this.evaluate((e) => e.textContent);
  }
  getAttribute(name) {
    return this.evaluate((e, n) => e.getAttribute(n), name);
  }
  inputValue() {
    return this.evaluate((e) => e.value);
  }
  isHidden() {
    return this.page.$eval(this.selector, (e) => !e.checkVisibility()).catch(() => true);
  }
  /** As Playwright's fill: the value set, then an input and a change event. */
  fill(value) {
    return this.evaluate((e, v) => {
      e.focus();
      e.value = v;
      e.dispatchEvent(new Event('input', { bubbles: true }));
      e.dispatchEvent(new Event('change', { bubbles: true }));
    }, value);
  }
  async click() {
    const handle = await this.element();
    try {
      await handle.click();
    } finally {
      await handle.dispose();
    }
  }
  /** Files into an <input type=file> (paths of files, not folders), then its change event. */
  async setInputFiles(paths) {
    const handle = await this.element();
    try {
      await handle.uploadFile(...[paths].flat());
    } finally {
      await handle.dispose();
    }
  }
  async screenshot(options) {
    const handle = await this.element();
    try {
      return await handle.screenshot(options);
    } finally {
      await handle.dispose();
    }
  }
}
