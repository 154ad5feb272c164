import { useEffect, useState, type FormEvent } from 'react';
import { ErrorAlert, Time, useTitle } from '../components/common.tsx';
import { getJson, sendJson } from '../api.ts';
import { useSession } from '../session.ts';

export interface Token {
  id: number;
  name: string;
  owner: string | null;
  roles: string[];
  workerName: string | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdBy: string;
}

export interface NewToken {
  token: Token;
  secret: string;
}

/** Shows a token's value once, with the warning that it will not be shown again. */
export function SecretOnce({ secret, label }: { secret: string; label: string }) {
  return (
    <div className="alert" role="status" data-testid="new-token">
      <p>
        <strong>{label}</strong> Copy it now: it is not shown again.
      </p>
      <code className="secret">{secret}</code>
    </div>
  );
}

/** Tokens as a table; revocable ones get a Revoke button. */
export function TokenTable({ tokens, onRevoke }: { tokens: Token[]; onRevoke: (t: Token) => void }) {
  if (tokens.length === 0) return <p className="muted">None yet.</p>;
  return (
    <div className="table-wrap">
      <table className="table" data-testid="tokens">
        <thead>
          <tr>
            <th>Name</th>
            <th>Roles</th>
            <th>Created</th>
            <th>Expires</th>
            <th>Last used</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => (
            <tr key={t.id}>
              <td>{t.name}{t.owner ? <span className="muted"> ({t.owner})</span> : null}</td>
              <td>{t.roles.join(', ')}</td>
              <td><Time iso={t.createdAt} /></td>
              <td>{t.expiresAt ? <Time iso={t.expiresAt} /> : 'never'}</td>
              <td>{t.lastUsedAt ? <Time iso={t.lastUsedAt} /> : 'never'}</td>
              <td>
                {t.revokedAt ? (
                  <span className="muted">revoked</span>
                ) : (
                  <button type="button" className="btn btn-small btn-secondary" onClick={() => onRevoke(t)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The signed-in user's password and personal API tokens. */
export function AccountPage() {
  useTitle('Your account');
  const session = useSession();
  const me = session.kind === 'signed-in' ? session.me : null;
  const [tokens, setTokens] = useState<Token[]>([]);
  const [reload, setReload] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<NewToken | null>(null);
  const [name, setName] = useState('');
  const [days, setDays] = useState(90);
  const [roles, setRoles] = useState<string[]>([]);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [passwordMessage, setPasswordMessage] = useState<string | null>(null);

  useEffect(() => {
    if (!me?.account) return;
    getJson<Token[]>('/api/tokens').then(setTokens, (e: Error) => setError(e.message));
  }, [reload, me?.account]);

  if (!me) return null;
  const grantable = me.roles.filter((r) => r !== 'worker');

  async function onCreate(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      setCreated(await sendJson<NewToken>('POST', '/api/tokens', { name, days, roles: roles.length ? roles : null }));
      setName('');
      setReload((n) => n + 1);
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Could not make the token.');
    }
  }

  async function onRevoke(t: Token) {
    setError(null);
    try {
      await sendJson('DELETE', `/api/tokens/${t.id}`);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Could not revoke the token.');
    }
  }

  async function onPassword(e: FormEvent) {
    e.preventDefault();
    setPasswordMessage(null);
    try {
      await sendJson('PUT', '/api/auth/password', { current, password: next });
      setCurrent('');
      setNext('');
      setPasswordMessage('Password changed. Your other sessions were signed out.');
    } catch (err) {
      setPasswordMessage(err instanceof Error ? err.message : 'Could not change the password.');
    }
  }

  return (
    <div className="page">
      <h1>{me.name}</h1>
      <p className="muted" data-testid="my-roles">Roles: {me.roles.join(', ')}</p>
      {!me.account && <p>You are using a token that belongs to no account: there is no password or personal token here.</p>}
      {me.account && me.session && (
        <section className="panel">
          <h2>Change password</h2>
          <form onSubmit={onPassword}>
            <div className="field">
              <label htmlFor="pw-current">Current password</label>
              <input id="pw-current" type="password" autoComplete="current-password" value={current}
                onChange={(e) => setCurrent(e.target.value)} required />
            </div>
            <div className="field">
              <label htmlFor="pw-new">New password <span className="muted">(at least 10 characters)</span></label>
              <input id="pw-new" type="password" autoComplete="new-password" minLength={10} value={next}
                onChange={(e) => setNext(e.target.value)} required />
            </div>
            {passwordMessage && <p role="status">{passwordMessage}</p>}
            <div className="actions">
              <button type="submit" className="btn btn-primary">Change password</button>
            </div>
          </form>
        </section>
      )}
      {me.account && (
        <section className="panel">
          <h2>API tokens</h2>
          <p className="muted">
            For scripts and the collector: <code>Authorization: Bearer &lt;token&gt;</code>. A token carries the roles you pick
            (all of yours by default) and expires.
          </p>
          {created && <SecretOnce secret={created.secret} label={`Token "${created.token.name}" made.`} />}
          {error && <ErrorAlert title="Tokens">{error}</ErrorAlert>}
          <form onSubmit={onCreate} className="inline-form">
            <div className="field">
              <label htmlFor="token-name">Name</label>
              <input id="token-name" type="text" value={name} onChange={(e) => setName(e.target.value)}
                placeholder="what uses it, e.g. cluster upload script" required maxLength={128} />
            </div>
            <div className="field">
              <label htmlFor="token-days">Days valid</label>
              <input id="token-days" type="number" min={1} max={366} value={days}
                onChange={(e) => setDays(Number(e.target.value))} />
            </div>
            <fieldset className="field">
              <legend>Roles</legend>
              {grantable.map((r) => (
                <label key={r} className="check">
                  <input type="checkbox" checked={roles.includes(r)}
                    onChange={(e) => setRoles(e.target.checked ? [...roles, r] : roles.filter((x) => x !== r))} /> {r}
                </label>
              ))}
            </fieldset>
            <button type="submit" className="btn btn-primary">Make token</button>
          </form>
          <TokenTable tokens={tokens} onRevoke={onRevoke} />
        </section>
      )}
    </div>
  );
}
