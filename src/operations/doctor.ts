import { existsSync, readdirSync } from 'node:fs';
import { asGccError } from '../errors.js';
import { layout } from '../store/paths.js';
import { readSetAside, setAsideNames } from '../store/set-aside.js';
import { count } from '../context/lines.js';
import { operation } from './operation.js';

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

const LEDGER_REBUILT =
  'acknowledged the logs as they stand (the ledger of what this clone acknowledged was missing or damaged)';
const REPAIR_SAYS = '`gctx doctor --repair` restores from git or records the loss';

interface Check {
  check: string;
  ok: boolean;
  detail: string;
}

export default operation({
  name: 'doctor',
  summary:
    'diagnose a memory (versions, lock, integrity, set-aside files); ' +
    'with --repair, restore from git or record the loss',
  args: {
    repair: {
      kind: 'boolean',
      help: 'Repair what is damaged: restore from git where it can, else salvage and record the loss.',
    },
  },
  cli: [{ field: 'repair', as: 'flag' }],
  fronts: ['cli'],
  example: 'doctor --repair',
  answer: 'report',
  library: () => 'await repairMemory(dir)',
  readOnly: false,
  wholePass: () => 'verify',
  needs: 'none',
  run: async (a, ctx) => {
    const { Memory, repairMemory } = await import('./doctor-engine.js');
    const l = layout(ctx.dir);
    const checks: Check[] = [];
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    const recent = major > 22 || (major === 22 && minor >= 19);
    checks.push({
      check: 'node',
      ok: recent,
      detail: `Node ${process.versions.node}${recent ? '' : ' (gctx and Pi 1.x need >= 22.19)'}`,
    });
    const present = existsSync(l.gcc);
    checks.push({
      check: 'memory',
      ok: present,
      detail: present ? l.gcc : `no .GCC/ in ${ctx.dir}: run \`gctx init\``,
    });
    if (present) {
      if (a.repair) {
        try {
          const r = await repairMemory(ctx.dir, () => new Date());
          const said = [
            ...r.journal,
            ...(r.ledger ? [LEDGER_REBUILT] : []),
            ...r.resolved.map((f) => `resolved the conflict markers in ${f} by union`),
            ...r.reacknowledged.map(
              (f) => `acknowledged ${f} as it stands (the ledger's entry for it was edited or damaged)`,
            ),
            ...r.rewritten.map(
              (w) =>
                `rewrote ${w.file} as gctx wrote it: ${count(w.kept, 'event')}, none lost ` +
                `(the file as it was is kept at ${w.aside})`,
            ),
            ...r.restored.map((f) => `restored ${f} from git`),
            ...r.salvaged.map(
              (s) =>
                `salvaged ${count(s.kept, 'event')} of ${s.file} ` +
                `(${s.lost} lost; the damaged file is kept at ${s.aside})`,
            ),
            ...r.lost.map((x) => `${x.file}: ${count(x.events, 'event')} lost, recorded`),
            ...r.setAside,
          ];
          checks.push({ check: 'repair', ok: true, detail: said.length ? said.join('; ') : 'nothing to repair' });
        } catch (err) {
          checks.push({ check: 'repair', ok: false, detail: asGccError(err).oneLine() });
        }
      }
      checks.push({
        check: 'lock',
        ok: true,
        detail: existsSync(l.lock) ? `held (${l.lock}); a dead holder's lock is taken over automatically` : 'free',
      });
      try {
        const m = await Memory.open(ctx.dir, { lockTimeoutMs: 5_000, search: 'on-demand' });
        const before = m.warnings.length;
        const problems = await m.verifyConfirmed();
        const found = m.warnings.splice(before);
        checks.push({
          check: 'integrity',
          ok: problems.length === 0,
          detail: problems.length
            ? problems.map((x) => `${x.file}${x.line ? `:${x.line}` : ''} ${x.message}`).join('; ')
            : `${count(m.state.events, 'event')}, every log as acknowledged, views equal a rebuild`,
        });
        // No damage: events contradicting earlier ones, a snapshot holding another state.
        for (const w of found) checks.push({ check: 'integrity', ok: true, detail: `warning: ${w}` });
        for (const w of m.warnings) checks.push({ check: 'open', ok: true, detail: w });
        m.close();
      } catch (err) {
        const e = asGccError(err);
        // The way out once: most damage's own fix already names the repair.
        const repairSaid = a.repair || (e.fix ?? '').includes('doctor --repair');
        checks.push({
          check: 'integrity',
          ok: false,
          detail: `${e.oneLine()}${repairSaid ? '' : ` — ${REPAIR_SAYS}`}`,
        });
      }
      const q = listDir(l.quarantine);
      checks.push({
        check: 'quarantine',
        ok: true,
        detail: q.length ? `${count(q.length, 'torn fragment')} in ${l.quarantine}` : 'empty',
      });
      // Only records that still describe the file: a segment fixed since is read again.
      const still = setAsideNames(l);
      const teammates = Object.entries(readSetAside(l)).filter(([n]) => still.has(n));
      const unread = teammates.map(([n, r]) => `.GCC/events/${n} (${r.why})`);
      checks.push({
        check: 'set aside',
        ok: true,
        detail: teammates.length
          ? `${count(teammates.length, 'file')} from git left unread: ${unread.join('; ')}`
          : 'none',
      });
      const aside = listDir(l.aside);
      checks.push({
        check: 'aside',
        ok: true,
        detail: aside.length ? `${count(aside.length, 'file')} kept in ${l.aside} for you to look at` : 'empty',
      });
    }
    const bad = checks.filter((c) => !c.ok);
    // Damaged memory is exit 2, like every corruption; a setup problem is the user's (exit 1).
    const exit = bad.some((c) => c.check === 'integrity' || c.check === 'repair') ? 2 : bad.length ? 1 : 0;
    return {
      text: checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.check}: ${c.detail}`).join('\n'),
      data: { ok: bad.length === 0, checks },
      ...(exit ? { exit } : {}),
    };
  },
});
