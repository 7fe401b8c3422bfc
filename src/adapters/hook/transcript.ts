/**
 * What a compaction is about to cut, read from the tail of Claude Code's transcript (the
 * `transcript_path` of PreCompact): the user's last request and the agent's last words, for the
 * checkpoint the hook records before the cut. The file is the host's, read as untrusted input:
 * only a `.jsonl` file, only its last window, each line parsed on its own, anything odd skipped.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Checkpoint } from '../../observer/envelope.js';

/** Bytes read from the transcript's end: the last turns, not the session. */
const TAIL = 256 * 1024;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function transcriptCheckpoint(path: unknown): Checkpoint {
  if (typeof path !== 'string' || !path.endsWith('.jsonl')) return {};
  let text: string;
  try {
    text = tail(path);
  } catch {
    return {};
  }
  const out: Checkpoint = {};
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0 && (out.prompt === undefined || out.said === undefined); i--) {
    let entry: unknown;
    try {
      entry = JSON.parse(lines[i]!);
    } catch {
      continue;
    }
    if (!isObj(entry) || !isObj(entry.message)) continue;
    const said = textOf(entry.message.content);
    if (!said) continue;
    if (entry.type === 'assistant' && out.said === undefined) out.said = said;
    // A user turn that carries only tool results is the host's, not the user's.
    if (entry.type === 'user' && out.prompt === undefined && entry.isMeta !== true && !said.startsWith('<'))
      out.prompt = said;
  }
  return out;
}

function tail(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - TAIL);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    const text = buf.toString('utf8');
    // A window that starts mid-line drops that line.
    return start > 0 ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    closeSync(fd);
  }
}

/** The text of a message's content: a string, or its text parts (tool calls and results are not words). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content.trim();
  if (!Array.isArray(content)) return '';
  return content
    .filter((c): c is Obj => isObj(c) && c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('\n')
    .trim();
}
