/**
 * GCC for Pi 1.x: project memory inside the agent. Load it as a Pi package (`pi install` /
 * `pi -e` on this package: its `pi.extensions` entry points here) or as a file.
 *
 * One factory call per Pi session (startup, reload, new, resume and fork each build a fresh
 * instance), so all state lives in the closure: nothing module-level, which would leak across
 * the sessions Pi runs from one cached module.
 *
 * Fail open everywhere: any failure costs the session memory features, never the session.
 */
import type { ExtensionAPI, ExtensionContext } from '@earendil-works/pi-coding-agent';
import { Memory } from '../../engine/memory.js';
import { asProjectData } from '../../observer/framing.js';
import { countInjection } from '../../observer/token-ledger.js';
import { inspectorFromEnv } from '../../diagrams/inspect.js';
import { agentDir, DEFAULTS, ENV_VARS, resolveConfig } from './config.js';
import { registerGccCommand } from './gcc-command.js';
import { HOST, installHookBridge } from './hook-bridge.js';
import { planMcp, registerMcp, userServer, waitForMcpTools } from './mcp-channel.js';
import { registerMemoryTools } from './memory-tools.js';
import { createReadinessBarrier } from './readiness.js';
import type { SessionSignal } from '../../machines/session.js';
import {
  BRIEFING_TYPE,
  briefingInContext,
  IDENTITY_ENTRY,
  MemorySlot,
  memoryIdentity,
  NOTICE_TYPE,
} from './session.js';

export { resolveConfig, type PiConfig, type ResolvedConfig } from './config.js';

/** How long a locked store may hold up an operation before the session moves on without it. */
const LOCK_TIMEOUT_MS = 5_000;
/** Share of the readiness cap spent waiting for MCP tools before falling back in-process. */
const MCP_WAIT_SHARE = 0.7;

