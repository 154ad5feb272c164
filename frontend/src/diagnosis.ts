// The diagnosis and knowledge-base API as the UI uses it (see README, "Diagnosis" and "Knowledge base").
import { getJson, type Schemas } from './api.ts';

// The records come from the OpenAPI document (api-types.ts, generated); the UI narrows the worded enums.
export type Evidence = Schemas['EvidenceDocument'];

/** How strongly a cause's evidence points at it (README, "How to read a report"). */
export type Strength = 'strong' | 'moderate' | 'weak' | 'none';

/** Whether the bundle's own evidence names a cause. */
export type Verdict = 'diagnosed' | 'weak' | 'no-evidence';

export type Hypothesis = Omit<Schemas['HypothesisDocument'], 'strength'> & { strength: Strength };

export type Ask = Schemas['Ask'];

export type CompatResult = Schemas['CompatView'];

/** For a weak verdict, `equals` names the two or three causes the bundle cannot tell apart, best first. */
export type Diagnosis = Omit<Schemas['DiagnosisView'], 'hypotheses' | 'verdict'> & { hypotheses: Hypothesis[]; verdict: Verdict };

export type KbSummary = Schemas['ArticleSummary'];

export type KbList = Schemas['ArticleList'];

export type Remedy = Schemas['Remedy'];

export type KbMatcher = Schemas['MatcherView'];

export type KbArticle = Schemas['ArticleView'];

export type KbHit = Schemas['KbHit'];

export type KbSearch = Schemas['SearchResult'];

export function getDiagnosis(bundleId: number | string, signal?: AbortSignal): Promise<Diagnosis> {
  return getJson<Diagnosis>(`/api/bundles/${encodeURIComponent(String(bundleId))}/diagnosis`, signal);
}

export function listKb(signal?: AbortSignal): Promise<KbList> {
  return getJson<KbList>('/api/kb', signal);
}

export function getKbArticle(id: string, signal?: AbortSignal): Promise<KbArticle> {
  return getJson<KbArticle>(`/api/kb/${encodeURIComponent(id)}`, signal);
}

export function searchKb(q: string, signal?: AbortSignal): Promise<KbSearch> {
  return getJson<KbSearch>(`/api/kb/search?q=${encodeURIComponent(q)}&limit=20`, signal);
}

/** The category names as the KB uses them, in the order the KB page lists them. */
export const CATEGORIES: { id: string; label: string }[] = [
  { id: 'installation', label: 'Installation' },
  { id: 'version-compatibility', label: 'Version compatibility' },
  { id: 'memory', label: 'Memory' },
  { id: 'driver', label: 'Driver' },
  { id: 'hardware', label: 'Hardware' },
  { id: 'code', label: 'Code' },
  { id: 'platform', label: 'Platform' },
];

export function categoryLabel(id: string): string {
  return CATEGORIES.find((c) => c.id === id)?.label ?? id;
}

/** Human names for the compatibility checks of kb-articles/README.md. */
export const CHECK_LABELS: Record<string, string> = {
  'cuda-vs-framework-build': 'CUDA runtime vs the framework build',
  'cudnn-vs-framework-build': 'cuDNN vs the framework build',
  'driver-vs-cuda': 'Driver vs CUDA',
  'gpu-arch-vs-build': 'GPU architecture vs the build',
  'tf-native-windows-gpu': 'TensorFlow GPU on native Windows',
  'torch-cpu-only-build': 'PyTorch build has CUDA',
  'python-vs-framework': 'Python vs the framework',
  'cudnn-vs-cuda': 'cuDNN vs CUDA',
  'mixed-precision-vs-gpu': 'Mixed precision vs the GPU',
  'multiple-cuda-versions': 'One CUDA version visible',
};

/** Splits a search snippet (HTML-escaped text with <mark> around matches) into plain and marked parts. */
export function snippetParts(html: string): { text: string; marked: boolean }[] {
  const parts: { text: string; marked: boolean }[] = [];
  const re = /<mark>([\s\S]*?)<\/mark>/g;
  let last = 0;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    if (m.index > last) parts.push({ text: unescapeHtml(stripTags(html.slice(last, m.index))), marked: false });
    parts.push({ text: unescapeHtml(stripTags(m[1])), marked: true });
    last = m.index + m[0].length;
  }
  if (last < html.length) parts.push({ text: unescapeHtml(stripTags(html.slice(last))), marked: false });
  return parts.filter((p) => p.text.length > 0);
}

function stripTags(s: string): string {
  return s.replace(/<[^>]*>/g, '');
}

function unescapeHtml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&amp;/g, '&');
}
