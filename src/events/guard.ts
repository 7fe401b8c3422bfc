/**
 * The write guard's words (observer/gcc-write-guard.ts decides; these say why), kept here, below
 * the fold, because a refusal is also read back from the log: a call the guard refused is
 * recorded as a failed call, `blocked: ` and the reason, and it is gctx's refusal, not the
 * agent's failing work. The fold keeps it out of "failing since the last commit" and the log
 * view says it in a few words — both by these words, which logs written before carry too.
 */
export const GCC_WRITE_REASON =
  'The files under .GCC/ are the memory log or generated from the memory log; ' +
  'writing them directly would corrupt it. ' +
  'Use the memory tools instead (commit, branch, merge, roadmap — gcc_* in Pi, mcp__gcc__* over MCP — ' +
  'or `gctx` on the command line). ' +
  '.GCC/main.md alone may be edited, with a file edit tool: ' +
  'ticked, added or reworded Objectives and Notes are recorded as events.';

/** The write refusal's first sentence as gctx worded it before: logs written then carry it. */
const EARLIER_WRITE_HEAD = 'The files under .GCC/ are generated from the memory log';

export const GIT_UNCOMMITTED_REASON =
  'This git command rewrites .GCC/ in the work tree while the memory holds events that are not ' +
  'committed to git yet: they would be lost. ' +
  "Commit the memory first (`git add .GCC && git commit -m 'agent memory'`), or leave it out of the command " +
  "(`git stash push -- ':!.GCC'`, `git checkout -- . ':!.GCC'`, `git clean -fd -e .GCC`).";

/** How a refused call's result is recorded: this, then the reason. */
export const BLOCKED = 'blocked: ';

const firstSentence = (reason: string) => reason.slice(0, reason.indexOf(';'));
const REFUSALS = [
  ...[GCC_WRITE_REASON, GIT_UNCOMMITTED_REASON].map((r) => ({
    head: BLOCKED + firstSentence(r),
    git: r === GIT_UNCOMMITTED_REASON,
  })),
  { head: BLOCKED + EARLIER_WRITE_HEAD, git: false },
];

/** Which refusal of gctx's own guard a recorded result is (null: it is not one). */
export function guardRefusal(result: string): 'write' | 'git' | null {
  for (const r of REFUSALS) if (result.startsWith(r.head)) return r.git ? 'git' : 'write';
  return null;
}
