// Past crashes: full-text search over every diagnosed bundle, and the crashes most like one bundle.
import { getJson, request, type Schemas } from './api.ts';

export type LikelyCause = Schemas['LikelyCause'];

/** One thing two crashes can share: an exit code, a library, a module, an event, the likely cause, a GPU... */
export type SignatureTerm = Schemas['SignatureTerm'];

export type CrashHit = Schemas['SearchHit'];

/** A facet value, its count over all matches and the query clause a click adds. */
export type FacetValue = Schemas['FacetValue'];

export type CrashSearch = Schemas['SearchPage'];

export type QueryField = Schemas['FieldHelp'];

export function getQueryFields(signal?: AbortSignal): Promise<QueryField[]> {
  return getJson<QueryField[]>('/api/bundles/search/fields', signal);
}

/** The download URL of a search's hits. */
export function exportUrl(q: string, format: 'csv' | 'json'): string {
  return `/api/bundles/search/export?q=${encodeURIComponent(q)}&format=${format}`;
}

export type SimilarCrash = Schemas['SimilarCrash'];

export type SimilarCrashes = Schemas['SimilarCrashes'];

export const CRASH_PAGE_SIZE = 20;

export function searchCrashes(q: string, page: number, signal?: AbortSignal): Promise<CrashSearch> {
  const offset = Math.max(0, page) * CRASH_PAGE_SIZE;
  return getJson<CrashSearch>(`/api/bundles/search?q=${encodeURIComponent(q)}&offset=${offset}&limit=${CRASH_PAGE_SIZE}`, signal);
}

export function getSimilarCrashes(bundleId: number | string, signal?: AbortSignal): Promise<SimilarCrashes> {
  return getJson<SimilarCrashes>(`/api/bundles/${encodeURIComponent(String(bundleId))}/similar?limit=5`, signal);
}

/** The cause someone confirmed for a bundle. */
export type Confirmed = Schemas['Confirmed'];

export type Resolution = Schemas['Resolution'];

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

export type ConfirmedBundle = Schemas['ConfirmedBundle'];

export type ConfirmedBundles = Schemas['ConfirmedBundles'];

export function getConfirmedAs(articleId: string, signal?: AbortSignal): Promise<ConfirmedBundles> {
  return getJson<ConfirmedBundles>(`/api/kb/${encodeURIComponent(articleId)}/confirmed?limit=20`, signal);
}
