/**
 * What memory put in front of a model, in tokens: every injection (the briefing, a hook's
 * additionalContext, a memory tool's answer) counted per session and per kind, in a counter file of
 * this clone's (`.GCC/.local/tokens.json`) — never in the shared logs, which must not grow per tool
 * call. `gctx stats` reads it. Counting is best effort: two hooks writing at once may lose one
 * count, and a failure to count never fails the injection.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { estimateTokens } from '../context/budget.js';

export type InjectionKind = 'briefing' | 'guidance' | 'tool-answer';

interface SessionTokens {
  host: string;
  first: string;
  last: string;
  /** Injections, and their tokens, per kind. */
  kinds: Partial<Record<InjectionKind, { count: number; tokens: number }>>;
}

export interface TokenLedger {
  sessions: Record<string, SessionTokens>;
}

/** Sessions kept: the oldest are let go. */
const SESSIONS_KEPT = 200;

const ledgerFile = (gccDir: string): string => join(gccDir, '.local', 'tokens.json');

export function readTokenLedger(gccDir: string): TokenLedger {
  try {
    const raw = JSON.parse(readFileSync(ledgerFile(gccDir), 'utf8')) as unknown;
    if (
      raw &&
      typeof raw === 'object' &&
      !Array.isArray(raw) &&
      typeof (raw as TokenLedger).sessions === 'object' &&
      (raw as TokenLedger).sessions !== null
    ) {
      return {
        sessions: Object.assign(Object.create(null) as Record<string, SessionTokens>, (raw as TokenLedger).sessions),
      };
    }
  } catch {
    // missing or unreadable: counting starts again
  }
  return { sessions: Object.create(null) as Record<string, SessionTokens> };
}

/** Count one injection of `text` for `session`. */
export function countInjection(
  gccDir: string,
  session: string,
  host: string,
  kind: InjectionKind,
  text: string,
  now = new Date(),
): void {
  try {
    const ledger = readTokenLedger(gccDir);
    const at = now.toISOString();
    const s = (ledger.sessions[session] ??= { host, first: at, last: at, kinds: {} });
    s.last = at;
    const k = (s.kinds[kind] ??= { count: 0, tokens: 0 });
    k.count += 1;
    k.tokens += estimateTokens(text);
    const ids = Object.keys(ledger.sessions);
    if (ids.length > SESSIONS_KEPT) {
      ids.sort((a, b) => (ledger.sessions[a]!.last < ledger.sessions[b]!.last ? -1 : 1));
      for (const id of ids.slice(0, ids.length - SESSIONS_KEPT)) delete ledger.sessions[id];
    }
    const file = ledgerFile(gccDir);
    const tmp = `${file}.${process.pid}`;
    writeFileSync(tmp, `${JSON.stringify(ledger)}\n`);
    renameSync(tmp, file);
  } catch {
    // best effort: an uncounted injection is still made
  }
}

/** The ledger as a table: tokens injected per session and per kind, newest session first. */
export function statsText(ledger: TokenLedger): string {
  const kinds: InjectionKind[] = ['briefing', 'guidance', 'tool-answer'];
  const rows = Object.entries(ledger.sessions).sort(([, a], [, b]) => (a.last < b.last ? 1 : -1));
  if (!rows.length) return 'No injections counted yet (hooks and memory tools count what they hand a model).';
  const cell = (s: SessionTokens, k: InjectionKind) =>
    s.kinds[k] ? `${s.kinds[k]!.tokens} (${s.kinds[k]!.count})` : '0';
  const total = (s: SessionTokens) => kinds.reduce((n, k) => n + (s.kinds[k]?.tokens ?? 0), 0);
  const lines = [
    'Tokens injected into models, per session (count of injections in brackets), newest first:',
    `session | host | ${kinds.join(' | ')} | total`,
  ];
  for (const [id, s] of rows.slice(0, 20))
    lines.push(`${id.slice(0, 36)} | ${s.host} | ${kinds.map((k) => cell(s, k)).join(' | ')} | ${total(s)}`);
  const all = kinds.map((k) => rows.reduce((n, [, s]) => n + (s.kinds[k]?.tokens ?? 0), 0));
  const sum = all.reduce((a, b) => a + b, 0);
  lines.push(`all ${rows.length} session${rows.length === 1 ? '' : 's'} | | ${all.join(' | ')} | ${sum}`);
  return lines.join('\n');
}
