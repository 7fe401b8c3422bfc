/** branches/<b>/summary.md: purpose, parent, creation, hypotheses and where the branch stands. */
import type { BranchInfo } from '../decider/state.js';
import { block, oneLine } from '../log/prose.js';

export function renderSummary(b: BranchInfo): string {
  const out = [
    `# Branch: ${oneLine(b.name, 120)}`,
    '',
    '## Purpose',
    block(b.purpose || '(no purpose recorded)', 4000),
    '',
    `## Status: ${b.life}`,
    `## Parent: ${b.parent ?? '(none)'}`,
    `## Created: ${b.created}`,
    '',
    '## Key Hypotheses',
    ...(b.hypotheses.length ? b.hypotheses.map((h) => `- ${block(h, 1000)}`) : ['- (none recorded)']),
    '',
    '## Progress',
    `- Commits: ${b.commits}`,
    ...(b.commits > b.recent.length ? [`- … ${b.commits - b.recent.length} earlier, in commit.md`] : []),
    ...b.recent.map((c) => `- ${c.label} (${c.id}): ${oneLine(c.title, 160)}`),
  ];
  if (b.life === 'merged') out.push('', '## Outcome', `Merged into ${b.mergedInto} at ${b.closed}.`);
  if (b.life === 'abandoned') out.push('', '## Outcome', `Abandoned at ${b.closed}: ${block(b.reason ?? '', 2000)}`);
  return `${out.join('\n')}\n`;
}
