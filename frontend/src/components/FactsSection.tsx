import { useState } from 'react';
import type { Artifact, ArtifactFacts, Fact } from '../api.ts';
import { genericSummary, kindLabel, summarize } from '../facts.ts';
import { plural } from '../format.ts';
import { Loading, ProblemText } from './common.tsx';
import type { FactsState } from './EnvironmentPanel.tsx';
import { SourceLink, type SourceJump } from './SourceLink.tsx';

/** Facts shown per kind before "Show all". */
const FIRST_FACTS = 12;
/** Source links shown per fact before "+N more". */
const FIRST_SOURCES = 3;

function groupByKind(facts: Fact[]): [string, Fact[]][] {
  const groups = new Map<string, Fact[]>();
  for (const f of facts) {
    const list = groups.get(f.kind);
    if (list) list.push(f);
    else groups.set(f.kind, [f]);
  }
  return [...groups.entries()];
}

function KindGroup({ kind, facts, jump }: { kind: string; facts: Fact[]; jump: SourceJump }) {
  const [all, setAll] = useState(false);
  const shown = all ? facts : facts.slice(0, FIRST_FACTS);
  return (
    <div className="fact-group" data-testid="fact-group" data-kind={kind}>
      <h4 title={kind}>
        {kindLabel(kind)} <span className="count">{facts.length}</span>
      </h4>
      <ul className="fact-list">
        {shown.map((f, i) => {
          const sources = f.sources ?? [];
          return (
            <li key={i} className="fact" data-testid="fact">
              <span className="fact-text" title={genericSummary(f)}>
                {summarize(f)}
              </span>
              {sources.length > 0 && (
                <span className="fact-sources">
                  {sources.slice(0, FIRST_SOURCES).map((s, j) => (
                    <SourceLink key={j} source={s} jump={jump} className="line-link" testId="line-link">
                      {/\.evtx$/i.test(s.artifact) ? 'record' : 'line'} {s.line}
                    </SourceLink>
                  ))}
                  {sources.length > FIRST_SOURCES && (
                    <span className="muted">+{sources.length - FIRST_SOURCES} more</span>
                  )}
                </span>
              )}
            </li>
          );
        })}
      </ul>
      {facts.length > FIRST_FACTS && (
        <button type="button" className="btn btn-small btn-quiet" onClick={() => setAll(!all)}>
          {all ? 'Show fewer' : `Show all ${facts.length}`}
        </button>
      )}
    </div>
  );
}

function ArtifactFactsBlock({ entry, artifact, jump }: { entry: ArtifactFacts; artifact?: Artifact; jump: SourceJump }) {
  const facts = entry.facts ?? [];
  const problems = entry.problems ?? [];
  const groups = groupByKind(facts);
  return (
    <details className="facts-artifact" open={facts.length > 0} data-testid="facts-artifact" data-path={entry.path}>
      <summary>
        <span className="mono facts-path">{entry.path}</span>
        <span className="facts-meta muted">
          {artifact?.typeLabel || entry.type} · {facts.length === 0 ? 'no facts' : plural(facts.length, 'fact')}
          {problems.length > 0 && ` · ${plural(problems.length, 'problem')}`}
        </span>
      </summary>
      <div className="facts-body">
        {groups.map(([kind, list]) => (
          <KindGroup key={kind} kind={kind} facts={list} jump={jump} />
        ))}
        {facts.length === 0 && problems.length === 0 && (
          <p className="muted facts-none">Nothing was read from this artifact.</p>
        )}
        {problems.length > 0 && (
          <div className="facts-problems">
            <h4 className="muted">Could not read</h4>
            <ul data-testid="problems">
              {problems.map((p, i) => (
                <li key={i} className="muted">
                  <ProblemText>{p}</ProblemText>
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </details>
  );
}

/** What the parsers read from each artifact, grouped by kind, each fact linked to its source line. */
export function FactsSection({ state, artifacts, jump }: { state: FactsState; artifacts: Artifact[]; jump: SourceJump }) {
  const byPath = new Map(artifacts.map((a) => [a.path, a]));
  let body;
  let total: number | null = null;
  if (state.kind === 'loading') {
    body = <Loading label="Reading facts from the artifacts…" />;
  } else if (state.kind === 'error') {
    body = <p className="muted">The facts could not be read (see above).</p>;
  } else {
    const entries = state.facts.artifacts;
    total = entries.reduce((n, a) => n + (a.facts?.length ?? 0), 0);
    body =
      entries.length === 0 ? (
        <p className="empty-inline muted">This bundle has no artifacts to read.</p>
      ) : (
        <>
          {total === 0 && <p className="muted">No facts were read from this bundle's artifacts.</p>}
          <div className="facts" data-testid="facts">
            {entries.map((entry) => (
              <ArtifactFactsBlock key={entry.path} entry={entry} artifact={byPath.get(entry.path)} jump={jump} />
            ))}
          </div>
        </>
      );
  }
  return (
    <section aria-labelledby="facts-heading" className="facts-section">
      <h2 id="facts-heading">
        Facts {total !== null && <span className="count">{total}</span>}
      </h2>
      {body}
    </section>
  );
}
