import { useEffect, useState } from 'react';
import { ApiError, type Artifact, type SourceRef } from '../api.ts';
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
  type Strength,
} from '../diagnosis.ts';
import { formatBytes } from '../format.ts';
import { inline } from '../markdown.tsx';
import { Link } from '../router.tsx';
import { ErrorAlert, Loading, ProblemText } from './common.tsx';
import { SourceLink, type SourceJump } from './SourceLink.tsx';

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; diagnosis: Diagnosis };

/** How many causes are shown open; the rest sit under "Other candidates". */
const OPEN = 3;

/**
 * The report: the verdict, the ranked causes with their evidence, what to upload to be sure, the compatibility
 * checks, and the Windows events that are not about this crash. `onThisWasIt` opens the confirm form for a cause.
 */
export function DiagnosisReport({
  bundleId,
  jump,
  artifacts = [],
  onThisWasIt,
}: {
  bundleId: number;
  jump: SourceJump;
  artifacts?: Artifact[];
  onThisWasIt?: (articleId: string) => void;
}) {
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
    const verdict = d.verdict ?? 'diagnosed';
    const guesses = verdict !== 'diagnosed';
    // the causes a weak verdict cannot tell apart: the server's equals, else the two best guesses
    const equalIds = d.equals && d.equals.length > 1 ? d.equals : d.hypotheses.slice(0, 2).map((h) => h.id);
    // "To be sure" exists whenever there is something to ask: files to upload, or the question between equals
    const tellApart = verdict === 'weak' && equalIds.length > 1;
    const toBeSure = d.ask.length > 0 || tellApart;
    const open = d.hypotheses.slice(0, OPEN);
    const rest = d.hypotheses.slice(OPEN);
    body = (
      <>
        <HowToRead mayConfirm={onThisWasIt !== undefined} />
        {verdict === 'no-evidence' && <NotEnoughEvidence artifacts={artifacts} />}
        {verdict === 'diagnosed' && d.hypotheses.length > 0 && (
          <p className="verdict verdict-diagnosed" data-testid="verdict" data-verdict="diagnosed">
            <svg className="verdict-icon" viewBox="0 0 16 16" aria-hidden="true">
              <path d="M3.5 8.5l3 3 6-7" />
            </svg>
            <span>
              <strong>Diagnosed:</strong> {d.hypotheses[0].title}. The bundle’s own evidence points at this cause.
            </span>
          </p>
        )}
        {verdict === 'weak' && (
          <p className="verdict verdict-weak" data-testid="verdict" data-verdict="weak">
            <strong>Weak evidence.</strong>{' '}
            {equalIds.length > 1
              ? <>This bundle cannot yet tell these causes apart: <span data-testid="verdict-equals">{equalIds.map((id) => titleOf(d, id)).join('; ')}</span>.</>
              : <>Nothing in this bundle points at one cause specifically; the list below is ranked on circumstances and is a guess.</>}
            {toBeSure && <> See “To be sure” below for what would tell them apart.</>}
          </p>
        )}
        {guesses && d.hypotheses.length > 0 && (
          <h3 className="guesses-heading" data-testid="guesses-heading">
            {verdict === 'no-evidence' ? 'Guesses (no evidence in this bundle)' : 'Candidates (guesses)'}
          </h3>
        )}
        {d.hypotheses.length === 0 ? (
          <p className="muted" data-testid="no-hypotheses">
            No known cause matched this bundle. Add the console log with the traceback, the <code>nvidia-smi</code>{' '}
            output and the environment listing, or <Link to="/kb">search the knowledge base</Link>.
          </p>
        ) : (
          <ol className="hypotheses" data-testid="hypotheses">
            {open.map((h, i) => (
              <HypothesisItem key={h.id} h={h} rank={i + 1} jump={jump} withRemedies={i === 0 && !guesses} onThisWasIt={onThisWasIt} />
            ))}
          </ol>
        )}
        {rest.length > 0 && (
          <details className="more-candidates">
            <summary>Other candidates ({rest.length})</summary>
            <ol className="hypotheses" start={OPEN + 1}>
              {rest.map((h, i) => (
                <HypothesisItem key={h.id} h={h} rank={OPEN + i + 1} jump={jump} withRemedies={false} onThisWasIt={onThisWasIt} />
              ))}
            </ol>
          </details>
        )}
        {toBeSure && (
          <div className="ask" data-testid="ask">
            <h3>To be sure</h3>
            {d.ask.length > 0 && (
              <ul>
                {d.ask.map((a, i) => (
                  <li key={i}>
                    Upload <strong>{inline(a.artifact, `ask${i}`)}</strong>: {inline(a.why, `why${i}`)}
                  </li>
                ))}
              </ul>
            )}
            {tellApart && <TellApart ids={equalIds} diagnosis={d} />}
          </div>
        )}
        {d.compat.length > 0 && <CompatChecks checks={d.compat} jump={jump} />}
        {(d.otherEventCount ?? 0) > 0 && <OtherEvents events={d.otherEvents ?? []} count={d.otherEventCount ?? 0} jump={jump} />}
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

function titleOf(d: Diagnosis, id: string): string {
  return d.hypotheses.find((h) => h.id === id)?.title ?? id;
}

/** What tells the equal causes of a weak verdict apart: each one's first "How to confirm" step, from its article. */
function TellApart({ ids, diagnosis }: { ids: string[]; diagnosis: Diagnosis }) {
  const [articles, setArticles] = useState<Record<string, KbArticle | null>>({});
  const key = ids.join(',');
  useEffect(() => {
    const controller = new AbortController();
    for (const id of ids) {
      getKbArticle(id, controller.signal).then(
        (a) => setArticles((m) => ({ ...m, [id]: a })),
        () => {
          if (!controller.signal.aborted) setArticles((m) => ({ ...m, [id]: null }));
        },
      );
    }
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return (
    <div data-testid="tell-apart">
      <p>To tell these apart, check:</p>
      <ul>
        {ids.map((id) => {
          const a = articles[id];
          const step = a?.confirm[0];
          return (
            <li key={id} data-testid="tell-apart-item">
              <Link to={`/kb/${encodeURIComponent(id)}`}>{a?.title ?? titleOf(diagnosis, id)}</Link>
              {': '}
              {a === undefined ? <span className="muted">loading…</span> : step ? inline(step, `ta-${id}`) : <span className="muted">see the article</span>}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

const STRENGTH_WORDS: Record<Strength, { label: string; tone: string; title: string }> = {
  strong: { label: 'Strong evidence', tone: 'high', title: 'Specific evidence that on its own nearly settles it' },
  moderate: { label: 'Some evidence', tone: 'mid', title: 'Specific evidence, but not conclusive' },
  weak: { label: 'Weak evidence', tone: 'low', title: 'Only evidence that fits several causes' },
  none: { label: 'No evidence', tone: 'none', title: 'A guess: nothing in the bundle points here' },
};

/** The strength of a cause's evidence in words (the rank says the order; no percentage pretends to be a probability). */
function StrengthBadge({ strength }: { strength: Strength }) {
  const w = STRENGTH_WORDS[strength] ?? STRENGTH_WORDS.none;
  return (
    <span className={`strength strength-${w.tone}`} data-testid="strength" data-strength={strength} title={w.title}>
      {w.label}
    </span>
  );
}

/** A short guide to the report, on the report itself. */
function HowToRead({ mayConfirm }: { mayConfirm: boolean }) {
  return (
    <details className="how-to-read" data-testid="how-to-read">
      <summary>How to read this</summary>
      <ul>
        <li>
          Causes are ranked by how well the files of this bundle support them; the first is the best supported, not a
          certainty.
        </li>
        <li>
          <strong>Strong evidence</strong>: a line or value that points at this cause and few others (an error message,
          an event, a version that cannot work). <strong>Some evidence</strong>: such a pointer, but a weaker one.{' '}
          <strong>Weak evidence</strong>: only things that fit several causes. <strong>No evidence</strong>: a guess.
        </li>
        <li>
          Lines marked <em>specific</em> point at the cause; the others fit it. Context such as the operating system
          or the card's driver mode makes a cause possible but never counts alone.
        </li>
        <li>Each evidence line links to where it was read; Back returns here.</li>
        {mayConfirm && (
          <li>
            When you know what it was, press <em>This was it</em>: the confirmed cause is shown first here and helps
            the diagnosis of similar crashes.
          </li>
        )}
      </ul>
    </details>
  );
}

/** What an artifact is, in words, when nothing could be read from it. */
function unreadable(a: Artifact): string | null {
  if (a.size === 0) return 'an empty file';
  if (/\.(png|jpe?g|gif|bmp|webp|tiff?|heic)$/i.test(a.path)) return 'an image (a screenshot cannot be read as text)';
  if (a.type === 'BINARY') return 'a binary file (not text, not an event log)';
  return null;
}

/** The answer when nothing in the bundle is evidence: what was read, what was not, and what to upload. */
function NotEnoughEvidence({ artifacts }: { artifacts: Artifact[] }) {
  const notRead = artifacts.map((a) => ({ a, why: unreadable(a) })).filter((x) => x.why !== null);
  const read = artifacts.filter((a) => unreadable(a) === null);
  return (
    <div className="verdict verdict-none" data-testid="verdict" data-verdict="no-evidence">
      <h3>Not enough evidence</h3>
      <p>Nothing in this bundle points at a cause, so there is no diagnosis yet. Any causes listed below are guesses.</p>
      {read.length > 0 && (
        <p data-testid="verdict-read">
          Read: {read.map((a, i) => (
            <span key={a.id}>
              {i > 0 && ', '}
              <code>{a.path}</code> ({a.typeLabel}, {formatBytes(a.size)})
            </span>
          ))}
          {' '}— no error, event or version in them matched a known cause.
        </p>
      )}
      {notRead.length > 0 && (
        <p data-testid="verdict-unreadable">
          Could not be read: {notRead.map((x, i) => (
            <span key={x.a.id}>
              {i > 0 && ', '}
              <code>{x.a.path}</code> is {x.why}
            </span>
          ))}
          .
        </p>
      )}
      <p>Upload, as text files:</p>
      <ul data-testid="verdict-upload">
        <li>the complete console output of the failed run, from the start to the last line (the traceback and exit status);</li>
        <li>
          <code>nvidia-smi -q</code> output, and an environment listing (<code>python -m torch.utils.collect_env</code>, or{' '}
          <code>pip list</code> and <code>nvcc -V</code>);
        </li>
        <li>
          on Windows the Application and System event logs (.evtx); on Linux the kernel log (<code>dmesg -T</code> or{' '}
          <code>journalctl -k</code>).
        </li>
      </ul>
      <p className="muted">
        The collector script gathers all of these in one zip (see the upload page).
      </p>
    </div>
  );
}

/** Windows events that are about other programs or other times: listed, never evidence. */
function OtherEvents({ events, count, jump }: { events: SourceRef[]; count: number; jump: SourceJump }) {
  return (
    <details className="other-events" data-testid="other-events">
      <summary>Other events in the event logs ({count}): other programs or other times, not used as evidence</summary>
      <ul>
        {events.map((s, i) => (
          <li key={i}>
            <SourceLink source={s} jump={jump}>
              {s.artifact}:{s.line}
            </SourceLink>{' '}
            <span className="muted">{s.text.length > 200 ? `${s.text.slice(0, 197)}…` : s.text}</span>
          </li>
        ))}
        {count > events.length && <li className="muted">and {count - events.length} more</li>}
      </ul>
    </details>
  );
}

function HypothesisItem({
  h,
  rank,
  jump,
  withRemedies,
  onThisWasIt,
}: {
  h: Hypothesis;
  rank: number;
  jump: SourceJump;
  withRemedies: boolean;
  onThisWasIt?: (articleId: string) => void;
}) {
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
        <StrengthBadge strength={h.strength ?? (h.evidence.length === 0 ? 'none' : 'moderate')} />
        {onThisWasIt && (
          <button type="button" className="btn btn-small btn-secondary this-was-it" onClick={() => onThisWasIt(h.id)} data-testid="this-was-it">
            This was it
          </button>
        )}
      </div>
      {h.evidence.length > 0 && <EvidenceList items={h.evidence} jump={jump} label="Evidence" testId="evidence" />}
      {h.against.length > 0 && <EvidenceList items={h.against} jump={jump} label="Against" testId="against" />}
      {withRemedies && <Remedies id={h.id} />}
    </li>
  );
}

const sourceKey = (s: SourceRef) => `${s.artifact}:${s.line}`;

/** Evidence lines, grouped so that each source line is cited once (several findings on one line share it). */
function EvidenceList({ items, jump, label, testId }: { items: Evidence[]; jump: SourceJump; label: string; testId: string }) {
  const groups: { source: SourceRef | null; items: Evidence[] }[] = [];
  const byKey = new Map<string, { source: SourceRef | null; items: Evidence[] }>();
  for (const e of items) {
    const key = e.source ? sourceKey(e.source) : null;
    const g = key ? byKey.get(key) : undefined;
    if (g) {
      g.items.push(e);
    } else {
      const n = { source: e.source, items: [e] };
      groups.push(n);
      if (key) byKey.set(key, n);
    }
  }
  return (
    <div className={`evidence-block evidence-${testId}`}>
      <h4>{label}</h4>
      <ul className="evidence-list">
        {groups.map((g, i) => {
          const more = uniqueSources(g.items).filter((s) => !g.source || sourceKey(s) !== sourceKey(g.source));
          return (
            <li key={i} className="evidence" data-testid={testId}>
              {g.items.map((e, j) => (
                <span key={j} className="evidence-text">
                  {j > 0 && <br />}
                  {e.specific && <span className="tag tag-specific">specific</span>} {inline(e.text, `e${i}-${j}`)}
                </span>
              ))}
              {g.source && (
                <SourceLink source={g.source} jump={jump} className="evidence-source" testId="evidence-source">
                  <span className="evidence-where">
                    {g.source.artifact}:{g.source.line}
                  </span>
                  {g.source.text && <code className="evidence-line">{g.source.text}</code>}
                </SourceLink>
              )}
              {more.length > 0 && (
                <details className="evidence-more" data-testid="evidence-more">
                  <summary className="muted">and {more.length} more</summary>
                  <ul>
                    {more.map((s, k) => (
                      <li key={k}>
                        <SourceLink source={s} jump={jump} className="evidence-source">
                          <span className="evidence-where">
                            {s.artifact}:{s.line}
                          </span>
                          {s.text && <code className="evidence-line">{s.text}</code>}
                        </SourceLink>
                      </li>
                    ))}
                  </ul>
                </details>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function uniqueSources(items: Evidence[]): SourceRef[] {
  const seen = new Set<string>();
  const out: SourceRef[] = [];
  for (const e of items) {
    for (const s of e.sources) {
      const k = sourceKey(s);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(s);
      }
    }
  }
  return out;
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
  if (state.kind === 'error') return <p className="muted">The fix could not be loaded: <ProblemText>{state.message}</ProblemText></p>;
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
