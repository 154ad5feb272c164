import { useEffect, useState } from 'react';
import { ConfirmedCrashes } from '../components/ConfirmedCrashes.tsx';
import { ApiError } from '../api.ts';
import { categoryLabel, getKbArticle, type KbArticle, type KbMatcher } from '../diagnosis.ts';
import { plural } from '../format.ts';
import { inline, Markdown } from '../markdown.tsx';
import { Link } from '../router.tsx';
import { ErrorAlert, Loading, useTitle } from '../components/common.tsx';

type State = { kind: 'loading' } | { kind: 'missing' } | { kind: 'error'; message: string } | { kind: 'loaded'; article: KbArticle };

/** One KB article: the body rendered from Markdown, the fixes per platform, and what CrashLab matches on. */
export function KbArticlePage({ id }: { id: string }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  useTitle(state.kind === 'loaded' ? state.article.title : 'Knowledge base');

  useEffect(() => {
    const controller = new AbortController();
    setState({ kind: 'loading' });
    getKbArticle(id, controller.signal).then(
      (article) => setState({ kind: 'loaded', article }),
      (err) => {
        if (controller.signal.aborted) return;
        if (err instanceof ApiError && err.status === 404) setState({ kind: 'missing' });
        else setState({ kind: 'error', message: err instanceof Error ? err.message : 'Could not load the article.' });
      },
    );
    return () => controller.abort();
  }, [id]);

  const crumb = (
    <p className="breadcrumb">
      <Link to="/kb">Knowledge base</Link> <span aria-hidden="true">/</span> <span className="muted">{id}</span>
    </p>
  );
  if (state.kind === 'loading') {
    return (
      <div className="page">
        {crumb}
        <Loading label="Loading the article…" />
      </div>
    );
  }
  if (state.kind === 'missing' || state.kind === 'error') {
    return (
      <div className="page">
        {crumb}
        <h1>{state.kind === 'missing' ? `No article “${id}”` : 'Knowledge base'}</h1>
        {state.kind === 'error' ? (
          <ErrorAlert title="Could not load the article">{state.message}</ErrorAlert>
        ) : (
          <p className="muted">
            The link may be wrong or the article renamed. <Link to="/kb">Browse the knowledge base</Link>.
          </p>
        )}
      </div>
    );
  }
  const a = state.article;
  return (
    <div className="page kb-article">
      {crumb}
      <h1 data-testid="kb-article-title">{a.title}</h1>
      <p className="kb-article-meta">
        <span className="badge badge-neutral">{categoryLabel(a.category)}</span>
        {a.platforms.map((p) => (
          <span key={p} className="badge badge-info">
            {p}
          </span>
        ))}
        <span className="muted mono">{a.id}</span>
      </p>
      <div className="kb-article-layout">
        <article className="kb-body" data-testid="kb-article-body">
          <Markdown source={a.bodyMarkdown} />
        </article>
        <aside className="kb-aside">
          {a.remedies.length > 0 && (
            <section className="panel">
              <h2>Fix</h2>
              {a.remedies.map((r, i) => (
                <div key={i} className="remedy">
                  <h3>{r.platform === 'any' || !r.platform ? 'Any platform' : r.platform}</h3>
                  <ol>
                    {r.steps.map((s, j) => (
                      <li key={j}>{inline(s, `r${i}-${j}`)}</li>
                    ))}
                  </ol>
                </div>
              ))}
            </section>
          )}
          {a.confirm.length > 0 && (
            <section className="panel">
              <h2>Confirm</h2>
              <ul>
                {a.confirm.map((c, i) => (
                  <li key={i}>{inline(c, `c${i}`)}</li>
                ))}
              </ul>
            </section>
          )}
          <ConfirmedCrashes articleId={a.id} />
          {a.references.length > 0 && (
            <section className="panel">
              <h2>References</h2>
              <ul className="kb-refs">
                {a.references.map((r, i) => (
                  <li key={i}>{/^https?:\/\//i.test(r) ? <a href={r} target="_blank" rel="noreferrer">{r}</a> : r}</li>
                ))}
              </ul>
            </section>
          )}
        </aside>
      </div>
      <details className="kb-matchers">
        <summary>How CrashLab recognises it ({plural(a.matchers.length + a.against.length, 'matcher')})</summary>
        <MatcherTable title="Points here" matchers={a.matchers} />
        {a.against.length > 0 && <MatcherTable title="Points away" matchers={a.against} />}
      </details>
    </div>
  );
}

function describe(m: KbMatcher): string {
  if (m.fact) {
    const where = Object.entries(m.where ?? {})
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    return where ? `${m.fact} where ${where}` : m.fact;
  }
  if (m.text) return `text matches ${m.text}`;
  if (m.compat) return `check ${m.compat} is ${m.outcome ?? 'mismatch'}`;
  return m.id;
}

function MatcherTable({ title, matchers }: { title: string; matchers: KbMatcher[] }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th>Matcher</th>
            <th>Condition</th>
            <th>Weight</th>
            <th>Kind</th>
          </tr>
        </thead>
        <tbody>
          {matchers.map((m) => (
            <tr key={m.id}>
              <td className="mono">{m.id}</td>
              <td className="mono">{describe(m)}</td>
              <td>{m.weight}</td>
              <td>{m.specific ? 'specific' : 'consistent'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
