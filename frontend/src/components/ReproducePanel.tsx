import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api.ts';
import { formatBytes } from '../format.ts';
import {
  FINAL_STATES,
  cancelJob,
  checkSpec,
  createJob,
  getDraft,
  getLab,
  latestJob,
  watchJob,
  type Draft,
  type Job,
  type Lab,
  type MemoryEstimate,
  type Worker,
} from '../repro.ts';
import { ErrorAlert, Loading } from './common.tsx';
import { MemoryChart } from './MemoryChart.tsx';
import { ReproJobView } from './ReproJobView.tsx';
import './ReproducePanel.css';
import { useCan } from '../session.ts';

/** One worker: whether it is online, its backend and devices, and the job it holds. */
function WorkerItem({ worker: w }: { worker: Worker }) {
  return (
    <li data-testid="repro-worker">
      <span className={w.online ? 'badge badge-ok' : 'badge badge-neutral'}>{w.online ? 'online' : 'offline'}</span>{' '}
      <strong className="mono">{w.name}</strong> <span className="muted">({w.backend})</span>
      {w.devices.map((d, i) => (
        <span key={i} className="repro-device">
          {' '}
          {d.name}
          {d.memoryBytes ? `, ${formatBytes(d.memoryBytes)}` : ''}
          {d.unavailableReason && <span className="muted"> — unavailable: {d.unavailableReason}</span>}
        </span>
      ))}
      {w.online && w.currentJob !== null && <span className="muted"> · busy with job {w.currentJob}</span>}
    </li>
  );
}

type DraftState = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; draft: Draft };

function message(err: unknown, fallback: string): string {
  return err instanceof Error && err.message ? err.message : fallback;
}

/**
 * The bundle page's "Reproduce" section: the spec extracted from the bundle (editable), its memory estimate
 * against the reporter's card, the lab's workers, and a job's live progress and result.
 */
/**
 * `onJobFinished` is called when a job this panel watched reaches a final state: its outcome is evidence, so
 * the page shows the recomputed diagnosis.
 */
