import { formatBytes, plural, pluralForm } from '../format.ts';
import { FINAL_STATES, type Job, type LayerResult, type ReplayFindings } from '../repro.ts';
import { ProblemText, Time } from './common.tsx';

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
        {layer.error && <span className="mono"> <ProblemText>{layer.error}</ProblemText></span>}
      </td>
      <td className="num">{layer.peak_bytes ? formatBytes(layer.peak_bytes) : '—'}</td>
      <td className="num">{ms(layer.kernel_ms?.forward ?? null)}</td>
      <td className="num">{ms(layer.kernel_ms?.backward_data ?? null)}</td>
      <td className="num">{ms(layer.kernel_ms?.backward_filter ?? null)}</td>
      <td className="num">{layer.max_abs_error === null ? '—' : layer.max_abs_error.toExponential(1)}</td>
    </tr>
  );
}

/** The server's sentence without its "memory: " / "time: " label, starting with a capital. */
function sentence(text: string): string {
  const t = text.replace(/^(memory|time):\s*/, '');
  return t.length === 0 ? t : `${t[0].toUpperCase()}${t.slice(1)}.`;
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 10 ? `${Math.round(ms)} ms` : `${Number(ms.toPrecision(2))} ms`;
}

/**
 * What the replay says about the reported crash, in words: whether the reporter's batch fits their card, and how
 * long the longest pass needs on their GPU against the 2 s Windows watchdog.
 */
function Findings({ findings }: { findings: ReplayFindings }) {
  const fits = findings.exceeds_reporter_memory;
  const largest = findings.largest_batch_that_fits;
  const watchdog = findings.exceeds_watchdog;
  return (
    <div className="repro-findings" data-testid="repro-findings">
      <h4>What this replay shows</h4>
      <dl>
        <dt>Memory</dt>
        <dd data-testid="finding-memory" data-fits={fits === null ? 'unknown' : fits ? 'no' : 'yes'}>
          <strong>
            {fits === null
              ? 'Not compared with the reporter\'s card'
              : fits
                ? 'Does not fit on the reporter\'s card'
                : 'Fits on the reporter\'s card'}
          </strong>
          {fits !== null && largest !== null && (
            <span className="muted">
              {' '}
              · {largest === 0 ? 'not even a batch of 1 fits' : `the largest batch that fits is ${largest.toLocaleString()}`}
            </span>
          )}
          <p className="finding-detail">{sentence(findings.memory)}</p>
        </dd>
        <dt>Time per pass</dt>
        <dd data-testid="finding-time" data-over={watchdog === null ? 'unknown' : watchdog ? 'yes' : 'no'}>
          <strong>
            {watchdog === null
              ? 'Not timed against the watchdog'
              : watchdog
                ? `Over the 2 s watchdog: ${plural(findings.passes_over_watchdog.length, 'pass', 'passes')} ${pluralForm(findings.passes_over_watchdog.length, 'needs', 'need')} longer`
                : `Under the 2 s watchdog${findings.longest_pass_ms !== null ? `: the longest pass needs at least ${seconds(findings.longest_pass_ms)}` : ''}`}
          </strong>
          <p className="finding-detail">{sentence(findings.time)}</p>
        </dd>
      </dl>
    </div>
  );
}

/**
 * A running replay's progress as the child reports it: `[flopDone/flopTotal elapsedMs ms] layer 3/12 conv2
 * backward-data` (repro/worker/ChildProtocol.passProgress). The bar is the share of the replay's FLOPs done; the
 * ETA assumes the rest runs at the rate so far.
 */
export function parseProgress(text: string | null | undefined): { fraction: number; etaSeconds: number | null; what: string } | null {
  const m = text ? /^\[(\d+)\/(\d+) (\d+) ms\] (.*)$/.exec(text) : null;
  if (!m) return null;
  const done = Number(m[1]);
  const total = Number(m[2]);
  const elapsed = Number(m[3]) / 1000;
  const fraction = total > 0 ? Math.min(1, done / total) : 0;
  const etaSeconds = done > 0 && elapsed > 0 ? (elapsed * (total - done)) / done : null;
  return { fraction, etaSeconds, what: m[4] };
}

function eta(seconds: number | null): string {
  if (seconds === null) return 'estimating time left';
  if (seconds < 60) return `about ${Math.max(1, Math.round(seconds))} s left`;
  return `about ${Math.round(seconds / 60)} min left`;
}

function JobProgressLine({ progress, state, cancelling }: { progress: string | null; state: string; cancelling: boolean }) {
  const parsed = parseProgress(progress);
  if (!parsed) {
    return (
      <p data-testid="repro-progress">
        <span className="spinner" aria-hidden="true" /> {progress ?? (state === 'queued' ? 'queued' : 'starting')}
        {cancelling ? ' — cancelling' : ''}
      </p>
    );
  }
  const percent = Math.round(parsed.fraction * 100);
  return (
    <div className="progress-block" data-testid="repro-progress">
      <div
        className="progress"
        role="progressbar"
        aria-label="Replay progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        data-testid="repro-progressbar"
      >
        <div className="progress-fill" style={{ width: `${percent}%` }} />
      </div>
      <p className="muted">
        {percent}% of the replay's work · {parsed.what} · {eta(parsed.etaSeconds)}
        {cancelling ? ' — cancelling' : ''}
      </p>
    </div>
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
      {!final && <JobProgressLine progress={job.progress} state={job.state} cancelling={job.cancelRequested} />}
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
          {replay.findings && <Findings findings={replay.findings} />}
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
                    <th scope="col" className="num" title="The largest difference of a sampled output from the CPU reference">
                      Largest error vs reference
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
