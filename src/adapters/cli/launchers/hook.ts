import { dirname } from 'node:path';
import { gccError } from '../../../errors.js';
import { operation } from '../../../operations/operation.js';
import { makeProblem } from '../../../store/project-folder.js';

const INSTALL_USAGE = 'gctx hook install [--agent claude-code|codex] [--http] [--project|--user] [--port N]';

export default operation({
  name: 'hook',
  summary:
    'read one hook event on stdin, print one decision (exits 0 whatever the input); ' +
    "install: write Claude Code's (or Codex's) hook settings",
  args: {
    verb: {
      kind: 'enum',
      values: ['install'],
      help: "install: write the host's hook settings instead of handling an event.",
    },
    agent: {
      kind: 'string',
      help:
        'claude-code, codex, or generic: the normalized envelope, also when left out. ' +
        'install: claude-code (when left out) or codex.',
    },
    http: { kind: 'boolean', help: 'install: send events to `gctx serve` over HTTP instead of a process per event.' },
    project: { kind: 'boolean', help: "install: the project's .claude/settings.json (the default)." },
    user: { kind: 'boolean', help: 'install: ~/.claude/settings.json.' },
    port: {
      kind: 'string',
      help: "install --http: the daemon's port (default: the running daemon's, else the project's own).",
    },
  },
  cli: [
    { field: 'verb', as: 'positional' },
    { field: 'agent', as: 'flag' },
    { field: 'http', as: 'flag' },
    { field: 'project', as: 'flag' },
    { field: 'user', as: 'flag' },
    { field: 'port', as: 'flag' },
  ],
  fronts: ['cli'],
  example: 'hook install --agent claude-code --http',
  answer: 'result',
  readOnly: false,
  needs: 'none',
  run: async (a, ctx) => {
    if (a.verb === 'install') return install(a, ctx.dir);
    if (a.http || a.project || a.user || a.port !== undefined) {
      // A misconfigured hook must not block the agent: say so on stderr, decide nothing.
      const misplaced = '--http, --project, --user and --port belong to `gctx hook install`';
      process.stderr.write(`gctx hook: ${gccError('E_INVALID_ARGUMENT', misplaced, INSTALL_USAGE).oneLine()}\n`);
      return { text: '', data: {} };
    }
    const { hookCommand } = await import('../hook-main.js');
    const stdout = await hookCommand({ agent: a.agent, dir: ctx.explicitDir, session: ctx.session });
    return { text: stdout ?? '', data: stdout === null ? {} : (JSON.parse(stdout) as Record<string, unknown>) };
  },
});

async function install(
  a: {
    agent?: string | undefined;
    http?: boolean | undefined;
    project?: boolean | undefined;
    user?: boolean | undefined;
    port?: string | undefined;
  },
  dir: string,
) {
  const agent = a.agent ?? 'claude-code';
  if (agent !== 'claude-code' && agent !== 'codex') {
    throw gccError(
      'E_INVALID_ARGUMENT',
      `hook install writes the hooks of claude-code or codex, not --agent ${JSON.stringify(agent)}`,
      `${INSTALL_USAGE}; other hosts are set up by hand: docs/agents.md, "Any other host with hooks"`,
    );
  }
  if (a.http && agent !== 'claude-code')
    throw gccError(
      'E_INVALID_ARGUMENT',
      "--http sends Claude Code's events to the daemon; Codex runs command hooks",
      'gctx hook install --agent codex',
    );
  if (a.project && a.user)
    throw gccError('E_INVALID_ARGUMENT', '--project and --user name two different files', INSTALL_USAGE);
  if (a.port !== undefined && !a.http)
    throw gccError('E_INVALID_ARGUMENT', "--port is the daemon's port: it goes with --http", INSTALL_USAGE);
  const { homedir } = await import('node:os');
  const { installClaudeHooks, resolveHookCommand, settingsFile, TOKEN_ENV } = await import('../../hook/install.js');
  let httpPort: number | undefined;
  let tokenFile = '';
  const notes: string[] = [];
  if (a.http) {
    const { defaultPort, ensureToken, readState, serveFiles } = await import('../../serve/state-file.js');
    if (a.port !== undefined) {
      httpPort = Number(a.port);
      if (!/^\d{1,5}$/.test(a.port) || httpPort < 1 || httpPort > 65535)
        throw gccError(
          'E_INVALID_ARGUMENT',
          `--port takes a port number from 1 to 65535, not ${JSON.stringify(a.port)}`,
          INSTALL_USAGE,
        );
    } else {
      httpPort = readState(dir)?.port ?? defaultPort(dir);
    }
    // The token exists before the daemon first starts, so the environment can be set up now.
    try {
      ensureToken(dir, (why) => notes.push(why));
    } catch (err) {
      throw makeProblem(dir, err, dir, '.GCC/.local/');
    }
    tokenFile = serveFiles(dir).token;
  }
  const file = settingsFile(a.user ? 'user' : 'project', dir, homedir(), agent);
  // Checked now rather than found out from every hook failing: a `gctx` that does not resolve.
  const hook = resolveHookCommand(dir, process.env, undefined, undefined, agent);
  let r;
  try {
    r = installClaudeHooks({ file, httpPort, command: hook.command, agent, ...(a.user ? {} : { project: dir }) });
  } catch (err) {
    if ((err as { code?: string }).code === 'E_PATH_ESCAPE') throw err;
    // A folder that takes no .claude/ (a system folder, one this user may not write) is the caller's to change.
    throw makeProblem(dirname(dirname(file)), err, dirname(dirname(file)), agent === 'codex' ? '.codex/' : '.claude/');
  }
  const byType = (t: string) => r.entries.filter((e) => e.type === t).map((e) => e.event);
  const lines = [
    `${r.changed ? 'wrote' : 'already up to date:'} ${r.file}`,
    `  command (${hook.command}): ${byType('command').join(', ')}`,
    ...(a.http
      ? [
          `  http (http://127.0.0.1:${httpPort}/hooks/claude-code): ${byType('http').join(', ')}`,
          `Claude Code sends the token from ${TOKEN_ENV}; ` +
            `set it where Claude Code starts: export ${TOKEN_ENV}="$(cat ${tokenFile})"`,
          'Start the daemon with `gctx serve`. ' +
            'SessionStart stays a command hook: Claude Code runs no HTTP hooks for it.',
        ]
      : []),
    ...notes.map((n) => `warning: ${n}`),
    ...(hook.warning ? [`Warning: ${hook.warning}`] : []),
  ];
  return {
    text: lines.join('\n'),
    data: {
      ok: true,
      file: r.file,
      changed: r.changed,
      command: hook.command,
      entries: r.entries,
      ...(hook.warning ? { warning: hook.warning } : {}),
      ...(httpPort !== undefined ? { port: httpPort, tokenEnv: TOKEN_ENV } : {}),
    },
  };
}
