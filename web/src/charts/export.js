// Taking a chart away: every chart has a menu ("Save") that saves it as PNG and SVG, and its
// numbers as JSON. The files are made in the page and saved through a blob: link; nothing leaves
// the machine. The JSON's float32 numbers (attention weights) are written with the fewest digits
// that read back to the same float32 (Math.fround(x) gives the value shown), others as JS writes
// them.
import { pngOf, svgDocument } from './draw.js';

/** The shortest decimal that reads back to the float32 `v` (as Math.fround). */
export function float32Number(v) {
  if (!Number.isFinite(v)) return null; // JSON has no Infinity or NaN
  const back = (p) => Math.fround(Number(v.toPrecision(p))) === v;
  let p = 6;
  if (back(p)) while (p > 1 && back(p - 1)) p--;
  else while (p < 9 && !back(p)) p++;
  return Number(v.toPrecision(p));
}

/** The values of a typed array as JSON numbers: float32 arrays by float32Number. */
export const jsonNumbers = (values) =>
  values instanceof Float32Array
    ? Array.from(values, float32Number)
    : Array.from(values, (v) => (Number.isFinite(v) ? v : null));

/**
 * A chart's file name: its example's id (the card it is in, if any) and its title up to a colon
 * or a parenthesis: "E1.4-attention-weights", "layer-1-head-2".
 */
export function fileName(fig, title, fallback = 'chart') {
  const slug = title
    .split(/[:(]/)[0]
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
  const example = fig.closest('[data-example]')?.dataset.example;
  return [example, slug || fallback].filter(Boolean).join('-');
}

/** Saves `blob` as `name` (the browser's download). */
export function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/**
 * The export menu of a chart: one tab stop ("Save", a <details>) that opens on three buttons.
 * png() -> Promise<Blob>, svg() -> string, json() -> a plain object, each called when its button
 * is pressed; `name()` the file name without extension; `what` the chart in the accessible
 * names ("heat map").
 */
export function exportBar({ name, what = 'chart', png, svg, json }) {
  const menu = document.createElement('details');
  menu.className = 'export';
  const summary = document.createElement('summary');
  summary.textContent = 'Save';
  summary.setAttribute('aria-label', `Save this ${what} (PNG, SVG${json ? ', JSON' : ''})`);
  const buttons = document.createElement('span');
  menu.append(summary, buttons);
  const button = (label, kind, save) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.dataset.export = kind;
    b.setAttribute('aria-label', `Save this ${what} as ${label}`);
    b.addEventListener('click', async () => {
      try {
        download(`${name()}.${kind}`, await save());
      } catch (e) {
        console.error(`export ${kind}:`, e);
      }
    });
    buttons.append(b);
  };
  button('PNG', 'png', png);
  button('SVG', 'svg', () => new Blob([svg()], { type: 'image/svg+xml' }));
  if (json) button('JSON', 'json', () => new Blob([JSON.stringify(json())], { type: 'application/json' }));
  return menu;
}

/**
 * The export menu of a chart drawn as shapes (draw.js): exported() -> { shapes, w, h } is the
 * picture saved as PNG and SVG; the rest as exportBar's.
 */
export const shapesExportBar = ({ exported, title, ...rest }) =>
  exportBar({
    ...rest,
    png: () => {
      const e = exported();
      return pngOf(e.shapes, e.w, e.h);
    },
    svg: () => {
      const e = exported();
      return svgDocument(e.shapes, e.w, e.h, { title });
    },
  });

/**
 * An SVG chart drawn by d3 (the line plot, the scatter) as a file: a copy of the live <svg>
 * without its interactive attributes, with the page's font and a white background.
 */
export function svgFileOf(svg) {
  const copy = svg.cloneNode(true);
  for (const a of ['tabindex', 'role', 'aria-roledescription', 'class', 'style']) copy.removeAttribute(a);
  copy.querySelectorAll('[tabindex]').forEach((e) => e.removeAttribute('tabindex'));
  const box = svg.viewBox.baseVal;
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(box.width));
  copy.setAttribute('height', String(box.height));
  copy.setAttribute('font-family', 'system-ui, sans-serif');
  const bg = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', '#fff');
  copy.prepend(bg);
  return new XMLSerializer().serializeToString(copy);
}

/** An SVG file's text as a PNG at `scale` pixels per unit (drawn through an <img> of a data: URL). */
export async function pngOfSvg(text, width, height, scale = 2) {
  const img = new Image();
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  canvas.getContext('2d').drawImage(img, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the PNG could not be made'))), 'image/png'),
  );
}
