import { useEffect, useState } from 'react';
import { getSimilarCrashes, type SimilarCrashes as Similar } from '../crashes.ts';
import { pluralForm } from '../format.ts';
import { Link } from '../router.tsx';
import { ErrorAlert, Loading, Time } from './common.tsx';

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; data: Similar };

/** The past crashes most like this bundle, each with what it shares and its likely cause. */
export function SimilarCrashes({ bundleId }: { bundleId: number }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setState({ kind: 'loading' });
    getSimilarCrashes(bundleId, controller.signal).then(
      (data) => setState({ kind: 'loaded', data }),
      (err) => {
        if (!controller.signal.aborted) {
          setState({ kind: 'error', message: err instanceof Error ? err.message : 'Could not load similar crashes.' });
        }
      },
    );
    return () => controller.abort();
  }, [bundleId, reload]);

  let body;
  if (state.kind === 'loading') {
    body = <Loading label="Looking for similar crashes…" />;
  } else if (state.kind === 'error') {
    body = (
      <>
        <ErrorAlert title="Could not load similar crashes">{state.message}</ErrorAlert>
        <button type="button" className="btn btn-small btn-secondary" onClick={() => setReload((n) => n + 1)}>
          Try again
        </button>
      </>
    );
  } else if (state.data.similar.length === 0) {
    const specific = state.data.signature.filter((t) => t.specific);
    body = (
      <p className="muted" data-testid="no-similar">
        {specific.length === 0
          ? 'Nothing in this bundle is specific enough to compare with other crashes (no exit code, failing library, event or likely cause was found).'
          : `No other crash shares ${pluralForm(specific.length, '', 'any of: ')}${specific.map((t) => t.label).join(', ')}.`}
      </p>
    );
  } else {
    body = (
      <ol className="similar-crashes" data-testid="similar-crashes">
        {state.data.similar.map((s) => (
          <li key={s.bundleId} className="similar-crash" data-testid="similar-crash">
            <div className="similar-head">
              <Link to={`/bundles/${s.bundleId}`} className="similar-name">
                {s.name}
              </Link>
              <span className="muted">
                {' '}
                · <Time iso={s.uploadedAt} />
              </span>
              <span className="similar-score" title="The share of this bundle's signature the other crash has too, rare terms weighing more">
                {Math.round(s.similarity * 100)}% alike
              </span>
            </div>
            {s.likelyCause && (
              <div className={s.likelyCause.confirmed ? 'similar-cause cause-confirmed' : 'similar-cause'} data-testid="similar-cause">
                {s.likelyCause.confirmed ? 'Confirmed cause: ' : s.likelyCause.weak ? 'Weak evidence, best guess: ' : 'Likely cause: '}
                <Link to={`/kb/${encodeURIComponent(s.likelyCause.id)}`}>{s.likelyCause.title}</Link>
              </div>
            )}
            <ul className="shared-terms" aria-label="What it shares with this bundle">
              {s.shared.map((t) => (
                <li key={t.key} className={t.specific ? 'term term-specific' : 'term'} data-testid="shared-term">
                  {t.label}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    );
  }

  return (
    <section aria-labelledby="similar-heading" className="panel similar-section">
      <h2 id="similar-heading">Similar crashes</h2>
      {body}
    </section>
  );
}
