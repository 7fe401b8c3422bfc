/**
 * A person's edits of main.md and metadata.yaml are not lost: they become events (so a
 * replay reproduces them), or the edited file is kept aside with a warning. Fail safe: an edit
 * gctx cannot read (a renamed heading, a file over the size it takes in, hundreds of thousands
 * of lines) changes nothing in the memory. The other views are caches of the logs: an edit of
 * them is found by verify and replaced by replay.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';

async function fresh() {
  const dir = tempProject();
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'roadmap', action: 'add', target: 'Parse the input' });
  await m.execute({ type: 'roadmap', action: 'add', target: 'Write docs' });
  m.close();
  return { dir, main: join(dir, '.GCC', 'main.md'), meta: join(dir, '.GCC', 'metadata.yaml') };
}

function edit(path: string, fn: (s: string) => string) {
  writeFileSync(path, fn(readFileSync(path, 'utf8')));
}

describe('hand edits', () => {
  afterAll(cleanup);

  it('an empty main.md or metadata.yaml (a crash before their data reached the disk) is rebuilt, never read as an edit', async () => {
    const p = await fresh();
    const before = readFileSync(p.main, 'utf8');
    const events = (await Memory.open(p.dir)).events().length;
    writeFileSync(p.main, '');
    writeFileSync(p.meta, '');
    const m = await Memory.open(p.dir);
    try {
      expect(m.events()).toHaveLength(events);
      expect(m.state.objectives.map((o) => o.text)).toEqual(['Parse the input', 'Write docs']);
      expect(readFileSync(p.main, 'utf8')).toBe(before);
      expect(readFileSync(p.meta, 'utf8')).not.toBe('');
      expect(m.warnings).toEqual([]);
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('ticking, adding and rewording objectives in main.md become events on the next open', async () => {
    const p = await fresh();
    edit(p.main, (s) =>
      s
        .replace('- [ ] Parse the input', '- [x] Parse the input, streaming')
        .replace('- [ ] Write docs', '- [ ] Write docs\n- [x] Added by a person'),
    );
    const m = await Memory.open(p.dir);
    expect(m.state.objectives.map((o) => [o.text, o.done])).toEqual([
      ['Parse the input, streaming', true],
      ['Write docs', false],
      ['Added by a person', true],
    ]);
    const types = m
      .events()
      .filter((e) => e.branch === 'main')
      .map((e) => e.type);
    expect(types).toContain('objective.edited');
    expect(types).toContain('objective.added');
    expect(m.verify()).toEqual([]);
    // Replay from the logs alone reproduces the person's edit.
    await m.replay();
    expect(readFileSync(p.main, 'utf8')).toContain('- [x] Added by a person');
    m.close();
  });

  it('a removed objective line removes the objective', async () => {
    const p = await fresh();
    edit(p.main, (s) => s.replace('- [ ] Write docs\n', ''));
    const m = await Memory.open(p.dir);
    expect(m.state.objectives.map((o) => o.text)).toEqual(['Parse the input']);
    m.close();
  });

  it('notes are adopted as a unified patch and replayed', async () => {
    const p = await fresh();
    edit(p.main, (s) => `${s}Remember: the API rate limit is 100/min.\n`);
    const m = await Memory.open(p.dir);
    const patch = m
      .events()
      .filter((e) => e.branch === 'main')
      .find((e) => e.type === 'notes.patched');
    expect(patch?.type === 'notes.patched' && patch.data.patch).toMatch(/^\+Remember: the API rate limit/m);
    expect(m.state.notes).toBe('Remember: the API rate limit is 100/min.\n');
    expect(m.verify()).toEqual([]);
    m.close();
  });

  it('edits are picked up by the next operation of a long-lived process too', async () => {
    const p = await fresh();
    const m = await Memory.open(p.dir);
    edit(p.main, (s) => s.replace('- [ ] Write docs', '- [x] Write docs'));
    await m.execute({ type: 'log', observation: 'o', thought: 't', action: 'a' });
    expect(m.state.objectives[1]!.done).toBe(true);
    m.close();
  });

  it('config edited in metadata.yaml (as the GCC skill does) becomes a config event', async () => {
    const p = await fresh();
    edit(p.meta, (s) =>
      s
        .replace('proactive_commits: true', 'proactive_commits: false')
        .replace('commit_after_edits: 8', 'commit_after_edits: 3'),
    );
    const m = await Memory.open(p.dir);
    expect(m.config.proactive_commits).toBe(false);
    expect(m.config.commit_after_edits).toBe(3);
    expect(m.verify()).toEqual([]);
    m.close();
  });

  it('edits that cannot be adopted are kept aside with a warning, and the file is regenerated', async () => {
    const p = await fresh();
    const m0 = await Memory.open(p.dir);
    await m0.execute({ type: 'commit', contribution: 'milestone one' });
    m0.close();
    edit(p.main, (s) =>
      s.replace('### M1: milestone one', '### M1: rewritten by hand').replace('- [ ] Write docs', '- [x] Write docs'),
    );
    const m = await Memory.open(p.dir);
    expect(m.state.objectives[1]!.done).toBe(true); // the adoptable part still counts
    expect(m.warnings.join('\n')).toMatch(/kept at .*aside/);
    const aside = readdirSync(join(p.dir, '.GCC', 'aside'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(p.dir, '.GCC', 'aside', aside[0]!), 'utf8')).toContain('rewritten by hand');
    expect(readFileSync(p.main, 'utf8')).toContain('### M1: milestone one');
    expect(m.verify()).toEqual([]);
    m.close();
  });

  it('an invalid config value is kept aside, not adopted', async () => {
    const p = await fresh();
    edit(p.meta, (s) => s.replace('commit_after_edits: 8', 'commit_after_edits: lots'));
    const m = await Memory.open(p.dir);
    expect(m.config.commit_after_edits).toBe(8);
    expect(m.warnings.join('\n')).toMatch(/not a valid value/);
    m.close();
  });

  it('other views edited by hand are found by verify and rebuilt by replay (only main.md and metadata.yaml are kept aside)', async () => {
    const p = await fresh();
    const commitMd = join(p.dir, '.GCC', 'commit.md');
    const before = readFileSync(commitMd, 'utf8');
    edit(commitMd, (s) => `${s}\nhand note\n`);
    const m = await Memory.open(p.dir);
    const problems = m.verify();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: '.GCC/commit.md' });
    const r = await m.replay();
    expect(r.kept).toEqual([]);
    expect(readFileSync(commitMd, 'utf8')).toBe(before);
    expect(m.verify()).toEqual([]);
    m.close();
  });

  it('a renamed Objectives heading removes nothing: the edit is kept aside and the file regenerated', async () => {
    const p = await fresh();
    const events = (await Memory.open(p.dir)).events().length;
    edit(p.main, (s) => s.replace('## Objectives', '## Goals'));
    const m = await Memory.open(p.dir);
    try {
      expect(m.state.objectives.map((o) => [o.text, o.done])).toEqual([
        ['Parse the input', false],
        ['Write docs', false],
      ]);
      expect(m.events()).toHaveLength(events);
      expect(m.warnings.join('\n')).toMatch(/Objectives" heading is missing or renamed/);
      expect(readdirSync(join(p.dir, '.GCC', 'aside'))).toHaveLength(1);
      expect(readFileSync(p.main, 'utf8')).toMatch(/## Objectives\n- \[ \] Parse the input\n- \[ \] Write docs/);
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('a main.md over 256 KiB is not taken in: kept aside, nothing adopted, every command still works', async () => {
    const p = await fresh();
    const events = (await Memory.open(p.dir)).events().length;
    edit(p.main, (s) => `${s.replace('- [ ] Write docs', '- [x] Write docs')}\n${'- [ ] x\n'.repeat(200_000)}`);
    const m = await Memory.open(p.dir);
    try {
      expect(m.events()).toHaveLength(events);
      expect(m.state.objectives.map((o) => o.done)).toEqual([false, false]);
      expect(m.warnings.join('\n')).toMatch(/more than the 262144 gctx takes in as a hand edit/);
      expect(readFileSync(p.main, 'utf8').length).toBeLessThan(2048);
      await m.execute({ type: 'commit', contribution: 'still works' });
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('a 200,000-line edit under that size is read without a stack overflow and adopted as notes', async () => {
    const p = await fresh();
    // Empty lines keep 200,000 of them under 256 KiB, so the edit goes all the way through the
    // adoption (a diff of the Notes section) rather than being refused for its size.
    edit(p.main, (s) => `${s}${'\n'.repeat(200_000)}the end of a very long note\n`);
    const m = await Memory.open(p.dir);
    try {
      expect(m.warnings).toEqual([]);
      expect(m.state.notes).toMatch(/the end of a very long note\n$/);
      expect(m.state.notes.split('\n').length).toBeGreaterThan(200_000);
      expect(
        m
          .events()
          .filter((e) => e.branch === 'main')
          .filter((e) => e.type === 'notes.patched'),
      ).toHaveLength(1);
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });
});

/** Credentials of the shapes people paste, built here so no scanner takes the file for a leak. */
const SECRETS = {
  url: ['postgres://app:', 'hunter2pass', '@db/app'],
  openai: ['sk-proj-', 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7dEf0hIj3kLm6n'],
  aws: ['AKIA', 'QWERTYUIOPASDFGH'],
  github: ['ghp_', 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7d'],
  slack: ['xoxb-', '123456789012-1234567890123-Ab3dEf6hIj9kLm2nOp5qRs8t'],
};
const secret = (k: keyof typeof SECRETS) => SECRETS[k].join('');
/** The part of each that must never be written: the password, the token's body. */
const MUST_NOT_LEAK = [SECRETS.url[1]!, SECRETS.openai[1]!, SECRETS.aws[1]!, SECRETS.github[1]!, SECRETS.slack[1]!];

/** Every file under `.GCC/` that git may take (everything but `.local/`), as text. */
function committable(dir: string): string {
  const gcc = join(dir, '.GCC');
  return (readdirSync(gcc, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
    .filter((p) => !p.startsWith(join(gcc, '.local')))
    .map((p) => readFileSync(p, 'utf8'))
    .join('\n');
}

function leaks(text: string): string[] {
  return MUST_NOT_LEAK.filter((s) => text.includes(s));
}

describe('secrets typed into main.md by hand', () => {
  afterAll(cleanup);

  it('objectives ticked, added and reworded, and notes, are adopted redacted', async () => {
    const p = await fresh();
    edit(p.main, (s) =>
      s
        .replace('- [ ] Parse the input', `- [x] Parse the input from ${secret('url')}`)
        .replace('- [ ] Write docs', `- [ ] Write docs\n- [ ] Rotate ${secret('aws')}`)
        .concat(
          `The OpenAI key is ${secret('openai')}\nCI uses ${secret('github')} and ${secret('slack')}\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAAAAAAAAAAAAAAAAAAAAA\n-----END OPENSSH PRIVATE KEY-----\nthe end of the note\n`,
        ),
    );
    const m = await Memory.open(p.dir);
    try {
      expect(m.warnings).toEqual([]);
      expect(m.state.objectives.map((o) => [o.text, o.done])).toEqual([
        ['Parse the input from postgres://app:[REDACTED]@db/app', true],
        ['Write docs', false],
        ['Rotate [REDACTED]', false],
      ]);
      const types = m
        .events()
        .filter((e) => e.branch === 'main')
        .map((e) => e.type);
      expect(types).toEqual(
        expect.arrayContaining(['objective.edited', 'objective.checked', 'objective.added', 'notes.patched']),
      );
      // The patch was made from the redacted text, so it applied (a key block became one line).
      expect(m.state.notes).toContain('The OpenAI key is [REDACTED]');
      expect(m.state.notes).toMatch(/PRIVATE KEY-----[^\n]*\[REDACTED\][^\n]*\nthe end of the note\n$/);
      expect(leaks(JSON.stringify(m.events()))).toEqual([]);
      expect(leaks(committable(p.dir))).toEqual([]);
      expect(m.verify()).toEqual([]);
      // A replay from the logs alone gives the same, redacted, main.md.
      const main = readFileSync(p.main, 'utf8');
      await m.replay();
      expect(readFileSync(p.main, 'utf8')).toBe(main);
    } finally {
      m.close();
    }
  });

  it('the next operation of a long-lived process adopts the edit redacted too', async () => {
    const p = await fresh();
    const m = await Memory.open(p.dir);
    try {
      edit(p.main, (s) => s.replace('- [ ] Write docs', `- [x] Write docs with ${secret('github')}`));
      await m.execute({ type: 'commit', contribution: 'after the edit' });
      expect(m.state.objectives[1]).toMatchObject({ text: 'Write docs with [REDACTED]', done: true });
      expect(leaks(committable(p.dir))).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('an edit outside Objectives and Notes is kept aside redacted, and the warning says so', async () => {
    const p = await fresh();
    const m0 = await Memory.open(p.dir);
    await m0.execute({ type: 'commit', contribution: 'milestone one' });
    m0.close();
    edit(p.main, (s) =>
      s
        .replace('### M1: milestone one', `### M1: deployed with ${secret('aws')} and ${secret('url')}`)
        .replace('- [ ] Write docs', `- [x] Write docs ${secret('slack')}`),
    );
    const m = await Memory.open(p.dir);
    try {
      expect(m.state.objectives[1]).toMatchObject({ text: 'Write docs [REDACTED]', done: true });
      expect(m.warnings.join('\n')).toMatch(/kept at .*aside.* \(secrets in it were replaced by \[REDACTED\]/);
      const aside = readdirSync(join(p.dir, '.GCC', 'aside'));
      expect(aside).toHaveLength(1);
      const kept = readFileSync(join(p.dir, '.GCC', 'aside', aside[0]!), 'utf8');
      expect(kept).toContain('### M1: deployed with [REDACTED] and postgres://app:[REDACTED]@db/app');
      expect(leaks(committable(p.dir))).toEqual([]);
      expect(leaks(m.warnings.join('\n'))).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('lines under Objectives that are not checkboxes are quoted in the warning redacted', async () => {
    const p = await fresh();
    edit(p.main, (s) => s.replace('- [ ] Write docs', `- [ ] Write docs\ntoken ${secret('openai')}`));
    const m = await Memory.open(p.dir);
    try {
      expect(m.warnings.join('\n')).toMatch(/not checkboxes: token \[REDACTED\]/);
      expect(leaks(m.warnings.join('\n'))).toEqual([]);
      expect(leaks(committable(p.dir))).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('main.md and metadata.yaml set aside by replay, or after the logs changed, are redacted', async () => {
    const p = await fresh();
    const m = await Memory.open(p.dir);
    try {
      edit(p.main, (s) => s.replace('## Objectives', `## Goals ${secret('aws')}`));
      edit(p.meta, (s) => `${s}# deploy key ${secret('github')}\n`);
      const r = await m.replay();
      expect(r.kept).toHaveLength(2);
      for (const k of r.kept) expect(k).toMatch(/\(secrets in it were replaced by \[REDACTED\]/);
      expect(readdirSync(join(p.dir, '.GCC', 'aside'))).toHaveLength(2);
      expect(leaks(committable(p.dir))).toEqual([]);
    } finally {
      m.close();
    }
    // Views of no known state (a ledger without a checkpoint): a differing main.md is set aside, redacted.
    const ledger = join(p.dir, '.GCC', '.local', 'ledger.json');
    const l = JSON.parse(readFileSync(ledger, 'utf8')) as { views?: unknown };
    delete l.views;
    writeFileSync(ledger, JSON.stringify(l));
    edit(p.main, (s) => `${s}\n${secret('slack')}\n`);
    const m2 = await Memory.open(p.dir);
    expect(m2.warnings.join('\n')).toMatch(/no record says which state.*\(secrets in it were replaced by \[REDACTED\]/);
    m2.close();
    expect(readdirSync(join(p.dir, '.GCC', 'aside'))).toHaveLength(3);
    expect(leaks(committable(p.dir))).toEqual([]);
  });
});
