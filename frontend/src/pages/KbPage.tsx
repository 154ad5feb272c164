import { useEffect, useState } from 'react';
import { SearchForm } from '../components/SearchForm.tsx';
import { plainText } from '../markdown.tsx';
import { CATEGORIES, categoryLabel, listKb, searchKb, snippetParts, type KbList, type KbSearch } from '../diagnosis.ts';
import { Link } from '../router.tsx';
import { ErrorAlert, Loading, useTitle } from '../components/common.tsx';

type ListState = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; list: KbList };
type SearchState = { kind: 'idle' } | { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; result: KbSearch };

/** The knowledge base: full-text search with highlighted snippets, and every article by category. */
export function KbPage({ query }: { query: URLSearchParams }) {
  useTitle('Knowledge base');
  const q = query.get('q') ?? '';
  const [list, setList] = useState<ListState>({ kind: 'loading' });
  const [search, setSearch] = useState<SearchState>({ kind: 'idle' });

  useEffect(() => {
    const controller = new AbortController();
    listKb(controller.signal).then(
      (l) => setList({ kind: 'loaded', list: l }),
      (err) => {
        if (!controller.signal.aborted) setList({ kind: 'error', message: err instanceof Error ? err.message : 'Could not load the articles.' });
      },
    );
    return () => controller.abort();
  }, []);

  useEffect(() => {
    if (!q.trim()) {
      setSearch({ kind: 'idle' });
      return;
    }
    const controller = new AbortController();
    setSearch({ kind: 'loading' });
    searchKb(q, controller.signal).then(
      (result) => setSearch({ kind: 'loaded', result }),
      (err) => {
        if (!controller.signal.aborted) setSearch({ kind: 'error', message: err instanceof Error ? err.message : 'The search failed.' });
      },
    );
    return () => controller.abort();
  }, [q]);

  return (
    <div className="page">
      <h1>Knowledge base</h1>
      <p className="lead">
        The root causes CrashLab knows, each with its symptoms, how to confirm it and how to fix it. Search for an error
        message, an exit code (<code>0xC0000409</code>, <code>-1073740791</code>) or a library name.
      </p>
      <SearchForm
        q={q}
        path="/kb"
        id="kb-q"
        label="Search the knowledge base"
        placeholder="e.g. zlibwapi.dll, CUDNN_STATUS_NOT_INITIALIZED, 0xC0000409"
        testId="kb-search-input"
      />

      {search.kind === 'loading' && <Loading label="Searching…" />}
      {search.kind === 'error' && <ErrorAlert title="The search failed">{search.message}</ErrorAlert>}
      {search.kind === 'loaded' && (
        <section aria-labelledby="results-heading" className="kb-results">
          <h2 id="results-heading">
            {search.result.hits.length === 0 ? 'No articles match' : `Articles matching “${search.result.query}”`}
          </h2>
          <ol className="kb-hits" data-testid="kb-hits">
            {search.result.hits.map((h) => (
              <li key={h.id} className="kb-hit" data-testid="kb-hit">
                <Link to={`/kb/${encodeURIComponent(h.id)}`} className="kb-hit-title">
                  {h.title}
                </Link>{' '}
                <span className="badge badge-neutral">{categoryLabel(h.category)}</span>
                {h.snippets.map((s, i) => (
                  <p key={i} className="kb-snippet" data-testid="kb-snippet">
                    {snippetParts(s).map((p, j) => (p.marked ? <mark key={j}>{plainText(p.text)}</mark> : <span key={j}>{plainText(p.text)}</span>))}
                  </p>
                ))}
              </li>
            ))}
          </ol>
        </section>
      )}

      <section aria-labelledby="browse-heading" className="kb-browse">
        <h2 id="browse-heading">All articles</h2>
        {list.kind === 'loading' && <Loading label="Loading the articles…" />}
        {list.kind === 'error' && <ErrorAlert title="Could not load the articles">{list.message}</ErrorAlert>}
        {list.kind === 'loaded' &&
          [...CATEGORIES, ...extraCategories(list.list)].map((c) => {
            const articles = list.list.articles.filter((a) => a.category === c.id).sort((a, b) => a.title.localeCompare(b.title));
            if (articles.length === 0) return null;
            return (
              <div key={c.id} className="kb-category" data-testid={`kb-category-${c.id}`}>
                <h3>
                  {c.label} <span className="count">{articles.length}</span>
                </h3>
                <ul>
                  {articles.map((a) => (
                    <li key={a.id}>
                      <Link to={`/kb/${encodeURIComponent(a.id)}`}>{a.title}</Link>
                      {a.platforms.length > 0 && <span className="muted"> ({a.platforms.join(', ')})</span>}
                    </li>
                  ))}
                </ul>
              </div>
            );
          })}
      </section>
    </div>
  );
}

function extraCategories(list: KbList): { id: string; label: string }[] {
  const known = new Set(CATEGORIES.map((c) => c.id));
  return [...new Set(list.articles.map((a) => a.category))].filter((c) => !known.has(c)).map((c) => ({ id: c, label: c }));
}
