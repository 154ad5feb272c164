import type { MouseEvent, ReactNode } from 'react';
import type { SourceRef } from '../api.ts';
import { Link } from '../router.tsx';

/** Opens a source line in the artifact viewer: where a link points, and what a click does. */
export interface SourceJump {
  /** The page URL that shows this source line, or null when the artifact is not in the bundle's list. */
  href: (source: SourceRef) => string | null;
  /** Shows the line (the viewer scrolls to it even when it is already open). */
  go: (source: SourceRef) => void;
}

function where(source: SourceRef): string {
  return `${source.artifact}, line ${source.line}${source.text ? `: ${source.text}` : ''}`;
}

/** A link to the line a fact was read from; plain text when the artifact cannot be opened. */
export function SourceLink({
  source,
  jump,
  children,
  className,
  testId,
}: {
  source: SourceRef;
  jump: SourceJump;
  children: ReactNode;
  className?: string;
  testId?: string;
}) {
  // a confirmed similar crash: its source is the other bundle ("bundle #12"), so the link opens that bundle
  const other = /^bundle #(\d+)$/.exec(source.artifact);
  if (other) {
    return (
      <Link to={`/bundles/${other[1]}`} className={className} title={`Open ${source.text || source.artifact}`} data-testid={testId}>
        {children}
      </Link>
    );
  }
  const href = jump.href(source);
  if (!href) {
    return (
      <span className={className} title={where(source)} data-testid={testId}>
        {children}
      </span>
    );
  }
  function onClick(e: MouseEvent<HTMLAnchorElement>) {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    jump.go(source);
  }
  return (
    <a href={href} onClick={onClick} className={className} title={`Show ${where(source)}`} data-testid={testId}>
      {children}
    </a>
  );
}
