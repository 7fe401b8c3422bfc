/**
 * Follows GET /events. Each `memory` event (some process appended to the memory) asks for a
 * refresh; refreshes are coalesced so a burst of appends costs at most one every
 * MIN_GAP_MS, and never two at once. When the stream drops, it is reopened after a growing
 * delay (1 s doubling to 30 s), and a refresh follows each reopening, since events may have
 * been missed meanwhile.
 */
import type { MemoryEvent } from './contract.js';

export type LiveState = 'connecting' | 'connected' | 'reconnecting';

export interface LiveOptions {
  /** Brings the page up to date; `events` is the count the stream announced, if any. */
  refresh: (events: number | null) => Promise<void>;
  onState: (state: LiveState) => void;
}

const MIN_GAP_MS = 300;
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

export function followEvents(opts: LiveOptions): { stop: () => void } {
  let source: EventSource | null = null;
  let retryMs = FIRST_RETRY_MS;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;

  // Coalescing: `wanted` holds the newest request while a refresh runs or the gap lasts.
  let running = false;
  let wanted: { events: number | null } | null = null;
  let lastRun = 0;
  let gapTimer: ReturnType<typeof setTimeout> | null = null;

  const pump = (): void => {
    if (running || wanted === null || gapTimer !== null) return;
    const wait = lastRun + MIN_GAP_MS - Date.now();
    if (wait > 0) {
      gapTimer = setTimeout(() => {
        gapTimer = null;
        pump();
      }, wait);
      return;
    }
    const { events } = wanted;
    wanted = null;
    running = true;
    lastRun = Date.now();
    opts
      .refresh(events)
      .catch(() => undefined)
      .finally(() => {
        running = false;
        pump();
      });
  };
  const request = (events: number | null): void => {
    const known = [events, wanted?.events ?? null].filter((n): n is number => n !== null);
    wanted = { events: known.length > 0 ? Math.max(...known) : null };
    pump();
  };

  let everOpen = false;
  const open = (): void => {
    if (stopped) return;
    opts.onState(everOpen ? 'reconnecting' : 'connecting');
    const es = new EventSource('/events');
    source = es;
    es.addEventListener('open', () => {
      everOpen = true;
      retryMs = FIRST_RETRY_MS;
      opts.onState('connected');
      request(null);
    });
    es.addEventListener('memory', (ev: MessageEvent<string>) => {
      let events: number | null = null;
      try {
        const data = JSON.parse(ev.data) as Partial<MemoryEvent>;
        if (typeof data.events === 'number') events = data.events;
      } catch {
        // A malformed announcement still means something changed.
      }
      request(events);
    });
    es.addEventListener('error', () => {
      // Reconnect on our own schedule rather than the browser's, which gives up for good on
      // an HTTP error (a restarting daemon) and retries a dropped stream at a fixed pace.
      es.close();
      if (source !== es || stopped) return;
      opts.onState('reconnecting');
      retryTimer = setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    });
  };
  open();

  return {
    stop: () => {
      stopped = true;
      source?.close();
      if (retryTimer !== null) clearTimeout(retryTimer);
      if (gapTimer !== null) clearTimeout(gapTimer);
    },
  };
}
