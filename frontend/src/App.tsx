import { useEffect } from 'react';
import { Link, useLocation } from './router.tsx';
import { UploadPage } from './pages/UploadPage.tsx';
import { BundlesPage } from './pages/BundlesPage.tsx';
import { BundlePage } from './pages/BundlePage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';
import { KbPage } from './pages/KbPage.tsx';
import { KbArticlePage } from './pages/KbArticlePage.tsx';
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

  let page;
  const bundleMatch = /^\/bundles\/([^/]+)\/?$/.exec(path);
  const kbMatch = /^\/kb\/([^/]+)\/?$/.exec(path);
  const groupMatch = /^\/groups\/([^/]+)\/?$/.exec(path);
  if (path === '/' || path === '/upload') page = <UploadPage />;
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
          <nav aria-label="Main">
            <NavLink to="/" active={!onBundles && !onKb && (path === '/' || path === '/upload')}>
              Upload
            </NavLink>
            <NavLink to="/bundles" active={onBundles}>
              Bundles
            </NavLink>
            <NavLink to="/groups" active={path.startsWith('/groups')}>
              Groups
            </NavLink>
            <NavLink to="/kb" active={onKb}>
              Knowledge base
            </NavLink>
          </nav>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}
