// Document 002, "Self Attention" (the matrix form): E2.1, every step with its shape. The words
// are in content/matrix-form.js.
import content from '../content/matrix-form.js';
import { documentSection, exampleOf } from '../example.js';
import { intValue, MAX_SEED } from '../controls.js';
import { shapeTuple } from '../format.js';
import { transposeLast } from '../layout.js';
import { heatmap } from '../charts/heatmap.js';
import { attentionDetail, matrixOf } from '../detail.js';

export function matrixForm(A, root) {
  const { section, cards } = documentSection(content, root);
  const card = cards['E2.1'];
  card.controls.innerHTML = [
    ...Object.entries(content.sizes).map(
      ([n, v]) => `<label>${n} <input type="number" name="${n}" min="1" max="64" value="${v}"></label>`,
    ),
    '<label>seed <input type="number" name="seed" min="0" value="0"></label>',
  ].join(' ');
  const plot = document.createElement('div');
  card.controls.after(plot);
  const update = () => {
    const size = (n) => intValue(card.controls, n, 1, 64);
    const N = size('N'),
      dm = size('d_model'),
      dk = size('d_k'),
      dv = size('d_v');
    A.manualSeed(intValue(card.controls, 'seed', 0, MAX_SEED));
    const X = A.randn(N, dm),
      WQ = A.randn(dm, dk),
      WK = A.randn(dm, dk),
      WV = A.randn(dm, dv);
    const Q = A.matmul(X, WQ),
      K = A.matmul(X, WK),
      V = A.matmul(X, WV);
    const S = A.matmul(Q, transposeLast(K));
    const r = A.scaledDotProductAttention(Q, K, V, { returnIntermediates: true });
    card.show(
      [
        `X ${shapeTuple(X)}`,
        `W_Q ${shapeTuple(WQ)}  W_K ${shapeTuple(WK)}  W_V ${shapeTuple(WV)}`,
        `Q ${shapeTuple(Q)}  K ${shapeTuple(K)}  V ${shapeTuple(V)}`,
        `S = Q Kᵀ ${shapeTuple(S)}`,
        `A = softmax(S / √${dk}) ${shapeTuple(r.weights)}   (each row sums to 1)`,
        `Output = A V ${shapeTuple(r.output)}`,
      ].join('\n'),
      card.what({ N, dm, dv }),
    );
    const labels = [...Array(N).keys()].map((i) => `x${i}`);
    plot.replaceChildren(
      heatmap(matrixOf(r.weights, N, N), {
        rowLabels: labels,
        colLabels: labels,
        cell: N > 16 ? 18 : 34,
        title: exampleOf(content, 'E2.1').plotTitle,
        detail: attentionDetail(r, { rows: labels, cols: labels, scale: 1 / Math.sqrt(dk) }),
      }),
    );
  };
  card.controls.addEventListener('input', update);
  update();
  return section;
}
