// The CrashLab HTTP API as the UI uses it. Errors are RFC 9457 problem documents; their `detail`
// is written for people and is shown verbatim. Nothing else from an error body (an HTML page,
// a stack trace) ever reaches the screen.
import { sessionEnded } from './session.ts';
import type { components } from './api-types.ts';

/** The request and answer records of the OpenAPI document, generated into api-types.ts (scripts/api-types). */
export type Schemas = components['schemas'];


export type Artifact = Schemas['ArtifactView'];

export type Bundle = Schemas['BundleView'];

/** A bundle as the list shows it (web/BundleRows.BundleRow). */
export type BundleSummary = Schemas['BundleRow'];

/** Retention settings and the caller's storage use (GET /api/retention). */
export type RetentionUsage = Schemas['Usage'];

export function getRetention(signal?: AbortSignal): Promise<RetentionUsage> {
  return getJson<RetentionUsage>('/api/retention', signal);
}

/** Pins (keeps whatever its age) or unpins a bundle. */
export async function setPinned(id: number | string, pinned: boolean): Promise<void> {
  await request(`${bundleUrl(id)}/pin`, { method: pinned ? 'PUT' : 'DELETE' });
}

export type BundlePage = Schemas['PageBundleRow'];

/** A failed request, carrying the message to show and the HTTP status (0: no response at all). */
export class ApiError extends Error {
  readonly status: number;
  readonly title: string | null;

  constructor(message: string, status: number, title: string | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.title = title;
  }
}

interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
}

function fallbackMessage(status: number, statusText: string): string {
  if (status === 0) return 'The server could not be reached. Check your connection and try again.';
  if (status === 413) return 'The upload is larger than the server accepts.';
  if (status >= 500) return `The server failed to handle the request (HTTP ${status}). Try again later.`;
  return `The request failed (HTTP ${status}${statusText ? ' ' + statusText : ''}).`;
}

/** Turns an error response body into an ApiError: the problem's detail, else its title, else a generic line. */
export function problemToError(status: number, statusText: string, contentType: string | null, body: string): ApiError {
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('json') && body.trim().startsWith('{')) {
    try {
      const problem = JSON.parse(body) as Problem;
      const detail = typeof problem.detail === 'string' && problem.detail.trim() ? problem.detail : null;
      const title = typeof problem.title === 'string' && problem.title.trim() ? problem.title : null;
      if (detail || title) {
        return new ApiError(detail ?? title ?? '', problem.status ?? status, title);
      }
    } catch {
      // not a problem document after all: fall through to the generic message
    }
  }
  return new ApiError(fallbackMessage(status, statusText), status);
}

async function errorFrom(response: Response): Promise<ApiError> {
  let body = '';
  try {
    body = await response.text();
  } catch {
    // the body is only ever a nicety
  }
  return problemToError(response.status, response.statusText, response.headers.get('Content-Type'), body);
}

export async function request(url: string, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers: { Accept: 'application/json', ...(init?.headers ?? {}) } });
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiError(fallbackMessage(0, ''), 0);
  }
  if (response.status === 401) sessionEnded();
  if (!response.ok) throw await errorFrom(response);
  return response;
}

/** Sends {@code body} as JSON with {@code method}; the parsed reply (null for 204). */
export async function sendJson<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await request(url, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.status === 204 ? (null as T) : ((await response.json()) as T);
}

export async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const response = await request(url, { signal });
  return (await response.json()) as T;
}

export function bundleUrl(id: number | string): string {
  return `/api/bundles/${encodeURIComponent(String(id))}`;
}

export function artifactContentUrl(bundleId: number | string, artifactId: number | string): string {
  return `${bundleUrl(bundleId)}/artifacts/${encodeURIComponent(String(artifactId))}/content`;
}

/** One event of a Windows event log as the server read it (web/EventRecordResource.EventView). */
export type EventView = Schemas['EventView'];

export type EventWindow = Schemas['EventWindow'];

/** One record of a stored .evtx artifact by its EventRecordID, with its neighbours; never the whole file. */
export function getEventWindow(bundleId: number, artifactId: number, recordId: number, signal?: AbortSignal): Promise<EventWindow> {
  return getJson<EventWindow>(
    `${bundleUrl(bundleId)}/artifacts/${encodeURIComponent(String(artifactId))}/events/${encodeURIComponent(String(recordId))}?neighbours=3`,
    signal,
  );
}

export function listBundles(page: number, size: number, signal?: AbortSignal): Promise<BundlePage> {
  return getJson<BundlePage>(`/api/bundles?page=${page}&size=${size}`, signal);
}

