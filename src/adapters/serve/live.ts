/**
 * GET /events: tells every open page when the memory changed, whoever changed it (the daemon
 * itself, `gctx commit` in a terminal, a hook process, a `git pull`). Changes are noticed
 * by watching `.GCC/events/` (recursively where the platform can) and `.GCC/.local/` (the
 * local log), with a periodic check while pages are listening in case a watch misses
 * something (network folders, platforms without recursive watches). A burst of file events
 * costs one check; a check that finds a new event count or newest id sends
 * `event: memory` with both (page/contract.ts MemoryEvent) to every stream.
 */
import { type FSWatcher, watch } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MemoryEvent } from './page/contract.js';
import { BASE_HEADERS } from './security.js';

export interface LiveOptions {
  /** Folders whose changes may mean new events. */
  watch: { dir: string; recursive: boolean }[];
  /** Catches the memory up with other writers and says where it stands. */
  check: () => Promise<MemoryEvent>;
  /** How often to check while pages listen, whatever the watches say. */
  pollMs?: number;
  /** A comment line this often keeps idle streams open and finds dead ones. */
  keepAliveMs?: number;
}

/** Coalesces the file events of one write (segment, ledger, views) into one check. */
const SETTLE_MS = 25;

export class Live {
  private readonly clients = new Set<ServerResponse>();
  private readonly watchers: FSWatcher[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private settle: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private again = false;
  private shown: MemoryEvent;
  private closed = false;

  constructor(
    private readonly opts: LiveOptions,
    now: MemoryEvent,
  ) {
    this.shown = now;
  }

  start(): void {
    for (const w of this.opts.watch) {
      try {
        const watcher = watch(w.dir, { recursive: w.recursive, persistent: false }, () => this.soon());
        watcher.on('error', () => watcher.close());
        this.watchers.push(watcher);
      } catch {
        // No watch here (a missing folder, no recursive watch on this platform): the periodic check covers it.
      }
    }
    const poll = setInterval(() => {
      if (this.clients.size > 0) this.soon();
    }, this.opts.pollMs ?? 1000);
    const ping = setInterval(() => {
      for (const c of this.clients) c.write(': ping\n\n');
    }, this.opts.keepAliveMs ?? 25_000);
    poll.unref();
    ping.unref();
    this.timers.push(poll, ping);
  }

  /** Opens one stream; it lasts until the page leaves or the daemon stops. */
  follow(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      ...BASE_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      Connection: 'keep-alive',
    });
    res.write(': connected\n\n');
    this.clients.add(res);
    const drop = () => this.clients.delete(res);
    req.on('close', drop);
    res.on('error', drop);
  }

  /** Where the memory stands now (after a request the daemon served): tells the pages if it moved. */
  update(now: MemoryEvent): void {
    if (now.events === this.shown.events && now.lastId === this.shown.lastId) return;
    this.shown = now;
    const frame = `event: memory\ndata: ${JSON.stringify(now)}\n\n`;
    for (const c of this.clients) c.write(frame);
  }

  /** Something on disk changed: check once the burst has settled. */
  private soon(): void {
    // With no page listening, nobody needs the check (the daemon's own writes are announced as they end).
    if (this.closed || this.settle || this.clients.size === 0) return;
    this.settle = setTimeout(() => {
      this.settle = null;
      void this.run();
    }, SETTLE_MS);
  }

  private async run(): Promise<void> {
    if (this.checking) {
      this.again = true;
      return;
    }
    this.checking = this.opts
      .check()
      .then((now) => this.update(now))
      .catch(() => undefined);
    await this.checking;
    this.checking = null;
    if (this.again && !this.closed) {
      this.again = false;
      this.soon();
    }
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers) w.close();
    for (const t of this.timers) clearInterval(t);
    if (this.settle) clearTimeout(this.settle);
    for (const c of this.clients) c.end();
    this.clients.clear();
  }
}