export default function gccPiExtension(pi: ExtensionAPI): void {
  const slot = new MemorySlot();
  // Armed now: Pi may submit the first prompt before session_start has run (seed 001).
  // Opt-in live inspection of this instance's machines (GCC_INSPECT / GCC_INSPECT_FILE).
  const inspector = inspectorFromEnv(process.env);
  const barrier = createReadinessBarrier({ capMs: readyCapFromEnv() });
  /** One-shot notices for the next turn: each is told to the model exactly once. */
  const notices: string[] = [];
  const channel = { name: 'tools' as 'tools' | 'mcp', note: '' };
  let toolsRegistered = false;
  let stale = false;
  /** Why memory is degraded in this session (it could not be opened), for /gcc status. */
  let degraded: string | null = null;
  /**
   * The session's lifecycle, told to the engine's session machine (the same one every host
   * drives), which logs what it emits. Bounded, and silent on failure (fail open).
   */
  const signal = async (signals: SessionSignal[]) => {
    const memory = slot.memory;
    if (!memory) return;
    const timeoutMs = slot.resolved?.config.hookTimeoutMs ?? DEFAULTS.hookTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cap = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    try {
      await Promise.race([memory.execute({ type: 'session', signals, host: HOST }, { session: slot.session }), cap]);
    } catch {
      // A locked or read-only store costs the log entry, not the session.
    } finally {
      clearTimeout(timer);
    }
  };
  const lifecycleState = (): string => {
    if (degraded) return `degraded: ${degraded}`;
    return slot.memory?.state.sessions[slot.session]?.life ?? 'idle';
  };

  /** The briefing as a hidden message, unless switched off or already in the context. */
  const sendBriefing = (memory: Memory, ctx: ExtensionContext, details: { afterCompaction?: true }) => {
    const cfg = slot.resolved?.config ?? DEFAULTS;
    if (!cfg.briefing || briefingInContext(ctx.sessionManager)) return;
    const briefing = asProjectData(memory.briefing({ session: slot.session, budget: cfg.briefingBudget }));
    pi.sendMessage({
      customType: BRIEFING_TYPE,
      content: briefing,
      display: false,
      details: { session: slot.session, ...details },
    });
    countInjection(memory.gccDir, slot.session, HOST, 'briefing', briefing);
  };

  const ensureInProcessTools = () => {
    if (toolsRegistered) return;
    toolsRegistered = true;
    registerMemoryTools(pi, slot, () => ({
      contextBudget: slot.resolved?.config.contextBudget ?? DEFAULTS.contextBudget,
    }));
  };

  const openMemory = async (create: boolean | 'if-new') => {
    const resolved = slot.resolved;
    if (!resolved) return;
    slot.memory?.close();
    slot.memory = null;
    slot.problem = null;
    try {
      slot.memory = await Memory.open(resolved.memoryRoot, {
        create,
        session: slot.session,
        lockTimeoutMs: LOCK_TIMEOUT_MS,
      });
    } catch (err) {
      slot.fail(err, `opening ${resolved.memoryRoot}/.GCC`);
    }
  };

  registerGccCommand(pi, slot, {
    reopen: openMemory,
    statusLines: () => {
      const r = slot.resolved;
      if (!r) return ['(configuration not resolved yet)'];
      const cfg = Object.entries(r.config).map(
        ([k, v]) => `  ${k} = ${JSON.stringify(v)} (${r.sources[k as keyof typeof r.sources]})`,
      );
      return [
        `Memory session: ${slot.session} (${lifecycleState()})`,
        `Channel: ${channel.name}${channel.note ? ` (${channel.note})` : ''}`,
        `Project root: ${r.projectRoot}`,
        `Config (project file ${r.projectFile}, global file ${r.globalFile}):`,
        ...cfg,
        ...(slot.memory?.warnings.length ? ['Memory warnings:', ...slot.memory.warnings.map((w) => `  ${w}`)] : []),
        ...(r.warnings.length ? ['Config warnings:', ...r.warnings.map((w) => `  ${w}`)] : []),
      ];
    },
  });
  installHookBridge(pi, slot);

  pi.on('session_start', async (event, ctx) => {
    try {
      const identity = memoryIdentity(ctx.sessionManager);
      slot.session = identity.id;
      degraded = null;
      const resolved = resolveConfig(ctx.cwd);
      slot.resolved = resolved;
      for (const w of resolved.warnings) notify(ctx, `gcc: ${w}`, 'warning');
      if (identity.needsMarker)
        pi.appendEntry(IDENTITY_ENTRY, { id: identity.id, forkedFrom: identity.forkedFrom ?? null });

      // On its own, not at a commit from before the memory git holds elsewhere (Memory.open).
      await openMemory(resolved.config.autoInit ? 'if-new' : false);
      const memory = slot.memory as Memory | null;
      if (memory) {
        if (identity.forkedFrom) await carryBranch(memory, identity.forkedFrom, identity.id);
        await signal([{ type: 'START', reason: event.reason }, { type: 'OPENED' }]);
        sendBriefing(memory, ctx, {});
        for (const w of memory.warnings) notify(ctx, `gcc: ${w}`, 'warning');
      } else {
        degraded = slot.describeProblem();
        notices.push(slot.describeProblem());
        notify(ctx, `gcc: ${slot.describeProblem()}`, 'warning');
      }
      setUpChannel(ctx);
    } catch (err) {
      // Even our own bug must not take the session down: report it as missing memory.
      slot.fail(err, 'starting GCC for this session');
      degraded = slot.describeProblem();
      notices.push(slot.describeProblem());
      ensureInProcessTools();
      barrier.toolsReady();
    } finally {
      barrier.sessionHookRan();
    }
  });

  const setUpChannel = (ctx: ExtensionContext) => {
    const cfg = slot.resolved?.config ?? DEFAULTS;
    if (cfg.channel !== 'mcp') {
      ensureInProcessTools();
      barrier.toolsReady();
      return;
    }
    const plan = planMcp(pi, cfg.bin, userServer(agentDir(), ctx.cwd, projectTrusted(ctx)), process.env, ctx.cwd);
    if (!plan.ok) {
      fallBack(ctx, plan.why);
      return;
    }
    channel.name = 'mcp';
    // A `gcc` entry in Pi's mcp.json serves memory in place of ours: nothing to register.
    const cmd = 'cmd' in plan ? plan.cmd : null;
    const server = 'user' in plan ? `the "gcc" server in ${plan.user}` : 'the gctx MCP server';
    const refused = cmd ? registerMcp(pi, cmd, slot.resolved?.memoryRoot ?? ctx.cwd, slot.session) : null;
    channel.note = cmd ? `gctx mcp from ${cmd.source}` : `${server}, which takes precedence over gctx mcp`;
    // Pi reports no connection event (nor a failure): watch for the tools, giving up before the
    // first turn's cap (the barrier holds it), so a fallback still lands in the first turn.
    void waitForMcpTools(pi, Math.floor(cfg.readyTimeoutMs * MCP_WAIT_SHARE), () => stale).then((seen) => {
      if (stale) return;
      if (seen) barrier.toolsReady();
      else fallBack(ctx, refused ? `Pi refused the MCP registration (${refused})` : `${server} did not come up`);
    });
  };

  const fallBack = (ctx: ExtensionContext, why: string) => {
    channel.name = 'tools';
    channel.note = `MCP unavailable: ${why}`;
    ensureInProcessTools();
    barrier.toolsReady();
    const text = `GCC memory tools run in-process (gcc_*) because the MCP channel is unavailable: ${why}.`;
    notices.push(text);
    notify(ctx, `gcc: ${text}`, 'info');
  };

  pi.on('before_agent_start', async () => {
    const turn = await barrier.awaitTurn();
    const parts = notices.splice(0);
    if (turn.notice) parts.push(turn.notice);
    if (!parts.length) return undefined;
    return {
      message: { customType: NOTICE_TYPE, content: parts.map((p) => `[gcc] ${p}`).join('\n\n'), display: false },
    };
  });

  pi.on('session_compact', async (_event, ctx) => {
    const memory = slot.memory;
    if (!memory) return;
    try {
      await signal([{ type: 'COMPACT' }, { type: 'COMPACTED' }]);
      // The compaction dropped the briefing with the history it summarised: send it again.
      sendBriefing(memory, ctx, { afterCompaction: true });
    } catch {
      // fail open
    }
  });

  pi.on('session_shutdown', async (event) => {
    stale = true;
    barrier.stop();
    inspector.stop();
    const memory = slot.memory;
    try {
      await signal([{ type: 'SHUTDOWN', reason: event.reason }]);
    } finally {
      memory?.close();
      slot.memory = null;
    }
  });
}

/** A fork starts on the memory branch its parent session was on. */
async function carryBranch(memory: Memory, from: string, to: string): Promise<void> {
  try {
    const branch = memory.currentBranch(from);
    if (branch !== memory.currentBranch(to)) await memory.execute({ type: 'switch', name: branch }, { session: to });
  } catch {
    // The parent's branch may be closed by now; the fork starts on the default.
  }
}

/** Whether Pi reads this project's `.pi/mcp.json` (it does only for trusted projects). */
function projectTrusted(ctx: ExtensionContext): boolean {
  try {
    return typeof ctx.isProjectTrusted === 'function' ? ctx.isProjectTrusted() : true;
  } catch {
    return true;
  }
}

function readyCapFromEnv(): number {
  const n = Number(process.env[ENV_VARS.readyTimeoutMs]);
  return Number.isFinite(n) && n > 0 ? n : DEFAULTS.readyTimeoutMs;
}

function notify(ctx: ExtensionContext, text: string, level: 'info' | 'warning' | 'error'): void {
  try {
    if (ctx.hasUI) ctx.ui.notify(text, level);
  } catch {
    // No UI in this mode.
  }
}
