import { useEffect, useState } from 'react';
import { getEventWindow, type EventView, type EventWindow } from '../api.ts';
import { formatDateTime } from '../format.ts';
import { ErrorAlert, Loading } from './common.tsx';

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'loaded'; window: EventWindow };

/** One event's fields and data, as Event Viewer's General tab lists them (every value a text node). */
function EventFields({ e }: { e: EventView }) {
  const rows: [string, string | number | null][] = [
    ['Record', e.recordId],
    ['Logged', e.time ? formatDateTime(e.time) : null],
    ['Level', e.level],
    ['Source', e.provider],
    ['Event ID', e.eventId],
    ['Log', e.channel],
    ['Computer', e.computer],
  ];
  return (
    <>
      <dl className="event-fields" data-testid="event-fields">
        {rows
          .filter(([, v]) => v !== null && v !== undefined && v !== '')
          .map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{String(v)}</dd>
            </div>
          ))}
      </dl>
      {Object.keys(e.data).length > 0 && (
        <table className="table event-data" data-testid="event-data">
          <caption>Event data</caption>
          <tbody>
            {Object.entries(e.data).map(([k, v]) => (
              <tr key={k}>
                <th scope="row" className="mono">
                  {k}
                </th>
                <td className="mono">{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function summary(e: EventView): string {
  const data = Object.values(e.data).join(' ');
  return [e.level, e.provider, e.eventId !== null ? `event ${e.eventId}` : null, data].filter(Boolean).join(' · ');
}

/**
 * A Windows event log's record, as an evidence link (`System.evtx:62782`) opens it: the server reads that record
 * and its neighbours from the stored file, so the page never downloads the binary log. `onOpen` moves to a
 * neighbour.
 */
export function EventRecordView({
  bundleId,
  artifactId,
  recordId,
  onOpen,
}: {
  bundleId: number;
  artifactId: number;
  recordId: number;
  onOpen: (recordId: number) => void;
}) {
  const [state, setState] = useState<State>({ kind: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    setState({ kind: 'loading' });
    getEventWindow(bundleId, artifactId, recordId, controller.signal).then(
      (window) => setState({ kind: 'loaded', window }),
      (err) => {
        if (!controller.signal.aborted) setState({ kind: 'error', message: err instanceof Error ? err.message : 'Could not read the event.' });
      },
    );
    return () => controller.abort();
  }, [bundleId, artifactId, recordId]);

  if (state.kind === 'loading') return <Loading label={`Reading event ${recordId}…`} />;
  if (state.kind === 'error') return <ErrorAlert title={`Could not show event ${recordId}`}>{state.message}</ErrorAlert>;
  const { event, before, after } = state.window;
  const neighbour = (e: EventView) => (
    <li key={e.recordId}>
      <button type="button" className="link-button" onClick={() => onOpen(e.recordId)} data-testid="event-neighbour">
        {e.recordId}
      </button>{' '}
      <span className="muted">{e.time ? formatDateTime(e.time) : ''}</span> {summary(e)}
    </li>
  );
  return (
    <div className="event-record" data-testid="event-record" data-record={event.recordId}>
      {before.length > 0 && (
        <ol className="event-neighbours" aria-label="Events before">
          {before.map(neighbour)}
        </ol>
      )}
      <div className="event-selected" aria-current="location">
        <h3>
          Event {event.recordId}
          {event.provider ? ` — ${event.provider}` : ''}
          {event.eventId !== null ? ` ${event.eventId}` : ''}
        </h3>
        <EventFields e={event} />
        <details className="event-xml">
          <summary>XML</summary>
          <pre className="code wrap" data-testid="event-xml">
            <code>{event.xml}</code>
          </pre>
        </details>
      </div>
      {after.length > 0 && (
        <ol className="event-neighbours" aria-label="Events after">
          {after.map(neighbour)}
        </ol>
      )}
    </div>
  );
}
