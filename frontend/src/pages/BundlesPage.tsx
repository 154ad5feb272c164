import { useEffect, useState } from 'react';
import { listBundles, type BundlePage } from '../api.ts';
import { ErrorAlert, Loading, StatusBadge, Time, useTitle } from '../components/common.tsx';
import { formatBytes } from '../format.ts';
import { Link, navigate } from '../router.tsx';

const PAGE_SIZE = 20;

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; data: BundlePage };

export function BundlesPage({ query }: { query: URLSearchParams }) {
  useTitle('Bundles');
  const raw = Number.parseInt(query.get('page') ?? '1', 10);
  const pageNumber = Number.isFinite(raw) && raw >= 1 ? raw : 1; // 1-based in the URL, 0-based in the API
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
          <p className="muted">Upload the logs of a crashed GPU job to get a diagnosis.</p>
          <Link to="/" className="btn btn-primary">
            Upload a bundle
          </Link>
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
                        <Link to={`/bundles/${b.id}`}>{b.name}</Link>
                      </td>
                      <td className="nowrap">
                        <Time iso={b.uploadedAt} />
                      </td>
                      <td className="num" title={`${b.size.toLocaleString()} bytes`}>
                        {formatBytes(b.size)}
                      </td>
                      <td className="num" data-suffix={b.artifactCount === 1 ? 'artifact' : 'artifacts'}>
                        {b.artifactCount}
                      </td>
                      <td>
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
        <Link to="/" className="btn btn-primary">
          Upload
        </Link>
      </div>
      {body}
    </div>
  );
}