export function getBundle(id: number | string, signal?: AbortSignal): Promise<Bundle> {
  return getJson<Bundle>(bundleUrl(id), signal);
}

/** Who uploaded a bundle, and whether the caller may delete it (GET /api/bundles/{id}/ownership). */
export type BundleOwnership = Schemas['Ownership'];

export function getBundleOwnership(id: number | string, signal?: AbortSignal): Promise<BundleOwnership> {
  return getJson<BundleOwnership>(`${bundleUrl(id)}/ownership`, signal);
}

/** Reads a bundle again in the background (after a failed reading); answers the bundle, status PROCESSING. */
export async function readBundleAgain(id: number | string): Promise<Bundle> {
  const response = await request(`${bundleUrl(id)}/read`, { method: 'POST' });
  return (await response.json()) as Bundle;
}

export async function deleteBundle(id: number | string): Promise<void> {
  await request(bundleUrl(id), { method: 'DELETE' });
}

/** What the content endpoint returned: text to show, or a binary to offer for download. */
export type ArtifactContent =
  | { kind: 'text'; text: string; contentType: string }
  | { kind: 'binary'; contentType: string };

const TEXT_TYPES = ['text/', 'application/json', 'application/xml', 'application/problem+json', '+xml', '+json'];

export function isTextContentType(contentType: string): boolean {
  const type = contentType.toLowerCase();
  return TEXT_TYPES.some((t) => type.startsWith(t) || type.includes(t));
}

export async function getArtifactContent(bundleId: number, artifactId: number, signal?: AbortSignal): Promise<ArtifactContent> {
  const response = await request(artifactContentUrl(bundleId, artifactId), { signal, headers: { Accept: '*/*' } });
  const contentType = response.headers.get('Content-Type') ?? 'application/octet-stream';
  const disposition = (response.headers.get('Content-Disposition') ?? '').toLowerCase();
  if (!isTextContentType(contentType) || disposition.startsWith('attachment')) {
    // do not read a binary body we will not show
    try {
      await response.body?.cancel();
    } catch {
      // ignore
    }
    return { kind: 'binary', contentType };
  }
  return { kind: 'text', text: await response.text(), contentType };
}

/** The server's upload limits (GET /api/limits). */
export type UploadLimits = Schemas['Limits'];

export function getLimits(signal?: AbortSignal): Promise<UploadLimits> {
  return getJson<UploadLimits>('/api/limits', signal);
}

export interface UploadProgress {
  loaded: number;
  total: number;
}

export interface UploadHandle {
  promise: Promise<Bundle>;
  abort: () => void;
}

/**
 * Uploads files as multipart/form-data (one `file` part each, plus optional `name` and `notes`) with
 * XMLHttpRequest, because fetch() reports no upload progress.
 */
export function uploadBundle(
  files: File[],
  name: string,
  notes: string,
  onProgress: (p: UploadProgress) => void,
): UploadHandle {
  const xhr = new XMLHttpRequest();
  const promise = new Promise<Bundle>((resolve, reject) => {
    const form = new FormData();
    const trimmed = name.trim();
    if (trimmed) form.append('name', trimmed);
    if (notes.trim()) form.append('notes', notes.trim());
    for (const file of files) form.append('file', file, file.name);

    xhr.open('POST', '/api/bundles');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.responseType = 'text';
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress({ loaded: e.loaded, total: e.total });
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as Bundle);
        } catch {
          reject(new ApiError('The server stored the upload but sent a reply the UI could not read.', xhr.status));
        }
      } else {
        reject(problemToError(xhr.status, xhr.statusText, xhr.getResponseHeader('Content-Type'), xhr.responseText));
      }
    };
    xhr.onerror = () =>
      reject(new ApiError('The upload was interrupted before the server replied. Check your connection and try again.', 0));
    xhr.onabort = () => reject(new ApiError('Upload cancelled.', 0, 'cancelled'));
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}

/** Where a fact was read: the artifact's path in the bundle, the 1-based line (or record), the text. */
export type SourceRef = Schemas['SourceRef'];

/**
 * One fact as the API writes it: the record's components plus `kind`. Kinds are added on the server
 * as parsers are written, so the UI reads fields defensively and shows unknown kinds generically.
 */
export type Fact = Schemas['Fact'];

export type ArtifactFacts = Schemas['ArtifactFacts'];

export type BundleFacts = Schemas['FactsView'];

export function getBundleFacts(id: number | string, signal?: AbortSignal): Promise<BundleFacts> {
  return getJson<BundleFacts>(`${bundleUrl(id)}/facts`, signal);
}
