import { useEffect, useRef, useState, type ChangeEvent, type DragEvent, type FormEvent } from 'react';
import { ApiError, getLimits, uploadBundle, type UploadHandle, type UploadLimits, type UploadProgress } from '../api.ts';
import { ErrorAlert, useTitle } from '../components/common.tsx';
import { formatBytes, formatMB, plural } from '../format.ts';
import { navigate } from '../router.tsx';
import { TrendsPanel } from '../components/TrendsChart.tsx';
import { getRetention, type RetentionUsage } from '../api.ts';

/** The caller's storage use against the quota, and how long bundles are kept (when either is set). */
function StorageUse() {
  const [usage, setUsage] = useState<RetentionUsage | null>(null);
  useEffect(() => {
    const ctl = new AbortController();
    getRetention(ctl.signal).then(setUsage, () => setUsage(null));
    return () => ctl.abort();
  }, []);
  if (!usage || (usage.quotaBytes === null && usage.retentionDays === 0)) return null;
  return (
    <p className="muted storage-use" data-testid="storage-use">
      {usage.quotaBytes !== null && (
        <>
          Your bundles use {formatBytes(usage.usedBytes)} of your {formatBytes(usage.quotaBytes)} quota.{' '}
        </>
      )}
      {usage.retentionDays > 0 && (
        <>Bundles are kept {plural(usage.retentionDays, 'day')} unless pinned or their cause is confirmed.</>
      )}
    </p>
  );
}

function fileKey(f: File): string {
  return `${f.name}\u0000${f.size}\u0000${f.lastModified}`;
}

const ARCHIVE = /\.(zip|tar|tgz|tar\.gz|gz)$/i;

