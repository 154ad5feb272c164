import { useEffect, useState, type FormEvent } from 'react';
import { ErrorAlert, useTitle } from '../components/common.tsx';
import { ApiError, sendJson } from '../api.ts';
import { signedIn, type Me } from '../session.ts';
import { navigate } from '../router.tsx';

/** "Sign in with ..." when the server has single sign-on on (GET /api/auth/oidc); nothing otherwise. */
function SsoButton() {
  const [sso, setSso] = useState<{ enabled: boolean; label: string } | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    fetch('/api/auth/oidc', { headers: { Accept: 'application/json' }, signal: controller.signal })
      .then((r) => (r.ok ? r.json() : null))
      .then((s: { enabled: boolean; label: string } | null) => setSso(s), () => setSso(null));
    return () => controller.abort();
  }, []);

  if (!sso?.enabled) return null;
  return (
    <p>
      {/* a full page load: the server sends the browser on to the identity provider and back */}
      <a className="btn btn-primary" href="/api/auth/oidc/login" data-testid="sso-login">
        Sign in with {sso.label}
      </a>
    </p>
  );
}

/** Sign in with a user name and password; the server sets an HttpOnly session cookie. */
export function LoginPage() {
  useTitle('Sign in');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [errorTitle, setErrorTitle] = useState('Sign-in failed');
  const [busy, setBusy] = useState(false);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const me = await sendJson<Me>('POST', '/api/auth/login', { username, password });
      signedIn(me);
      if (window.location.pathname === '/login') navigate('/', { replace: true });
    } catch (err) {
      // a disabled account has its own title ("Account disabled"); a wrong password reads as a failed sign-in
      setErrorTitle(err instanceof ApiError && err.status === 403 && err.title ? err.title : 'Sign-in failed');
      setError(err instanceof Error ? err.message : 'Sign-in failed.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="page narrow">
      <h1>Sign in to CrashLab</h1>
      <SsoButton />
      <form onSubmit={onSubmit} data-testid="login-form">
        <div className="field">
          <label htmlFor="login-username">User name</label>
          <input id="login-username" type="text" autoComplete="username" value={username}
            onChange={(e) => setUsername(e.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor="login-password">Password</label>
          <input id="login-password" type="password" autoComplete="current-password" value={password}
            onChange={(e) => setPassword(e.target.value)} required />
        </div>
        {error && <ErrorAlert title={errorTitle}>{error}</ErrorAlert>}
        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
      <p className="muted">No account? Ask an admin of this server for one.</p>
    </div>
  );
}

/** Creates the first admin with the one-time code from the link the server printed at start-up. */
export function SetupPage({ code }: { code: string }) {
  useTitle('Set up CrashLab');
  const [username, setUsername] = useState('admin');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (password !== again) {
      setError('The two passwords differ.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const me = await sendJson<Me>('POST', '/api/auth/setup', { code, username, password });
      signedIn(me);
      navigate('/', { replace: true });
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Setup failed.');
    } finally {
      setBusy(false);
    }
  }

  if (!code) {
    return (
      <div className="page narrow">
        <h1>Set up CrashLab</h1>
        <p>
          This server has no accounts yet. Open the setup link the server printed when it started (it is also in{' '}
          <code>setup-link.txt</code> in its data folder).
        </p>
        <SsoButton />
      </div>
    );
  }
  return (
    <div className="page narrow">
      <h1>Set up CrashLab</h1>
      <p className="muted">Create the first admin account. This link works once.</p>
      <form onSubmit={onSubmit} data-testid="setup-form">
        <div className="field">
          <label htmlFor="setup-username">Admin user name</label>
          <input id="setup-username" type="text" autoComplete="username" value={username}
            onChange={(e) => setUsername(e.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor="setup-password">Password <span className="muted">(at least 10 characters)</span></label>
          <input id="setup-password" type="password" autoComplete="new-password" value={password} minLength={10}
            onChange={(e) => setPassword(e.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor="setup-again">Password again</label>
          <input id="setup-again" type="password" autoComplete="new-password" value={again}
            onChange={(e) => setAgain(e.target.value)} required />
        </div>
        {error && <ErrorAlert title="Setup failed">{error}</ErrorAlert>}
        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create admin and sign in'}
          </button>
        </div>
      </form>
    </div>
  );
}
