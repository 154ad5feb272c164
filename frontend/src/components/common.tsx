import { Fragment, useEffect, useState, type ReactNode } from 'react';
import { formatDateTime } from '../format.ts';
import { codeSpans } from '../markdown.tsx';

export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · CrashLab` : 'CrashLab';
  }, [title]);
}

export function ErrorAlert({ title, children }: { title?: string; children: ReactNode }) {
  return (
    <div className="alert alert-error" role="alert">
      <svg className="alert-icon" viewBox="0 0 20 20" aria-hidden="true">
        <circle cx="10" cy="10" r="9" />
        <path d="M10 5.5v5.5M10 14v.5" />
      </svg>
      <div className="alert-body">
        {title && <p className="alert-title">{title}</p>}
        <p className="alert-detail" data-testid="alert-detail">
          <ProblemText>{children}</ProblemText>
        </p>
      </div>
    </div>
  );
}

/**
 * Text from the server (a problem's detail, a reading problem): names it marks as `code` show as code, never as raw
 * backticks. Other children pass through; strings among them (JSX text around an expression) are rendered the same way.
 */
export function ProblemText({ children }: { children: ReactNode }) {
  if (typeof children === 'string') return <>{codeSpans(children)}</>;
  if (Array.isArray(children)) {
    return <>{children.map((c, i) => (typeof c === 'string' ? <Fragment key={i}>{codeSpans(c, `p${i}`)}</Fragment> : <Fragment key={i}>{c}</Fragment>))}</>;
  }
  return <>{children}</>;
}

export function Loading({ label }: { label: string }) {
  // shown only after a short delay so fast loads do not flash
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    const t = window.setTimeout(() => setVisible(true), 150);
    return () => window.clearTimeout(t);
  }, []);
  return (
    <div className="loading" role="status" aria-live="polite">
      {visible && (
        <>
          <span className="spinner" aria-hidden="true" />
          <span>{label}</span>
        </>
      )}
    </div>
  );
}

const STATUS_TONES: Record<string, string> = {
  PROCESSING: 'info',
  READY: 'ok',
  PENDING: 'neutral',
  PARSED: 'ok',
  PARTIAL: 'warn',
  FAILED: 'bad',
  UNSUPPORTED: 'neutral',
};

export function StatusBadge({ status }: { status: string }) {
  const tone = STATUS_TONES[status] ?? 'neutral';
  const label = status ? status.charAt(0) + status.slice(1).toLowerCase().replace(/_/g, ' ') : '—';
  return <span className={`badge badge-${tone}`}>{label}</span>;
}

/** A hash shown shortened, with the full value on hover and a copy button. */
export function Hash({ value, length = 12 }: { value: string; length?: number }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // clipboard needs a secure context; fall back to selecting the text
      const el = document.createElement('textarea');
      el.value = value;
      document.body.appendChild(el);
      el.select();
      document.execCommand('copy');
      el.remove();
    }
    setCopied(true);
    window.setTimeout(() => setCopied(false), 1500);
  }
  if (!value) return <span className="muted">—</span>;
  return (
    <span className="hash">
      <code title={value}>{value.length > length ? `${value.slice(0, length)}…` : value}</code>
      <button type="button" className="btn btn-small btn-quiet" onClick={copy} aria-label="Copy full SHA-256">
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  );
}

export function Time({ iso, seconds = false }: { iso: string; seconds?: boolean }) {
  return (
    <time dateTime={iso} title={iso}>
      {formatDateTime(iso, seconds)}
    </time>
  );
}
