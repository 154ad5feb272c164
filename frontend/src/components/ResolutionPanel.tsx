import { useEffect, useRef, useState, type FormEvent } from 'react';
import { clearCause, confirmCause, getResolution, type Resolution } from '../crashes.ts';
import { CATEGORIES, listKb, type KbSummary } from '../diagnosis.ts';
import { Link } from '../router.tsx';
import { ErrorAlert, Time } from './common.tsx';
import { useCan } from '../session.ts';

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; resolution: Resolution };

/**
 * "What was it?": confirm the bundle's cause (a KB article, with a note), or take a confirmation back. A
 * confirmed crash counts as evidence in the diagnosis of similar crashes; `onChange` lets the page refresh.
 */
export function ResolutionPanel({
  bundleId,
  onChange,
  prefill,
  onConfirmedChange,
}: {
  bundleId: number;
  onChange: () => void;
  /** Told whether a cause is confirmed, whenever that is (re)loaded: the page shows a confirmed cause first. */
  onConfirmedChange?: (confirmed: boolean) => void;
  /** A cause chosen with "This was it" on the report: opens the form with it selected. */
  prefill?: { articleId: string; nonce: number } | null;
}) {
  const mayConfirm = useCan('triager');
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [articles, setArticles] = useState<KbSummary[]>([]);
  const [editing, setEditing] = useState(false);
  const [articleId, setArticleId] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const panel = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!prefill) return;
    setArticleId(prefill.articleId);
    setEditing(true);
    setError(null);
    panel.current?.scrollIntoView({ block: 'center' });
  }, [prefill]);

  useEffect(() => {
    const controller = new AbortController();
    getResolution(bundleId, controller.signal).then(
      (resolution) => setState({ kind: 'loaded', resolution }),
      (err) => {
        if (!controller.signal.aborted) setState({ kind: 'error', message: err instanceof Error ? err.message : 'Could not load the confirmed cause.' });
      },
    );
    return () => controller.abort();
  }, [bundleId, reload]);

  useEffect(() => {
    if (state.kind === 'loaded') onConfirmedChange?.(state.resolution.confirmed != null);
  }, [state, onConfirmedChange]);

  useEffect(() => {
    if (!editing || articles.length > 0) return;
    const controller = new AbortController();
    listKb(controller.signal).then(
      (l) => setArticles(l.articles),
      (err) => {
        if (!controller.signal.aborted) setError(err instanceof Error ? err.message : 'Could not load the knowledge base.');
      },
    );
    return () => controller.abort();
  }, [editing, articles.length]);

  async function onConfirm(e: FormEvent) {
    e.preventDefault();
    if (!articleId) {
      setError('Choose the cause first.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const resolution = await confirmCause(bundleId, articleId, note);
      setState({ kind: 'loaded', resolution });
      setEditing(false);
      onChange();
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Could not confirm the cause.');
    } finally {
      setBusy(false);
    }
  }

  async function onUndo() {
    setBusy(true);
    setError(null);
    try {
      await clearCause(bundleId);
      setState({ kind: 'loaded', resolution: { bundleId, confirmed: null } });
      onChange();
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Could not take the confirmation back.');
    } finally {
      setBusy(false);
    }
  }

  if (state.kind === 'loading') return null;
  if (state.kind === 'error') {
    return (
      <section className="panel resolution" aria-label="Confirmed cause">
        <ErrorAlert title="Could not load the confirmed cause">{state.message}</ErrorAlert>
        <button type="button" className="btn btn-small btn-secondary" onClick={() => setReload((n) => n + 1)}>
          Try again
        </button>
      </section>
    );
  }
  const confirmed = state.resolution.confirmed;
  return (
    <section ref={panel} className={confirmed ? 'panel resolution resolution-confirmed' : 'panel resolution'} aria-label="Confirmed cause" data-testid="resolution">
      {confirmed && !editing && (
        <div className="resolution-head">
          <div>
            <strong>Confirmed cause:</strong>{' '}
            <Link to={`/kb/${encodeURIComponent(confirmed.articleId)}`} data-testid="confirmed-cause">
              {confirmed.title}
            </Link>
            <span className="muted">
              {' '}
              · <Time iso={confirmed.confirmedAt} />
            </span>
            {confirmed.note && (
              <p className="resolution-note" data-testid="confirmed-note">
                {confirmed.note}
              </p>
            )}
          </div>
          {mayConfirm && <div className="resolution-actions">
            <button type="button" className="btn btn-small btn-secondary" onClick={() => { setArticleId(confirmed.articleId); setNote(confirmed.note ?? ''); setEditing(true); }} disabled={busy}>
              Change
            </button>
            <button type="button" className="btn btn-small btn-secondary" onClick={onUndo} disabled={busy} data-testid="undo-confirmation">
              Take back
            </button>
          </div>}
        </div>
      )}
      {!confirmed && !editing && (
        <div className="resolution-head">
          <p className="muted" data-testid="resolution-none">
            {mayConfirm
              ? 'Found the cause? Confirm it: similar crashes will show it, and their diagnosis will count it as evidence.'
              : 'No cause confirmed yet.'}
          </p>
          {mayConfirm && (
            <button type="button" className="btn btn-small btn-primary" onClick={() => setEditing(true)} data-testid="confirm-cause">
              Confirm the cause
            </button>
          )}
        </div>
      )}
      {editing && (
        <form className="resolution-form" onSubmit={onConfirm}>
          <label htmlFor="resolution-article">The cause</label>
          <select id="resolution-article" value={articleId} onChange={(e) => setArticleId(e.target.value)} data-testid="resolution-article" required>
            <option value="">{articles.length === 0 ? 'Loading the knowledge base…' : 'Choose an article…'}</option>
            {CATEGORIES.map((c) => {
              const inCategory = articles.filter((a) => a.category === c.id).sort((a, b) => a.title.localeCompare(b.title));
              return inCategory.length === 0 ? null : (
                <optgroup key={c.id} label={c.label}>
                  {inCategory.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.title}
                    </option>
                  ))}
                </optgroup>
              );
            })}
          </select>
          <label htmlFor="resolution-note">What fixed it (optional)</label>
          <textarea id="resolution-note" value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} rows={2} data-testid="resolution-note" />
          <div className="resolution-actions">
            <button type="submit" className="btn btn-primary btn-small" disabled={busy} data-testid="resolution-save">
              {busy ? 'Saving…' : 'Confirm'}
            </button>
            <button type="button" className="btn btn-secondary btn-small" onClick={() => { setEditing(false); setError(null); }} disabled={busy}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {error && <ErrorAlert title="Not saved">{error}</ErrorAlert>}
    </section>
  );
}
