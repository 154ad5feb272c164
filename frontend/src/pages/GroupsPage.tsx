// Crash groups: bundles whose specific signature terms are the same; a group's page says what sets it apart.
import { useEffect, useState } from 'react';
import { getJson, type Schemas } from '../api.ts';
import { ErrorAlert, Loading, Time, useTitle } from '../components/common.tsx';
import { plural } from '../format.ts';
import { Link } from '../router.tsx';

/** A crash group as GET /api/groups lists it (CrashGroupService.Group). */
export type CrashGroup = Schemas['Group'];

/** One setting's value inside a group and among all bundles. */
export type Correlation = Schemas['Correlation'];

/** GET /api/groups/{key}: the group, its newest bundles and its correlations. */
type GroupDetail = Schemas['GroupPage'];

type Load<T> = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; data: T };

function useJson<T>(url: string): Load<T> {
  const [state, setState] = useState<Load<T>>({ kind: 'loading' });
  useEffect(() => {
    const controller = new AbortController();
    setState({ kind: 'loading' });
    getJson<T>(url, controller.signal).then(
      (data) => setState({ kind: 'loaded', data }),
      (err) => {
        if (!controller.signal.aborted) setState({ kind: 'error', message: err instanceof Error ? err.message : 'Loading failed.' });
      },
    );
    return () => controller.abort();
  }, [url]);
  return state;
}

/** Crashes per day as a small bar chart. */
function Sparkline({ daily }: { daily: number[] }) {
  const max = Math.max(1, ...daily);
  const w = 3;
  return (
    <svg className="sparkline" width={daily.length * w} height={20} role="img" aria-label={`${daily.reduce((a, b) => a + b, 0)} in 30 days`}>
      {daily.map((n, i) => (
        <rect key={i} x={i * w} y={20 - (n / max) * 20} width={w - 1} height={(n / max) * 20} />
      ))}
    </svg>
  );
}

export function GroupsPage() {
  useTitle('Crash groups');
  const state = useJson<CrashGroup[]>('/api/groups');
  let body;
  if (state.kind === 'loading') body = <Loading label="Counting groups…" />;
  else if (state.kind === 'error') body = <ErrorAlert title="Could not load the groups">{state.message}</ErrorAlert>;
  else if (state.data.length === 0) body = <p className="muted">No crash groups yet: upload a bundle.</p>;
  else
    body = (
      <div className="table-wrap">
        <table className="table stack" data-testid="groups">
          <thead>
            <tr>
              <th scope="col">What the crashes share</th>
              <th scope="col" className="num">
                Crashes
              </th>
              <th scope="col">Cause</th>
              <th scope="col">First seen</th>
              <th scope="col">Last seen</th>
              <th scope="col">Last 30 days</th>
            </tr>
          </thead>
          <tbody>
            {state.data.map((g) => (
              <tr key={g.key} data-testid="group-row">
                <td className="name-cell">
                  <Link to={`/groups/${g.key}`}>{g.label}</Link>
                </td>
                <td className="num">{g.count.toLocaleString()}</td>
                <td>{g.causeTitle ?? <span className="muted">none</span>}</td>
                <td className="nowrap">
                  <Time iso={g.firstSeen} />
                </td>
                <td className="nowrap">
                  <Time iso={g.lastSeen} />
                </td>
                <td>
                  <Sparkline daily={g.daily} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  return (
    <div className="page">
      <div className="page-head">
        <h1>Crash groups</h1>
      </div>
      {body}
    </div>
  );
}

function percent(x: number): string {
  return `${Math.round(x * 100)} %`;
}

export function GroupPage({ id }: { id: string }) {
  const state = useJson<GroupDetail>(`/api/groups/${encodeURIComponent(id)}`);
  useTitle(state.kind === 'loaded' ? `Group ${state.data.group.label}` : 'Crash group');
  if (state.kind === 'loading') return <Loading label="Loading the group…" />;
  if (state.kind === 'error')
    return (
      <div className="page">
        <ErrorAlert title="Could not load the group">{state.message}</ErrorAlert>
      </div>
    );
  const { group, bundles, correlations } = state.data;
  return (
    <div className="page">
      <div className="page-head">
        <h1 data-testid="group-heading">{group.label}</h1>
        <Link to={`/bundles?q=${encodeURIComponent(`group:${group.key}`)}`} className="btn btn-secondary">
          Search this group
        </Link>
      </div>
      <p>
        {plural(group.count, 'crash', 'crashes')} from <Time iso={group.firstSeen} /> to{' '}
        <Time iso={group.lastSeen} /> <Sparkline daily={group.daily} />
        {group.causeTitle && <> · cause: {group.causeTitle}</>}
      </p>
      <section aria-labelledby="corr-heading">
        <h2 id="corr-heading">What sets this group apart</h2>
        <div className="table-wrap">
          <table className="table" data-testid="correlations">
            <thead>
              <tr>
                <th scope="col">Setting</th>
                <th scope="col" className="num">
                  In this group
                </th>
                <th scope="col" className="num">
                  All bundles
                </th>
              </tr>
            </thead>
            <tbody>
              {correlations.map((c) => (
                <tr key={c.filter} data-testid="correlation-row">
                  <td>
                    <Link to={`/bundles?q=${encodeURIComponent(c.filter)}`}>
                      {c.dimension} {c.value}
                    </Link>
                  </td>
                  <td className="num">{percent(c.groupShare)}</td>
                  <td className="num">{percent(c.overallShare)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="group-bundles-heading">
        <h2 id="group-bundles-heading">Newest bundles</h2>
        <ul data-testid="group-bundles">
          {bundles.map((b) => (
            <li key={b.bundleId}>
              <Link to={`/bundles/${b.bundleId}`}>{b.name}</Link> · <Time iso={b.uploadedAt} />
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
