// Small multiples: rows x cols little heat maps of (n, m) values each, e.g. every layer x head
// attention pattern of a model (the model view). Each map is an image of at most THUMB x THUMB
// pixels: a larger map shows each block's peak (matrix.js), so that 72 heads of 512 x 512 make
// 72 pictures of 86 x 86, painted a few maps per task (PAINT_BUDGET ms) after the grid is made,
// so that the page never stalls on them. With `ownScale`, each map is coloured from domain[0] to
// its own largest value (the weights of a long sequence are small: on one scale most heads would
// be white). One tab stop: the arrow keys (keys.js) move between the maps; the map focused
// or clicked is selected (onSelect(i, j)) and the read-out says which one and describe(i, j).
import { colourScale } from './colour.js';
import { matrixBitmap, strongest } from './matrix.js';
import { textWidth } from './draw.js';
import { gridMove, KEYS_HINT } from './keys.js';
import { readout } from './readout.js';
import { shapesExportBar, fileName } from './export.js';
import { timed } from '../timing.js';

const THUMB = 96; // pixels per side of a map at most (44 CSS px on screen, twice that on a dense screen)
const PAINT_BUDGET = 8; // ms of painting per task

/**
 * Runs jobs in order in tasks of their own (none in the caller's), as many per task as fit in
 * PAINT_BUDGET ms, until done or alive() is false.
 */
function inChunks(jobs, alive, done) {
  let k = 0;
  const step = () => {
    if (!alive()) return;
    const t0 = performance.now();
    timed('model view maps', () => {
      while (k < jobs.length && performance.now() - t0 < PAINT_BUDGET) jobs[k++]();
    });
    if (k < jobs.length) setTimeout(step, 0);
    else done();
  };
  setTimeout(step, 0);
}

/**
 * `data` holds the maps back to back: (rows, cols, n, m), values in `domain` ([0, 1]).
 * Options: rowLabels, colLabels (each map's names, read out), colTicks (shorter column
 * headings), onSelect(i, j), describe(i, j), title, ownScale, json() (the JSON export: the
 * selected map's numbers), name (the files' name). Returns the <figure>: fig.select(i, j) selects from code;
 * fig.dataset.painted is set once every map is painted.
 */
