// A canvas chart is a list of shapes in CSS pixels, drawn by one of two painters: paint() onto a
// canvas (the page, and the PNG export at any scale) and svgDocument() as SVG text (the SVG
// export). The chart's layout is written once; the two outputs cannot drift apart. What the
// canvas charts share besides: chartFigure (the figure and its one-tab-stop canvas),
// titledPicture (an export's title band) and followWidth (a layout again when the chart's column
// changes width).
//
// Shapes (every one a plain object with a `kind`):
//   rect      x, y, w, h, fill, stroke, lineWidth, dash ([on, off])
//   text      x, y, text, size (11), anchor ('start' | 'middle' | 'end'), fill, rotate (degrees
//             about x, y), weight ('bold'); the baseline is the middle of the text
//   line      x1, y1, x2, y2, stroke, lineWidth, dash
//   hatch     x, y, w, h: a masked cell (grey, struck through diagonally)
//   gradient  x, y, w, h, stops (CSS colours from the bottom up), className (SVG)
//   image     x, y, w, h, bitmap ({ width, height, data: RGBA }), drawn without smoothing;
//             cells() may list the same picture as rect shapes (cellCount of them), which the
//             SVG export writes instead of an embedded PNG when there are at most SVG_MAX_CELLS
//   group     dx, dy, shapes

const FONT = 'system-ui, sans-serif';
export const SVG_MAX_CELLS = 65536;

const font = (s) => `${s.weight ?? 'normal'} ${s.size ?? 11}px ${FONT}`;

let measurer = null;
const widths = new Map(); // `${size} ${text}` -> px: a long sequence's labels repeat
/** The width of `text` at `size` px in the charts' font. */
export function textWidth(text, size = 11) {
  const key = `${size} ${text}`;
  let w = widths.get(key);
  if (w === undefined) {
    measurer ??= document.createElement('canvas').getContext('2d');
    measurer.font = font({ size });
    w = measurer.measureText(text).width;
    if (widths.size > 50000) widths.clear();
    widths.set(key, w);
  }
  return w;
}

/** A label cut to `max` characters ("withdrawi…"). */
export const clip = (label, max = 14) => (label.length > max ? `${label.slice(0, max - 1)}…` : label);

const canvasOf = new WeakMap(); // bitmap -> a canvas holding it (made on first paint)
function bitmapCanvas(bitmap) {
  let c = canvasOf.get(bitmap);
  if (!c) {
    c = document.createElement('canvas');
    c.width = bitmap.width;
    c.height = bitmap.height;
    c.getContext('2d').putImageData(new ImageData(bitmap.data, bitmap.width, bitmap.height), 0, 0);
    canvasOf.set(bitmap, c);
  }
  return c;
}

function stroke(ctx, s) {
  ctx.strokeStyle = s.stroke;
  ctx.lineWidth = s.lineWidth ?? 1;
  ctx.setLineDash(s.dash ?? []);
  ctx.stroke();
}

const PAINT = {
  rect(ctx, s) {
    ctx.beginPath();
    ctx.rect(s.x, s.y, s.w, s.h);
    if (s.fill) {
      ctx.fillStyle = s.fill;
      ctx.fill();
    }
    if (s.stroke) stroke(ctx, s);
  },
  text(ctx, s) {
    ctx.save();
    ctx.font = font(s);
    ctx.fillStyle = s.fill ?? '#222';
    ctx.textAlign = { start: 'left', middle: 'center', end: 'right' }[s.anchor ?? 'start'];
    ctx.textBaseline = 'middle';
    ctx.translate(s.x, s.y);
    if (s.rotate) ctx.rotate((s.rotate * Math.PI) / 180);
    ctx.fillText(s.text, 0, 0);
    ctx.restore();
  },
  line(ctx, s) {
    ctx.beginPath();
    ctx.moveTo(s.x1, s.y1);
    ctx.lineTo(s.x2, s.y2);
    stroke(ctx, s);
  },
  hatch(ctx, s) {
    ctx.save();
    ctx.fillStyle = '#eee';
    ctx.fillRect(s.x, s.y, s.w, s.h);
    ctx.beginPath();
    ctx.rect(s.x, s.y, s.w, s.h);
    ctx.clip();
    ctx.beginPath();
    for (let d = -s.h; d < s.w; d += 6) {
      ctx.moveTo(s.x + d, s.y + s.h);
      ctx.lineTo(s.x + d + s.h, s.y);
    }
    ctx.strokeStyle = '#999';
    ctx.lineWidth = 1.5;
    ctx.setLineDash([]);
    ctx.stroke();
    ctx.restore();
  },
  gradient(ctx, s) {
    const g = ctx.createLinearGradient(0, s.y + s.h, 0, s.y);
    s.stops.forEach((c, k) => g.addColorStop(k / (s.stops.length - 1), c));
    ctx.fillStyle = g;
    ctx.fillRect(s.x, s.y, s.w, s.h);
  },
  image(ctx, s) {
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(bitmapCanvas(s.bitmap), s.x, s.y, s.w, s.h);
  },
  group(ctx, s) {
    ctx.save();
    ctx.translate(s.dx, s.dy);
    paint(ctx, s.shapes);
    ctx.restore();
  },
};

/** Draws the shapes on a 2-D canvas context (already scaled to CSS pixels). */
export function paint(ctx, shapes) {
  for (const s of shapes) PAINT[s.kind](ctx, s);
}

/**
 * A canvas sized to width x height CSS pixels at the screen's pixel density (`scale` device
 * pixels per CSS pixel), with its context scaled to CSS pixels.
 */
export function sizedCanvas(canvas, width, height, scale = window.devicePixelRatio || 1) {
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  canvas.style.width = `${width}px`;
  canvas.style.aspectRatio = `${width} / ${height}`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  return ctx;
}

