// The page's two colour scales, shared by every chart: Blues (sequential: attention weights in
// [0, 1]) and matplotlib's "coolwarm" (diverging: the positional-encoding matrix in [-1, 1]; RdBu
// reversed is its close twin). Large matrices are painted pixel by pixel from a 256-step table of
// the scale, so that a 512 x 512 head costs a table look-up per cell, not a colour string.
import { interpolateBlues, interpolateRdBu } from 'd3-scale-chromatic';

const coolwarm = (t) => interpolateRdBu(1 - t);
const STEPS = 256;

/** [r, g, b] of a CSS colour as d3's interpolators write it ("rgb(8, 48, 107)"). */
function rgbOf(css) {
  const m = css.match(/\d+/g);
  return m ? m.slice(0, 3).map(Number) : [0, 0, 0];
}

/**
 * A colour scale over `domain`: [lo, hi] sequential (Blues), or [lo, mid, hi] diverging
 * (coolwarm, `mid` white). unit(v) is v's place in [0, 1]; the scale has 256 steps, held as RGBA
 * pixels (`pixels`, a Uint32Array; index(v) picks v's step) and as CSS colours (css(v)); stops(k) are k + 1 colours from lo to hi,
 * for a colour bar; `peak(a, b)` keeps the value further from the scale's rest (0 for
 * sequential, mid for diverging): what a pixel standing for several cells shows.
 */
export function colourScale(domain = [0, 1]) {
  const diverging = domain.length === 3;
  const interpolate = diverging ? coolwarm : interpolateBlues;
  const [lo, mid, hi] = diverging ? domain : [domain[0], (domain[0] + domain[1]) / 2, domain[1]];
  const unit = diverging
    ? (v) =>
        Math.max(
          0,
          Math.min(1, v < mid ? (0.5 * (v - lo)) / (mid - lo || 1) : 0.5 + (0.5 * (v - mid)) / (hi - mid || 1)),
        )
    : (v) => Math.max(0, Math.min(1, (v - lo) / (hi - lo || 1)));
  const steps = Array.from({ length: STEPS }, (_, k) => interpolate(k / (STEPS - 1)));
  // each step as one RGBA pixel (a Uint32 in the platform's byte order, for ImageData)
  const pixels = new Uint32Array(STEPS);
  const bytes = new Uint8Array(pixels.buffer);
  steps.forEach((c, k) => bytes.set([...rgbOf(c), 255], 4 * k));
  // the step of v, written out for the sequential scale: it runs once per cell of a large map
  const f = (STEPS - 1) / (hi - lo || 1);
  const index = diverging
    ? (v) => Math.round(unit(v) * (STEPS - 1)) || 0
    : (v) => {
        const t = (v - lo) * f;
        return t > 0 ? (t < STEPS - 1 ? (t + 0.5) | 0 : STEPS - 1) : 0;
      };
  const rest = diverging ? mid : lo;
  return {
    domain,
    diverging,
    lo,
    stepsPerUnit: f,
    unit,
    css: (v) => steps[index(v)],
    pixels,
    index,
    stops: (k) => Array.from({ length: k + 1 }, (_, s) => interpolate(s / k)),
    peak: (a, b) => (Math.abs(b - rest) > Math.abs(a - rest) ? b : a),
    /** Whether text on the colour of v reads better in white. */
    dark: (v) => Math.abs(unit(v) - (diverging ? 0.5 : 0)) > (diverging ? 0.35 : 0.55),
  };
}

/** The colour of a masked cell as an RGBA pixel (larger cells are hatched over it). */
export const MASKED_PIXEL = new Uint32Array(new Uint8Array([238, 238, 238, 255]).buffer)[0];
