// A model's attention seen two ways, as BertViz does: the model view (every layer x head as a
// small map: charts/heatmap-grid.js) and the selected head large (charts/heatmap.js, with its
// focus window for long sequences). The selection moves with the keyboard, as the heat maps'
// cursors do. Both draw an attention source, so that the encoder explorer (one sentence: every
// token's attention over every token) and a generation explorer (one generated token's
// attention over every earlier position) share them:
//
//   { layers, heads,
//     tokens:  string[]      the keys: every position
//     queries: number[]      the positions whose attention is shown (the rows): 0..L-1 for an
//                            encoder's sentence, [t] for the token generated at position t
//     weights: Float32Array  (layers, heads, queries.length, tokens.length), each row summing to 1 }
//
// Both export PNG and SVG, and the selected head's attention as JSON:
//   { layer, head, tokens, queries, weights }  (layer and head from 0, as attentions[layer][0, head])
import { scaleLinear } from 'd3-scale';
import { heatmap } from './charts/heatmap.js';
import { heatmapGrid } from './charts/heatmap-grid.js';
import { strongest } from './charts/matrix.js';
import { jsonNumbers } from './charts/export.js';
import { timed } from './timing.js';

/** One head's weights as a matrix (charts/matrix.js), without a copy. */
export function headMatrix(source, layer, head) {
  const n = source.queries.length,
    m = source.tokens.length;
  return { data: source.weights, offset: (layer * source.heads + head) * n * m, n, m };
}

/**
 * The top of a head's colour scale: its largest weight, rounded up (0.0106 -> 0.011), at most 1.
 * A long sequence's weights are small; on a scale to 1 its head would be white.
 */
const colourTop = (x) =>
  Math.min(
    1,
    scaleLinear()
      .domain([0, strongest(x).value])
      .nice()
      .domain()[1] || 1,
  );

/** The JSON export of one head's attention. */
export function attentionJson(source, layer, head) {
  const x = headMatrix(source, layer, head);
  return {
    layer,
    head,
    tokens: source.tokens,
    queries: source.queries,
    weights: Array.from({ length: x.n }, (_, i) =>
      jsonNumbers(x.data.subarray(x.offset + i * x.m, x.offset + (i + 1) * x.m)),
    ),
  };
}

/**
 * Returns { el, show(source), clear(), selected }: el holds the model view then the head view;
 * onSelect(layer, head) follows the selection (after the head is drawn). The head is drawn in a
 * task of its own after the selection (the last one, when the keys move it faster than that), so
 * that neither the model view's answer to a key nor a new source waits for a 512 x 512 picture;
 * el.dataset.head says which head is drawn ("layer,head").
 */
export function attentionViews({ onSelect } = {}) {
  const el = document.createElement('div');
  el.className = 'attention';
  const modelView = document.createElement('div');
  modelView.className = 'modelview';
  const headView = document.createElement('div');
  headView.className = 'head';
  el.append(modelView, headView);
  let source = null,
    selected = [0, 0],
    pending = 0;

  function drawHead(layer, head) {
    const { tokens, queries } = source;
    const name = `attention-layer${layer}-head${head}`;
    const x = headMatrix(source, layer, head);
    const fig = timed('head view', () =>
      heatmap(x, {
        domain: [0, colourTop(x)],
        colourBar: true,
        rowLabels: queries.map((q) => tokens[q]),
        colLabels: tokens,
        cell: Math.max(1, Math.min(34, Math.floor(640 / tokens.length))),
        maxWidth: 640,
        title: `layer ${layer + 1}, head ${head + 1}: attention weights (rows: queries, columns: keys)`,
        json: () => attentionJson(source, layer, head),
        name,
      }),
    );
    fig.classList.add('selectedhead');
    headView.replaceChildren(fig);
    el.dataset.head = `${layer},${head}`;
    onSelect?.(layer, head);
  }
  function selectHead(layer, head) {
    selected = [layer, head];
    delete el.dataset.head; // until it is drawn
    clearTimeout(pending);
    pending = setTimeout(() => drawHead(layer, head), 0);
  }

  return {
    el,
    get selected() {
      return selected;
    },
    show(s) {
      source = s;
      delete el.dataset.head; // until this source's head is drawn
      const { layers, heads, tokens, queries } = s;
      const n = queries.length,
        m = tokens.length;
      const colTicks = Array.from({ length: heads }, (_, h) => `${h + 1}`);
      const grid = timed('model view', () =>
        heatmapGrid(s.weights, {
          rows: layers,
          cols: heads,
          n,
          m,
          rowLabels: Array.from({ length: layers }, (_, l) => `layer ${l + 1}`),
          colLabels: colTicks.map((h) => `head ${h}`),
          colTicks,
          title: `model view: ${layers} layers × ${heads} heads, ${m} tokens; each map coloured from 0 to its largest weight`,
          ownScale: true,
          describe: (l, h) => {
            const { i, j, value } = strongest(headMatrix(s, l, h));
            return `strongest weight ${tokens[queries[i]]} → ${tokens[j]} ${value.toFixed(4)}`;
          },
          onSelect: selectHead,
          json: () => attentionJson(s, ...selected),
          name: 'model-view',
        }),
      );
      modelView.replaceChildren(grid);
      const [layer, head] = selected[0] < layers && selected[1] < heads ? selected : [0, 0];
      grid.select(layer, head);
    },
    clear() {
      clearTimeout(pending);
      delete el.dataset.head;
      source = null;
      modelView.replaceChildren();
      headView.replaceChildren();
    },
  };
}