/** The shapes as a PNG at `scale` pixels per CSS pixel, on white. */
export function pngOf(shapes, width, height, scale = 2) {
  const canvas = document.createElement('canvas');
  const ctx = sizedCanvas(canvas, width, height, scale);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  paint(ctx, shapes);
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the PNG could not be made'))), 'image/png'),
  );
}

const escape = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const n2 = (v) => String(Math.round(v * 100) / 100);
const attrs = (o) =>
  Object.entries(o)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => ` ${k}="${escape(typeof v === 'number' ? n2(v) : v)}"`)
    .join('');
const strokeAttrs = (s) => ({
  stroke: s.stroke,
  'stroke-width': s.stroke ? (s.lineWidth ?? 1) : undefined,
  'stroke-dasharray': s.dash?.join(' '),
});

/** The SVG text of the shapes, `width` x `height` CSS pixels. */
export function svgDocument(shapes, width, height, { title = '' } = {}) {
  const defs = new Map();
  const body = [];
  const write = (list) => {
    for (const s of list) {
      if (s.kind === 'rect')
        body.push(
          `<rect${attrs({ x: s.x, y: s.y, width: s.w, height: s.h, fill: s.fill ?? 'none', ...strokeAttrs(s) })}/>`,
        );
      else if (s.kind === 'text') {
        const transform = s.rotate ? `rotate(${s.rotate} ${n2(s.x)} ${n2(s.y)})` : undefined;
        const a = {
          x: s.x,
          y: s.y,
          'font-size': s.size ?? 11,
          'font-weight': s.weight,
          'text-anchor': s.anchor ?? 'start',
          'dominant-baseline': 'central',
          fill: s.fill ?? '#222',
          transform,
        };
        body.push(`<text${attrs(a)}>${escape(s.text)}</text>`);
      } else if (s.kind === 'line')
        body.push(`<line${attrs({ x1: s.x1, y1: s.y1, x2: s.x2, y2: s.y2, ...strokeAttrs(s) })}/>`);
      else if (s.kind === 'hatch') {
        defs.set(
          'hatch',
          '<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#eee"/><line x1="0" y1="0" x2="0" y2="6" stroke="#999" stroke-width="2"/></pattern>',
        );
        body.push(`<rect${attrs({ x: s.x, y: s.y, width: s.w, height: s.h, fill: 'url(#hatch)' })}/>`);
      } else if (s.kind === 'gradient') {
        const id = `gradient-${defs.size}`;
        const stops = s.stops.map((c, k) => `<stop offset="${n2(k / (s.stops.length - 1))}" stop-color="${c}"/>`);
        defs.set(id, `<linearGradient id="${id}" x1="0" x2="0" y1="1" y2="0">${stops.join('')}</linearGradient>`);
        body.push(
          `<rect${attrs({ class: s.className, x: s.x, y: s.y, width: s.w, height: s.h, fill: `url(#${id})` })}/>`,
        );
      } else if (s.kind === 'image') {
        const cells = s.cells && s.cellCount <= SVG_MAX_CELLS ? s.cells() : null;
        if (cells) write(cells);
        else {
          const href = bitmapCanvas(s.bitmap).toDataURL('image/png');
          const a = { x: s.x, y: s.y, width: s.w, height: s.h, preserveAspectRatio: 'none', href };
          body.push(`<image${attrs(a)} style="image-rendering:pixelated"/>`);
        }
      } else if (s.kind === 'group') {
        body.push(`<g transform="translate(${n2(s.dx)} ${n2(s.dy)})">`);
        write(s.shapes);
        body.push('</g>');
      }
    }
  };
  write(shapes);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${n2(width)}" height="${n2(height)}" viewBox="0 0 ${n2(width)} ${n2(height)}" font-family="${FONT}">`,
    title ? `<title>${escape(title)}</title>` : '',
    `<rect width="100%" height="100%" fill="#fff"/>`,
    defs.size ? `<defs>${[...defs.values()].join('')}</defs>` : '',
    ...body,
    '</svg>',
  ]
    .filter(Boolean)
    .join('\n');
}

/** A chart's exported picture: its shapes below a band with its title (none without a title). */
export function titledPicture(shapes, width, height, title) {
  const band = title ? 26 : 0;
  const w = Math.max(width, title ? textWidth(title, 13) + 16 : 0);
  const out = [{ kind: 'group', dx: 0, dy: band, shapes }];
  if (title) out.push({ kind: 'text', x: 8, y: 13, text: title, size: 13 });
  return { shapes: out, w, h: height + band };
}

/**
 * Calls relayout(width) when the width of `wrap` (a chart's column) changes: in the next frame,
 * not in the observer's callback, whose resizing would be a loop of its own.
 */
export function followWidth(wrap, relayout) {
  let columnWidth = -1,
    frame = 0;
  new ResizeObserver(([entry]) => {
    if (entry.contentRect.width === columnWidth) return; // its height follows the canvas
    columnWidth = entry.contentRect.width;
    frame ||= requestAnimationFrame(() => {
      frame = 0;
      relayout(columnWidth);
    });
  }).observe(wrap);
}

/**
 * A canvas chart's figure (class `kind`) and its canvas inside a div.chart: one tab stop, an
 * application for screen readers (`roleDescription`, `label`: what it is and its keys).
 */
export function chartFigure(kind, roleDescription, label) {
  const fig = document.createElement('figure');
  fig.className = kind;
  const wrap = document.createElement('div');
  wrap.className = 'chart';
  const canvas = document.createElement('canvas');
  wrap.append(canvas);
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'application');
  canvas.setAttribute('aria-roledescription', roleDescription);
  canvas.setAttribute('aria-label', label);
  return { fig, wrap, canvas };
}
