import { useTitle } from '../components/common.tsx';
import { Link } from '../router.tsx';

export function NotFoundPage({ path }: { path: string }) {
  useTitle('Not found');
  return (
    <div className="page">
      <h1>Page not found</h1>
      <p className="muted">
        There is no page at <code>{path}</code>.
      </p>
      <p>
        <Link to="/">Upload a crash bundle</Link> or <Link to="/bundles">browse bundles</Link>.
      </p>
    </div>
  );
}
