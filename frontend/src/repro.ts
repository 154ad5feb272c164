// The reproduction API as the Reproduce panel uses it: drafts and estimates of specs, jobs, workers,
// and the server-sent event stream of one job. Field names follow the server: jobs in camelCase,
// replay results and estimates in snake_case (as `bin/crashlab repro --json` prints them).
import { ApiError, getJson, problemToError } from './api.ts';

export interface LayerMemory {
  name: string;
  activation_bytes: number;
  weight_bytes: number;
  gradient_bytes: number;
  optimizer_bytes: number;
  workspace_bytes: number;
  transient_bytes: number;
  total_bytes: number;
}

export interface MemoryEstimate {
  mode: string;
  layers: LayerMemory[];
  total_bytes: number;
  available_bytes: number | null;
  framework_reserve_bytes: number;
  fits: boolean | null;
  assumptions: string[];
  not_modelled: string[];
}

/** A spec in the reproduction JSON format; the panel edits it as text and never interprets more than this. */
export interface SpecDocument {
  reporter_gpu?: { name?: string | null; memory_total_mib?: number; memory_used_mib?: number } | null;
  [field: string]: unknown;
}

export interface Draft {
  bundleId: number;
  spec: SpecDocument | null;
  notes: string[];
  estimate: MemoryEstimate | null;
  suggestedMemoryCapBytes: number | null;
}

export interface Checked {
  spec: SpecDocument;
  estimate: MemoryEstimate;
}

export interface LayerResult {
  name: string;
  problem: string;
  status: string;
  peak_bytes: number;
  kernel_ms: { forward: number | null; backward_data: number | null; backward_filter: number | null };
  max_abs_error: number | null;
  tdr_risk: boolean;
  error: string | null;
  message: string | null;
}

export interface ReplayResult {
  status: string;
  backend: string;
  device: string | null;
  reason: string;
  memory_cap_bytes: number;
  estimate?: MemoryEstimate | null;
  layers?: LayerResult[];
  findings?: ReplayFindings | null;
}

/** What a replay shows about the reported crash (repro/ReplayFindings): verdicts, and the server's sentences. */
export interface ReplayFindings {
  memory: string;
  time: string;
  exceeds_reporter_memory: boolean | null;
  largest_batch_that_fits: number | null;
  exceeds_watchdog: boolean | null;
  longest_pass_ms: number | null;
  passes_over_watchdog: string[];
}

export interface ChildExit {
  ending: string;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  description: string;
  log_tail: string;
}

export interface JobResult {
  replay: ReplayResult | null;
  child: ChildExit;
  worker: string;
  backend: string;
}

export type JobState = 'queued' | 'claimed' | 'running' | 'passed' | 'failed' | 'crashed' | 'timed-out' | 'cancelled';

export interface Job {
  id: number;
  bundleId: number | null;
  state: JobState;
  target: string;
  memoryCapBytes: number | null;
  worker: string | null;
  attempts: number;
  maxAttempts: number;
  cancelRequested: boolean;
  progress: string | null;
  reason: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  result: JobResult | null;
}

export interface JobSummary {
  id: number;
  state: JobState;
}

export interface Device {
  name: string;
  memoryBytes: number | null;
  unavailableReason: string | null;
}

export interface Worker {
  name: string;
  backend: string;
  devices: Device[];
  version: string | null;
  lastSeen: string;
  online: boolean;
  currentJob: number | null;
}

export interface Lab {
  workers: Worker[];
  remoteWorkers: boolean;
  localWorker: boolean;
}

export const FINAL_STATES: ReadonlySet<JobState> = new Set(['passed', 'failed', 'crashed', 'timed-out', 'cancelled']);

async function send<T>(url: string, method: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('The server could not be reached. Check your connection and try again.', 0);
  }
  const text = await response.text();
  if (!response.ok) throw problemToError(response.status, response.statusText, response.headers.get('Content-Type'), text);
  return JSON.parse(text) as T;
}

export function getDraft(bundleId: number, signal?: AbortSignal): Promise<Draft> {
  return getJson<Draft>(`/api/repro/drafts/${bundleId}`, signal);
}

export function checkSpec(spec: unknown): Promise<Checked> {
  return send<Checked>('/api/repro/estimate', 'POST', { spec });
}

export function getLab(signal?: AbortSignal): Promise<Lab> {
  return getJson<Lab>('/api/lab/workers', signal);
}

export async function latestJob(bundleId: number, signal?: AbortSignal): Promise<Job | null> {
  const page = await getJson<{ items: JobSummary[] }>(`/api/repro/jobs?bundleId=${bundleId}&size=1`, signal);
  return page.items.length === 0 ? null : getJson<Job>(`/api/repro/jobs/${page.items[0].id}`, signal);
}

export function createJob(bundleId: number, spec: unknown, target: string, memoryCapBytes: number | null): Promise<Job> {
  return send<Job>('/api/repro/jobs', 'POST', { bundleId, spec, target, memoryCapBytes });
}

export function cancelJob(id: number): Promise<Job> {
  return send<Job>(`/api/repro/jobs/${id}/cancel`, 'POST');
}

/**
 * Follows a job over server-sent events until it ends; returns a function that stops following.
 * If the stream breaks before the end (a proxy, a restart), it falls back to polling the job.
 */
export function watchJob(id: number, onJob: (job: Job) => void, onError: (message: string) => void): () => void {
  let stopped = false;
  let timer: number | undefined;
  const source = new EventSource(`/api/repro/jobs/${id}/events`);
  let last: Job | null = null;
  const seen = (job: Job) => {
    last = job;
    onJob(job);
  };
  source.onmessage = (e) => {
    try {
      seen(JSON.parse(e.data) as Job);
    } catch {
      // a malformed event is skipped; the next one carries the whole job again
    }
  };
  source.onerror = () => {
    source.close();
    if (stopped || (last && FINAL_STATES.has(last.state))) return;
    const poll = () => {
      getJson<Job>(`/api/repro/jobs/${id}`).then(
        (job) => {
          if (stopped) return;
          seen(job);
          if (!FINAL_STATES.has(job.state)) timer = window.setTimeout(poll, 1000);
        },
        (err) => onError(err instanceof Error ? err.message : 'Lost track of the job.'),
      );
    };
    poll();
  };
  return () => {
    stopped = true;
    source.close();
    if (timer !== undefined) window.clearTimeout(timer);
  };
}
