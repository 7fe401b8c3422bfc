import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gccWriteReason } from '../../src/observer/gcc-write-guard.js';
import { memoryUncommitted } from '../../src/observer/uncommitted.js';
import { type Case, CASES } from './write-guard-cases.js';
import { diff, fresh, lostEvents, missingPrograms, PACKAGES, runBash, type Sandbox, snapshot, template, type Variant } from './write-guard-sandbox.js';

/**
 * Ground truth for the write guard: every corpus command is decided by the guard, then run for
 * real with `bash -c` in a fresh sandbox, and `.GCC/` is compared before and after. The guard must
 * deny exactly the commands that changed it, apart from the documented boundary cases. Git
 * work-tree rewrites run twice: with events git has not got (denied, and they would have been
 * lost) and with everything committed (allowed, and no event is lost).
 */

interface Outcome {
  c: Case;
  variant: Variant;
  denied: boolean;
  changed: boolean;
  detail: string;
}

const programsOf = (cmd: string) => Object.keys(PACKAGES).filter((p) => new RegExp(`(?:^|[\\s|;&(\`$])${p}(?=\\s|$)`).test(cmd));
const templates = new Map<Variant, Sandbox>();
const outcomes: Outcome[] = [];

function decideAndRun(c: Case, variant: Variant): Outcome {
  const sb = fresh(templates.get(variant) as Sandbox);
  try {
    const reason = gccWriteReason({ tool: 'Bash', input: { command: c.cmd }, cwd: sb.proj, gccDir: sb.gccDir, memoryUncommitted: (o) => memoryUncommitted(sb.gccDir, o) });
    const before = snapshot(sb.gccDir);
    const run = runBash(c.cmd, sb);
    const after = snapshot(sb.gccDir);
    const changes = diff(before, after);
    const lost = lostEvents(before, after);
    const detail = `${c.cmd}\n  [${variant}] guard: ${reason ?? 'allowed'}\n  changes: ${changes.slice(0, 6).join('; ') || 'none'}\n  lost events: ${lost.join(', ') || 'none'}\n  exit ${run.status}: ${run.output.trim().slice(0, 300)}`;
    return { c, variant, denied: reason !== null, changed: changes.length > 0, detail };
  } finally {
    rmSync(sb.root, { recursive: true, force: true });
  }
}

describe('write guard corpus (commands run for real)', () => {
  beforeAll(() => {
    const missing = missingPrograms(['bash', 'git', 'tar', 'zip', ...CASES.flatMap((c) => programsOf(c.cmd))]);
    if (missing.length) throw new Error(`the corpus needs programs this machine lacks; install: ${missing.join(', ')}`);
    templates.set('uncommitted', template('uncommitted'));
    templates.set('committed', template('committed'));
  });
  afterAll(() => {
    for (const t of templates.values()) rmSync(t.root, { recursive: true, force: true });
    // Counts per class for the write-guard table in docs/reliability.md, when asked for.
    if (process.env.GUARD_CORPUS_REPORT) writeFileSync(process.env.GUARD_CORPUS_REPORT, JSON.stringify(outcomes.map((o) => ({ cls: o.c.cls, cmd: o.c.cmd, variant: o.variant, denied: o.denied, changed: o.changed, boundary: o.c.boundary ?? null })), null, 1));
  });

  it('has at least 100 commands', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(100);
  });

  for (const c of CASES) {
    it(`${c.cls}: ${c.cmd.split('\n')[0]}`, () => {
      const o = decideAndRun(c, 'uncommitted');
      outcomes.push(o);
      if (c.boundary) {
        // Documented: allowed although it changes .GCC (caught later by the store's integrity checks).
        expect(o.denied, o.detail).toBe(false);
        expect(o.changed, o.detail).toBe(true);
        return;
      }
      expect(o.denied, o.detail).toBe(o.changed);
      if (!c.git) return;
      const committed = decideAndRun(c, 'committed');
      outcomes.push(committed);
      expect(committed.denied, committed.detail).toBe(committed.changed);
      // Allowed with everything committed: it must not lose an event.
      if (!committed.denied) expect(committed.detail, committed.detail).toContain('lost events: none');
    });
  }
});
