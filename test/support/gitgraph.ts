/** History graphs of events given all at once (tests, the fake daemon), as the engine's streamed ones are drawn. */
import { GitGraph, type GitGraphModel } from '../../src/diagrams/gitgraph.js';
import type { GccEvent } from '../../src/events/types.js';

/** Events in time order; events with the same time keep the order they were given in. */
function ordered(events: readonly GccEvent[]): GccEvent[] {
  return events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.at < b.e.at ? -1 : a.e.at > b.e.at ? 1 : a.i - b.i))
    .map((x) => x.e);
}

/** A graph of events given all at once (tests, the fake daemon): put in time order first. */
export function gitGraphOf(events: readonly GccEvent[], recent: number | 'all' = 'all'): GitGraph {
  const g = new GitGraph(recent);
  for (const e of ordered(events)) g.add(e);
  return g;
}

export const gitGraphMermaid = (events: readonly GccEvent[]): string => gitGraphOf(events).mermaid();
export const gitGraphModel = (events: readonly GccEvent[]): GitGraphModel => gitGraphOf(events).model();
