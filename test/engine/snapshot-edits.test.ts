/**
 * The snapshot is a cache of the folded state; the logs are the truth. A snapshot edited in
 * place on this clone (beside its own ledger, so it is this clone's) is not used: its bytes no
 * longer match its checksum, and the real `gctx` folds the logs instead and says so once. One
 * edited with its checksum made to match is used by an open — the boundary of what a local
 * file can vouch for — and `gctx verify` finds it against a replay of the logs, removes it
 * and says so; the next reads show the logs.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { gctx } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const SNAPSHOT = '.GCC/.local/cache/snapshot.json';

interface Raw {
  state: {
    defaultBranch: string;
    lastMoved: string;
    branches: Record<
      string,
      { purpose: string; life: string; last: { contribution: string; next: string | null } | null }
    >;
  };
  crc?: number;
}

let dir: string;

function ok(args: string[]) {
  const r = gctx(dir, args);
  expect(r.code, r.stderr).toBe(0);
  return r;
}

/** Edit the snapshot in place as a person or a script would: parse it, change it, write it back (still JSON). */
function edit(change: (raw: Raw) => void, fixChecksum = false): void {
  const path = join(dir, SNAPSHOT);
  const raw = JSON.parse(readFileSync(path, 'latin1')) as Raw;
  change(raw);
  if (!fixChecksum) {
    writeFileSync(path, JSON.stringify(raw));
    return;
  }
  delete raw.crc;
  const body = JSON.stringify(raw).slice(0, -1);
  writeFileSync(path, `${body},"crc":${crc32(body)}}`);
}

const forgeEverything = (raw: Raw) => {
  const feat = raw.state.branches.feat!;
  feat.purpose = 'FORGED purpose';
  feat.last!.contribution = 'FORGED contribution';
  feat.last!.next = 'FORGED next step';
  raw.state.branches.side!.life = 'abandoned';
  raw.state.defaultBranch = 'main';
  raw.state.lastMoved = 'main';
};

beforeEach(() => {
  dir = tempProject('gcc-snapedit-');
  ok(['init']);
  ok(['branch', 'side', '--purpose', 'a side road']);
  ok(['switch', 'main']);
  ok(['branch', 'feat', '--purpose', 'the real purpose']);
  ok(['commit', 'the real contribution', '--next', 'the real next step']);
  expect(existsSync(join(dir, SNAPSHOT))).toBe(true);
});

describe('a snapshot edited in place', () => {
  it('is not used: status and context show the logs, the warning comes once, the snapshot is written again', () => {
    edit(forgeEverything);
    const status = ok(['status']);
    expect(status.stdout).toContain('On memory branch feat');
    expect(status.stdout).toContain('the real purpose');
    expect(status.stdout).toContain('the real next step');
    expect(status.stdout).toContain('Branches: 2 open');
    expect(status.stdout).not.toContain('FORGED');
    expect(status.stderr).toContain(`${SNAPSHOT} fails its checksum (edited or damaged): not used`);
    const context = ok(['context', '--branch', 'feat']);
    expect(context.stdout).toContain('the real contribution');
    expect(context.stdout).not.toContain('FORGED');
    expect(context.stderr).toBe('');
    const verify = ok(['verify']);
    expect(verify.stdout).toMatch(/^OK: /);
    expect(verify.stdout).not.toContain('warning');
  });

  it('is found by verify when its checksum was made to match, removed, and the logs shown from then on', () => {
    edit(forgeEverything, true);
    // An open trusts a snapshot whose checksum holds: the edit shows until verify looks.
    expect(ok(['status']).stdout).toContain('FORGED');
    const verify = ok(['verify']);
    expect(verify.stdout).toMatch(/^OK: /);
    expect(verify.stdout).toContain(`warning: ${SNAPSHOT}: holds a state the logs do not fold to`);
    const status = ok(['status']);
    expect(status.stdout).not.toContain('FORGED');
    expect(status.stdout).toContain('On memory branch feat');
    expect(status.stdout).toContain('the real next step');
    const again = ok(['verify', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({ ok: true, problems: [] });
  });

  it('as verify meets it: exit 0, the checksum warning, and a clean verify after', () => {
    edit((raw) => {
      raw.state.branches.feat!.purpose = 'FORGED purpose';
    });
    const verify = gctx(dir, ['verify', '--json']);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toEqual({ ok: true, problems: [] });
    expect(verify.stderr).toContain('fails its checksum');
    const again = ok(['verify']);
    expect(again.stderr).toBe('');
    expect(again.stdout).not.toContain('warning');
  });
});
