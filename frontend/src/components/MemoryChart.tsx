import type { MemoryEstimate } from '../repro.ts';
import { formatBytes } from '../format.ts';

/**
 * The memory estimate as horizontal bars: each layer's need and the whole step's peak, against what the
 * reporter's card had free (a marked line). Bars past the line are drawn as over.
 */
export function MemoryChart({ estimate, cardName }: { estimate: MemoryEstimate; cardName: string | null }) {
  const available = estimate.available_bytes;
  const rows = [
    ...estimate.layers.map((l) => ({ key: `layer-${l.name}`, label: l.name, bytes: l.total_bytes, total: false })),
    { key: 'total', label: 'Whole step (peak)', bytes: estimate.total_bytes, total: true },
  ];
  const scale = Math.max(1, available ?? 0, ...rows.map((r) => r.bytes));
  const pct = (bytes: number) => `${Math.min(100, (bytes / scale) * 100).toFixed(2)}%`;
  return (
    <figure className="mem-chart" data-testid="memory-chart">
      <figcaption>
        Estimated GPU memory, {estimate.mode === 'INFERENCE' ? 'inference' : 'one training step'}
        {available !== null ? (
          <>
            {' '}
            — against {formatBytes(available)} free on {cardName ?? "the reporter's card"}{' '}
            {estimate.fits === false ? (
              <strong className="mem-verdict over" data-testid="memory-verdict">does not fit</strong>
            ) : (
              <strong className="mem-verdict fits" data-testid="memory-verdict">fits</strong>
            )}
          </>
        ) : (
          <span className="muted"> — no file states the reporter's GPU memory</span>
        )}
      </figcaption>
      <ul className="mem-rows">
        {rows.map((r) => {
          const over = available !== null && r.bytes > available;
          return (
            <li key={r.key} className={r.total ? 'mem-row mem-total' : 'mem-row'} data-testid="memory-row">
              <span className="mem-label mono" title={r.label}>
                {r.label}
              </span>
              <span className="mem-track" aria-hidden="true">
                <span className={over ? 'mem-bar over' : 'mem-bar'} style={{ width: pct(r.bytes) }} />
                {available !== null && <span className="mem-limit" style={{ left: pct(available) }} />}
              </span>
              <span className="mem-value">{formatBytes(r.bytes)}</span>
            </li>
          );
        })}
      </ul>
      {estimate.not_modelled.length > 0 && (
        <details className="mem-caveats">
          <summary>What the estimate leaves out</summary>
          <ul>
            {[...estimate.not_modelled, ...estimate.assumptions].map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </details>
      )}
    </figure>
  );
}
