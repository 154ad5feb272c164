import { useEffect, useState } from 'react';
import { SearchForm } from '../components/SearchForm.tsx';
import { listBundles, type BundlePage } from '../api.ts';
import { CRASH_PAGE_SIZE, exportUrl, getQueryFields, searchCrashes, type CrashSearch, type QueryField } from '../crashes.ts';
import { snippetParts } from '../diagnosis.ts';
import { ErrorAlert, Loading, StatusBadge, Time, useTitle } from '../components/common.tsx';
import { exitLabel, formatBytes, plural, pluralForm } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import { TrendsPanel } from '../components/TrendsChart.tsx';
import { useCan } from '../session.ts';

const PAGE_SIZE = 20;

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; data: BundlePage };

export function BundlesPage({ query }: { query: URLSearchParams }) {
  const q = (query.get('q') ?? '').trim();
  const raw = Number.parseInt(query.get('page') ?? '1', 10);
  const pageNumber = Number.isFinite(raw) && raw >= 1 ? raw : 1; // 1-based in the URL, 0-based in the API
  return q ? <CrashSearchPage q={q} pageNumber={pageNumber} /> : <BundleList pageNumber={pageNumber} />;
}

const FACET_NAMES: Record<string, string> = {
  cause: 'Cause',
  gpu: 'GPU',
  driver: 'Driver',
  cuda: 'CUDA',
  framework: 'Framework',
  os: 'OS',
  exit: 'Exit code',
};

/** Searches past crashes: what their files said, their likely causes, exit codes and libraries. */
function CrashSearchForm({ q }: { q: string }) {
  const [fields, setFields] = useState<QueryField[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    getQueryFields(controller.signal).then(setFields, () => setFields([]));
    return () => controller.abort();
  }, []);
  return (
    <>
      <SearchForm
        q={q}
        path="/bundles"
        id="crash-q"
        label="Search past crashes"
        placeholder='Search past crashes: exit:0xC0000409 gpu:"RTX 3090" driver:<470 -os:linux, or any words'
        testId="crash-search-input"
      />
      {fields.length > 0 && (
        <p className="muted query-help" data-testid="query-fields">
          Fields:{' '}
          {fields.slice(0, 12).map((f) => (
            <span key={f.name}>
              <Link to={`/bundles?q=${encodeURIComponent(q ? `${q} ${f.example}` : f.example)}`} title={`add ${f.example}`}>
                <code>{f.example}</code>
              </Link>{' '}
            </span>
          ))}
          · <code>-</code> leaves out, <code>OR</code> and <code>( )</code> combine
        </p>
      )}
    </>
  );
}

type SearchState = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; result: CrashSearch };

