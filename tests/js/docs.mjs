// The README and docs/*.md as the documentation tests read them: their fenced code blocks (with
// the info string's language and flags) and their links, outside code.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/** README.md and every docs/*.md, as paths from the repository root. */
export function documentFiles() {
  const docs = readdirSync(`${root}docs`)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

export const readDocument = (path) => readFileSync(`${root}${path}`, 'utf8');

/**
 * The fenced code blocks of a Markdown text: { lang, flags, code, line } with `line` the 1-based
 * line of the opening fence. ```js no-check: lang 'js', flags ['no-check'].
 */
export function codeBlocks(text) {
  const blocks = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^(`{3,}|~{3,})\s*([^\s`]*)\s*(.*)$/);
    if (!open) continue;
    const fence = open[1];
    const end = lines.findIndex(
      (l, j) => j > i && l.startsWith(fence[0].repeat(fence.length)) && !l.slice(fence.length).trim(),
    );
    if (end < 0) throw new Error(`line ${i + 1}: a code block that is never closed`);
    blocks.push({
      lang: open[2],
      flags: open[3].split(/\s+/).filter(Boolean),
      code: lines.slice(i + 1, end).join('\n') + '\n',
      line: i + 1,
    });
    i = end;
  }
  return blocks;
}

/** The text outside fenced code blocks, each line kept in place (code lines become empty). */
function proseLines(text) {
  const lines = text.split('\n');
  let fence = null;
  return lines.map((line) => {
    const marker = line.match(/^(`{3,}|~{3,})/)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && !line.slice(marker.length).trim())
        fence = null;
      return '';
    }
    if (marker) {
      fence = marker;
      return '';
    }
    return line;
  });
}

/** The Markdown links `[text](target)` outside code: { target, line }. */
export function links(text) {
  const found = [];
  proseLines(text).forEach((line, i) => {
    const prose = line.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length)); // inline code is not a link
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) found.push({ target: m[1], line: i + 1 });
  });
  return found;
}

/**
 * The anchors of a Markdown text's headings as GitHub makes them (github-slugger): the heading's
 * text without its inline markup, lower case, every character that is not a letter, a digit, a
 * space, '-' or '_' dropped, spaces to '-'; a repeated slug gets '-1', '-2', ...
 */
export function anchors(text) {
  const seen = new Map();
  const result = new Set();
  for (const line of proseLines(text)) {
    const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/)?.[1];
    if (heading === undefined) continue;
    const plain = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links: their text
      .replace(/<[^>]+>/g, '') // HTML tags
      .replace(/[`*~]/g, ''); // code and emphasis markers
    let slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    if (n > 0) slug = `${slug}-${n}`;
    result.add(slug);
  }
  return result;
}
