/**
 * GET /events: tells every open page when the memory changed, whoever changed it. The daemon's
 * own requests announce where the memory stands as they end (`update`); what other processes
 * append (`gctx commit` in a terminal, a hook process, a `git pull`) is found by a catch-up once
 * a second while a page listens. A move in the event count or the newest id sends
 * `event: memory` with both (page/contract.ts MemoryEvent) to every stream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MemoryEvent } from './page/contract.js';
import { BASE_HEADERS } from './security.js';

const POLL_MS = 1000;
/** A comment line this often keeps idle streams open and finds dead ones. */
const PING_MS = 25_000;

export class Live {
  private readonly clients = new Set<ServerResponse>();
  private readonly timers: NodeJS.Timeout[] = [];
  private checking = false;

  constructor(
    /** Catches the memory up with other writers and says where it stands. */
    private readonly check: () => Promise<MemoryEvent>,
    private shown: MemoryEvent,
  ) {}

  start(): void {
    const poll = setInterval(() => void this.poll(), POLL_MS);
    const ping = setInterval(() => {
      for (const c of this.clients) c.write(': ping\n\n');
    }, PING_MS);
    poll.unref();
    ping.unref();
    this.timers.push(poll, ping);
  }

  /** Opens one stream; it lasts until the page leaves or the daemon stops. */
  follow(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { ...BASE_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8' });
    res.write(': connected\n\n');
    this.clients.add(res);
    req.on('close', () => this.clients.delete(res));
  }

  /** Where the memory stands now: tells the pages if it moved. */
  update(now: MemoryEvent): void {
    if (now.events === this.shown.events && now.lastId === this.shown.lastId) return;
    this.shown = now;
    const frame = `event: memory\ndata: ${JSON.stringify(now)}\n\n`;
    for (const c of this.clients) c.write(frame);
  }

  private async poll(): Promise<void> {
    if (this.clients.size === 0 || this.checking) return;
    this.checking = true;
    await this.check().then(
      (now) => this.update(now),
      () => undefined,
    );
    this.checking = false;
  }

  close(): void {
    for (const t of this.timers) clearInterval(t);
    for (const c of this.clients) c.end();
    this.clients.clear();
  }
}
