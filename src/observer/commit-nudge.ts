import type { Config } from '../events/types.js';
import { flatText } from '../log/safe-text.js';

export interface PendingWork {
  edits: number;
  turns: number;
  files: string[];
}

/**
 * Soft guidance to commit, given the pending work before and after one call. It fires only on
 * the call that crosses a threshold (edits or turns since the last commit), so the model reads
 * it once per threshold rather than on every call after; a commit resets both counts.
 */
export function commitNudge(before: PendingWork, after: PendingWork, config: Config, branch?: string): string | null {
  if (!config.proactive_commits) return null;
  const crossed = (limit: number, a: number, b: number) => limit > 0 && a < limit && b >= limit;
  const byEdits = crossed(config.commit_after_edits, before.edits, after.edits);
  const byTurns = crossed(config.commit_after_turns, before.turns, after.turns);
  if (!byEdits && !byTurns) return null;
  const files =
    after.files.slice(0, 6).map(flatText).join(', ') +
    (after.files.length > 6 ? `, +${after.files.length - 6} more` : '');
  const where = branch ? ` on memory branch "${branch}"` : '';
  return (
    `[gcc] ${after.edits} ${after.edits === 1 ? 'edit' : 'edits'} ` +
    `and ${after.turns} ${after.turns === 1 ? 'tool call' : 'tool calls'} since the last ` +
    `memory commit${where}` +
    (files ? ` (files: ${files})` : '') +
    ('. If this is a coherent step, record it with the memory commit tool (gcc_commit, ' +
      'mcp__gcc__commit or `gctx commit`): one or two sentences on what changed and why.')
  );
}
