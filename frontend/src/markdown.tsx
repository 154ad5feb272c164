// A small Markdown renderer for KB articles: headings, paragraphs, lists, block quotes, fenced code,
// pipe tables, rules; inline code, bold, italics and links. It builds React elements (never HTML
// strings), so article text cannot inject markup; links are limited to http(s), mailto and in-app paths.
import { useEffect, useState, type ReactNode } from 'react';
import { listKb } from './diagnosis.ts';
import { Link } from './router.tsx';

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'code'; lang: string; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'quote'; text: string }
  | { kind: 'table'; head: string[]; rows: string[][] }
  | { kind: 'rule' };

const LIST_ITEM = /^\s{0,3}(?:([-*+])|(\d{1,9})[.)])\s+(.*)$/;

function parseBlocks(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  const isBlank = (s: string) => s.trim() === '';
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = /^\s{0,3}(```|~~~)\s*([\w+-]*)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) body.push(lines[i++]);
      i++; // the closing fence (or the end)
      blocks.push({ kind: 'code', lang: fence[2], text: body.join('\n') });
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: heading[1].length, text: heading[2] });
      i++;
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      blocks.push({ kind: 'rule' });
      i++;
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i])) body.push(lines[i++].replace(/^\s{0,3}>\s?/, ''));
      blocks.push({ kind: 'quote', text: body.join(' ') });
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(lines[i + 1])) {
      const cells = (s: string) => s.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
      const head = cells(line);
      const rows: string[][] = [];
      i += 2;
      while (i < lines.length && lines[i].includes('|') && !isBlank(lines[i])) rows.push(cells(lines[i++]));
      blocks.push({ kind: 'table', head, rows });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = item[2] !== undefined;
      const items: string[] = [];
      while (i < lines.length) {
        const m = LIST_ITEM.exec(lines[i]);
        if (m && (m[2] !== undefined) === ordered) {
          items.push(m[3]);
          i++;
        } else if (!isBlank(lines[i]) && /^\s{2,}\S/.test(lines[i]) && items.length > 0) {
          items[items.length - 1] += ' ' + lines[i].trim(); // a continuation line of the item
          i++;
        } else if (isBlank(lines[i]) && i + 1 < lines.length && LIST_ITEM.exec(lines[i + 1])) {
          i++; // a loose list: blank lines between items
        } else break;
      }
      blocks.push({ kind: 'list', ordered, items });
      continue;
    }
    const body: string[] = [];
    while (i < lines.length && !isBlank(lines[i]) && !/^\s{0,3}(#{1,6}\s|```|~~~|>)/.test(lines[i]) && !LIST_ITEM.test(lines[i])) {
      body.push(lines[i++].trim());
    }
    if (body.length === 0) body.push(lines[i++].trim());
    blocks.push({ kind: 'paragraph', text: body.join(' ') });
  }
  return blocks;
}

function safeHref(href: string): string | null {
  const h = href.trim();
  if (/^(https?:|mailto:)/i.test(h)) return h;
  if (h.startsWith('/') && !h.startsWith('//')) return h;
  if (h.startsWith('#')) return h;
  return null;
}

const INLINE_SOURCE = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([^*]+?)\*\*|__([^_]+?)__|\*([^*\s][^*]*?)\*|(?<![\w])_([^_\s][^_]*?)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|<(https?:\/\/[^>\s]+)>/g;

/** Renders inline Markdown (code, bold, italics, links) as React nodes. */
export function inline(text: string, keyPrefix = 'i'): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  // a fresh regex per call: inline() recurses (bold inside a link...), and a shared global regex's
  // lastIndex would be reset by the inner call, making the outer loop start over forever
  const re = new RegExp(INLINE_SOURCE.source, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const key = `${keyPrefix}-${n++}`;
    if (m[1]) out.push(<code key={key}>{m[2]}</code>);
    else if (m[3] || m[4]) out.push(<strong key={key}>{inline(m[3] ?? m[4], key)}</strong>);
    else if (m[5] || m[6]) out.push(<em key={key}>{inline(m[5] ?? m[6], key)}</em>);
    else if (m[7]) {
      const href = safeHref(m[8]);
      out.push(
        href ? (
          <a key={key} href={href} target={href.startsWith('/') || href.startsWith('#') ? undefined : '_blank'} rel="noreferrer">
            {inline(m[7], key)}
          </a>
        ) : (
          <span key={key}>{inline(m[7], key)}</span>
        ),
      );
    } else if (m[9]) {
      out.push(
        <a key={key} href={m[9]} target="_blank" rel="noreferrer">
          {m[9]}
        </a>,
      );
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out.flatMap((node, i) => (typeof node === 'string' ? articleRefs(node, `${keyPrefix}-t${i}`) : [node]));
}

/**
 * A server message (a problem's detail, a reading problem, a budget note) with its `code` spans as code: the server
 * marks names that way ("`empty.zip` is empty"); nothing else in it is read as Markdown, and it never shows backticks.
 */
export function codeSpans(text: string, keyPrefix = 'c'): ReactNode[] {
  const out: ReactNode[] = [];
  const re = /(`+)([\s\S]*?[^`])\1(?!`)/g;
  let last = 0;
  let n = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(<code key={`${keyPrefix}-${n++}`}>{m[2]}</code>);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  // an unpaired backtick marks nothing: leave it out rather than show it
  return out.map((node) => (typeof node === 'string' ? node.replace(/`/g, '') : node));
}

