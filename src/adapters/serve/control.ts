/**
 * `gctx serve status` and `gctx serve stop`, and the check a second start makes. A daemon is
 * running when the state file names a live process AND the listener on its port proves it is
 * that daemon: asked a fresh nonce (GET /identify), it answers with an HMAC of the nonce and
 * its pid under the memory's token. The token itself is never sent to find out, and nothing
 * is signalled on the word of a state file whose listener cannot prove it.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { gccError } from '../../errors.js';
import { identityProof } from './security.js';
import { originOf, pageUrl, pidAlive, readState, removeState, serveFiles, type ServeState } from './state-file.js';

/** Whether the listener at the state's port is the daemon it names (pid, token), proven without sending the token. */
async function provenDaemon(state: ServeState): Promise<boolean> {
  const nonce = randomBytes(32).toString('hex');
  try {
    const url = `${originOf(state.port)}/identify?nonce=${nonce}`;
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000), redirect: 'error' });
    // Whatever listens there may answer anything: no more than a proof's worth is read.
    let text = '';
    for await (const chunk of res.body ?? []) {
      text += Buffer.from(chunk).toString('utf8');
      if (text.length > 4096) return false;
    }
    const a = JSON.parse(text) as { pid?: unknown; proof?: unknown };
    const want = Buffer.from(identityProof(state.token, nonce, state.pid));
    const got = Buffer.from(typeof a.proof === 'string' ? a.proof : '');
    return res.status === 200 && a.pid === state.pid && got.length === want.length && timingSafeEqual(got, want);
  } catch {
    return false;
  }
}

/**
 * The daemon running for this memory; null when none is. A state file whose process is gone is
 * removed; one whose process lives but whose listener does not prove it is this daemon (busy,
 * hung, a reused pid, another program on the port) is left alone and reported, never signalled.
 */
async function runningDaemon(root: string): Promise<ServeState | null> {
  const state = readState(root);
  if (!state) return null;
  if (!pidAlive(state.pid)) {
    removeState(root, state.pid);
    return null;
  }
  if (!(await provenDaemon(state))) {
    throw gccError(
      'E_NOT_RUNNING',
      `process ${state.pid} is named in ${serveFiles(root).state} but does not prove itself gctx serve at ${state.url}`,
      `wait and retry; a hung gctx serve: kill ${state.pid}; another program: remove that file`,
    );
  }
  return state;
}

export interface Status {
  url: string;
  token: string;
  page: string;
  pid: number;
}

export async function serveStatus(root: string): Promise<Status> {
  const state = await runningDaemon(root);
  if (!state) throw gccError('E_NOT_RUNNING', `gctx serve is not running for ${root}`, 'start it: gctx serve');
  return { url: state.url, token: state.token, page: pageUrl(state.port, state.token), pid: state.pid };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** SIGTERM to the running daemon once it proved itself, then wait for it to be gone; null when none was running. */
export async function serveStop(root: string, waitMs = 15_000): Promise<{ pid: number; url: string } | null> {
  const state = await runningDaemon(root);
  if (!state) return null;
  const { pid, url } = state;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + waitMs;
  while (pidAlive(pid)) {
    if (Date.now() > deadline)
      throw gccError(
        'E_BUSY',
        `gctx serve (pid ${pid}) did not stop within ${waitMs / 1000} s of SIGTERM`,
        `kill ${pid}`,
      );
    await sleep(20);
  }
  return { pid, url };
}
