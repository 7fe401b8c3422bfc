import { createActor, type InspectionEvent } from 'xstate';
import type { Memory } from '../../engine/memory.js';
import { type SessionDomainEvent, sessionMachine, type SessionStep, type StartReason } from '../../machines/session.js';

/**
 * Pi's session lifecycle driven through the session machine (src/machines/session.ts): the
 * host reports each step of opening (config resolved, store opened, replayed, briefing built)
 * or a failure, and the machine decides what is logged (session.started / compacted / ended)
 * and when the session is degraded. The domain events it emits are appended here, through the
 * engine, so Pi's session boundaries land in log.md exactly as the machine says.
 */
export class SessionDriver {
  private readonly actor;
  private readonly queued: SessionDomainEvent[] = [];
  private degradedWhy: { step: SessionStep; reason: string } | null = null;

  constructor(host: string, openCapMs: number, inspect?: (ev: InspectionEvent) => void) {
    // Real timers, unref'd: the opening cap must not keep Pi alive on exit.
    const clock = {
      setTimeout: (fn: (...args: unknown[]) => void, ms: number) => setTimeout(fn, ms).unref(),
      clearTimeout: (id: unknown) => clearTimeout(id as ReturnType<typeof setTimeout>),
    };
    this.actor = createActor(sessionMachine, { input: { host, openCapMs }, clock, ...(inspect ? { inspect } : {}) });
    this.actor.on('*', (e) => {
      if (e.type === 'gcc.degraded') this.degradedWhy = { step: e.step, reason: e.reason };
      else this.queued.push(e);
    });
    this.actor.start();
  }

  start(session: string, reason: StartReason): void {
    this.degradedWhy = null;
    this.actor.send({ type: 'START', session, reason });
  }
  configResolved(): void {
    this.actor.send({ type: 'CONFIG_RESOLVED' });
  }
  storeOpened(memory: Memory): void {
    const quarantined = memory.warnings.filter((w) => /torn|quarantine/i.test(w)).length;
    this.actor.send({ type: 'STORE_OPENED', quarantined });
    this.actor.send({ type: 'REPLAYED', events: memory.state.events });
  }
  briefingBuilt(): void {
    this.actor.send({ type: 'BRIEFING_BUILT' });
  }
  failed(reason: string): void {
    this.actor.send({ type: 'FAILED', reason });
  }
  compacted(): void {
    this.actor.send({ type: 'COMPACT' });
    this.actor.send({ type: 'COMPACTED' });
  }
  shutdown(reason: string): void {
    this.actor.send({ type: 'SHUTDOWN', reason });
    this.actor.stop();
  }

  /** Where the machine is: a step of opening, ready, compacting, degraded or ended. */
  state(): string {
    const s = this.actor.getSnapshot();
    return typeof s.value === 'string' ? s.value : Object.entries(s.value).map(([k, v]) => `${k}.${String(v)}`).join(',');
  }

  degraded(): { step: SessionStep; reason: string } | null {
    return this.degradedWhy;
  }

  /** Append what the machine emitted since the last flush. Failures are the caller's to swallow. */
  async flush(memory: Memory | null, session: string): Promise<void> {
    const events = this.queued.splice(0);
    if (!memory) return;
    for (const e of events) {
      if (e.type === 'session.started') await memory.execute({ type: 'session', kind: 'started', host: e.data.host, reason: e.data.reason }, { session });
      else if (e.type === 'session.compacted') await memory.execute({ type: 'session', kind: 'compacted', host: e.data.host }, { session });
      else await memory.execute({ type: 'session', kind: 'ended', host: e.data.host, reason: e.data.reason }, { session });
    }
  }
}
