import { useCallback, useEffect, useState } from 'react';
import { ApiError, deleteBundle, getBundle, setPinned, getBundleFacts, getBundleOwnership, readBundleAgain, type BundleOwnership, type Artifact, type Bundle, type SourceRef } from '../api.ts';
import { ArtifactViewer } from '../components/ArtifactViewer.tsx';
import { EnvironmentPanel, type FactsState } from '../components/EnvironmentPanel.tsx';
import { FactsSection } from '../components/FactsSection.tsx';
import { ReproducePanel } from '../components/ReproducePanel.tsx';
import { DiagnosisReport } from '../components/DiagnosisReport.tsx';
import { SimilarCrashes } from '../components/SimilarCrashes.tsx';
import { ResolutionPanel } from '../components/ResolutionPanel.tsx';
import type { SourceJump } from '../components/SourceLink.tsx';
import { ErrorAlert, Hash, Loading, ProblemText, StatusBadge, Time, useTitle } from '../components/common.tsx';
import { formatBytes, plural, pluralForm } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import { useCan } from '../session.ts';
import { SameFilesNote } from '../components/SameFilesNote.tsx';

type State =
  | { kind: 'loading' }
  | { kind: 'missing' }
  | { kind: 'error'; message: string }
  | { kind: 'loaded'; bundle: Bundle };

