/**
 * A hermetic, in-process Pi 1.6 host for tests: the real AgentSessionRuntime, the pi-ai faux
 * provider as a scripted model, and this package loaded the way `pi -e <package dir>` loads it
 * (through its `pi.extensions` manifest and Pi's own loader). Ported from the prototype in
 * shared/reference/pi-prototype/test/harness.mjs.
 *
 * The extension under test is the built `dist/` (what ships). `npm test` builds first; a stale
 * build is refused rather than silently tested.
 */
import {
  fauxAssistantMessage,
  fauxProvider,
  fauxText,
  fauxToolCall,
  getCurrentTools,
  type JsonObject,
} from '@earendil-works/pi-ai';
import {
  type AgentSession,
  type AgentSessionRuntime,
  createAgentSessionFromServices,
  createAgentSessionRuntime,
  createAgentSessionServices,
  createCodemodeExtension,
  createMcpExtension,
  createToolSearchExtension,
  type ExtensionAPI,
  type ExtensionFactory,
  ModelRuntime,
  SessionManager,
  SettingsManager,
} from '@earendil-works/pi-coding-agent';
import { mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const FIXTURES = join(REPO_ROOT, 'test/adapters/pi/fixtures');

/** A step of the scripted model: text, tool calls, or a function of what the model was sent. */
export type Step =
  | { say: string }
  | { calls: { name: string; args: JsonObject }[]; say?: string }
  | ((seen: Seen) => Step);

export interface Seen {
  /** Tool names declared in the request. */
  tools: string[];
  /** Text of every message in the request, role-tagged (custom messages reach the model as user). */
  messages: { role: string; text: string }[];
}

export interface HostOptions {
  cwd?: string;
  /** File-backed sessions (needed for resume and fork). */
  persist?: boolean;
  /** Add Pi's built-in MCP, codemode and tool_search extensions (SDK sessions have none). */
  builtins?: boolean;
  /** Settings overrides (in-memory). */
  settings?: Record<string, unknown>;
  /** Shared agent dir, e.g. for two hosts in one test. */
  agentDir?: string;
  extraFactories?: ExtensionFactory[];
  /**
   * Start binding (session_start) without waiting for it, so a prompt can race the session
   * hook as a fast user can in the TUI. `Host.bound` settles when session_start has run.
   */
  deferBind?: boolean;
}

export interface Host {
  runtime: AgentSessionRuntime;
  /** Settles when the first session_start has run. */
  bound: Promise<void>;
  cwd: string;
  agentDir: string;
  /** Extension errors Pi reported. */
  errors: unknown[];
  loadErrors: unknown[];
  /** Everything the scripted model was sent, per request. */
  requests: Seen[];
  session(): AgentSession;
  /** Queue model steps, then prompt. */
  turn(prompt: string, steps: Step[]): Promise<void>;
  /** Queue model steps for calls Pi makes without a prompt (compaction summaries). */
  script(steps: Step[]): void;
  /** Model-visible context of the current branch (compaction applied). */
  visible(): { role: string; customType?: string; text: string }[];
  toolResults(): { toolName: string; isError: boolean; text: string; details: unknown }[];
  dispose(): Promise<void>;
}

export function assertFreshBuild(): void {
  const built = join(REPO_ROOT, 'dist/adapters/pi/index.js');
  let builtAt: number;
  try {
    builtAt = statSync(built).mtimeMs;
  } catch {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it) before the Pi tests');
  }
  // Pi's tools and /gcc are generated from the catalogue and parsed by the CLI's parser.
  for (const dir of ['src/adapters/pi', 'src/observer', 'src/operations', 'src/adapters/cli', 'src/adapters/mcp']) {
    for (const f of readdirSync(join(REPO_ROOT, dir))) {
      if (statSync(join(REPO_ROOT, dir, f)).mtimeMs > builtAt)
        throw new Error(`dist/ is older than ${dir}/${f}: run \`npm run build\``);
    }
  }
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function createHost(opts: HostOptions = {}): Promise<Host> {
  assertFreshBuild();
  const cwd = opts.cwd ?? tempDir('gcc-pi-cwd-');
  const agentDir = opts.agentDir ?? tempDir('gcc-pi-agent-');
  mkdirSync(agentDir, { recursive: true });
  // Pi reads its agent dir (mcp.json, settings, our global gcc.json) from here.
  process.env.PI_CODING_AGENT_DIR = agentDir;

  const faux = fauxProvider({ provider: 'faux', models: [{ id: 'faux-1', contextWindow: 200_000 }] });
  const keepFaux: ExtensionFactory = (pi: ExtensionAPI) => pi.registerProvider(faux.provider);
  const modelRuntime = await ModelRuntime.create({
    authPath: join(agentDir, 'auth.json'),
    modelsPath: null,
    refreshOnCreate: false,
  });
  modelRuntime.registerNativeProvider(faux.provider);
  const settingsManager = SettingsManager.inMemory({
    compaction: { enabled: false },
    retry: { enabled: false },
    ...opts.settings,
  });
  const builtins = opts.builtins
    ? [
        createCodemodeExtension(),
        createToolSearchExtension(),
        createMcpExtension({ logPath: join(agentDir, 'mcp.log') }),
      ]
    : [];

  const createRuntime = async ({
    cwd,
    agentDir,
    sessionManager,
    sessionStartEvent,
  }: Parameters<Parameters<typeof createAgentSessionRuntime>[0]>[0]) => {
    const services = await createAgentSessionServices({
      cwd,
      agentDir,
      modelRuntime,
      settingsManager,
      resourceLoaderOptions: {
        additionalExtensionPaths: [REPO_ROOT],
        extensionFactories: [keepFaux, ...(opts.extraFactories ?? []), ...builtins],
        noSkills: true,
        noPromptTemplates: true,
        noThemes: true,
        noContextFiles: true,
      },
    });
    const r = await createAgentSessionFromServices({
      services,
      sessionManager,
      sessionStartEvent,
      model: faux.getModel(),
      thinkingLevel: 'off',
    });
    return { ...r, services, diagnostics: services.diagnostics };
  };
  const sessionManager = opts.persist
    ? SessionManager.create(cwd, join(agentDir, 'sessions'))
    : SessionManager.inMemory(cwd);
  const runtime = await createAgentSessionRuntime(createRuntime, { cwd, agentDir, sessionManager });

  const errors: unknown[] = [];
  const requests: Seen[] = [];
  const bind = async (session: AgentSession) => {
    await session.bindExtensions({
      onError: (e) => errors.push(e),
      commandContextActions: {
        waitForIdle: () => session.agent.waitForIdle(),
        newSession: (o) => runtime.newSession(o),
        fork: async (id, o) => ({ cancelled: (await runtime.fork(id, o)).cancelled }),
        navigateTree: (id, o) => session.navigateTree(id, o),
        switchSession: (p, o) => runtime.switchSession(p, o),
        reload: () => session.reload(),
      },
    });
  };
  runtime.setRebindSession(bind);
  const loadErrors = [...runtime.session.resourceLoader.getExtensions().errors];
  const bound = bind(runtime.session);
  if (!opts.deferBind) await bound;

  const toFaux = (step: Step, i: number) => (context: { messages: Parameters<typeof getCurrentTools>[0] }) => {
    const seen: Seen = {
      tools: getCurrentTools(context.messages).map((t) => t.name),
      messages: context.messages.map((m) => ({ role: m.role, text: textOf((m as { content?: unknown }).content) })),
    };
    requests.push(seen);
    let s = step;
    while (typeof s === 'function') s = s(seen);
    if ('calls' in s) {
      const blocks = [
        ...(s.say ? [fauxText(s.say)] : []),
        ...s.calls.map((c, j) => fauxToolCall(c.name, c.args, { id: `call_${requests.length}_${i}_${j}` })),
      ];
      return fauxAssistantMessage(blocks, { stopReason: 'toolUse' });
    }
    return fauxAssistantMessage(s.say);
  };

  const host: Host = {
    runtime,
    bound,
    cwd,
    agentDir,
    errors,
    loadErrors,
    requests,
    session: () => runtime.session,
    script: (steps) => faux.setResponses(steps.map(toFaux)),
    async turn(prompt, steps) {
      faux.setResponses(steps.map(toFaux));
      await runtime.session.prompt(prompt);
    },
    visible: () =>
      runtime.session.sessionManager.buildSessionProjection().messages.map((m) => {
        const out: { role: string; customType?: string; text: string } = {
          role: m.role,
          text: textOf((m as { content?: unknown }).content),
        };
        const ct = (m as { customType?: string }).customType;
        if (ct !== undefined) out.customType = ct;
        return out;
      }),
    toolResults: () =>
      runtime.session.messages
        .filter((m) => m.role === 'toolResult')
        .map((m) => {
          const r = m as unknown as { toolName: string; isError: boolean; content: unknown; details: unknown };
          return { toolName: r.toolName, isError: r.isError, text: textOf(r.content), details: r.details };
        }),
    dispose: () => runtime.dispose(),
  };
  return host;
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string; name?: string; arguments?: unknown }) =>
      b.type === 'text'
        ? (b.text ?? '')
        : b.type === 'toolCall'
          ? `<toolCall ${b.name} ${JSON.stringify(b.arguments)}>`
          : `<${b.type}>`,
    )
    .join('');
}

/** Shorthand for a model step calling one tool. */
export const call = (name: string, args: JsonObject, say?: string): Step =>
  say ? { calls: [{ name, args }], say } : { calls: [{ name, args }] };
export const say = (text: string): Step => ({ say: text });
