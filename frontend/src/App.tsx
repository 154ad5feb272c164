import { useEffect } from 'react';
import { Link, useLocation } from './router.tsx';
import { UploadPage } from './pages/UploadPage.tsx';
import { BundlesPage } from './pages/BundlesPage.tsx';
import { BundlePage } from './pages/BundlePage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';
import { KbPage } from './pages/KbPage.tsx';
import { KbArticlePage } from './pages/KbArticlePage.tsx';
import { LoginPage, SetupPage } from './pages/SignInPage.tsx';
import { AccountPage } from './pages/AccountPage.tsx';
import { AdminPage } from './pages/AdminPage.tsx';
import { Loading } from './components/common.tsx';
import { can, refreshSession, signOut, useSession } from './session.ts';
import { GroupPage, GroupsPage } from './pages/GroupsPage.tsx';

function NavLink({ to, active, children }: { to: string; active: boolean; children: string }) {
  return (
    <Link to={to} className={active ? 'nav-link active' : 'nav-link'} aria-current={active ? 'page' : undefined}>
      {children}
    </Link>
  );
}

export function App() {
  const { path, query } = useLocation();
  const session = useSession();

  useEffect(() => {
    void refreshSession();
  }, []);

  let page;
  const bundleMatch = /^\/bundles\/([^/]+)\/?$/.exec(path);
  const kbMatch = /^\/kb\/([^/]+)\/?$/.exec(path);
  const groupMatch = /^\/groups\/([^/]+)\/?$/.exec(path);
  const adminMatch = /^\/admin(?:\/([a-z]+))?\/?$/.exec(path);
  if (session.kind === 'loading') page = <Loading label="Loading…" />;
  else if (session.kind === 'signed-out')
    page = path === '/setup' || session.setupOpen ? <SetupPage code={query.get('code') ?? ''} /> : <LoginPage />;
  else if (path === '/login' || path === '/setup') page = <BundlesPage query={query} />;
  else if ((path === '/' || path === '/upload') && can(session, 'reporter')) page = <UploadPage />;
  else if (path === '/' || path === '/upload') page = <BundlesPage query={query} />;
  else if (path === '/account') page = <AccountPage />;
  else if (adminMatch && can(session, 'admin')) page = <AdminPage tab={adminMatch[1] ?? 'users'} />;
  else if (path === '/bundles' || path === '/bundles/') page = <BundlesPage query={query} />;
  else if (bundleMatch) page = <BundlePage key={bundleMatch[1]} id={decodeURIComponent(bundleMatch[1])} query={query} />;
  else if (path === '/kb' || path === '/kb/') page = <KbPage query={query} />;
  else if (path === '/groups' || path === '/groups/') page = <GroupsPage />;
  else if (groupMatch) page = <GroupPage key={groupMatch[1]} id={decodeURIComponent(groupMatch[1])} />;
  else if (kbMatch) page = <KbArticlePage key={kbMatch[1]} id={decodeURIComponent(kbMatch[1])} />;
  else page = <NotFoundPage path={path} />;

  // move focus to the new page's heading for screen readers after in-app navigation
  useEffect(() => {
    const main = document.getElementById('main');
    if (main && document.activeElement === document.body) main.focus({ preventScroll: true });
  }, [path]);

  const onBundles = path.startsWith('/bundles');
  const onKb = path === '/kb' || path.startsWith('/kb/');
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <Link to="/" className="brand" aria-label="CrashLab home">
            <svg className="brand-mark" viewBox="0 0 32 32" aria-hidden="true">
              <rect width="32" height="32" rx="7" />
              <path d="M7 17h5l3-8 4 14 3-6h3" />
            </svg>
            <span>CrashLab</span>
          </Link>
          {/* a signed-out visitor sees only the sign-in (or setup) page: links elsewhere would lead back to it */}
          {session.kind === 'signed-in' && (
            <nav aria-label="Main">
              {can(session, 'reporter') && (
                <NavLink to="/" active={!onBundles && !onKb && (path === '/' || path === '/upload')}>
                  Upload
                </NavLink>
              )}
              <NavLink to="/bundles" active={onBundles}>
                Bundles
              </NavLink>
              <NavLink to="/groups" active={path.startsWith('/groups')}>
                Groups
              </NavLink>
              <NavLink to="/kb" active={onKb}>
                Knowledge base
              </NavLink>
              {can(session, 'admin') && (
                <NavLink to="/admin" active={path.startsWith('/admin')}>
                  Admin
                </NavLink>
              )}
            </nav>
          )}
          {session.kind === 'signed-in' && (
            <div className="account-menu">
              <Link to="/account" className="nav-link" data-testid="account-link" title={session.me.name}>
                <span className="account-name">{session.me.name}</span>
                <span className="account-initial" aria-hidden="true">
                  {session.me.name.slice(0, 1).toUpperCase()}
                </span>
              </Link>
              {session.me.session && (
                <button type="button" className="btn btn-small btn-secondary" onClick={() => void signOut()} data-testid="sign-out">
                  Sign out
                </button>
              )}
            </div>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {session.kind === 'signed-in' && session.me.roles.length === 0 && (
          <div className="alert alert-warn" role="status" data-testid="no-roles">
            <div className="alert-body">
              <p className="alert-title">No roles yet</p>
              <p className="alert-detail">
                You are signed in as {session.me.name}, but your account has no roles here, so there is nothing you may
                see yet. Ask a CrashLab admin to give you a role (with single sign-on: to map one of your groups).
              </p>
            </div>
          </div>
        )}
        {page}
      </main>
    </>
  );
}