export function heatmapGrid(
  data,
  {
    rows,
    cols,
    n,
    m = n,
    rowLabels,
    colLabels,
    colTicks = colLabels,
    onSelect,
    describe,
    title = '',
    domain = [0, 1],
    ownScale = false,
    json,
    name,
  },
) {
  const fig = document.createElement('figure');
  fig.className = 'heatmapgrid';
  fig.dataset.rows = rows;
  fig.dataset.cols = cols;
  fig.style.setProperty('--cols', cols);
  const scale = colourScale(domain);
  const bw = Math.min(m, THUMB),
    bh = Math.min(n, THUMB);
  const aspect = Math.min(Math.max(1, m / n), 6); // a row of one generated token's weights: a strip
  const grid = document.createElement('div');
  grid.className = 'grid';
  grid.setAttribute('role', 'grid');
  grid.setAttribute('aria-label', `${title}: ${rows} by ${cols} heat maps; ${KEYS_HINT}`);
  const corner = document.createElement('span');
  corner.setAttribute('aria-hidden', 'true');
  grid.append(corner);
  for (const l of colTicks) {
    const span = document.createElement('span');
    span.className = 'collabel';
    span.setAttribute('aria-hidden', 'true');
    span.textContent = l;
    grid.append(span);
  }
  const cells = [];
  const bitmaps = new Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    const row = document.createElement('div');
    row.setAttribute('role', 'row');
    row.className = 'row';
    const label = document.createElement('span');
    label.className = 'rowlabel';
    label.setAttribute('aria-hidden', 'true');
    label.textContent = rowLabels[i];
    row.append(label);
    for (let j = 0; j < cols; j++) {
      const cell = document.createElement('div');
      cell.className = 'map';
      cell.setAttribute('role', 'gridcell');
      cell.setAttribute('aria-label', `${rowLabels[i]}, ${colLabels[j]}`);
      cell.setAttribute('aria-selected', 'false');
      cell.tabIndex = i === 0 && j === 0 ? 0 : -1;
      cell.dataset.i = i;
      cell.dataset.j = j;
      const img = document.createElement('img');
      img.width = bw;
      img.height = bh;
      img.alt = '';
      img.decoding = 'async'; // decoded off the main thread, not in the frame that paints it
      img.style.aspectRatio = String(aspect);
      cell.append(img);
      row.append(cell);
      cells.push(cell);
    }
    grid.append(row);
  }
  const scaleOf = (x) => (ownScale ? colourScale([domain[0], strongest(x).value || domain[1]]) : scale);
  const bitmapOf = (k) => {
    const x = { data, offset: k * n * m, n, m };
    return matrixBitmap(x, scaleOf(x), { width: bw, height: bh });
  };
  // each map becomes an image (a PNG data: URL): images are painted with the page, where 72
  // canvases would be 72 layers for the compositor to place on every frame
  const scratch = document.createElement('canvas');
  scratch.width = bw;
  scratch.height = bh;
  const paintMap = (k) => () => {
    const bitmap = bitmapOf(k);
    bitmaps[k] = bitmap;
    scratch.getContext('2d').putImageData(new ImageData(bitmap.data, bw, bh), 0, 0);
    cells[k].firstChild.src = scratch.toDataURL('image/png');
  };
  let shown = false; // painting stops once the figure, shown, is taken off the page (replaced)
  inChunks(
    cells.map((_, k) => paintMap(k)),
    () => {
      shown ||= fig.isConnected;
      return fig.isConnected || !shown;
    },
    () => {
      fig.dataset.painted = 'true';
    },
  );

  const out = readout('');
  const at = (i, j) => cells[i * cols + j];
  fig.select = (i, j) => {
    for (const c of cells) {
      c.setAttribute('aria-selected', 'false');
      c.tabIndex = -1;
    }
    at(i, j).setAttribute('aria-selected', 'true');
    at(i, j).tabIndex = 0;
    fig.dataset.selected = `${i},${j}`;
    out.say(`${rowLabels[i]}, ${colLabels[j]}${describe ? `: ${describe(i, j)}` : ''}`);
    onSelect?.(i, j);
  };
  grid.addEventListener('focusin', (e) => {
    const cell = e.target.closest('.map');
    if (cell && cell.getAttribute('aria-selected') !== 'true')
      fig.select(Number(cell.dataset.i), Number(cell.dataset.j));
  });
  grid.addEventListener('click', (e) => e.target.closest('.map')?.focus());
  grid.addEventListener('keydown', (e) => {
    const cell = e.target.closest('.map');
    const to = cell && gridMove(e, Number(cell.dataset.i), Number(cell.dataset.j), rows, cols);
    if (!to) return;
    e.preventDefault();
    at(...to).focus();
  });

  /** The exported picture: the maps at their THUMB-px resolution, 64 px wide, with their headings. */
  const exported = () => {
    const side = 64,
      gap = 6,
      left = Math.max(...rowLabels.map((l) => textWidth(l, 11))) + 12,
      top = title ? 44 : 22;
    const w = left + cols * (side + gap),
      hh = side / aspect;
    const h = top + rows * (hh + gap);
    const shapes = [];
    if (title) shapes.push({ kind: 'text', x: 8, y: 13, text: title, size: 13 });
    colTicks.forEach((t, j) =>
      shapes.push({
        kind: 'text',
        x: left + j * (side + gap) + side / 2,
        y: top - 9,
        text: t,
        size: 11,
        anchor: 'middle',
      }),
    );
    for (let i = 0; i < rows; i++) {
      shapes.push({
        kind: 'text',
        x: left - 8,
        y: top + i * (hh + gap) + hh / 2,
        text: rowLabels[i],
        size: 11,
        anchor: 'end',
      });
      for (let j = 0; j < cols; j++) {
        const bitmap = bitmaps[i * cols + j] ?? bitmapOf(i * cols + j);
        shapes.push({ kind: 'image', x: left + j * (side + gap), y: top + i * (hh + gap), w: side, h: hh, bitmap });
      }
    }
    return { shapes, w: Math.max(w, title ? textWidth(title, 13) + 16 : 0), h };
  };
  const bar = shapesExportBar({
    what: 'model view',
    name: () => name ?? fileName(fig, title, 'model-view'),
    title,
    exported,
    json,
  });
  fig.append(grid);
  if (title) {
    const c = document.createElement('figcaption');
    c.textContent = title;
    fig.append(c);
  }
  fig.append(bar, out.el);
  return fig;
}
