import { useEffect, useState, type FormEvent } from 'react';
import { ErrorAlert, Time, useTitle } from '../components/common.tsx';
import { getJson, sendJson } from '../api.ts';
import { formatBytes, plural, pluralForm } from '../format.ts';
import { Link } from '../router.tsx';
import { SecretOnce, TokenTable, type NewToken, type Token } from './AccountPage.tsx';

const ROLES = ['viewer', 'reporter', 'triager', 'lab', 'admin'];

interface User {
  id: number;
  username: string;
  roles: string[];
  createdAt: string;
  disabled: boolean;
}

interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  detail: string | null;
}

interface AuditPage {
  items: AuditEntry[];
  page: number;
  size: number;
  total: number;
}

function useReload(): [number, () => void] {
  const [n, setN] = useState(0);
  return [n, () => setN((x) => x + 1)];
}

function Users() {
  const [users, setUsers] = useState<User[]>([]);
  const [reload, bump] = useReload();
  const [error, setError] = useState<string | null>(null);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState('viewer');

  useEffect(() => {
    getJson<User[]>('/api/admin/users').then(setUsers, (e: Error) => setError(e.message));
  }, [reload]);

  async function act(what: () => Promise<unknown>) {
    setError(null);
    try {
      await what();
      bump();
    } catch (err) {
      setError(err instanceof Error ? err.message : 'The change failed.');
    }
  }

  function onCreate(e: FormEvent) {
    e.preventDefault();
    void act(async () => {
      await sendJson('POST', '/api/admin/users', { username, password, roles: [role] });
      setUsername('');
      setPassword('');
    });
  }

  return (
    <section className="panel" aria-label="Users">
      <h2>Users</h2>
      {error && <ErrorAlert title="Users">{error}</ErrorAlert>}
      <div className="table-wrap">
        <table className="table" data-testid="users">
          <thead>
            <tr>
              <th>User</th>
              <th>Role</th>
              <th>Created</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id}>
                <td>
                  {u.username} {u.disabled && <span className="muted">(disabled)</span>}
                </td>
                <td>
                  <select aria-label={`Role of ${u.username}`} value={ROLES.filter((r) => u.roles.includes(r)).pop() ?? 'viewer'}
                    onChange={(e) => void act(() => sendJson('PUT', `/api/admin/users/${u.id}`, { roles: [e.target.value] }))}>
                    {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
                  </select>
                  {u.roles.length > 1 && <span className="muted"> ({u.roles.join(', ')})</span>}
                </td>
                <td><Time iso={u.createdAt} /></td>
                <td>
                  <button type="button" className="btn btn-small btn-secondary"
                    onClick={() => void act(() => sendJson('PUT', `/api/admin/users/${u.id}`, { disabled: !u.disabled }))}>
                    {u.disabled ? 'Enable' : 'Disable'}
                  </button>{' '}
                  <button type="button" className="btn btn-small btn-danger"
                    onClick={() => { if (window.confirm(`Delete user ${u.username} and their tokens?`)) void act(() => sendJson('DELETE', `/api/admin/users/${u.id}`)); }}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3 className="form-heading">Add a user</h3>
      <form onSubmit={onCreate} className="inline-form" data-testid="new-user">
        <div className="field">
          <label htmlFor="new-user-name">User name</label>
          <input id="new-user-name" type="text" value={username} onChange={(e) => setUsername(e.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor="new-user-password">Password <span className="muted">(at least 10 characters)</span></label>
          <input id="new-user-password" type="password" autoComplete="new-password" minLength={10} value={password}
            onChange={(e) => setPassword(e.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor="new-user-role">Role</label>
          <select id="new-user-role" value={role} onChange={(e) => setRole(e.target.value)}>
            {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
        </div>
        <button type="submit" className="btn btn-primary">Add user</button>
      </form>
    </section>
  );
}

interface WorkerDevice {
  name: string;
  memoryBytes: number;
  unavailableReason: string | null;
}

interface WorkerSeen {
  name: string;
  backend: string;
  devices: WorkerDevice[];
  version: string | null;
  firstSeen: string;
  lastSeen: string;
  online: boolean;
  currentJob: number | null;
}

interface LocalWorker {
  enabled: boolean;
  alive: boolean;
  backend: string;
  restarts: number;
  lastDeathAt: string | null;
  lastDeath: string | null;
  lastSeen: string | null;
  currentJob: number | null;
}

interface LabWorkers {
  local: LocalWorker;
  workers: WorkerSeen[];
}

/** The server's own worker: on or off, running or waiting to restart, and how often its supervisor restarted it. */
function LocalWorkerState({ local }: { local: LocalWorker }) {
  if (!local.enabled) {
    return (
      <p data-testid="local-worker">
        <span className="badge badge-neutral">off</span> This server runs no worker of its own
        (<code>crashlab.lab.local-worker=false</code>): jobs wait for a lab machine.
      </p>
    );
  }
  return (
    <div data-testid="local-worker">
      <p>
        <strong>local</strong> (this server, {local.backend} backend){' '}
        {local.alive ? <span className="badge badge-ok">online</span> : <span className="badge badge-bad">restarting</span>}
        {' · '}
        {local.currentJob != null ? (
          `running job ${local.currentJob}`
        ) : (
          'idle'
        )}
        {' · '}
        {local.lastSeen ? <>last asked for work <Time iso={local.lastSeen} seconds /></> : 'has not asked for work yet'}
      </p>
      <p className={local.restarts > 0 ? undefined : 'muted'} data-testid="local-worker-restarts">
        {local.restarts === 0
          ? 'Never restarted since the server started.'
          : `Restarted ${plural(local.restarts, 'time')} since the server started`}
        {local.lastDeathAt && (
          <>
            ; last on <Time iso={local.lastDeathAt} seconds />: <code>{local.lastDeath}</code>
          </>
        )}
        {local.restarts > 0 && '.'}
      </p>
    </div>
  );
}

function Workers() {
  const [tokens, setTokens] = useState<Token[]>([]);
  const [lab, setLab] = useState<LabWorkers | null>(null);
  const [reload, bump] = useReload();
  const [error, setError] = useState<string | null>(null);
  const [worker, setWorker] = useState('');
  const [created, setCreated] = useState<NewToken | null>(null);

  useEffect(() => {
    getJson<Token[]>('/api/admin/worker-tokens').then(setTokens, (e: Error) => setError(e.message));
    getJson<LabWorkers>('/api/admin/workers').then(setLab, (e: Error) => setError(e.message));
  }, [reload]);

  async function onCreate(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      setCreated(await sendJson<NewToken>('POST', '/api/admin/worker-tokens', { worker }));
      setWorker('');
      bump();
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Could not make the token.');
    }
  }

  async function onRevoke(t: Token) {
    setError(null);
    try {
      await sendJson('DELETE', `/api/tokens/${t.id}`);
      bump();
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Could not revoke the token.');
    }
  }

  const remote = lab?.workers.filter((w) => w.name !== 'local') ?? [];
  return (
    <section className="panel" aria-label="Workers">
      <h2>Workers</h2>
      {error && <ErrorAlert title="Workers">{error}</ErrorAlert>}
      {lab && <LocalWorkerState local={lab.local} />}
      <h3 className="form-heading">Lab machines</h3>
      {lab && remote.length === 0 && <p className="muted" data-testid="no-lab-workers">No lab machine has connected yet.</p>}
      {remote.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="lab-workers">
            <thead>
              <tr>
                <th>Worker</th>
                <th>Backend</th>
                <th>Devices</th>
                <th>State</th>
                <th>Last seen</th>
              </tr>
            </thead>
            <tbody>
              {remote.map((w) => (
                <tr key={w.name}>
                  <td>{w.name}{w.version && <span className="muted"> ({w.version})</span>}</td>
                  <td>{w.backend}</td>
                  <td>{w.devices.map((d) => d.name).join(', ') || '—'}</td>
                  <td>
                    {w.online ? <span className="badge badge-ok">online</span> : <span className="badge badge-neutral">offline</span>}
                    {w.currentJob != null && ` running job ${w.currentJob}`}
                  </td>
                  <td><Time iso={w.lastSeen} seconds /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3 className="form-heading">Worker tokens</h3>
      <p className="muted">
        Each lab machine gets its own token, bound to its worker name: it can claim, heartbeat and complete jobs only as
        that name. Start it with <code>CRASHLAB_WORKER_TOKEN=… bin/crashlab worker --server URL --name NAME</code>.
      </p>
      {created && <SecretOnce secret={created.secret} label={`Token for worker ${created.token.workerName} made.`} />}
      <form onSubmit={onCreate} className="inline-form">
        <div className="field">
          <label htmlFor="worker-name">Worker name</label>
          <input id="worker-name" type="text" value={worker} onChange={(e) => setWorker(e.target.value)}
            placeholder="e.g. gpu-box-1-cuda" required />
        </div>
        <button type="submit" className="btn btn-primary">Make worker token</button>
      </form>
      {tokens.length === 0 ? (
        <p className="muted">No worker tokens: the server's own worker needs none.</p>
      ) : (
        <TokenTable tokens={tokens} onRevoke={onRevoke} />
      )}
    </section>
  );
}

function tokenState(t: Token): { label: string; badge: string } {
  if (t.revokedAt) return { label: 'revoked', badge: 'badge-neutral' };
  if (t.expiresAt && new Date(t.expiresAt).getTime() <= Date.now()) return { label: 'expired', badge: 'badge-neutral' };
  return { label: 'active', badge: 'badge-ok' };
}

/** Every API token on the server, whoever owns it, with a Revoke button on the active ones. */
function Tokens() {
  const [tokens, setTokens] = useState<Token[] | null>(null);
  const [reload, bump] = useReload();
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    getJson<Token[]>('/api/admin/tokens').then(setTokens, (e: Error) => setError(e.message));
  }, [reload]);

  async function onRevoke(t: Token) {
    if (!window.confirm(`Revoke the token "${t.name}"${t.owner ? ` of ${t.owner}` : ''}? Whatever uses it stops working.`)) return;
    setError(null);
    try {
      await sendJson('DELETE', `/api/tokens/${t.id}`);
      bump();
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Could not revoke the token.');
    }
  }

  return (
    <section className="panel" aria-label="API tokens">
      <h2>API tokens</h2>
      <p className="muted">Every token on this server: personal ones, worker ones and the one start-up provisions.</p>
      {error && <ErrorAlert title="Tokens">{error}</ErrorAlert>}
      {tokens && tokens.length === 0 && <p className="muted">No tokens.</p>}
      {tokens && tokens.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="all-tokens">
            <thead>
              <tr>
                <th>Token</th>
                <th>Owner</th>
                <th>Roles</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>State</th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => {
                const state = tokenState(t);
                return (
                  <tr key={t.id} data-testid="token-row">
                    <td>{t.name}</td>
                    <td>
                      {t.owner ?? <span className="muted">{t.workerName ? 'none (worker token)' : 'none (provisioned)'}</span>}
                    </td>
                    <td>{t.roles.join(', ')}</td>
                    <td>
                      <Time iso={t.createdAt} />
                      {t.createdBy !== t.owner && <span className="muted"> by {t.createdBy}</span>}
                    </td>
                    <td>{t.lastUsedAt ? <Time iso={t.lastUsedAt} /> : <span className="muted">never</span>}</td>
                    <td>{t.expiresAt ? <Time iso={t.expiresAt} /> : 'never'}</td>
                    <td>
                      <span className={`badge ${state.badge}`}>{state.label}</span>{' '}
                      {state.label === 'active' && (
                        <button type="button" className="btn btn-small btn-secondary" onClick={() => void onRevoke(t)}>
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

interface RetentionOverview {
  retentionDays: number;
  quotaBytes: number | null;
  sweepInterval: string;
  maxDeletesPerSweep: number;
  holders: { owner: string | null; usedBytes: number; bundles: number; quotaShare: number | null }[];
  nextSweep: { bundleId: number; name: string; uploadedAt: string; owner: string | null; sizeBytes: number }[];
  nextSweepTotal: number;
  cutoff: string | null;
}

// PT1H -> "1 h", PT30M -> "30 min", PT0.5S -> "0.5 s"
function isoDuration(d: string): string {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$/.exec(d);
  if (!m) return d;
  return [m[1] && `${m[1]} h`, m[2] && `${m[2]} min`, m[3] && `${m[3]} s`].filter(Boolean).join(' ') || '0 s';
}

/** Retention as it stands: the settings, who holds what against the quota, and what the next sweep deletes. */
function Retention() {
  const [data, setData] = useState<RetentionOverview | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    getJson<RetentionOverview>('/api/admin/retention').then(setData, (e: Error) => setError(e.message));
  }, []);

  return (
    <section className="panel" aria-label="Retention and quotas">
      <h2>Retention and quotas</h2>
      {error && <ErrorAlert title="Retention">{error}</ErrorAlert>}
      {data && (
        <>
          <dl className="env" data-testid="retention-settings">
            <dt>Kept for</dt>
            <dd>{data.retentionDays > 0 ? `${plural(data.retentionDays, 'day')}, then deleted unless pinned or confirmed` : 'ever (retention is off)'}</dd>
            <dt>Quota per user</dt>
            <dd>{data.quotaBytes != null ? formatBytes(data.quotaBytes) : 'no limit'}</dd>
            <dt>Sweep</dt>
            <dd>
              {data.retentionDays > 0
                ? `every ${isoDuration(data.sweepInterval)}, at most ${plural(data.maxDeletesPerSweep, 'bundle')} a sweep`
                : 'none (retention is off)'}
            </dd>
          </dl>
          <p className="muted">Settings: <code>crashlab.retention.days</code>, <code>.quota</code>, <code>.sweep-interval</code>, <code>.max-deletes-per-sweep</code>.</p>
          <h3 className="form-heading">What each user holds</h3>
          {data.holders.length === 0 ? (
            <p className="muted">No bundles stored.</p>
          ) : (
            <div className="table-wrap">
              <table className="table" data-testid="retention-holders">
                <thead>
                  <tr>
                    <th>Uploaded by</th>
                    <th>Bundles</th>
                    <th>Stored</th>
                    <th>Of the quota</th>
                  </tr>
                </thead>
                <tbody>
                  {data.holders.map((h) => (
                    <tr key={h.owner ?? '(none)'}>
                      <td>{h.owner ?? <span className="muted">not recorded</span>}</td>
                      <td>{h.bundles}</td>
                      <td>{formatBytes(h.usedBytes)}</td>
                      <td>
                        {h.quotaShare == null ? (
                          <span className="muted">no limit</span>
                        ) : (
                          <>
                            <meter min={0} max={1} high={0.9} value={Math.min(1, h.quotaShare)} aria-label={`Quota used by ${h.owner ?? 'unknown'}`} />{' '}
                            {Math.round(h.quotaShare * 100)} %
                          </>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <h3 className="form-heading">The next sweep</h3>
          {data.cutoff == null ? (
            <p className="muted" data-testid="next-sweep">Retention is off: no sweep deletes anything.</p>
          ) : data.nextSweepTotal === 0 ? (
            <p className="muted" data-testid="next-sweep">Nothing: no bundle uploaded before <Time iso={data.cutoff} /> is unpinned, unconfirmed and free of unfinished reproduction jobs.</p>
          ) : (
            <>
              <p data-testid="next-sweep">
                {plural(data.nextSweepTotal, 'bundle')} uploaded before <Time iso={data.cutoff} /> {pluralForm(data.nextSweepTotal, 'is', 'are')} neither pinned, confirmed nor waiting for a reproduction job
                {data.nextSweepTotal > data.nextSweep.length ? `; the next sweep deletes the oldest ${data.nextSweep.length}` : ' and will be deleted'}:
              </p>
              <div className="table-wrap">
                <table className="table" data-testid="next-sweep-bundles">
                  <thead>
                    <tr>
                      <th>Bundle</th>
                      <th>Uploaded</th>
                      <th>By</th>
                      <th>Size</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.nextSweep.map((b) => (
                      <tr key={b.bundleId}>
                        <td><Link to={`/bundles/${b.bundleId}`}>#{b.bundleId} {b.name}</Link></td>
                        <td><Time iso={b.uploadedAt} /></td>
                        <td>{b.owner ?? <span className="muted">not recorded</span>}</td>
                        <td>{formatBytes(b.sizeBytes)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </>
      )}
    </section>
  );
}

interface AuditFilter {
  actor: string;
  action: string;
  bundle: string;
  from: string;
  to: string;
}

const NO_FILTER: AuditFilter = { actor: '', action: '', bundle: '', from: '', to: '' };

function auditQuery(page: number, f: AuditFilter): string {
  const q = new URLSearchParams({ page: String(page), size: '50' });
  for (const [k, v] of Object.entries(f) as [keyof AuditFilter, string][]) {
    if (v.trim()) q.set(k, v.trim());
  }
  return q.toString();
}

function Audit() {
  const [page, setPage] = useState(0);
  const [filter, setFilter] = useState<AuditFilter>(NO_FILTER);
  const [draft, setDraft] = useState<AuditFilter>(NO_FILTER);
  const [choices, setChoices] = useState<{ actors: string[]; actions: string[] }>({ actors: [], actions: [] });
  const [data, setData] = useState<AuditPage | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    getJson<{ actors: string[]; actions: string[] }>('/api/audit/choices').then(setChoices, () => undefined);
  }, []);

  useEffect(() => {
    setError(null);
    getJson<AuditPage>(`/api/audit?${auditQuery(page, filter)}`).then(setData, (e: Error) => setError(e.message));
  }, [page, filter]);

  function onFilter(e: FormEvent) {
    e.preventDefault();
    setPage(0);
    setFilter(draft);
  }

  const set = (k: keyof AuditFilter) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });
  const families = [...new Set(choices.actions.map((a) => a.split('.')[0] + '.'))].filter((f) => !choices.actions.includes(f));
  const pages = data ? Math.max(1, Math.ceil(data.total / data.size)) : 1;
  return (
    <section className="panel" aria-label="Audit trail">
      <h2>Audit trail</h2>
      <form onSubmit={onFilter} className="inline-form" data-testid="audit-filter">
        <div className="field">
          <label htmlFor="audit-actor">Who</label>
          <select id="audit-actor" value={draft.actor} onChange={set('actor')}>
            <option value="">anyone</option>
            {choices.actors.map((a) => <option key={a} value={a}>{a}</option>)}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-action">What</label>
          <select id="audit-action" value={draft.action} onChange={set('action')}>
            <option value="">anything</option>
            {families.map((f) => <option key={f} value={f}>{f}* (all)</option>)}
            {choices.actions.map((a) => <option key={a} value={a}>{a}</option>)}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-bundle">Bundle</label>
          <input id="audit-bundle" type="text" inputMode="numeric" size={8} placeholder="e.g. 12" value={draft.bundle} onChange={set('bundle')} />
        </div>
        <div className="field">
          <label htmlFor="audit-from">From (UTC)</label>
          <input id="audit-from" type="date" value={draft.from} onChange={set('from')} />
        </div>
        <div className="field">
          <label htmlFor="audit-to">To (UTC, inclusive)</label>
          <input id="audit-to" type="date" value={draft.to} onChange={set('to')} />
        </div>
        <button type="submit" className="btn btn-primary">Filter</button>
        <button type="button" className="btn btn-secondary" onClick={() => { setDraft(NO_FILTER); setFilter(NO_FILTER); setPage(0); }}>
          Clear
        </button>
      </form>
      {error && <ErrorAlert title="Audit">{error}</ErrorAlert>}
      {data && (
        <>
          <p className="muted" data-testid="audit-total">
            {data.total === 0 ? 'No entries match.' : `${plural(data.total, 'entry', 'entries')}; page ${data.page + 1} of ${pages}`}
          </p>
          <div className="table-wrap">
            <table className="table" data-testid="audit">
              <thead>
                <tr>
                  <th>When</th>
                  <th>Who</th>
                  <th>What</th>
                  <th>On</th>
                  <th>Detail</th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((e) => {
                  const bundle = e.target ? /^bundle (\d+)$/.exec(e.target) : null;
                  return (
                    <tr key={e.id}>
                      <td><Time iso={e.at} seconds /></td>
                      <td>{e.actor}</td>
                      <td>{e.action}</td>
                      <td>{bundle ? <Link to={`/bundles/${bundle[1]}`}>{e.target}</Link> : e.target}</td>
                      <td>{e.detail}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <div className="pager">
            <button type="button" className="btn btn-secondary" disabled={page === 0} onClick={() => setPage(page - 1)}>Newer</button>{' '}
            <button type="button" className="btn btn-secondary" disabled={(page + 1) * data.size >= data.total}
              onClick={() => setPage(page + 1)}>Older</button>
          </div>
        </>
      )}
    </section>
  );
}

/** Admin: users, tokens, workers, retention, the audit trail (one page, tabs as links). */
export function AdminPage({ tab }: { tab: string }) {
  useTitle('Admin');
  const tabs: [string, string][] = [['users', 'Users'], ['tokens', 'Tokens'], ['workers', 'Workers'], ['retention', 'Retention'], ['audit', 'Audit trail']];
  return (
    <div className="page">
      <h1>Admin</h1>
      <nav aria-label="Admin" className="tabs">
        {tabs.map(([key, label], i) => (
          <span key={key}>
            {i > 0 && ' · '}
            <Link to={`/admin/${key}`} aria-current={tab === key ? 'page' : undefined}>{label}</Link>
          </span>
        ))}
      </nav>
      {tab === 'workers' ? <Workers /> : tab === 'audit' ? <Audit /> : tab === 'tokens' ? <Tokens /> : tab === 'retention' ? <Retention /> : <Users />}
    </div>
  );
}
