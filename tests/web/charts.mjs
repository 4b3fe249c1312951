// Reading the page's canvas charts from a test: where a heat map's cell is on the screen, and
// what a chart's export menu saves (the files themselves, through the browser's download).
import { readFileSync } from 'node:fs';

/** The client coordinates of the centre of cell (i, j) of a heat map (its canvas's data-cells). */
export async function cellPoint(figure, i, j) {
  const canvas = figure.locator('canvas').first();
  const [ox, oy, cell, width] = (await canvas.getAttribute('data-cells')).split(' ').map(Number);
  const box = await canvas.boundingBox();
  const k = box.width / width;
  return { x: box.x + (ox + (j + 0.5) * cell) * k, y: box.y + (oy + (i + 0.5) * cell) * k };
}

/** Moves the pointer over cell (i, j) of a heat map. */
export async function hoverCell(page, figure, i, j) {
  const { x, y } = await cellPoint(figure, i, j);
  await page.mouse.move(x, y);
}

/**
 * Saves a chart through its export menu ('png', 'svg' or 'json'), closing the menu again;
 * resolves with { name, bytes } of the file the browser downloaded. A try whose download does not
 * come within 10 s is made again, up to three in all (once in a few hundred CI runs the first
 * click's download never came: the menu re-resolved while the page was busy); a chart that never
 * saves still fails, naming the tries.
 */
export async function saved(page, figure, kind, tries = 3) {
  const menu = figure.locator('details.export').first();
  for (let attempt = 1; ; attempt++) {
    await figure.scrollIntoViewIfNeeded();
    await menu.evaluate((d) => {
      d.open = true;
    });
    try {
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 10000 }),
        menu.locator(`button[data-export=${kind}]`).click({ timeout: 10000 }),
      ]);
      return { name: download.suggestedFilename(), bytes: readFileSync(await download.path()) };
    } catch (e) {
      if (attempt >= tries) throw new Error(`saving ${kind}: no download after ${tries} tries: ${e.message}`);
    } finally {
      await menu.evaluate((d) => {
        d.open = false;
      });
    }
  }
}

/** A saved chart's JSON. */
export const savedJson = async (page, figure) => JSON.parse((await saved(page, figure, 'json')).bytes.toString('utf8'));

/** A PNG's width and height, from its IHDR chunk (after checking the signature). */
export function pngSize(bytes) {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!signature.every((b, i) => bytes[i] === b)) throw new Error('not a PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