export function BundlePage({ id, query }: { id: string; query: URLSearchParams }) {
  const triager = useCan('triager');
  const reporter = useCan('reporter');
  // who uploaded it, and whether we may delete it (reporters: only their own; the server checks again on delete)
  const [ownership, setOwnership] = useState<BundleOwnership | null>(null);
  const mayDelete = (triager || reporter) && ownership?.mayDelete === true;
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [deleting, setDeleting] = useState(false);
  const [pinning, setPinning] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const [retrying, setRetrying] = useState(false);
  const [retryError, setRetryError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [facts, setFacts] = useState<FactsState>({ kind: 'loading' });
  const [factsReload, setFactsReload] = useState(0);
  const [jumps, setJumps] = useState(0);
  const [prefill, setPrefill] = useState<{ articleId: string; nonce: number } | null>(null);
  // a confirmed cause or a finished reproduction changes the diagnosis and the similar crashes: show them again
  const [refreshes, setRefreshes] = useState(0);
  const [confirmedFirst, setConfirmedFirst] = useState(false);
  const refresh = useCallback(() => setRefreshes((n) => n + 1), []);
  const validId = /^\d+$/.test(id);

  useTitle(state.kind === 'loaded' ? state.bundle.displayName : `Bundle ${id}`);

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

  useEffect(() => {
    setOwnership(null);
    if (!validId) return;
    const controller = new AbortController();
    getBundleOwnership(id, controller.signal).then(setOwnership, () => setOwnership(null));
    return () => controller.abort();
  }, [id, validId, triager, reporter]);

  // an upload is read in the background: poll the bundle until it is ready, then show what it says (no reload)
  const processing = state.kind === 'loaded' && state.bundle.status === 'PROCESSING';
  // reading failed before anything was stored: there are no facts or diagnosis to show, only the reason
  const neverRead =
    state.kind === 'loaded' && state.bundle.progress?.readerVersion == null && state.bundle.status !== 'READY';
  const firstRead = processing && neverRead;
  // the files are read and their facts stored: only the diagnosis is still being worked out
  const diagnosing =
    processing && !firstRead && state.kind === 'loaded' && state.bundle.progress.artifactsRead >= state.bundle.progress.artifacts;
  const [polls, setPolls] = useState(0);
  useEffect(() => {
    if (!processing) return;
    const timer = window.setTimeout(() => {
      getBundle(id).then(
        (bundle) => {
          setState({ kind: 'loaded', bundle });
          if (bundle.status !== 'PROCESSING') {
            refresh();
            setFactsReload((n) => n + 1);
          }
        },
        () => setPolls((n) => n + 1), // try again on the next tick
      );
    }, 1000);
    return () => window.clearTimeout(timer);
  }, [id, processing, state, polls, refresh]);

  // facts are stored at ingest; loaded beside the bundle, not before it, once the first reading is done
  useEffect(() => {
    if (!validId || neverRead) return;
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
  }, [id, validId, reload, factsReload, neverRead]);

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
      // pushed, not replaced: Back returns to the report where the link was
      navigate(to);
      setJumps((n) => n + 1);
    },
  };

  function select(artifact: Artifact) {
    const next = selected?.id === artifact.id ? '' : `?artifact=${artifact.id}`;
    navigate(`/bundles/${bundle.id}${next}`, { replace: true });
  }

  async function onPin() {
    setPinning(true);
    setDeleteError(null);
    try {
      await setPinned(bundle.id, !bundle.pinned);
      setReload((n) => n + 1);
    } catch (err) {
      setDeleteError(err instanceof Error ? err.message : 'Could not change the pin.');
    } finally {
      setPinning(false);
    }
  }

  async function onReadAgain() {
    setRetrying(true);
    setRetryError(null);
    try {
      const again = await readBundleAgain(bundle.id);
      setState({ kind: 'loaded', bundle: again }); // PROCESSING: the page polls until it is done
    } catch (err) {
      setRetryError(err instanceof Error ? err.message : 'Could not start reading the bundle again.');
    } finally {
      setRetrying(false);
    }
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
        <div className="bundle-title">
          {/* the name the list shows (a collector's crash-bundle-<date>.zip named by its error, framework and machine) */}
          <h1 className="bundle-name" data-testid="bundle-name" title={bundle.displayName !== bundle.name ? bundle.name : undefined}>
            {bundle.displayName}
          </h1>
          {!bundle.displayName.startsWith(bundle.name) && (
            <p className="muted bundle-file-name" data-testid="bundle-file-name">
              {bundle.name}
            </p>
          )}
        </div>
        {triager && (
          <button
            type="button"
            className="btn btn-secondary"
            onClick={onPin}
            disabled={pinning}
            data-testid="pin-button"
            aria-pressed={bundle.pinned ? 'true' : 'false'}
            title={bundle.pinned ? 'Retention may delete it again once it is old enough' : 'Retention keeps a pinned bundle whatever its age'}
          >
            {bundle.pinned ? 'Unpin' : 'Pin'}
          </button>
        )}
        {mayDelete && (
          <button type="button" className="btn btn-danger" onClick={onDelete} disabled={deleting}>
            {deleting ? 'Deleting…' : 'Delete'}
          </button>
        )}
      </div>
      {deleteError && <ErrorAlert title="That did not work">{deleteError}</ErrorAlert>}
      <SameFilesNote same={bundle.sameFilesAs} />
      {bundle.pinned && (
        <p className="muted" data-testid="pinned-note">
          Pinned: retention keeps this bundle whatever its age.
        </p>
      )}

      <dl className="meta">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={bundle.status} />
          </dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd title={plural(bundle.size, 'byte')}>{formatBytes(bundle.size)}</dd>
        </div>
        <div>
          <dt>Uploaded</dt>
          <dd>
            <Time iso={bundle.uploadedAt} seconds />
          </dd>
        </div>
        {ownership?.uploadedBy && (
          <div>
            <dt>Uploaded by</dt>
            <dd data-testid="uploaded-by">{ownership.uploadedBy}</dd>
          </div>
        )}
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

      {processing && (
        <div className="alert alert-info" role="status" aria-live="polite" data-testid="bundle-progress">
          <span className="spinner" aria-hidden="true" />
          <div className="alert-body">
            <p className="alert-title">
              {firstRead ? 'Reading this bundle' : diagnosing ? 'Diagnosing this bundle' : 'Reading this bundle again'}
            </p>
            <p className="alert-detail">
              {diagnosing
                ? `${pluralForm(bundle.progress.artifacts, 'The file is read', `All ${plural(bundle.progress.artifacts, 'file')} read`)}; working out the likely causes.`
                : pluralForm(bundle.progress.artifacts, 'Reading its one file now.', `${bundle.progress.artifactsRead} of ${plural(bundle.progress.artifacts, 'file')} read so far.`)}{' '}
              {firstRead || diagnosing
                ? 'The diagnosis appears here when it is done.'
                : 'What is shown below is from the earlier reading until then.'}
            </p>
          </div>
        </div>
      )}
      {bundle.status === 'FAILED' && (
        <div data-testid="bundle-read-error">
          <ErrorAlert title="Reading this bundle failed">
            {bundle.readError ?? 'The reason was not recorded.'}{' '}
            {bundle.progress.readerVersion != null
              ? 'What is shown below is from an earlier reading.'
              : 'Its files are kept; nothing was read from them yet.'}
          </ErrorAlert>
          {(triager || reporter) && (
            <button type="button" className="btn btn-secondary" onClick={onReadAgain} disabled={retrying}>
              {retrying ? 'Starting…' : 'Read it again'}
            </button>
          )}
          {retryError && <ErrorAlert title="Could not read it again">{retryError}</ErrorAlert>}
        </div>
      )}
      {bundle.budgetNotes?.length > 0 && (
        <div className="alert alert-warn" data-testid="budget-notes">
          <div className="alert-body">
            <p className="alert-title">Not everything was read</p>
            {bundle.budgetNotes.map((n) => (
              <p key={n} className="alert-detail">
                <ProblemText>{n}</ProblemText>
              </p>
            ))}
          </div>
        </div>
      )}

      {!neverRead && (
        <>
          {/* the confirm box sits below the diagnosis; once a cause is confirmed it moves above it (CSS order: the
              panel keeps its state) */}
          <div className="report-stack">
            <DiagnosisReport
              key={`diagnosis-${refreshes}`}
              bundleId={bundle.id}
              jump={jump}
              artifacts={bundle.artifacts}
              onThisWasIt={triager ? (articleId) => setPrefill((p) => ({ articleId, nonce: (p?.nonce ?? 0) + 1 })) : undefined}
            />
            <div className={confirmedFirst ? 'report-stack-first' : undefined}>
              <ResolutionPanel bundleId={bundle.id} onChange={refresh} prefill={prefill} onConfirmedChange={setConfirmedFirst} />
            </div>
          </div>

          <SimilarCrashes key={`similar-${refreshes}`} bundleId={bundle.id} />

          <EnvironmentPanel state={facts} jump={jump} onRetry={() => setFactsReload((n) => n + 1)} />
        </>
      )}

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
                      <td className="num" title={plural(a.size, 'byte')}>
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

      {!neverRead && (
        <>
          <FactsSection state={facts} artifacts={bundle.artifacts} jump={jump} />

          <ReproducePanel bundleId={bundle.id} onJobFinished={refresh} />
        </>
      )}
    </div>
  );
}
