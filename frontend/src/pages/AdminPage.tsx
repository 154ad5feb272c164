import { useEffect, useState, type FormEvent } from 'react';
import { ErrorAlert, Time, useTitle } from '../components/common.tsx';
import { getJson, sendJson } from '../api.ts';
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

function Workers() {
  const [tokens, setTokens] = useState<Token[]>([]);
  const [reload, bump] = useReload();
  const [error, setError] = useState<string | null>(null);
  const [worker, setWorker] = useState('');
  const [created, setCreated] = useState<NewToken | null>(null);

  useEffect(() => {
    getJson<Token[]>('/api/admin/worker-tokens').then(setTokens, (e: Error) => setError(e.message));
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

  return (
    <section className="panel" aria-label="Worker tokens">
      <h2>Workers</h2>
      <p className="muted">
        Each lab machine gets its own token, bound to its worker name: it can claim, heartbeat and complete jobs only as
        that name. Start it with <code>CRASHLAB_WORKER_TOKEN=… bin/crashlab worker --server URL --name NAME</code>.
      </p>
      {created && <SecretOnce secret={created.secret} label={`Token for worker ${created.token.workerName} made.`} />}
      {error && <ErrorAlert title="Workers">{error}</ErrorAlert>}
      <form onSubmit={onCreate} className="inline-form">
        <div className="field">
          <label htmlFor="worker-name">Worker name</label>
          <input id="worker-name" type="text" value={worker} onChange={(e) => setWorker(e.target.value)}
            placeholder="e.g. gpu-box-1-cuda" required />
        </div>
        <button type="submit" className="btn btn-primary">Make worker token</button>
      </form>
      <TokenTable tokens={tokens} onRevoke={onRevoke} />
    </section>
  );
}

function Audit() {
  const [page, setPage] = useState(0);
  const [data, setData] = useState<AuditPage | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    getJson<AuditPage>(`/api/audit?page=${page}&size=50`).then(setData, (e: Error) => setError(e.message));
  }, [page]);

  return (
    <section className="panel" aria-label="Audit trail">
      <h2>Audit trail</h2>
      {error && <ErrorAlert title="Audit">{error}</ErrorAlert>}
      {data && (
        <>
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
                {data.items.map((e) => (
                  <tr key={e.id}>
                    <td><Time iso={e.at} seconds /></td>
                    <td>{e.actor}</td>
                    <td>{e.action}</td>
                    <td>{e.target}</td>
                    <td>{e.detail}</td>
                  </tr>
                ))}
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

/** Admin: users, worker tokens, the audit trail (one page, three tabs as links). */
export function AdminPage({ tab }: { tab: string }) {
  useTitle('Admin');
  return (
    <div className="page">
      <h1>Admin</h1>
      <nav aria-label="Admin" className="tabs">
        <Link to="/admin/users" aria-current={tab === 'users' ? 'page' : undefined}>Users</Link>{' · '}
        <Link to="/admin/workers" aria-current={tab === 'workers' ? 'page' : undefined}>Workers</Link>{' · '}
        <Link to="/admin/audit" aria-current={tab === 'audit' ? 'page' : undefined}>Audit trail</Link>
      </nav>
      {tab === 'workers' ? <Workers /> : tab === 'audit' ? <Audit /> : <Users />}
    </div>
  );
}
