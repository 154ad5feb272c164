import { useEffect, useState } from 'react';
import { ApiError } from '../api.ts';
import {
  CHECK_LABELS,
  categoryLabel,
  getDiagnosis,
  getKbArticle,
  type CompatResult,
  type Diagnosis,
  type Evidence,
  type Hypothesis,
  type KbArticle,
} from '../diagnosis.ts';
import { inline } from '../markdown.tsx';
import { Link } from '../router.tsx';
import { ErrorAlert, Loading } from './common.tsx';
import { SourceLink, type SourceJump } from './SourceLink.tsx';

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; diagnosis: Diagnosis };

/** How many causes are shown open; the rest sit under "Other candidates". */
const OPEN = 3;

/** The report: the ranked causes with their evidence, what to upload to be sure, and the compatibility checks. */
export function DiagnosisReport({ bundleId, jump }: { bundleId: number; jump: SourceJump }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setState({ kind: 'loading' });
    getDiagnosis(bundleId, controller.signal).then(
      (diagnosis) => setState({ kind: 'loaded', diagnosis }),
      (err) => {
        if (controller.signal.aborted) return;
        const message = err instanceof ApiError || err instanceof Error ? err.message : 'Could not diagnose the bundle.';
        setState({ kind: 'error', message });
      },
    );
    return () => controller.abort();
  }, [bundleId, reload]);

  let body;
  if (state.kind === 'loading') {
    body = <Loading label="Ranking the likely causes…" />;
  } else if (state.kind === 'error') {
    body = (
      <>
        <ErrorAlert title="Could not diagnose the bundle">{state.message}</ErrorAlert>
        <button type="button" className="btn btn-small btn-secondary" onClick={() => setReload((n) => n + 1)}>
          Try again
        </button>
      </>
    );
  } else {
    const d = state.diagnosis;
    const open = d.hypotheses.slice(0, OPEN);
    const rest = d.hypotheses.slice(OPEN);
    body = (
      <>
        {d.hypotheses.length === 0 ? (
          <p className="muted" data-testid="no-hypotheses">
            No known cause matched this bundle. Add the console log with the traceback, the <code>nvidia-smi</code>{' '}
            output and the environment listing, or <Link to="/kb">search the knowledge base</Link>.
          </p>
        ) : (
          <ol className="hypotheses" data-testid="hypotheses">
            {open.map((h, i) => (
              <HypothesisItem key={h.id} h={h} rank={i + 1} jump={jump} withRemedies={i === 0} />
            ))}
          </ol>
        )}
        {rest.length > 0 && (
          <details className="more-candidates">
            <summary>Other candidates ({rest.length})</summary>
            <ol className="hypotheses" start={OPEN + 1}>
              {rest.map((h, i) => (
                <HypothesisItem key={h.id} h={h} rank={OPEN + i + 1} jump={jump} withRemedies={false} />
              ))}
            </ol>
          </details>
        )}
        {d.ask.length > 0 && (
          <div className="ask" data-testid="ask">
            <h3>To be sure</h3>
            <ul>
              {d.ask.map((a, i) => (
                <li key={i}>
                  Upload <strong>{a.artifact}</strong>: {a.why}
                </li>
              ))}
            </ul>
          </div>
        )}
        {d.compat.length > 0 && <CompatChecks checks={d.compat} jump={jump} />}
        {d.notes.length > 0 && (
          <details className="diagnosis-notes">
            <summary>Notes from the diagnosis ({d.notes.length})</summary>
            <ul>
              {d.notes.map((n, i) => (
                <li key={i}>{n}</li>
              ))}
            </ul>
          </details>
        )}
      </>
    );
  }
  return (
    <section
      className="panel report"
      aria-labelledby="diagnosis-heading"
      aria-busy={state.kind === 'loading'}
      data-testid="diagnosis"
      data-computed-at={state.kind === 'loaded' ? state.diagnosis.computedAt : undefined}
    >
      <h2 id="diagnosis-heading">Likely causes</h2>
      {body}
    </section>
  );
}

function ConfidenceBar({ value }: { value: number }) {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  const tone = pct >= 60 ? 'high' : pct >= 25 ? 'mid' : 'low';
  return (
    <span className="confidence" data-testid="confidence" title={`Confidence ${pct}%`}>
      <span className="confidence-track" aria-hidden="true">
        <span className={`confidence-fill confidence-${tone}`} style={{ width: `${pct}%` }} />
      </span>
      <span className="confidence-value">{pct}%</span>
    </span>
  );
}

