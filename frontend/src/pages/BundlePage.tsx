import { useCallback, useEffect, useState } from 'react';
import { ApiError, deleteBundle, getBundle, getBundleFacts, type Artifact, type Bundle, type SourceRef } from '../api.ts';
import { ArtifactViewer } from '../components/ArtifactViewer.tsx';
import { EnvironmentPanel, type FactsState } from '../components/EnvironmentPanel.tsx';
import { FactsSection } from '../components/FactsSection.tsx';
import { ReproducePanel } from '../components/ReproducePanel.tsx';
import { DiagnosisReport } from '../components/DiagnosisReport.tsx';
import { SimilarCrashes } from '../components/SimilarCrashes.tsx';
import { ResolutionPanel } from '../components/ResolutionPanel.tsx';
import type { SourceJump } from '../components/SourceLink.tsx';
import { ErrorAlert, Hash, Loading, StatusBadge, Time, useTitle } from '../components/common.tsx';
import { formatBytes, plural } from '../format.ts';
import { Link, navigate } from '../router.tsx';

type State =
  | { kind: 'loading' }
  | { kind: 'missing' }
  | { kind: 'error'; message: string }
  | { kind: 'loaded'; bundle: Bundle };

export function BundlePage({ id, query }: { id: string; query: URLSearchParams }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [facts, setFacts] = useState<FactsState>({ kind: 'loading' });
  const [factsReload, setFactsReload] = useState(0);
  const [jumps, setJumps] = useState(0);
  // a confirmed cause or a finished reproduction changes the diagnosis and the similar crashes: show them again
  const [refreshes, setRefreshes] = useState(0);
  const refresh = useCallback(() => setRefreshes((n) => n + 1), []);
  const validId = /^\d+$/.test(id);

  useTitle(state.kind === 'loaded' ? state.bundle.name : `Bundle ${id}`);

  useEffect(() => {
    if (!validId) {
      setState({ kind: 'missing' });
      return;
    }
    const controller = new AbortController();
    setState({ kind: 'loading' });
    getBundle(id, controller.signal).then(
      (bundle) => setState({ kind: 'loaded', bundle }),
      (err) => {
        if (controller.signal.aborted) return;
        if (err instanceof ApiError && err.status === 404) setState({ kind: 'missing' });
        else setState({ kind: 'error', message: err instanceof Error ? err.message : 'Could not load the bundle.' });
      },
    );
    return () => controller.abort();
  }, [id, validId, reload]);

  // facts are parsed on request, which can take a while for big bundles: loaded beside the bundle, not before it
  useEffect(() => {
    if (!validId) return;
    const controller = new AbortController();
    setFacts({ kind: 'loading' });
    getBundleFacts(id, controller.signal).then(
      (f) => setFacts({ kind: 'loaded', facts: f }),
      (err) => {
        if (controller.signal.aborted) return;
        setFacts({ kind: 'error', message: err instanceof Error ? err.message : 'Could not read the facts.' });
      },
    );
    return () => controller.abort();
  }, [id, validId, reload, factsReload]);

  if (state.kind === 'loading') {
    return (
      <div className="page">
        <Loading label={`Loading bundle ${id}…`} />
      </div>
    );
  }
  if (state.kind === 'missing') {
    return (
      <div className="page">
        <div className="empty-state">
          <h1>No bundle {id}</h1>
          <p className="muted">It may have been deleted, or the link is wrong.</p>
          <p>
            <Link to="/bundles">Browse bundles</Link> or <Link to="/">upload a new one</Link>.
          </p>
        </div>
      </div>
    );
  }
  if (state.kind === 'error') {
    return (
      <div className="page">
        <h1>Bundle {id}</h1>
        <ErrorAlert title="Could not load the bundle">{state.message}</ErrorAlert>
        <button type="button" className="btn btn-secondary" onClick={() => setReload((n) => n + 1)}>
          Try again
        </button>
      </div>
    );
  }

  const bundle = state.bundle;
  const selectedId = Number(query.get('artifact'));
  const selected: Artifact | undefined = bundle.artifacts.find((a) => a.id === selectedId);
  const lineParam = Number(query.get('line'));
  const highlightLine = selected && Number.isInteger(lineParam) && lineParam > 0 ? lineParam : undefined;
  const byPath = new Map(bundle.artifacts.map((a) => [a.path, a]));

  function sourceHref(source: SourceRef): string | null {
    const a = byPath.get(source.artifact);
    return a ? `/bundles/${bundle.id}?artifact=${a.id}&line=${source.line}` : null;
  }
  const jump: SourceJump = {
    href: sourceHref,
    go(source) {
      const to = sourceHref(source);
      if (!to) return;
      navigate(to, { replace: true });
      setJumps((n) => n + 1);
    },
  };

  function select(artifact: Artifact) {
    const next = selected?.id === artifact.id ? '' : `?artifact=${artifact.id}`;
    navigate(`/bundles/${bundle.id}${next}`, { replace: true });
  }

  async function onDelete() {
    const what = `Delete bundle "${bundle.name}" and its ${plural(bundle.artifacts.length, 'artifact')}? This cannot be undone.`;
    if (!window.confirm(what)) return;
    setDeleting(true);
    setDeleteError(null);
    try {
      await deleteBundle(bundle.id);
      navigate('/bundles');
    } catch (err) {
      setDeleting(false);
      setDeleteError(err instanceof Error ? err.message : 'Could not delete the bundle.');
    }
  }

  return (
    <div className="page">
      <p className="breadcrumb">
        <Link to="/bundles">Bundles</Link> <span aria-hidden="true">/</span> <span className="muted">#{bundle.id}</span>
      </p>
      <div className="page-head">
        <h1 className="bundle-name" data-testid="bundle-name">
          {bundle.name}
        </h1>
        <button type="button" className="btn btn-danger" onClick={onDelete} disabled={deleting}>
          {deleting ? 'Deleting…' : 'Delete'}
        </button>
      </div>
      {deleteError && <ErrorAlert title="Delete failed">{deleteError}</ErrorAlert>}

      <dl className="meta">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={bundle.status} />
          </dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd title={`${bundle.size.toLocaleString()} bytes`}>{formatBytes(bundle.size)}</dd>
        </div>
        <div>
          <dt>Uploaded</dt>
          <dd>
            <Time iso={bundle.uploadedAt} seconds />
          </dd>
        </div>
        <div>
          <dt>SHA-256</dt>
          <dd>
            <Hash value={bundle.sha256} />
          </dd>
        </div>
      </dl>
      {bundle.notes && <p className="notes">{bundle.notes}</p>}
      {bundle.redactions && Object.keys(bundle.redactions).length > 0 && (
        <p className="hint muted" data-testid="redactions">
          Secrets removed at upload:{' '}
          {Object.entries(bundle.redactions)
            .map(([kind, count]) => `${count} ${kind}`)
            .join(', ')}
          . They read <code>&lt;redacted:kind&gt;</code> in the files.
        </p>
      )}

      <ResolutionPanel bundleId={bundle.id} onChange={refresh} />

      <DiagnosisReport key={`diagnosis-${refreshes}`} bundleId={bundle.id} jump={jump} />

      <SimilarCrashes key={`similar-${refreshes}`} bundleId={bundle.id} />

      <EnvironmentPanel state={facts} jump={jump} onRetry={() => setFactsReload((n) => n + 1)} />

      <section aria-labelledby="artifacts-heading">
        <h2 id="artifacts-heading">
          Artifacts <span className="count">{bundle.artifacts.length}</span>
        </h2>
        {bundle.artifacts.length === 0 ? (
          <p className="empty-inline muted">This bundle has no artifacts.</p>
        ) : (
          <div className="table-wrap">
            <table className="table stack artifacts" data-testid="artifacts">
              <thead>
                <tr>
                  <th scope="col">Path</th>
                  <th scope="col">Type</th>
                  <th scope="col" className="num">
                    Size
                  </th>
                  <th scope="col">Parse status</th>
                </tr>
              </thead>
              <tbody>
                {bundle.artifacts.map((a) => {
                  const isSelected = a.id === selected?.id;
                  return (
                    <tr
                      key={a.id}
                      data-testid="artifact-row"
                      className={isSelected ? 'selected clickable' : 'clickable'}
                      onClick={() => select(a)}
                    >
                      <td className="path-cell">
                        <button
                          type="button"
                          className="link-button mono"
                          aria-pressed={isSelected}
                          aria-controls="artifact-viewer"
                          onClick={(e) => {
                            e.stopPropagation();
                            select(a);
                          }}
                        >
                          {a.path}
                        </button>
                      </td>
                      <td>
                        <span title={a.type}>{a.typeLabel || a.type}</span>
                      </td>
                      <td className="num" title={`${a.size.toLocaleString()} bytes`}>
                        {formatBytes(a.size)}
                      </td>
                      <td>
                        <StatusBadge status={a.parseStatus} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {selected ? (
        <ArtifactViewer
          key={selected.id}
          bundleId={bundle.id}
          artifact={selected}
          onClose={() => select(selected)}
          highlightLine={highlightLine}
          scrollKey={jumps}
        />
      ) : (
        bundle.artifacts.length > 0 && <p className="hint muted">Select an artifact to view its content.</p>
      )}

      <FactsSection state={facts} artifacts={bundle.artifacts} jump={jump} />

      <ReproducePanel bundleId={bundle.id} onJobFinished={refresh} />
    </div>
  );
}
