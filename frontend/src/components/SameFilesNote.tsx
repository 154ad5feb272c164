import { Time } from './common.tsx';
import { Link } from '../router.tsx';

/** The earliest other bundle with exactly the same files (the API's `sameFilesAs`). */
export interface SameFiles {
  bundleId: number;
  name: string;
  uploadedAt: string;
  uploadedBy: string | null;
}

/** Says that a bundle repeats an earlier upload's files, and links to it; nothing when it does not. */
export function SameFilesNote({ same }: { same: SameFiles | null | undefined }) {
  if (!same) return null;
  return (
    <div className="alert alert-info" role="note" data-testid="same-files">
      <p>
        <strong className="alert-title">Uploaded before.</strong> Same files as{' '}
        <Link to={`/bundles/${same.bundleId}`}>#{same.bundleId} {same.name}</Link>
        {same.uploadedBy ? `, uploaded by ${same.uploadedBy}` : ''} on <Time iso={same.uploadedAt} />: its report, and any
        cause confirmed there, are about the same crash.
      </p>
    </div>
  );
}