function HypothesisItem({ h, rank, jump, withRemedies }: { h: Hypothesis; rank: number; jump: SourceJump; withRemedies: boolean }) {
  return (
    <li className="hypothesis" data-testid="hypothesis" data-id={h.id}>
      <div className="hyp-head">
        <span className="hyp-rank" aria-hidden="true">
          {rank}
        </span>
        <h3 className="hyp-title">
          <Link to={`/kb/${encodeURIComponent(h.id)}`} data-testid="hypothesis-title">
            {h.title}
          </Link>
        </h3>
        <span className="badge badge-neutral">{categoryLabel(h.category)}</span>
        <ConfidenceBar value={h.confidence} />
      </div>
      {h.evidence.length > 0 && <EvidenceList items={h.evidence} jump={jump} label="Evidence" testId="evidence" />}
      {h.against.length > 0 && <EvidenceList items={h.against} jump={jump} label="Against" testId="against" />}
      {withRemedies && <Remedies id={h.id} />}
    </li>
  );
}

function EvidenceList({ items, jump, label, testId }: { items: Evidence[]; jump: SourceJump; label: string; testId: string }) {
  return (
    <div className={`evidence-block evidence-${testId}`}>
      <h4>{label}</h4>
      <ul className="evidence-list">
        {items.map((e, i) => (
          <li key={i} className="evidence" data-testid={testId}>
            <span className="evidence-text">
              {e.specific && <span className="tag tag-specific">specific</span>} {e.text}
            </span>
            {e.source && (
              <SourceLink source={e.source} jump={jump} className="evidence-source" testId="evidence-source">
                <span className="evidence-where">
                  {e.source.artifact}:{e.source.line}
                </span>
                {e.source.text && <code className="evidence-line">{e.source.text}</code>}
              </SourceLink>
            )}
            {e.sources.length > 1 && <span className="muted evidence-more"> and {e.sources.length - 1} more</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

type ArticleState = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; article: KbArticle };

/** The top cause's fixes and how to confirm it, from its KB article. */
function Remedies({ id }: { id: string }) {
  const [state, setState] = useState<ArticleState>({ kind: 'loading' });
  useEffect(() => {
    const controller = new AbortController();
    getKbArticle(id, controller.signal).then(
      (article) => setState({ kind: 'loaded', article }),
      (err) => {
        if (!controller.signal.aborted) setState({ kind: 'error', message: err instanceof Error ? err.message : 'Could not load the article.' });
      },
    );
    return () => controller.abort();
  }, [id]);
  if (state.kind === 'loading') return <Loading label="Loading the fix…" />;
  if (state.kind === 'error') return <p className="muted">The fix could not be loaded: {state.message}</p>;
  const a = state.article;
  return (
    <div className="remedies" data-testid="remedies">
      {a.remedies.length > 0 && (
        <>
          <h4>How to fix</h4>
          {a.remedies.map((r, i) => (
            <div key={i} className="remedy">
              {r.platform && r.platform !== 'any' && <span className="badge badge-info">{r.platform}</span>}
              <ol>
                {r.steps.map((s, j) => (
                  <li key={j}>{inline(s, `r${i}-${j}`)}</li>
                ))}
              </ol>
            </div>
          ))}
        </>
      )}
      {a.confirm.length > 0 && (
        <>
          <h4>How to confirm</h4>
          <ul>
            {a.confirm.map((c, i) => (
              <li key={i}>{inline(c, `c${i}`)}</li>
            ))}
          </ul>
        </>
      )}
      <p>
        <Link to={`/kb/${encodeURIComponent(a.id)}`}>Read the full article</Link>
      </p>
    </div>
  );
}

const RESULT_TONE: Record<string, string> = { ok: 'ok', mismatch: 'bad', unknown: 'neutral' };

function CompatChecks({ checks, jump }: { checks: CompatResult[]; jump: SourceJump }) {
  // mismatches first: they are what the reader came for
  const order = (r: string) => (r === 'mismatch' ? 0 : r === 'ok' ? 1 : 2);
  const sorted = [...checks].sort((a, b) => order(a.result) - order(b.result));
  return (
    <div className="compat" data-testid="compat">
      <h3>Compatibility checks</h3>
      <ul className="compat-list">
        {sorted.map((c, i) => (
          <li key={i} className="compat-check" data-testid="compat-check" data-result={c.result}>
            <span className={`badge badge-${RESULT_TONE[c.result] ?? 'neutral'}`}>{c.result}</span>{' '}
            <span className="compat-name">{CHECK_LABELS[c.check] ?? c.check}</span>
            {c.explanation && <span className="compat-explanation">: {c.explanation}</span>}
            {c.sources.length > 0 && (
              <span className="compat-sources">
                {' '}
                (
                {c.sources.slice(0, 3).map((s, j) => (
                  <span key={j}>
                    {j > 0 && ', '}
                    <SourceLink source={s} jump={jump}>
                      {s.artifact}:{s.line}
                    </SourceLink>
                  </span>
                ))}
                {c.sources.length > 3 && `, +${c.sources.length - 3}`})
              </span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
