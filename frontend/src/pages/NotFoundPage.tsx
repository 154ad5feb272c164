import { useTitle } from '../components/common.tsx';
import { Link } from '../router.tsx';
import { useCan } from '../session.ts';

export function NotFoundPage({ path }: { path: string }) {
  useTitle('Not found');
  const mayUpload = useCan('reporter');
  return (
    <div className="page">
      <h1>Page not found</h1>
      <p className="muted">
        There is no page at <code>{path}</code>.
      </p>
      <p>
        {mayUpload ? (
          <>
            <Link to="/">Upload a crash bundle</Link> or <Link to="/bundles">browse bundles</Link>.
          </>
        ) : (
          <Link to="/bundles">Browse bundles</Link>
        )}
      </p>
    </div>
  );
}