function CrashSearchPage({ q, pageNumber }: { q: string; pageNumber: number }) {
  useTitle(`Crashes matching ${q}`);
  const [state, setState] = useState<SearchState>({ kind: 'loading' });
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setState({ kind: 'loading' });
    searchCrashes(q, pageNumber - 1, controller.signal).then(
      (result) => setState({ kind: 'loaded', result }),
      (err) => {
        if (!controller.signal.aborted) {
          setState({ kind: 'error', message: err instanceof Error ? err.message : 'The search failed.' });
        }
      },
    );
    return () => controller.abort();
  }, [q, pageNumber, reload]);

  function goTo(page: number) {
    navigate(`/bundles?q=${encodeURIComponent(q)}${page > 1 ? `&page=${page}` : ''}`);
  }

  let body;
  if (state.kind === 'loading') {
    body = <Loading label="Searching…" />;
  } else if (state.kind === 'error') {
    body = (
      <>
        <ErrorAlert title="The search failed">{state.message}</ErrorAlert>
        <button type="button" className="btn btn-secondary" onClick={() => setReload((n) => n + 1)}>
          Try again
        </button>
      </>
    );
  } else {
    const { hits, total } = state.result;
    const pages = Math.max(1, Math.ceil(Math.min(total, 1000 + CRASH_PAGE_SIZE) / CRASH_PAGE_SIZE));
    body = (
      <section aria-labelledby="crash-results-heading">
        <h2 id="crash-results-heading" data-testid="crash-results-heading" data-total={total}>
          {total === 0 ? `No crash matches “${q}”` : `${plural(total, 'crash matches', 'crashes match')} “${q}”`}
        </h2>
        {total === 0 && (
          <p className="muted">
            Every word must appear in a bundle's diagnosis or its error lines. Try fewer words, an exit code or a library
            name, or <Link to={`/kb?q=${encodeURIComponent(q)}`}>search the knowledge base</Link>.
          </p>
        )}
        {state.result.notes.map((n) => (
          <p key={n} className="muted" data-testid="query-note">
            {n}
          </p>
        ))}
        {total > 0 && (
          <p className="export-links" data-testid="export-links">
            Download {plural(total, 'crash', 'crashes')} as{' '}
            <a href={exportUrl(q, 'csv')} download data-testid="export-csv">
              CSV
            </a>{' '}
            or{' '}
            <a href={exportUrl(q, 'json')} download data-testid="export-json">
              JSON
            </a>
          </p>
        )}
        <div className="crash-results">
        <aside className="facets" aria-label="Narrow the results" data-testid="facets">
          {Object.entries(state.result.facets).map(([dim, values]) =>
            values.length === 0 ? null : (
              <section key={dim} className="facet" data-testid={`facet-${dim}`}>
                <h3>{FACET_NAMES[dim] ?? dim}</h3>
                <ul>
                  {values.map((v) => (
                    <li key={v.filter}>
                      <Link
                        to={`/bundles?q=${encodeURIComponent(`${q} ${v.filter}`)}`}
                        data-testid="facet-value"
                        data-filter={v.filter}
                        title={`add ${v.filter}`}
                      >
                        {dim === 'exit' ? exitLabel(v.value) : v.value}
                      </Link>{' '}
                      <span className="count">{v.count.toLocaleString()}</span>
                    </li>
                  ))}
                </ul>
              </section>
            ),
          )}
        </aside>
        <ol className="crash-hits" start={(pageNumber - 1) * CRASH_PAGE_SIZE + 1} data-testid="crash-hits">
          {hits.map((h) => (
            <li key={h.bundleId} className="crash-hit" data-testid="crash-hit">
              <Link to={`/bundles/${h.bundleId}`} className="crash-hit-title">
                {h.name}
              </Link>
              <span className="muted">
                {' '}
                · <Time iso={h.uploadedAt} />
              </span>
              {h.likelyCause && (
                <div className={h.likelyCause.confirmed ? 'similar-cause cause-confirmed' : 'similar-cause'}>
                  {h.likelyCause.confirmed ? 'Confirmed cause: ' : h.likelyCause.weak ? 'Weak evidence, best guess: ' : 'Likely cause: '}
                  <Link to={`/kb/${encodeURIComponent(h.likelyCause.id)}`}>{h.likelyCause.title}</Link>
                </div>
              )}
              {(h.gpu || h.framework || h.group) && (
                <div className="muted crash-hit-setting">
                  {[h.gpu, h.framework].filter(Boolean).join(' · ')}
                  {h.group && (
                    <>
                      {' · '}
                      <Link to={`/groups/${h.group}`}>group {h.group}</Link>
                    </>
                  )}
                </div>
              )}
              {h.snippets.map((s, i) => (
                <p key={i} className="kb-snippet" data-testid="crash-snippet">
                  {snippetParts(s).map((p, j) => (p.marked ? <mark key={j}>{p.text}</mark> : <span key={j}>{p.text}</span>))}
                </p>
              ))}
            </li>
          ))}
        </ol>
        </div>
        {pages > 1 && (
          <nav className="pager" aria-label="Pages">
            <button type="button" className="btn btn-secondary" onClick={() => goTo(pageNumber - 1)} disabled={pageNumber <= 1}>
              ← Previous
            </button>
            <span className="pager-info muted">
              page {pageNumber} of {pages}
            </span>
            <button type="button" className="btn btn-secondary" onClick={() => goTo(pageNumber + 1)} disabled={pageNumber >= pages}>
              Next →
            </button>
          </nav>
        )}
      </section>
    );
  }

  return (
    <div className="page">
      <div className="page-head">
        <h1>Past crashes</h1>
        <Link to="/bundles" className="btn btn-secondary">
          All bundles
        </Link>
      </div>
      <CrashSearchForm q={q} />
      {body}
    </div>
  );
}

