/**
 * Opt-in live inspection of the machines. Off unless the environment asks:
 *
 *   GCC_INSPECT=ws://127.0.0.1:8080   stream to a Stately inspector relay
 *                                     (createInspectorServer from '@statelyai/inspect/server';
 *                                     the page it serves embeds stately.ai, so viewing needs internet)
 *   GCC_INSPECT_FILE=inspect.jsonl    append every inspection event as one JSON line (offline)
 *
 * The branch and session machines run as pure steps inside the engine (machines/steps.ts): each
 * step is reported as the snapshot of an actor named `branch:<name>` or `session:<id>`; call
 * `handle.stop()` when done.
 *
 * Never keeping the process alive: @statelyai/inspect's own WebSocket adapter retries every
 * 5 s forever, even after stop(), so a missing relay hangs Node. We use the package only for
 * its event format (createInspector, loaded with a dynamic import, so it is not needed at
 * run time otherwise) and bring our own adapter on Node's global WebSocket: reconnect timers
 * are unref'd and end at stop(). An OPEN socket does hold the process, so the CLI calls
 * stop() when its work is done, and awaits it: a command or a hook exits right after its
 * work, often before the package has loaded or the socket opened, so stop() first delivers
 * what was queued (at most FLUSH_MS, and not at all when no relay answers). The JSONL
 * recorder writes synchronously and holds nothing.
 */
import { appendFileSync } from 'node:fs';
import type { AnyStateMachine } from 'xstate';
import { branchMachine } from '../machines/branch-machine.js';
import { sessionMachine } from '../machines/session.js';
import { observeSteps, type StepRecord } from '../machines/steps.js';

export interface InspectorHandle {
  /** A pure step of the branch or session machine. */
  step?: (r: StepRecord) => void;
  /** Ends inspection; resolves once queued events went out (bounded by FLUSH_MS). */
  stop(): void | Promise<void>;
}

export function jsonlRecorder(path: string): InspectorHandle {
  let on = true;
  const write = (record: unknown): void => {
    if (!on) return;
    try {
      appendFileSync(path, `${JSON.stringify(record)}\n`);
    } catch {
      on = false; // fail open: a bad path costs the recording, never the session
    }
  };
  return {
    step: (r) =>
      write({
        type: '@gcc.step',
        actor: `${r.machine}:${r.id}`,
        machine: r.machine,
        event: r.event,
        from: r.from,
        to: r.to,
        origin: r.origin,
        at: Date.now(),
      }),
    stop: () => {
      on = false;
    },
  };
}

interface StatelyInspector {
  actor(
    actor: string,
    snapshot?: { status: string; value: unknown; context: unknown },
    info?: { definition?: string },
  ): void;
  event(actor: string, event: { type: string }, info?: { source?: string }): void;
  snapshot(
    actor: string,
    snapshot: { status: string; value: unknown; context: unknown },
    info?: { event?: { type: string } },
  ): void;
}

const MACHINES: Record<StepRecord['machine'], () => AnyStateMachine> = {
  branch: branchMachine,
  session: sessionMachine,
};

/** How long a stopping process waits for its inspection events to reach the relay. */
export const FLUSH_MS = 1_000;

export function websocketInspector(url: string): InspectorHandle {
  let stopped = false;
  /** Nothing can be delivered: the package is missing or the URL is malformed. */
  let failed = false;
  let ws: WebSocket | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** Set while stop() waits for what is queued to go out. */
  let drained: (() => void) | null = null;
  const outbox: string[] = [];
  let inspector: StatelyInspector | null = null;
  const steps: StepRecord[] = [];
  const known = new Set<string>();
  const report = (r: StepRecord): void => {
    const actor = `${r.machine}:${r.id}`;
    if (!known.has(actor)) {
      known.add(actor);
      inspector!.actor(
        actor,
        { status: 'active', value: r.from, context: {} },
        { definition: JSON.stringify(MACHINES[r.machine]().definition) },
      );
    }
    inspector!.event(actor, { type: r.event });
    inspector!.snapshot(actor, { status: 'active', value: r.to, context: {} }, { event: { type: r.event } });
  };
  const sent = (): boolean => inspector !== null && steps.length === 0 && outbox.length === 0;

  const flush = (): void => {
    while (ws?.readyState === WebSocket.OPEN && outbox.length > 0) ws.send(outbox.shift() ?? '');
    if (drained && sent()) drained();
  };
  const connect = (): void => {
    if (stopped) return;
    try {
      ws = new WebSocket(url);
    } catch {
      failed = true; // a malformed URL: inspection is off, the host goes on
      drained?.();
      return;
    }
    ws.onopen = flush;
    ws.onerror = () => {
      ws = null;
      // A stopping process does not wait for a relay that is not there.
      if (drained) return drained();
      if (stopped) return;
      timer = setTimeout(connect, 5000);
      timer.unref();
    };
  };
  const adapter = {
    start: connect,
    stop: () => undefined,
    send: (e: unknown) => {
      outbox.push(JSON.stringify(e));
      if (outbox.length > 1000) outbox.shift();
      flush();
    },
  };
  void import('@statelyai/inspect')
    .then((m) => {
      if (stopped) return;
      inspector = m.createInspector(adapter) as unknown as StatelyInspector;
      for (const r of steps.splice(0)) report(r);
      connect();
    })
    .catch(() => {
      // Package absent: say so once, and go on without live inspection (fail open).
      failed = true;
      stopped = true;
      drained?.();
      process.stderr.write(
        'gctx: GCC_INSPECT is set but @statelyai/inspect is not installed: `npm install ' +
          '@statelyai/inspect` turns live inspection on (docs/machines.md)\n',
      );
    });

  /** Ends the connection: what was sent before close() goes out before the close frame. */
  const end = (): Promise<void> => {
    stopped = true;
    if (timer) clearTimeout(timer);
    const socket = ws;
    ws = null;
    if (!socket || socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      socket.onclose = () => resolve();
      socket.onerror = () => resolve();
      socket.close();
    });
  };

  return {
    step: (r) => {
      if (stopped) return;
      if (inspector) report(r);
      else if (steps.length < 1000) steps.push(r);
    },
    // A short-lived process (a command, a hook) calls this before it exits: what it queued is
    // delivered first, for at most FLUSH_MS; with nothing queued, or no relay, it ends at once.
    stop: () => {
      if (stopped) return Promise.resolve();
      if (failed || sent() || (inspector !== null && ws === null)) return end();
      return new Promise<void>((resolve) => {
        let cap: ReturnType<typeof setTimeout> | undefined;
        const finish = () => {
          drained = null;
          void end().then(() => {
            clearTimeout(cap);
            resolve();
          });
        };
        cap = setTimeout(() => {
          drained = null;
          void end();
          resolve();
        }, FLUSH_MS);
        drained = finish;
      });
    },
  };
}

export function inspectorFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): InspectorHandle {
  const parts: InspectorHandle[] = [];
  const url = env.GCC_INSPECT?.trim();
  const file = env.GCC_INSPECT_FILE?.trim();
  if (url) parts.push(websocketInspector(url));
  if (file) parts.push(jsonlRecorder(file));
  if (parts.length === 0) return { stop: () => undefined };
  const unobserve = observeSteps((r) => {
    for (const p of parts) p.step?.(r);
  });
  return {
    stop: async () => {
      unobserve();
      await Promise.all(parts.map((p) => p.stop()));
    },
  };
}
