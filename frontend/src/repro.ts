// The reproduction API as the Reproduce panel uses it: drafts and estimates of specs, jobs, workers,
// and the server-sent event stream of one job. Field names follow the server: jobs in camelCase,
// replay results and estimates in snake_case (as `bin/crashlab repro --json` prints them).
import { ApiError, getJson, problemToError } from './api.ts';
import type { components } from './api-types.ts';

// The shapes are the server's records (frontend/src/api-types.ts, generated from its OpenAPI document).
type Schemas = components['schemas'];

export type LayerMemory = Schemas['LayerMemory'];

export type MemoryEstimate = Schemas['MemoryEstimate'];

/**
 * A spec in the reproduction JSON format (the "format": 1 document, snake_case); the panel edits it as text and reads
 * nothing of it but the reporter's card. The OpenAPI document describes it only as an open object.
 */
export type SpecDocument = Schemas['ReproSpec'] & {
  reporter_gpu?: { name?: string | null; memory_total_mib?: number; memory_used_mib?: number } | null;
};

export type Draft = Omit<Schemas['Draft'], 'spec'> & { spec: SpecDocument | null };

export type Checked = Omit<Schemas['Checked'], 'spec'> & { spec: SpecDocument };

export type LayerResult = Schemas['LayerResult'];

export type ReplayResult = Schemas['ReplayResult'];

/** What a replay shows about the reported crash (repro/ReplayFindings): verdicts, and the server's sentences. */
export type ReplayFindings = Schemas['ReplayFindings'];

export type ChildExit = Schemas['Child'];

export type JobResult = Schemas['JobResult'];

export type JobState = Schemas['JobState'];

export type Job = Schemas['JobView'];

export type JobSummary = Schemas['JobSummary'];

export type Device = Schemas['Device'];

export type Worker = Schemas['WorkerView'];

export type Lab = Schemas['Lab'];

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
  const page = await getJson<Schemas['JobPage']>(`/api/repro/jobs?bundleId=${bundleId}&size=1`, signal);
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