export function UploadPage() {
  useTitle('Upload');
  const [files, setFiles] = useState<File[]>([]);
  const [name, setName] = useState('');
  const [notes, setNotes] = useState('');
  const [dragging, setDragging] = useState(false);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [uploading, setUploading] = useState(false);
  const [processing, setProcessing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [limits, setLimits] = useState<UploadLimits | null>(null);
  const handle = useRef<UploadHandle | null>(null);

  // the server refuses oversized uploads anyway; knowing its limit spares sending them first
  useEffect(() => {
    const ctl = new AbortController();
    getLimits(ctl.signal).then(setLimits, () => setLimits(null));
    return () => ctl.abort();
  }, []);
  const dragDepth = useRef(0);

  // leaving the page aborts an upload in flight
  useEffect(() => () => handle.current?.abort(), []);

  // a drop that misses the drop zone adds the files too, instead of the browser opening them
  const uploadingRef = useRef(false);
  uploadingRef.current = uploading;
  useEffect(() => {
    const isFiles = (e: globalThis.DragEvent) => e.dataTransfer?.types.includes('Files') ?? false;
    const over = (e: globalThis.DragEvent) => {
      if (isFiles(e) && !e.defaultPrevented) {
        e.preventDefault();
        if (e.dataTransfer) e.dataTransfer.dropEffect = uploadingRef.current ? 'none' : 'copy';
      }
    };
    const drop = (e: globalThis.DragEvent) => {
      if (!isFiles(e) || e.defaultPrevented) return;
      e.preventDefault();
      if (!uploadingRef.current) addFiles(e.dataTransfer?.files ?? null);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, []);

  function addFiles(list: FileList | null) {
    if (!list || list.length === 0) return;
    // copy now: the FileList is live, and the input is cleared before React runs the updater below
    const incoming = Array.from(list);
    setError(null);
    setFiles((current) => {
      const seen = new Set(current.map(fileKey));
      const added = incoming.filter((f) => !seen.has(fileKey(f)));
      return [...current, ...added];
    });
  }

  function onInputChange(e: ChangeEvent<HTMLInputElement>) {
    addFiles(e.target.files);
    e.target.value = ''; // so choosing the same file again fires change
  }

  function onDragEnter(e: DragEvent) {
    if (!e.dataTransfer.types.includes('Files')) return;
    e.preventDefault();
    dragDepth.current++;
    setDragging(true);
  }
  function onDragOver(e: DragEvent) {
    if (!e.dataTransfer.types.includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = uploading ? 'none' : 'copy';
  }
  function onDragLeave() {
    dragDepth.current = Math.max(0, dragDepth.current - 1);
    if (dragDepth.current === 0) setDragging(false);
  }
  function onDrop(e: DragEvent) {
    e.preventDefault();
    dragDepth.current = 0;
    setDragging(false);
    if (!uploading) addFiles(e.dataTransfer.files);
  }

  function removeFile(key: string) {
    setFiles((current) => current.filter((f) => fileKey(f) !== key));
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (files.length === 0 || uploading) return;
    setError(null);
    const total = files.reduce((n, f) => n + f.size, 0);
    if (limits && total > limits.maxRequestBytes) {
      setError(
        `These files add up to ${formatBytes(total)}; the server accepts at most ${formatBytes(limits.maxRequestBytes)} ` +
          'per upload (crashlab.upload.max-request-size). Leave out large dumps, or ask an administrator to raise the limit.',
      );
      return;
    }
    setUploading(true);
    setProcessing(false);
    setProgress({ loaded: 0, total });
    const h = uploadBundle(files, name, notes, (p) => {
      setProgress(p);
      if (p.loaded >= p.total) setProcessing(true);
    });
    handle.current = h;
    try {
      const bundle = await h.promise;
      handle.current = null;
      navigate(`/bundles/${bundle.id}`);
    } catch (err) {
      handle.current = null;
      setUploading(false);
      setProcessing(false);
      setProgress(null);
      if (err instanceof ApiError && err.title === 'cancelled') return;
      setError(err instanceof Error ? err.message : 'The upload failed.');
    }
  }

  const totalSize = files.reduce((n, f) => n + f.size, 0);
  const percent = progress && progress.total > 0 ? Math.min(100, Math.round((progress.loaded / progress.total) * 100)) : 0;

  return (
    <div className="page page-narrow">
      <h1>Upload a crash bundle</h1>
      <p className="lead">
        Add everything the crashed job left behind: the console log or traceback, the <code>nvidia-smi</code> output, a
        Windows Event Viewer export, the output of <code>pip freeze</code> or <code>conda list</code>, the model config.
        Loose files and archives (zip, tar, tar.gz, gz) both work.
      </p>
      <p className="collector-hint" data-testid="collector-hint">
        Or let a collector gather it into one zip on the crashed machine: on Linux or WSL2{' '}
        <a href="/collector/collect-crash-bundle.sh" download>collect-crash-bundle.sh</a>{' '}
        (<code>bash collect-crash-bundle.sh train.log</code>), on Windows{' '}
        <a href="/collector/collect-crash-bundle.ps1" download>collect-crash-bundle.ps1</a>{' '}
        (<code>powershell -ExecutionPolicy Bypass -File collect-crash-bundle.ps1 train.log</code>). They redact your user
        and host names and note what they could not collect.
      </p>

      <form onSubmit={onSubmit} noValidate>
        <div
          className={`dropzone${dragging ? ' dragging' : ''}${uploading ? ' disabled' : ''}`}
          onDragEnter={onDragEnter}
          onDragOver={onDragOver}
          onDragLeave={onDragLeave}
          onDrop={onDrop}
        >
          <svg className="dropzone-icon" viewBox="0 0 48 48" aria-hidden="true">
            <path d="M24 31V11M16 19l8-8 8 8" />
            <path d="M8 29v8a3 3 0 0 0 3 3h26a3 3 0 0 0 3-3v-8" />
          </svg>
          <p className="dropzone-title">Drop files or an archive here</p>
          <p className="dropzone-hint">several at once is fine</p>
          <input
            id="file-input"
            className="visually-hidden"
            type="file"
            multiple
            data-testid="file-input"
            onChange={onInputChange}
            disabled={uploading}
          />
          <label htmlFor="file-input" className={`btn btn-secondary${uploading ? ' is-disabled' : ''}`}>
            Choose files
          </label>
        </div>

        {files.length > 0 && (
          <section className="file-list" aria-labelledby="chosen-heading">
            <div className="file-list-head">
              <h2 id="chosen-heading">
                {plural(files.length, 'file')} chosen <span className="muted">· {formatBytes(totalSize)}</span>
              </h2>
              <button type="button" className="btn btn-small btn-quiet" onClick={() => setFiles([])} disabled={uploading}>
                Clear all
              </button>
            </div>
            <ul data-testid="chosen-files">
              {files.map((f) => (
                <li key={fileKey(f)}>
                  <span className="file-name mono" title={f.name}>
                    {f.name}
                  </span>
                  {ARCHIVE.test(f.name) && <span className="tag">archive</span>}
                  <span className="file-size">{formatBytes(f.size)}</span>
                  <button
                    type="button"
                    className="icon-btn"
                    onClick={() => removeFile(fileKey(f))}
                    disabled={uploading}
                    aria-label={`Remove ${f.name}`}
                    title="Remove"
                  >
                    ×
                  </button>
                </li>
              ))}
            </ul>
          </section>
        )}

        <div className="field">
          <label htmlFor="bundle-name">
            Bundle name <span className="muted">(optional)</span>
          </label>
          <input
            id="bundle-name"
            type="text"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder={files[0]?.name ?? 'defaults to the first file name'}
            maxLength={255}
            disabled={uploading}
            autoComplete="off"
          />
        </div>

        <div className="field">
          <label htmlFor="bundle-notes">
            Notes <span className="muted">(optional)</span>
          </label>
          <textarea
            id="bundle-notes"
            value={notes}
            onChange={(e) => setNotes(e.target.value)}
            placeholder="What ran, on which machine, what you already tried"
            maxLength={4000}
            disabled={uploading}
          />
        </div>

        {error && <ErrorAlert title="Upload failed">{error}</ErrorAlert>}

        {uploading && progress && (
          <div className="progress-block">
            <div
              className="progress"
              role="progressbar"
              aria-label="Upload progress"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={percent}
              aria-valuetext={`${percent}%, ${formatMB(progress.loaded)} of ${formatMB(progress.total)} MiB sent`}
              data-testid="upload-progress"
            >
              <div className="progress-fill" style={{ width: `${percent}%` }} />
            </div>
            <p className="progress-text" aria-live="polite">
              {processing ? (
                <>Sent {formatMB(progress.total)} MiB. Unpacking and storing…</>
              ) : (
                <>
                  <strong>{percent}%</strong> · {formatMB(progress.loaded)} of {formatMB(progress.total)} MiB sent
                </>
              )}
            </p>
          </div>
        )}

        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={files.length === 0 || uploading}>
            {uploading ? 'Uploading…' : 'Upload'}
          </button>
          {uploading && !processing && (
            <button type="button" className="btn btn-quiet" onClick={() => handle.current?.abort()}>
              Cancel
            </button>
          )}
          {files.length === 0 && !uploading && <span className="muted">Choose at least one file to upload.</span>}
        </div>
      </form>
      <StorageUse />
      <TrendsPanel />
    </div>
  );
}
