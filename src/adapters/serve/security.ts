/**
 * Who may talk to `gctx serve` (docs/serve.md, security model): besides listening on 127.0.0.1
 * only, every request passes, in this order, before any route sees it: Host is loopback with
 * the daemon's port (no DNS rebinding); Origin and `Sec-Fetch-Site`, when sent, are the
 * daemon's own (another port on 127.0.0.1 is the same *site*, and gets its cookies); and a
 * credential: the bearer token, which may do anything, or the page's cookie, which only reads.
 * Cookies ignore ports, so the cookie is an HMAC of the token, never the token. 403 for place,
 * 401 for credential, each with one line saying why.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';

interface Refusal {
  status: 401 | 403;
  why: string;
}

/** The cookie is named for the port: cookies ignore ports, and two daemons may share 127.0.0.1. */
const cookieName = (port: number): string => `gcc_page_${port}`;

/** What a credential may do: `write` is the token itself; `read` the page's cookie. */
export type Access = 'write' | 'read';

/** The page's credential: derived from the token (so it outlives a restart), never usable as it. */
function pageCredential(token: string): string {
  return createHmac('sha256', token).update('gctx serve: page, read only').digest('hex');
}

/**
 * The daemon's answer to a challenge: proves it holds the token, for its pid, without the
 * asker sending the token to whatever listens on the port.
 */
export function identityProof(token: string, nonce: string, pid: number): string {
  return createHmac('sha256', token).update(`gctx serve: identity\u0000${nonce}\u0000${pid}`).digest('hex');
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

function loopbackHost(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const h = host.toLowerCase();
  return LOOPBACK_NAMES.some((name) => h === `${name}:${port}`);
}

/** Equal without telling, by its timing, how much of a guess was right. */
export function sameToken(given: string, token: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(token));
}

function bearerOf(req: IncomingMessage): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m ? m[1]! : null;
}

function cookieOf(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** Host, Origin and Sec-Fetch-Site: null when all are the daemon's own. */
export function checkPlace(req: IncomingMessage, port: number): Refusal | null {
  const host = req.headers.host;
  if (!loopbackHost(host, port))
    return { status: 403, why: `Host ${JSON.stringify(host ?? '')} is not this daemon (127.0.0.1:${port})` };
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host!.toLowerCase()}`)
    return { status: 403, why: `Origin ${JSON.stringify(origin)} is not this daemon's` };
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return { status: 403, why: `Sec-Fetch-Site ${JSON.stringify(site)}: only this daemon's own page may ask` };
  }
  return null;
}

/** The credential a request carries and what it may do, or why it is refused. */
export function checkCredential(req: IncomingMessage, port: number, token: string): Refusal | Access {
  const bearer = bearerOf(req);
  if (bearer !== null) return sameToken(bearer, token) ? 'write' : { status: 401, why: 'wrong token' };
  const cookie = cookieOf(req, cookieName(port));
  if (cookie === null) {
    return {
      status: 401,
      why: 'no token: send Authorization: Bearer <token> (gctx serve status --json), or open its page address',
    };
  }
  if (sameToken(cookie, pageCredential(token))) return 'read';
  return { status: 401, why: 'wrong page credential: open the address `gctx serve status` prints' };
}

/** The page's cookie; the token's cookie of older versions is dropped. */
export function pageCookies(port: number, token: string): string[] {
  const page = `${cookieName(port)}=${pageCredential(token)}; HttpOnly; SameSite=Strict; Path=/`;
  return [page, `gcc_token_${port}=; Max-Age=0; Path=/`];
}

/**
 * The page's Content-Security-Policy, as a header (index.html carries the same as a meta
 * tag, which cannot say frame-ancestors): everything from the daemon itself, nothing else;
 * inline styles only because Mermaid's SVG carries its own.
 */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'none'";

/** Sent with every answer: nothing is sniffed, framed, cached unasked, or leaks an address. */
export const BASE_HEADERS: OutgoingHttpHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};
