import type { BundleFacts } from '../api.ts';
import { environment } from '../facts.ts';
import { ErrorAlert, Loading } from './common.tsx';
import { SourceLink, type SourceJump } from './SourceLink.tsx';

export type FactsState =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | { kind: 'loaded'; facts: BundleFacts };

/** The bundle's environment at a glance: each value links to the line it was read from. */
export function EnvironmentPanel({ state, jump, onRetry }: { state: FactsState; jump: SourceJump; onRetry: () => void }) {
  let body;
  if (state.kind === 'loading') {
    body = <Loading label="Reading the artifacts…" />;
  } else if (state.kind === 'error') {
    body = (
      <>
        <ErrorAlert title="Could not read the facts">{state.message}</ErrorAlert>
        <button type="button" className="btn btn-small btn-secondary" onClick={onRetry}>
          Try again
        </button>
      </>
    );
  } else {
    const rows = environment(state.facts);
    body = (
      <dl className="env" data-testid="environment">
        {rows.map((row) => (
          <div key={row.key} className="env-row" data-testid={`env-${row.key}`}>
            <dt>{row.label}</dt>
            <dd>
              {row.values.length === 0 ? (
                <span className="muted not-stated">Not stated in this bundle</span>
              ) : (
                <ul className="env-values">
                  {row.values.map((v, i) => (
                    <li key={i}>
                      {v.source ? (
                        <SourceLink source={v.source} jump={jump} className="env-value">
                          {v.text}
                        </SourceLink>
                      ) : (
                        <span className="env-value">{v.text}</span>
                      )}
                      {v.note && <span className="env-note muted"> {v.note}</span>}
                      {v.detail && <span className="env-detail"> — {v.detail}</span>}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return (
    <section className="panel" aria-labelledby="environment-heading" aria-busy={state.kind === 'loading'}>
      <h2 id="environment-heading">Environment</h2>
      {body}
    </section>
  );
}
