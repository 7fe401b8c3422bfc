/**
 * `gctx hook install --agent claude-code [--http]`: the settings it writes (Claude Code's hook
 * schema, command and http), merged into what is there, idempotent, and switching between the
 * process hook and the daemon without leaving the other behind.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOOK_EVENTS, resolveHookCommand, withHooks } from '../../../src/adapters/hook/install.js';
import { defaultPort } from '../../../src/adapters/serve/state-file.js';
import { Memory } from '../../../src/engine/memory.js';
import { CLI, gctx } from '../../support/cli.js';
import { fixture } from './run.js';
import { cleanup, tempProject } from '../../support/tmp.js';

type Settings = {
  hooks: Record<string, Array<{ matcher?: string; hooks: Array<Record<string, unknown>> }>>;
  [k: string]: unknown;
};

const settingsOf = (dir: string) => JSON.parse(readFileSync(join(dir, '.claude/settings.json'), 'utf8')) as Settings;

describe('gctx hook install --agent claude-code', () => {
  afterAll(cleanup);

  it('writes a command hook for every event gctx handles', () => {
    const s = withHooks({}, undefined) as Settings;
    expect(Object.keys(s.hooks)).toEqual([...HOOK_EVENTS]);
    for (const event of HOOK_EVENTS) {
      const matcher =
        event === 'PreToolUse'
          ? 'Write|Edit|MultiEdit|NotebookEdit|Bash'
          : event.startsWith('PostToolUse')
            ? '*'
            : undefined;
      expect(s.hooks[event]).toEqual([
        {
          ...(matcher ? { matcher } : {}),
          hooks: [{ type: 'command', command: 'gctx hook --agent claude-code', timeout: 10 }],
        },
      ]);
    }
  });

  it('with --http: http hooks to the daemon, the token through allowedEnvVars; SessionStart stays a command', () => {
    const s = withHooks({}, 24242) as Settings;
    expect(s.hooks.SessionStart![0]!.hooks[0]).toMatchObject({ type: 'command' });
    for (const event of HOOK_EVENTS.filter((e) => e !== 'SessionStart')) {
      expect(s.hooks[event]![0]!.hooks).toEqual([
        {
          type: 'http',
          url: 'http://127.0.0.1:24242/hooks/claude-code',
          headers: { Authorization: 'Bearer $GCC_SERVE_TOKEN' },
          allowedEnvVars: ['GCC_SERVE_TOKEN'],
          timeout: 10,
        },
      ]);
    }
  });

  it('keeps other hooks and settings, replaces only its own entries, and is idempotent', () => {
    const theirs = {
      model: 'opus',
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: './lint.sh' }] },
          {
            matcher: '*',
            hooks: [
              { type: 'command', command: '/usr/local/bin/gctx hook --agent claude-code' },
              { type: 'command', command: 'echo mine' },
            ],
          },
        ],
        Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }],
        PostToolUse: [{ matcher: '*', hooks: [{ type: 'http', url: 'http://127.0.0.1:1234/hooks/claude-code' }] }],
      },
    };
    const once = withHooks(theirs, 5555) as Settings;
    expect(once.model).toBe('opus');
    expect(once.hooks.Notification).toEqual(theirs.hooks.Notification);
    expect(once.hooks.PreToolUse).toEqual([
      theirs.hooks.PreToolUse[0],
      { matcher: '*', hooks: [{ type: 'command', command: 'echo mine' }] },
      {
        matcher: 'Write|Edit|MultiEdit|NotebookEdit|Bash',
        hooks: [expect.objectContaining({ type: 'http', url: 'http://127.0.0.1:5555/hooks/claude-code' })],
      },
    ]);
    expect(once.hooks.PostToolUse).toEqual([
      { matcher: '*', hooks: [expect.objectContaining({ url: 'http://127.0.0.1:5555/hooks/claude-code' })] },
    ]);
    expect(withHooks(once, 5555)).toEqual(once);
    // Back to the process hook: no http entry of gctx's is left.
    const back = withHooks(once, undefined) as Settings;
    expect(JSON.stringify(back)).not.toContain('/hooks/claude-code');
    expect(back.hooks.PreToolUse!.at(-1)).toEqual({
      matcher: 'Write|Edit|MultiEdit|NotebookEdit|Bash',
      hooks: [{ type: 'command', command: 'gctx hook --agent claude-code', timeout: 10 }],
    });
  });

  it("writes the project's .claude/settings.json from the command line; refuses what it must not guess at", async () => {
    const dir = tempProject('gcc-install-');
    (await Memory.open(dir, { create: true })).close();
    const first = gctx(dir, ['hook', 'install', '--agent', 'claude-code', '--http']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`http://127.0.0.1:${defaultPort(dir)}/hooks/claude-code`);
    expect(first.stdout).toContain('export GCC_SERVE_TOKEN="$(cat ');
    const written = readFileSync(join(dir, '.claude/settings.json'), 'utf8');
    expect(settingsOf(dir).hooks.PostToolUse![0]!.hooks[0]!.url).toBe(
      `http://127.0.0.1:${defaultPort(dir)}/hooks/claude-code`,
    );
    // The token is never written into the settings, which may be committed.
    expect(written).not.toContain(readFileSync(join(dir, '.GCC/.local/serve.token'), 'utf8').trim());
    const again = gctx(dir, ['hook', 'install', '--agent', 'claude-code', '--http', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: true, changed: false });
    expect(readFileSync(join(dir, '.claude/settings.json'), 'utf8')).toBe(written);

    // Without --agent: Claude Code's, as above (nothing changed); an unknown host: the choices.
    expect(JSON.parse(gctx(dir, ['hook', 'install', '--http', '--json']).stdout)).toMatchObject({
      ok: true,
      changed: false,
    });
    const emacs = gctx(dir, ['hook', 'install', '--agent', 'emacs']);
    expect(emacs.code).toBe(1);
    expect(emacs.stderr).toMatch(
      /hook install writes the hooks of claude-code or codex, not --agent "emacs" Fix: gctx hook install \[--agent claude-code\|codex\]/,
    );
    expect(gctx(dir, ['hook', 'install', '--agent', 'codex', '--http']).code).toBe(1);
    expect(gctx(dir, ['hook', 'install', '--agent', 'claude-code', '--port', '80']).code).toBe(1);
    const broken = tempProject('gcc-install-broken-');
    mkdirSync(join(broken, '.claude'));
    writeFileSync(join(broken, '.claude/settings.json'), '{ "hooks": ');
    const r = gctx(broken, ['hook', 'install', '--agent', 'claude-code']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not JSON');
    expect(readFileSync(join(broken, '.claude/settings.json'), 'utf8')).toBe('{ "hooks": ');
  });

  it('refuses a .claude/ or settings.json the repository made a link: never reads a file outside into the settings, never writes outside', () => {
    const outside = tempProject('gcc-install-outside-');
    writeFileSync(join(outside, 'config.json'), '{"auths":{"registry":{"auth":"c2VjcmV0"}}}\n');
    mkdirSync(join(outside, 'elsewhere'));
    const fileLink = tempProject('gcc-install-link-');
    mkdirSync(join(fileLink, '.claude'));
    symlinkSync(join(outside, 'config.json'), join(fileLink, '.claude/settings.json'));
    const dirLink = tempProject('gcc-install-link-');
    symlinkSync(join(outside, 'elsewhere'), join(dirLink, '.claude'));
    for (const [dir, rel] of [
      [fileLink, '.claude/settings.json'],
      [dirLink, '.claude'],
    ] as const) {
      for (const http of [[], ['--http']]) {
        const r = gctx(dir, ['hook', 'install', '--agent', 'claude-code', ...http]);
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toContain(`E_PATH_ESCAPE: ${rel} is a symbolic link`);
        expect(lstatSync(join(dir, rel)).isSymbolicLink()).toBe(true);
      }
    }
    expect(readFileSync(join(outside, 'config.json'), 'utf8')).not.toContain('hooks');
    expect(readdirSync(join(outside, 'elsewhere'))).toEqual([]);
  });
});

// Found by a probe: install wrote a bare `gctx hook --agent claude-code` where gctx was not on
// PATH, so every hook failed with `sh: gctx: not found`.
describe('the command hook install writes', () => {
  afterAll(cleanup);

  /** An executable `gctx` in a folder of its own, running this checkout's CLI. */
  function gctxIn(dir: string): string {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'gctx'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
    chmodSync(join(dir, 'gctx'), 0o755);
    return dir;
  }

  it("is this node and this gctx by absolute path, whatever PATH holds; npx's cache is said to be passing", () => {
    const project = tempProject('gcc-cmd-');
    const bin = gctxIn(join(tempProject('gcc-bin-'), 'bin'));
    const own = join(tempProject('gcc-pkg-'), 'dist', 'bin', 'gctx.js');
    mkdirSync(join(own, '..'), { recursive: true });
    writeFileSync(own, '');
    for (const PATH of [`/nonexistent${delimiter}${bin}`, '/nonexistent']) {
      expect(resolveHookCommand(project, { PATH }, own, '/usr/bin/node')).toEqual({
        command: `'/usr/bin/node' '${own}' hook --agent claude-code`,
        warning: null,
      });
    }
    expect(resolveHookCommand(project, { PATH: '' }, own, '/usr/bin/node', 'codex').command).toBe(
      `'/usr/bin/node' '${own}' hook --agent codex --session codex`,
    );
    const npx = join(tempProject('gcc-npm-'), '_npx', 'abc', 'gctx.js');
    mkdirSync(join(npx, '..'), { recursive: true });
    writeFileSync(npx, '');
    expect(resolveHookCommand(project, { PATH: '' }, npx).warning).toMatch(
      /npx's cache .* which holds only until npx clears it/,
    );
  });

  it('never lets a project file choose the executable', () => {
    const project = tempProject('gcc-cmd-');
    // A gctx the repository ships, reached through a relative PATH entry or the project's node_modules/.bin.
    gctxIn(project);
    const local = gctxIn(join(project, 'node_modules', '.bin'));
    const own = join(project, 'node_modules', 'git-context-controller', 'dist', 'bin', 'gctx.js');
    mkdirSync(join(own, '..'), { recursive: true });
    writeFileSync(own, '');
    // A node the project holds is not written either, whichever gctx runs.
    const outside = join(tempProject('gcc-pkg-'), 'gctx.js');
    writeFileSync(outside, '');
    expect(
      resolveHookCommand(project, { PATH: '' }, outside, join(project, 'node_modules', '.bin', 'node')).command,
    ).toBe('gctx hook --agent claude-code');
    for (const PATH of ['.', 'node_modules/.bin', local, `${local}${delimiter}.`]) {
      const r = resolveHookCommand(project, { PATH }, own, '/usr/bin/node');
      expect(r.command, PATH).toBe('gctx hook --agent claude-code');
      expect(r.warning, PATH).toMatch(
        /fails with "gctx: not found" until it is .* Fix: npm install -g git-context-controller/,
      );
    }
  });

  it('from the command line: a command that runs, whichever way it resolves', async () => {
    const dir = tempProject('gcc-install-cmd-');
    (await Memory.open(dir, { create: true })).close();
    const run = (command: string, PATH: string) =>
      spawnSync('/bin/sh', ['-c', command], {
        cwd: dir,
        input: fixture('pre-tool-use-write-gcc', dir),
        encoding: 'utf8',
        env: { ...process.env, PATH, GCC_SESSION: '' },
      });
    // Installed with gctx on PATH or not (no --agent: Claude Code's), the command names this node
    // and this gctx, and runs with no PATH at all.
    const bin = gctxIn(join(tempProject('gcc-bin-'), 'bin'));
    for (const PATH of ['/nonexistent', `${bin}${delimiter}/usr/bin${delimiter}/bin`]) {
      const r = gctx(dir, ['hook', 'install', '--json'], undefined, { PATH });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).warning).toBeUndefined();
      const command = settingsOf(dir).hooks.PreToolUse![0]!.hooks[0]!.command as string;
      expect(command).toBe(`'${process.execPath}' '${CLI}' hook --agent claude-code`);
      expect(JSON.parse(run(command, '/nonexistent').stdout)).toMatchObject({
        hookSpecificOutput: { permissionDecision: 'deny' },
      });
    }
    // Codex's hooks file, the same way, its UserPromptSubmit included.
    expect(gctx(dir, ['hook', 'install', '--agent', 'codex'], undefined, { PATH: '/nonexistent' }).code).toBe(0);
    const codex = JSON.parse(readFileSync(join(dir, '.codex/hooks.json'), 'utf8')) as Settings;
    expect(Object.keys(codex.hooks)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'PreCompact',
    ]);
    const codexCommand = codex.hooks.PreToolUse![0]!.hooks[0]!.command as string;
    expect(codexCommand).toBe(`'${process.execPath}' '${CLI}' hook --agent codex --session codex`);
    expect(JSON.parse(run(codexCommand, '/nonexistent').stdout)).toMatchObject({
      hookSpecificOutput: { permissionDecision: 'deny' },
    });
  });
});
