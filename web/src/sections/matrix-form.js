// Document 002, "Self Attention" (the matrix form): E2.1, every step with its shape.
import { exampleCard } from '../example.js';
import { shapeTuple } from '../format.js';
import { transposeLast } from '../layout.js';
import { heatmap } from '../plot.js';
import { attentionDetail, slice2d } from '../detail.js';

export function seed002(A, root) {
  const section = document.createElement('section');
  section.className = 'document';
  section.dataset.document = '002';
  section.innerHTML = `<h2>Self Attention (the matrix form)</h2>
    <p>Document 002 writes attention as matrix products and tracks the shapes. The document has no
    numbers; the page fills X and the W's with N(0, 1) values (torch.manual_seed) and follows every step.</p>`;
  const card = exampleCard({ id: 'E2.1', title: 'Attention(Q, K, V) = softmax(QKᵀ / √d_k) V',
    code: 'Q = X @ W_Q;  K = X @ W_K;  V = X @ W_V\nS = Q @ K.T\nA = torch.softmax(S / d_k**0.5, dim=-1)\nOutput = A @ V' });
  section.append(card.el);
  root.append(section);
  card.controls.innerHTML = ['N', 'd_model', 'd_k', 'd_v', 'seed'].map((n) =>
    `<label>${n} <input type="number" name="${n}" min="${n === 'seed' ? 0 : 1}" max="${n === 'seed' ? 1e9 : 64}" value="${{ N: 5, d_model: 8, d_k: 4, d_v: 6, seed: 0 }[n]}"></label>`).join(' ');
  const plot = document.createElement('div');
  card.controls.after(plot);
  const num = (n, lo, hi) => Math.max(lo, Math.min(hi, Math.trunc(Number(card.controls.querySelector(`[name=${n}]`).value) || lo)));
  const update = () => {
    const N = num('N', 1, 64), dm = num('d_model', 1, 64), dk = num('d_k', 1, 64), dv = num('d_v', 1, 64);
    A.manualSeed(num('seed', 0, 1e9));
    const X = A.randn(N, dm), WQ = A.randn(dm, dk), WK = A.randn(dm, dk), WV = A.randn(dm, dv);
    const Q = A.matmul(X, WQ), K = A.matmul(X, WK), V = A.matmul(X, WV);
    const S = A.matmul(Q, transposeLast(K));
    const r = A.scaledDotProductAttention(Q, K, V, { returnIntermediates: true });
    card.show([`X ${shapeTuple(X)}`, `W_Q ${shapeTuple(WQ)}  W_K ${shapeTuple(WK)}  W_V ${shapeTuple(WV)}`,
      `Q ${shapeTuple(Q)}  K ${shapeTuple(K)}  V ${shapeTuple(V)}`, `S = Q Kᵀ ${shapeTuple(S)}`,
      `A = softmax(S / √${dk}) ${shapeTuple(r.weights)}   (each row sums to 1)`, `Output = A V ${shapeTuple(r.output)}`].join('\n'),
    `N = ${N} tokens of dimension ${dm} become ${N} outputs of dimension d_v = ${dv}; each output row is a convex combination of the rows of V.`);
    const labels = [...Array(N).keys()].map((i) => `x${i}`);
    plot.replaceChildren(heatmap(slice2d(r.weights, N, N), { rowLabels: labels, colLabels: labels, cell: N > 16 ? 18 : 34,
      title: 'A = softmax(QKᵀ/√d_k)', detail: attentionDetail(r, { rows: labels, cols: labels, scale: 1 / Math.sqrt(dk) }) }));
  };
  card.controls.addEventListener('input', update);
  update();
  return section;
}
