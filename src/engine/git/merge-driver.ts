/**
 * The log merge driver git runs as `gctx git merge-driver %O %A %B %P`. It writes the union
 * of ours (%A) and theirs (%B) into %A. On any failure it leaves %A exactly as it was and
 * fails, so git reports an ordinary conflict on an intact log (ours) — a log is never
 * written half-merged or with conflict markers. The ancestor is not needed: events are
 * never removed from a log, so the union is the whole merge.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { unionLogs } from '../../log/union.js';

export interface DriverResult {
  events: number;
  added: number;
}

export function mergeLogFiles(oursPath: string, theirsPath: string, label: string): DriverResult {
  const ours = readFileSync(oursPath, 'utf8');
  const theirs = readFileSync(theirsPath, 'utf8');
  const r = unionLogs(ours, theirs, label);
  if (r.text !== ours) writeFileSync(oursPath, r.text);
  return { events: r.events.length, added: r.added };
}
