import { useEffect, useState } from 'react';
import { getConfirmedAs, type ConfirmedBundles } from '../crashes.ts';
import { Link } from '../router.tsx';
import { ProblemText, Time } from './common.tsx';

/** The crashes people confirmed as this KB article's cause, with what fixed them. */
export function ConfirmedCrashes({ articleId }: { articleId: string }) {
  const [data, setData] = useState<ConfirmedBundles | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    setData(null);
    setError(null);
    getConfirmedAs(articleId, controller.signal).then(setData, (err) => {
      if (!controller.signal.aborted) setError(err instanceof Error ? err.message : 'Could not load the confirmed crashes.');
    });
    return () => controller.abort();
  }, [articleId]);

  return (
    <section className="panel" aria-labelledby="confirmed-crashes-heading" data-testid="kb-confirmed">
      <h2 id="confirmed-crashes-heading">
        Confirmed crashes {data && data.total > 0 && <span className="count">{data.total.toLocaleString()}</span>}
      </h2>
      {error && <p className="muted"><ProblemText>{error}</ProblemText></p>}
      {data && data.total === 0 && <p className="muted">No crash has been confirmed as this cause yet.</p>}
      {data && data.bundles.length > 0 && (
        <ul className="kb-confirmed-list">
          {data.bundles.map((b) => (
            <li key={b.bundleId} data-testid="kb-confirmed-bundle">
              <Link to={`/bundles/${b.bundleId}`} className="similar-name">
                {b.name}
              </Link>
              <span className="muted">
                {' '}
                · <Time iso={b.confirmedAt} />
              </span>
              {b.note && <p className="resolution-note muted">{b.note}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