// "see shm-too-small": an article named by its id in KB text
const SEE_ARTICLE = /\b(see )([a-z0-9]+(?:-[a-z0-9]+)+)\b/g;

/** Plain text with "see <article-id>" turned into a link that shows the article's title. */
function articleRefs(text: string, keyPrefix: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  const re = new RegExp(SEE_ARTICLE.source, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(text.slice(last, m.index) + m[1]);
    out.push(<ArticleRef key={`${keyPrefix}-a${n++}`} id={m[2]} />);
    last = m.index + m[0].length;
  }
  if (last === 0) return [text];
  out.push(text.slice(last));
  return out;
}

let titles: Promise<Map<string, string>> | null = null;

/** The KB's titles by article id, read once per page load. */
function articleTitles(): Promise<Map<string, string>> {
  titles ??= listKb().then(
    (l) => new Map(l.articles.map((a) => [a.id, a.title])),
    () => {
      titles = null; // try again next time
      return new Map<string, string>();
    },
  );
  return titles;
}

/** An article named by its id: its title, linked, once the KB list is in; the id as written if it is no article. */
export function ArticleRef({ id }: { id: string }) {
  const [title, setTitle] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void articleTitles().then((m) => {
      if (live) setTitle(m.get(id) ?? null);
    });
    return () => {
      live = false;
    };
  }, [id]);
  if (title === null) return <>{id}</>;
  return (
    <Link to={`/kb/${encodeURIComponent(id)}`} data-testid="article-ref" data-id={id}>
      {title ?? id}
    </Link>
  );
}

/** Markdown syntax taken out of a text fragment (a search snippet): what a reader sees, not how it was written. */
export function plainText(md: string): string {
  return md
    .replace(/`+/g, '')
    .replace(/\*\*|__/g, '')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:]|$)/g, '$1$2')
    .replace(/!?\[([^\]]*)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, '$1')
    .replace(/(^|\n)\s{0,3}#{1,6}\s+/g, '$1')
    .replace(/(^|\n)\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+/g, '$1')
    .replace(/(^|\n)\s{0,3}>\s?/g, '$1')
    .replace(/\|/g, ' ')
    .replace(/\s+/g, ' ');
}

/** Renders a Markdown document as React elements. */
export function Markdown({ source, className }: { source: string; className?: string }) {
  const blocks = parseBlocks(source);
  return (
    <div className={className ?? 'markdown'}>
      {blocks.map((b, i) => {
        const key = `b${i}`;
        switch (b.kind) {
          case 'heading': {
            // article bodies start at ##; keep the page's own h1 unique
            const level = Math.min(6, Math.max(2, b.level + 1));
            const Tag = `h${level}` as 'h2' | 'h3' | 'h4' | 'h5' | 'h6';
            return <Tag key={key}>{inline(b.text, key)}</Tag>;
          }
          case 'paragraph':
            return <p key={key}>{inline(b.text, key)}</p>;
          case 'code':
            return (
              <pre key={key} className="md-code">
                <code>{b.text}</code>
              </pre>
            );
          case 'list': {
            const items = b.items.map((it, j) => <li key={j}>{inline(it, `${key}-${j}`)}</li>);
            return b.ordered ? <ol key={key}>{items}</ol> : <ul key={key}>{items}</ul>;
          }
          case 'quote':
            return <blockquote key={key}>{inline(b.text, key)}</blockquote>;
          case 'table':
            return (
              <div key={key} className="table-wrap">
                <table className="table">
                  <thead>
                    <tr>
                      {b.head.map((h, j) => (
                        <th key={j}>{inline(h, `${key}-h${j}`)}</th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {b.rows.map((r, j) => (
                      <tr key={j}>
                        {r.map((c, k) => (
                          <td key={k}>{inline(c, `${key}-${j}-${k}`)}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            );
          case 'rule':
            return <hr key={key} />;
        }
      })}
    </div>
  );
}
