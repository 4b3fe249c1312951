// The table of contents: the five documents and every example (from content/), each a link to
// the example's stable anchor (#E0.7, the card's id), the section on screen highlighted while
// scrolling (aria-current). Sticky beside the page on wide screens; on phones a bar at the top
// that opens the list (a <details>) and closes again when a link is followed.
import { textOf } from './example.js';

const WIDE = window.matchMedia('(min-width: 56rem)');

const link = (id, text) => {
  const a = document.createElement('a');
  a.href = `#${id}`;
  a.textContent = text;
  return a;
};

/** Fills `nav` with the documents' examples and the extra entries (content/index.js). */
export function tableOfContents(nav, documents, extra = {}) {
  nav.innerHTML =
    '<details><summary><span class="label">Contents</span><span class="here"></span></summary><ol class="documents"></ol></details>';
  const list = nav.querySelector('ol');
  for (const doc of documents) {
    const item = document.createElement('li');
    const examples = document.createElement('ol');
    const entries = [
      ...doc.examples.map((e) => [e.id, `${e.id} ${textOf(e.title)}`]),
      ...(extra[doc.number] ?? []).map((e) => [e.id, e.title]),
    ];
    for (const [id, text] of entries) {
      const li = document.createElement('li');
      li.append(link(id, text));
      examples.append(li);
    }
    item.append(link(`document-${doc.number}`, `${doc.number} · ${doc.title}`), examples);
    list.append(item);
  }
  for (const e of extra.end ?? []) {
    const li = document.createElement('li');
    li.append(link(e.id, e.title));
    list.append(li);
  }
  const details = nav.querySelector('details');
  const fit = () => {
    details.open = WIDE.matches;
  };
  fit();
  WIDE.addEventListener('change', fit);
  nav.addEventListener('click', (e) => {
    if (e.target.closest('a') && !WIDE.matches) details.open = false;
  });
}

/**
 * Highlights the entry of the section on screen: the last target whose top has passed a line
 * near the top of the window (the bottom of the phone's bar), or the last one visible once the
 * page is scrolled to its end. Keeps that entry in view inside the sticky list.
 */
export function followScroll(nav) {
  const links = [...nav.querySelectorAll('a[href^="#"]')];
  const targets = links.map((a) => document.getElementById(decodeURIComponent(a.hash.slice(1))));
  const here = nav.querySelector('.here');
  let frame = 0;
  const update = () => {
    frame = 0;
    const line = nav.getBoundingClientRect().bottom * (WIDE.matches ? 0 : 1) + Math.min(160, window.innerHeight * 0.25);
    const atEnd = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
    let current = 0;
    targets.forEach((t, k) => {
      const top = t?.getBoundingClientRect().top ?? Infinity;
      if (top <= line || (atEnd && top < window.innerHeight)) current = k;
    });
    for (const a of links) a.removeAttribute('aria-current');
    const a = links[current];
    a.setAttribute('aria-current', 'location');
    nav.dataset.current = a.hash.slice(1);
    here.textContent = a.textContent;
    const box = nav.getBoundingClientRect(),
      r = a.getBoundingClientRect();
    if (WIDE.matches && (r.top < box.top || r.bottom > box.bottom)) nav.scrollTop += r.top - box.top - box.height / 3;
  };
  const schedule = () => {
    frame ||= requestAnimationFrame(update);
  };
  window.addEventListener('scroll', schedule, { passive: true });
  window.addEventListener('resize', schedule);
  update();
}

/**
 * The page is built after the wasm module loads, so the browser's own jump to the URL's #E0.7
 * finds nothing: jump there once the sections are drawn, unless the reader has scrolled since.
 */
export function scrollToHashWhen(ready) {
  let moved = false;
  const stop = () => {
    moved = true;
  };
  const events = ['wheel', 'touchstart', 'keydown', 'mousedown'];
  for (const type of events) window.addEventListener(type, stop, { once: true, passive: true });
  return ready.then(() => {
    for (const type of events) window.removeEventListener(type, stop);
    const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && !moved) target.scrollIntoView({ block: 'start' });
  });
}
