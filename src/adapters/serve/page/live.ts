/**
 * Follows GET /events: each `memory` event (some process appended) asks for a refresh, a burst
 * costing one refresh at most every GAP_MS, never two at once. A dropped stream is reopened on
 * our own schedule (1 s doubling to 30 s): the browser's own gives up for good on an HTTP error,
 * as a restarting daemon gives. Each opening refreshes, since events may have been missed.
 */
export type LiveState = 'connecting' | 'connected' | 'reconnecting';

const GAP_MS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function followEvents(refresh: () => Promise<void>, onState: (state: LiveState) => void): void {
  let running = false;
  let again = false;
  const request = async (): Promise<void> => {
    again = true;
    if (running) return;
    running = true;
    while (again) {
      again = false;
      await refresh().catch(() => undefined);
      await sleep(GAP_MS);
    }
    running = false;
  };

  let retryMs = 1000;
  const open = (state: LiveState): void => {
    onState(state);
    const es = new EventSource('/events');
    es.addEventListener('open', () => {
      retryMs = 1000;
      onState('connected');
      void request();
    });
    es.addEventListener('memory', () => void request());
    es.addEventListener('error', () => {
      es.close();
      onState('reconnecting');
      setTimeout(() => open('reconnecting'), retryMs);
      retryMs = Math.min(retryMs * 2, 30_000);
    });
  };
  open('connecting');
}
