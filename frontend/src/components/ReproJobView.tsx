import { formatBytes } from '../format.ts';
import { FINAL_STATES, type Job, type LayerResult } from '../repro.ts';
import { Time } from './common.tsx';

const TONES: Record<string, string> = {
  queued: 'neutral',
  claimed: 'info',
  running: 'info',
  passed: 'ok',
  failed: 'bad',
  crashed: 'bad',
  'timed-out': 'warn',
  cancelled: 'neutral',
  'out-of-memory': 'bad',
  'device-error': 'bad',
  mismatch: 'bad',
  skipped: 'neutral',
};

function Badge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span className={`badge badge-${TONES[status] ?? 'neutral'}`} data-testid={testId}>
      {status}
    </span>
  );
}

function ms(v: number | null): string {
  return v === null || v === undefined ? '—' : `${v.toFixed(v < 10 ? 2 : 0)} ms`;
}

function LayerRow({ layer }: { layer: LayerResult }) {
  return (
    <tr data-testid="repro-layer">
      <td className="mono">{layer.name}</td>
      <td>
        <Badge status={layer.status} />
        {layer.tdr_risk && <span className="badge badge-warn">over 2 s (TDR)</span>}
        {layer.error && <span className="mono"> {layer.error}</span>}
      </td>
      <td className="num">{layer.peak_bytes ? formatBytes(layer.peak_bytes) : '—'}</td>
      <td className="num">{ms(layer.kernel_ms?.forward ?? null)}</td>
      <td className="num">{ms(layer.kernel_ms?.backward_data ?? null)}</td>
      <td className="num">{ms(layer.kernel_ms?.backward_filter ?? null)}</td>
      <td className="num">{layer.max_abs_error === null ? '—' : layer.max_abs_error.toExponential(1)}</td>
    </tr>
  );
}

/** One reproduction job: its state and progress while it runs, then the replay's result and how the child ended. */
export function ReproJobView({ job }: { job: Job }) {
  const final = FINAL_STATES.has(job.state);
  const replay = job.result?.replay ?? null;
  const child = job.result?.child ?? null;
  return (
    <div className="repro-job" data-testid="repro-job" aria-live="polite">
      <h3>
        Job {job.id} <Badge status={job.state} testId="repro-state" />
      </h3>
      <p className="muted">
        {job.worker ? `on ${job.worker}` : 'waiting for a worker'}
        {job.attempts > 1 ? ` · attempt ${job.attempts} of ${job.maxAttempts}` : ''}
        {job.memoryCapBytes ? ` · memory capped at ${formatBytes(job.memoryCapBytes)}` : ''} · queued{' '}
        <Time iso={job.createdAt} seconds />
      </p>
      {!final && (
        <p data-testid="repro-progress">
          <span className="spinner" aria-hidden="true" /> {job.progress ?? (job.state === 'queued' ? 'queued' : 'starting')}
          {job.cancelRequested ? ' — cancelling' : ''}
        </p>
      )}
      {final && job.reason && (
        <p className="repro-reason" data-testid="repro-reason">
          {job.reason}
        </p>
      )}
      {replay && (
        <div data-testid="repro-result">
          <p className="muted">
            {replay.backend} backend{replay.device ? ` on ${replay.device}` : ''}
          </p>
          {replay.layers && replay.layers.length > 0 && (
            <div className="table-wrap">
              <table className="table repro-layers">
                <thead>
                  <tr>
                    <th scope="col">Layer</th>
                    <th scope="col">Result</th>
                    <th scope="col" className="num">
                      Peak
                    </th>
                    <th scope="col" className="num">
                      Forward
                    </th>
                    <th scope="col" className="num">
                      Backward data
                    </th>
                    <th scope="col" className="num">
                      Backward filter
                    </th>
                    <th scope="col" className="num">
                      Max error
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {replay.layers.map((l, i) => (
                    <LayerRow key={i} layer={l} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      )}
      {child && (
        <details className="repro-child" data-testid="repro-child" open={job.state === 'crashed' || job.state === 'timed-out'}>
          <summary>
            Replay process: {child.description}
            {child.signal ? ` (${child.signal})` : ''}
          </summary>
          <pre className="log-tail mono">{child.log_tail || '(no output)'}</pre>
        </details>
      )}
    </div>
  );
}
