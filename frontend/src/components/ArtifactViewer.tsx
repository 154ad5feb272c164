import { useEffect, useMemo, useRef, useState } from 'react';
import { artifactContentUrl, getArtifactContent, type Artifact, type ArtifactContent } from '../api.ts';
import { formatBytes, plural } from '../format.ts';
import { ErrorAlert, Loading } from './common.tsx';
import { EventRecordView } from './EventRecordView.tsx';
import { navigate } from '../router.tsx';

/** Larger artifacts are offered for download instead of being loaded into the page. */
const MAX_PREVIEW_BYTES = 8 * 1024 * 1024;
/** Lines rendered at most; the rest is one click away as a download. */
const MAX_LINES = 20_000;

type State =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | { kind: 'loaded'; content: ArtifactContent };

function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i >= 0 ? path.slice(i + 1) : path;
}

export function ArtifactViewer({
  bundleId,
  artifact,
  onClose,
  highlightLine,
  scrollKey = 0,
}: {
  bundleId: number;
  artifact: Artifact;
  onClose: () => void;
  /** A 1-based line to highlight and scroll to once the content is shown. */
  highlightLine?: number;
  /** Changes when the same line is asked for again, to scroll to it again. */
  scrollKey?: number;
}) {
  // a Windows event log is binary: one record at a time is read on the server, never the whole file here
  const eventLog = artifact.type === 'EVTX';
  const tooLarge = !eventLog && artifact.size > MAX_PREVIEW_BYTES;
  const [state, setState] = useState<State>({ kind: 'loading' });
  // on a phone lines wrap from the start: a log line wider than the screen is read, not scrolled sideways
  const [wrap, setWrap] = useState(() => typeof window !== 'undefined' && window.matchMedia?.('(max-width: 520px)').matches === true);
  const panel = useRef<HTMLElement>(null);
  const highlighted = useRef<HTMLSpanElement>(null);
  const url = artifactContentUrl(bundleId, artifact.id);
  const target = highlightLine !== undefined && Number.isInteger(highlightLine) && highlightLine > 0 ? highlightLine : null;

  useEffect(() => {
    // a line to show scrolls itself into view once loaded (below); otherwise bring the panel into view
    if (target === null) panel.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, []);

  useEffect(() => {
    if (tooLarge || eventLog) return;
    const controller = new AbortController();
    getArtifactContent(bundleId, artifact.id, controller.signal).then(
      (content) => setState({ kind: 'loaded', content }),
      (err) => {
        if (!controller.signal.aborted) {
          setState({ kind: 'error', message: err instanceof Error ? err.message : 'Could not load the content.' });
        }
      },
    );
    return () => controller.abort();
  }, [bundleId, artifact.id, tooLarge, eventLog]);

  const lines = useMemo(() => {
    if (state.kind !== 'loaded' || state.content.kind !== 'text') return null;
    const all = state.content.text.replace(/\r\n?/g, '\n').split('\n');
    if (all.length > 1 && all[all.length - 1] === '') all.pop();
    return { shown: all.slice(0, MAX_LINES), total: all.length };
  }, [state]);

  useEffect(() => {
    if (target === null || !lines) return;
    if (highlighted.current) highlighted.current.scrollIntoView({ block: 'center' });
    else panel.current?.scrollIntoView({ block: 'nearest' });
  }, [target, lines, scrollKey]);

  useEffect(() => {
    if (eventLog && target !== null) panel.current?.scrollIntoView({ block: 'start' });
  }, [eventLog, target, scrollKey]);

  const download = (
    <a className="btn btn-small btn-secondary" href={url} download={baseName(artifact.path)}>
      Download
    </a>
  );

  let body;
  if (eventLog && target !== null) {
    body = (
      <EventRecordView
        bundleId={bundleId}
        artifactId={artifact.id}
        recordId={target}
        onOpen={(n) => navigate(`/bundles/${bundleId}?artifact=${artifact.id}&line=${n}`, { replace: true })}
      />
    );
  } else if (eventLog) {
    body = (
      <div className="viewer-message" data-testid="event-log-artifact">
        <p>
          A Windows event log ({formatBytes(artifact.size)}). Its events that matter are linked from the diagnosis and
          the facts below: each link opens that event here.
        </p>
        {download}
      </div>
    );
  } else if (tooLarge) {
    body = (
      <div className="viewer-message">
        <p>
          This artifact is {formatBytes(artifact.size)}, too large to preview in the browser.
        </p>
        {download}
      </div>
    );
  } else if (state.kind === 'loading') {
    body = <Loading label="Loading content…" />;
  } else if (state.kind === 'error') {
    body = <ErrorAlert title="Could not load the content">{state.message}</ErrorAlert>;
  } else if (state.content.kind === 'binary') {
    body = (
      <div className="viewer-message" data-testid="binary-artifact">
        <p>
          This is a binary file (<code>{state.content.contentType}</code>) and cannot be shown as text.
        </p>
        {download}
      </div>
    );
  } else if (lines && lines.total === 0) {
    body = <p className="viewer-message muted">This file is empty.</p>;
  } else if (lines) {
    body = (
      <>
        <pre className={`code${wrap ? ' wrap' : ''}`} data-testid="artifact-content" tabIndex={0} aria-label={`Content of ${artifact.path}`}>
          <code>
            {lines.shown.map((line, i) =>
              i + 1 === target ? (
                <span className="line highlighted" key={i} ref={highlighted} data-testid="highlighted-line" aria-current="location">
                  {line}
                </span>
              ) : (
                <span className="line" key={i}>
                  {line}
                </span>
              ),
            )}
          </code>
        </pre>
        {target !== null && target > lines.total && (
          <p className="viewer-foot muted">
            Line {target.toLocaleString()} is past the end of this file ({plural(lines.total, 'line')}).
          </p>
        )}
        {target !== null && target <= lines.total && target > lines.shown.length && (
          <p className="viewer-foot muted">
            Line {target.toLocaleString()} is past the {plural(lines.shown.length, 'line')} shown here; download the
            file to see it.
          </p>
        )}
        {lines.total > lines.shown.length && (
          <p className="viewer-foot muted">
            Showing the first {lines.shown.length.toLocaleString()} of {plural(lines.total, 'line')}. Download the
            file to see the rest.
          </p>
        )}
      </>
    );
  }

  const lineCount = lines ? `${plural(lines.total, 'line')} · ` : '';
  return (
    <section className="viewer" id="artifact-viewer" ref={panel} aria-labelledby="viewer-heading" data-testid="artifact-viewer">
      <header className="viewer-head">
        <div className="viewer-title">
          <h2 id="viewer-heading" className="mono">
            {artifact.path}
          </h2>
          <p className="muted">
            {artifact.typeLabel || artifact.type} · {lineCount}
            {formatBytes(artifact.size)}
          </p>
        </div>
        <div className="viewer-actions">
          {lines && lines.total > 0 && (
            <label className="check">
              <input type="checkbox" checked={wrap} onChange={(e) => setWrap(e.target.checked)} /> Wrap lines
            </label>
          )}
          {state.kind === 'loaded' && state.content.kind === 'text' && (
            <a className="btn btn-small btn-quiet" href={url} target="_blank" rel="noreferrer">
              Raw
            </a>
          )}
          {!tooLarge && !eventLog && !(state.kind === 'loaded' && state.content.kind === 'binary') && download}
          <button type="button" className="btn btn-small btn-quiet" onClick={onClose} aria-label="Close viewer">
            Close
          </button>
        </div>
      </header>
      {body}
    </section>
  );
}