export function ReproducePanel({ bundleId, onJobFinished }: { bundleId: number; onJobFinished?: () => void }) {
  const mayRun = useCan('lab');
  const [draft, setDraft] = useState<DraftState>({ kind: 'loading' });
  const [text, setText] = useState('');
  const [estimate, setEstimate] = useState<MemoryEstimate | null>(null);
  const [specError, setSpecError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const [lab, setLab] = useState<Lab | null>(null);
  const [labError, setLabError] = useState<string | null>(null);
  const [target, setTarget] = useState('any');
  const [emulate, setEmulate] = useState(true);
  const [job, setJob] = useState<Job | null>(null);
  const [jobError, setJobError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    setDraft({ kind: 'loading' });
    getDraft(bundleId, controller.signal).then(
      (d) => {
        setDraft({ kind: 'loaded', draft: d });
        setText(d.spec ? JSON.stringify(d.spec, null, 2) : '');
        setEstimate(d.estimate);
      },
      (err) => {
        if (!controller.signal.aborted) setDraft({ kind: 'error', message: message(err, 'Could not extract a spec.') });
      },
    );
    getLab(controller.signal).then(setLab, (err) => {
      if (!controller.signal.aborted) setLabError(message(err, 'Could not list the workers.'));
    });
    latestJob(bundleId, controller.signal).then(
      (j) => setJob((current) => current ?? j),
      () => {
        // no earlier job to show is not worth an error on the page
      },
    );
    return () => controller.abort();
  }, [bundleId]);

  const jobId = job?.id;
  const jobFinal = job ? FINAL_STATES.has(job.state) : true;
  useEffect(() => {
    if (jobId === undefined || jobFinal) return;
    return watchJob(jobId, setJob, setJobError);
  }, [jobId, jobFinal]);

  // a job seen running that is now final has changed the diagnosis
  const watchedRunning = useRef<number | null>(null);
  useEffect(() => {
    if (jobId === undefined) return;
    if (!jobFinal) {
      watchedRunning.current = jobId;
    } else if (watchedRunning.current === jobId) {
      watchedRunning.current = null;
      onJobFinished?.();
    }
  }, [jobId, jobFinal, onJobFinished]);

  function parsedSpec(): unknown | null {
    try {
      const spec = JSON.parse(text);
      setSpecError(null);
      return spec;
    } catch (e) {
      setSpecError(`The spec is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
  }

  async function onCheck() {
    const spec = parsedSpec();
    if (spec === null) return;
    setChecking(true);
    try {
      const checked = await checkSpec(spec);
      setEstimate(checked.estimate);
    } catch (err) {
      setSpecError(message(err, 'Could not check the spec.'));
    } finally {
      setChecking(false);
    }
  }

  async function onReproduce() {
    const spec = parsedSpec();
    if (spec === null) return;
    setSubmitting(true);
    setJobError(null);
    try {
      setJob(await createJob(bundleId, spec, target, emulate ? capBytes : null));
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) setSpecError(err.message);
      else setJobError(message(err, 'Could not queue the job.'));
    } finally {
      setSubmitting(false);
    }
  }

  async function onCancel() {
    if (!job) return;
    try {
      setJob(await cancelJob(job.id));
    } catch (err) {
      setJobError(message(err, 'Could not cancel the job.'));
    }
  }

  const loaded = draft.kind === 'loaded' ? draft.draft : null;
  const capBytes = loaded?.suggestedMemoryCapBytes ?? null;
  const cardName = (loaded?.spec?.reporter_gpu?.name as string | undefined) ?? null;
  const onlineWorkers = lab?.workers.filter((w) => w.online) ?? [];
  const offlineWorkers = lab?.workers.filter((w) => !w.online) ?? [];
  const running = job !== null && !FINAL_STATES.has(job.state);

  return (
    <section className="panel repro" aria-labelledby="reproduce-heading" data-testid="reproduce">
      <h2 id="reproduce-heading">Reproduce</h2>
      <p className="muted repro-intro">
        Replays the bundle's convolution layers (same shapes, batch, dtype and layout; forward and backward) on a lab
        worker, optionally under the reporter's memory, and reports what happened.
      </p>
      {draft.kind === 'loading' && <Loading label="Extracting the convolution layers…" />}
      {draft.kind === 'error' && <ErrorAlert title="Could not extract a spec">{draft.message}</ErrorAlert>}
      {loaded && (
        <>
          {!loaded.spec && (
            <p className="muted" data-testid="no-spec">
              This bundle states no convolution layers (no Keras model config, <code>model.summary()</code> or cuDNN
              repro). Paste a spec below to replay one anyway.
            </p>
          )}
          {loaded.notes.length > 0 && (
            <ul className="repro-notes" data-testid="spec-notes">
              {loaded.notes.map((n, i) => (
                <li key={i}>{n}</li>
              ))}
            </ul>
          )}
          <div className="field">
            <label htmlFor="repro-spec">Spec (JSON, editable)</label>
            <textarea
              id="repro-spec"
              data-testid="repro-spec"
              className="mono repro-spec"
              spellCheck={false}
              rows={Math.min(18, Math.max(6, text.split('\n').length))}
              value={text}
              onChange={(e) => setText(e.target.value)}
            />
          </div>
          {specError && <ErrorAlert title="The spec needs a fix">{specError}</ErrorAlert>}
          <div className="repro-actions">
            <button type="button" className="btn btn-secondary" onClick={onCheck} disabled={checking || !text.trim()}>
              {checking ? 'Checking…' : 'Check and estimate'}
            </button>
          </div>
          {estimate && <MemoryChart estimate={estimate} cardName={cardName} />}

          <h3>Lab workers</h3>
          {labError && <ErrorAlert title="Could not list the workers">{labError}</ErrorAlert>}
          {lab && (
            <ul className="repro-workers" data-testid="repro-workers">
              {lab.workers.length === 0 && (
                <li className="muted">
                  No worker has connected yet
                  {lab.localWorker ? ' (the local worker starts with the server)' : ''}
                  {lab.remoteWorkers ? '' : '; no remote workers yet (an admin makes worker tokens on Admin > Workers)'}.
                </li>
              )}
              {onlineWorkers.map((w) => (
                <WorkerItem key={w.name} worker={w} />
              ))}
              {offlineWorkers.length > 0 && (
                <li>
                  <details>
                    <summary className="muted">{offlineWorkers.length} offline</summary>
                    <ul className="repro-workers">
                      {offlineWorkers.map((w) => (
                        <WorkerItem key={w.name} worker={w} />
                      ))}
                    </ul>
                  </details>
                </li>
              )}
            </ul>
          )}

          <div className="repro-options">
            <div className="field">
              <label htmlFor="repro-target">Run on</label>
              <select id="repro-target" value={target} onChange={(e) => setTarget(e.target.value)}>
                <option value="any">any worker</option>
                {onlineWorkers.map((w) => (
                  <option key={w.name} value={`worker:${w.name}`}>
                    {w.name}
                  </option>
                ))}
              </select>
            </div>
            <label className="check">
              <input
                type="checkbox"
                checked={emulate && capBytes !== null}
                disabled={capBytes === null}
                onChange={(e) => setEmulate(e.target.checked)}
              />{' '}
              {capBytes !== null
                ? `Cap memory at the reporter's ${formatBytes(capBytes)}${cardName ? ` (${cardName})` : ''}`
                : "No memory cap: no file states the reporter's GPU memory"}
            </label>
          </div>
          {mayRun && <div className="repro-actions">
            <button
              type="button"
              className="btn btn-primary"
              onClick={onReproduce}
              disabled={submitting || running || !text.trim()}
            >
              {submitting ? 'Queueing…' : 'Reproduce'}
            </button>
            {running && (
              <button type="button" className="btn btn-secondary" onClick={onCancel} disabled={job?.cancelRequested}>
                {job?.cancelRequested ? 'Cancelling…' : 'Cancel'}
              </button>
            )}
          </div>}
          {!mayRun && <p className="muted">Running a reproduction needs the lab role.</p>}
        </>
      )}
      {jobError && <ErrorAlert title="Reproduction">{jobError}</ErrorAlert>}
      {job && <ReproJobView job={job} />}
    </section>
  );
}
