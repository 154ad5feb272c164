// Past crashes: full-text search over every diagnosed bundle, and the crashes most like one bundle.
import { getJson, request } from './api.ts';

export interface LikelyCause {
  id: string;
  title: string;
  /** Someone confirmed it; otherwise it is the diagnosis' top cause. */
  confirmed: boolean;
  /** A weak verdict's best guess, not a diagnosis. */
  weak?: boolean;
}

/** One thing two crashes can share: an exit code, a library, a module, an event, the likely cause, a GPU... */
export interface SignatureTerm {
  key: string;
  label: string;
  /** Specific to the crash (codes, libraries, the cause); false for the setting (GPU, versions, OS). */
  specific: boolean;
}

export interface CrashHit {
  bundleId: number;
  name: string;
  uploadedAt: string;
  likelyCause: LikelyCause | null;
  score: number;
  /** HTML-escaped text with <mark> around matches: render through snippetParts, never as HTML. */
  snippets: string[];
  /** The crash group's key, or null when the crash has no specific term. */
  group: string | null;
  gpu: string | null;
  /** e.g. "tensorflow 2.10". */
  framework: string | null;
}

/** A facet value, its count over all matches and the query clause a click adds. */
export interface FacetValue {
  value: string;
  count: number;
  filter: string;
}

export interface CrashSearch {
  query: string;
  total: number;
  offset: number;
  limit: number;
  hits: CrashHit[];
  /** By dimension: cause, gpu, driver, cuda, framework, os, exit. */
  facets: Record<string, FacetValue[]>;
  /** What to know about the query (a field that cannot match yet). */
  notes: string[];
}

export interface QueryField {
  name: string;
  example: string;
}

export function getQueryFields(signal?: AbortSignal): Promise<QueryField[]> {
  return getJson<QueryField[]>('/api/bundles/search/fields', signal);
}

/** The download URL of a search's hits. */
export function exportUrl(q: string, format: 'csv' | 'json'): string {
  return `/api/bundles/search/export?q=${encodeURIComponent(q)}&format=${format}`;
}

export interface SimilarCrash {
  bundleId: number;
  name: string;
  uploadedAt: string;
  likelyCause: LikelyCause | null;
  /** The idf-weighted share of this bundle's signature the other one has too, in (0, 1]. */
  similarity: number;
  shared: SignatureTerm[];
}

export interface SimilarCrashes {
  bundleId: number;
  signature: SignatureTerm[];
  similar: SimilarCrash[];
}

export const CRASH_PAGE_SIZE = 20;

export function searchCrashes(q: string, page: number, signal?: AbortSignal): Promise<CrashSearch> {
  const offset = Math.max(0, page) * CRASH_PAGE_SIZE;
  return getJson<CrashSearch>(`/api/bundles/search?q=${encodeURIComponent(q)}&offset=${offset}&limit=${CRASH_PAGE_SIZE}`, signal);
}

export function getSimilarCrashes(bundleId: number | string, signal?: AbortSignal): Promise<SimilarCrashes> {
  return getJson<SimilarCrashes>(`/api/bundles/${encodeURIComponent(String(bundleId))}/similar?limit=5`, signal);
}

/** The cause someone confirmed for a bundle. */
export interface Confirmed {
  articleId: string;
  title: string;
  note: string | null;
  confirmedAt: string;
}

export interface Resolution {
  bundleId: number;
  confirmed: Confirmed | null;
}

function resolutionUrl(bundleId: number | string): string {
  return `/api/bundles/${encodeURIComponent(String(bundleId))}/resolution`;
}

export function getResolution(bundleId: number | string, signal?: AbortSignal): Promise<Resolution> {
  return getJson<Resolution>(resolutionUrl(bundleId), signal);
}

export async function confirmCause(bundleId: number | string, articleId: string, note: string): Promise<Resolution> {
  const response = await request(resolutionUrl(bundleId), {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ articleId, note }),
  });
  return (await response.json()) as Resolution;
}

export async function clearCause(bundleId: number | string): Promise<void> {
  await request(resolutionUrl(bundleId), { method: 'DELETE' });
}

export interface ConfirmedBundle {
  bundleId: number;
  name: string;
  uploadedAt: string;
  note: string | null;
  confirmedAt: string;
}

export interface ConfirmedBundles {
  articleId: string;
  total: number;
  bundles: ConfirmedBundle[];
}

export function getConfirmedAs(articleId: string, signal?: AbortSignal): Promise<ConfirmedBundles> {
  return getJson<ConfirmedBundles>(`/api/kb/${encodeURIComponent(articleId)}/confirmed?limit=20`, signal);
}