function BundleList({ pageNumber }: { pageNumber: number }) {
  const mayUpload = useCan('reporter');
  useTitle('Bundles');
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setState((s) => (s.kind === 'loaded' ? s : { kind: 'loading' }));
    listBundles(pageNumber - 1, PAGE_SIZE, controller.signal).then(
      (data) => setState({ kind: 'loaded', data }),
      (err) => {
        if (!controller.signal.aborted) {
          setState({ kind: 'error', message: err instanceof Error ? err.message : 'Could not load the bundles.' });
        }
      },
    );
    return () => controller.abort();
  }, [pageNumber, reload]);

  function goTo(page: number) {
    navigate(page <= 1 ? '/bundles' : `/bundles?page=${page}`);
  }

  let body;
  if (state.kind === 'loading') {
    body = <Loading label="Loading bundles…" />;
  } else if (state.kind === 'error') {
    body = (
      <>
        <ErrorAlert title="Could not load the bundles">{state.message}</ErrorAlert>
        <button type="button" className="btn btn-secondary" onClick={() => setReload((n) => n + 1)}>
          Try again
        </button>
      </>
    );
  } else {
    const { items, total, size } = state.data;
    const pageSize = size > 0 ? size : PAGE_SIZE;
    const pages = Math.max(1, Math.ceil(total / pageSize));
    const first = (pageNumber - 1) * pageSize + 1;
    const last = first + items.length - 1;
    if (total === 0) {
      body = (
        <div className="empty-state" data-testid="bundles-empty">
          <p className="empty-title">No bundles yet</p>
          {mayUpload ? (
            <>
              <p className="muted">Upload the logs of a crashed GPU job to get a diagnosis.</p>
              <Link to="/" className="btn btn-primary">
                Upload a bundle
              </Link>
            </>
          ) : (
            <p className="muted">Bundles appear here once a reporter uploads the logs of a crashed GPU job.</p>
          )}
        </div>
      );
    } else {
      body = (
        <>
          {items.length === 0 ? (
            <p className="empty-inline muted">
              Page {pageNumber} is empty. <Link to="/bundles">Back to the first page</Link>.
            </p>
          ) : (
            <div className="table-wrap">
              <table className="table stack" data-testid="bundles">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Cause</th>
                    <th scope="col">Setting</th>
                    <th scope="col">Uploaded</th>
                    <th scope="col" className="num">
                      Size
                    </th>
                    <th scope="col" className="num">
                      Artifacts
                    </th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((b) => (
                    <tr key={b.id} data-testid="bundle-row">
                      <td className="name-cell">
                        <Link to={`/bundles/${b.id}`} title={b.displayName && b.displayName !== b.name ? b.name : undefined} data-testid="bundle-row-name">
                          {b.displayName ?? b.name}
                        </Link>
                        {b.displayName && !b.displayName.startsWith(b.name) && (
                          <div className="muted bundle-file-name" data-testid="bundle-row-file">{b.name}</div>
                        )}
                        {b.pinned && (
                          <span className="badge badge-neutral bundle-pinned" title="Retention keeps it whatever its age" data-testid="bundle-row-pinned">
                            pinned
                          </span>
                        )}
                      </td>
                      <td data-testid="bundle-row-cause">
                        {b.likelyCause ? (
                          <span className={b.likelyCause.confirmed ? 'cause-confirmed' : b.likelyCause.weak ? 'cause-weak' : undefined}
                            data-weak={b.likelyCause.weak ? 'true' : undefined}>
                            {b.likelyCause.weak && !b.likelyCause.confirmed && (
                              <span className="badge badge-warn" title="Weak evidence: the best guess among causes this bundle cannot tell apart">
                                weak
                              </span>
                            )}{' '}
                            <Link to={`/kb/${encodeURIComponent(b.likelyCause.id)}`}>{b.likelyCause.title}</Link>
                            {b.likelyCause.confirmed ? ' (confirmed)' : b.likelyCause.weak ? '?' : ''}
                          </span>
                        ) : (
                          <span className="muted">{b.status === 'READY' ? 'no likely cause' : '—'}</span>
                        )}
                        {b.group && (
                          <div className="muted">
                            <Link to={`/groups/${b.group}`} data-testid="bundle-row-group">
                              group {b.group}
                            </Link>
                          </div>
                        )}
                      </td>
                      <td data-testid="bundle-row-setting">
                        {[b.gpu, b.framework].filter(Boolean).join(' · ') || <span className="muted">—</span>}
                      </td>
                      <td className="nowrap">
                        <Time iso={b.uploadedAt} />
                      </td>
                      <td className="num" title={plural(b.size, 'byte')}>
                        {formatBytes(b.size)}
                      </td>
                      <td className="num" data-suffix={pluralForm(b.artifactCount, 'artifact')}>
                        {b.artifactCount}
                      </td>
                      <td data-testid="bundle-row-status" data-status={b.status}>
                        <StatusBadge status={b.status} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <nav className="pager" aria-label="Pages">
            <button type="button" className="btn btn-secondary" onClick={() => goTo(pageNumber - 1)} disabled={pageNumber <= 1}>
              ← Previous
            </button>
            <span className="pager-info muted">
              {items.length > 0 ? (
                <>
                  {first}–{last} of {total.toLocaleString()} · page {pageNumber} of {pages}
                </>
              ) : (
                <>page {pageNumber} of {pages}</>
              )}
            </span>
            <button type="button" className="btn btn-secondary" onClick={() => goTo(pageNumber + 1)} disabled={pageNumber >= pages}>
              Next →
            </button>
          </nav>
        </>
      );
    }
  }

  const total = state.kind === 'loaded' ? state.data.total : null;
  return (
    <div className="page">
      <div className="page-head">
        <h1>
          Bundles{' '}
          {total !== null && (
            <span className="count" data-testid="bundles-total" data-total={total}>
              {total.toLocaleString()}
            </span>
          )}
        </h1>
        {mayUpload && (
          <Link to="/" className="btn btn-primary">
            Upload
          </Link>
        )}
      </div>
      {total !== 0 && <CrashSearchForm q="" />}
      {total !== 0 && pageNumber === 1 && <TrendsPanel />}
      {body}
    </div>
  );
}
