/**
 * The readable half of a log entry, in the GCC skill's shape. Prose is display only: the
 * machine line carries the event, so prose never has to be parsed and need not be
 * reversible. It must guarantee that no line it produces can be mistaken for a machine line
 * or an entry separator — every line starts with a fixed prefix or two spaces, a field shown
 * on one line has no line break, no field carries a control character (log/safe-text.ts) — and it says
 * each thing once, in words a reader uses: no internal ids, no event-type names.
 */
import type { FileChange, GccEvent } from '../events/types.js';
import { clip, flatText, safeText } from './safe-text.js';

const KIND: Record<GccEvent['type'], string> = {
  'memory.initialized': 'INIT',
  'objective.added': 'ROADMAP',
  'objective.checked': 'ROADMAP',
  'objective.unchecked': 'ROADMAP',
  'objective.removed': 'ROADMAP',
  'objective.edited': 'ROADMAP',
  'notes.patched': 'ROADMAP',
  'config.set': 'CONFIG',
  'branch.created': 'BRANCH',
  'branch.switched': 'SWITCH',
  'commit.recorded': 'COMMIT',
  'branch.merged': 'MERGE',
  'branch.abandoned': 'ABANDON',
  'ota.logged': 'OTA',
  'tool.recorded': 'OTA',
  'memory.repaired': 'REPAIR',
  'session.started': 'SESSION',
  'session.compacted': 'SESSION',
  'session.ended': 'SESSION',
  'prompt.recorded': 'USER',
};

/**
 * One line of free text: line breaks folded and controls shown, so a title cannot open a new line or drive a terminal.
 */
export function oneLine(text: string, max = 200): string {
  const flat = flatText(text);
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A multi-line field: continuation lines indented so they stay inside the list item. */
export function block(text: string, max = 4000): string {
  const clean = safeText(text.length > max ? `${text.slice(0, max - 1)}…` : text);
  return clean.includes('\n') ? clean.replaceAll('\n', '\n  ') : clean;
}

function field(name: string, value: string, max?: number): string {
  return `- **${name}**: ${block(value, max)}`;
}

export function header(e: GccEvent): string {
  return `**[${KIND[e.type]}-${String(e.seq).padStart(3, '0')}]** ${e.at} | Branch: ${oneLine(e.branch, 120)}`;
}

/** Paths, each on the line it is listed on: a path is one line by nature. */
export function filesText(files: readonly { path: string; added: number; removed: number }[]): string {
  return files
    .map((f) => (f.added || f.removed ? `${flatText(f.path)} (+${f.added} -${f.removed})` : flatText(f.path)))
    .join(', ');
}

/** The room a view gives a list of files, then how many it left out. */
export const FILES_ROOM = 4000;

/**
 * Files as a list inside `room` characters: whole entries in the order given (the first one
 * clipped if it alone is too long), then how many are left — `total` counts those not given too —
 * and `where` they are. Never a list cut mid-way without saying so.
 */
export function filesFitted(files: readonly FileChange[], room: number, total = files.length, where = ''): string {
  const tail = (left: number) => (left > 0 ? `, +${left} more${where ? ` ${where}` : ''}` : '');
  let text = '';
  let n = 0;
  for (const f of files) {
    const entry = filesText([f]);
    const next = n ? `${text}, ${entry}` : entry;
    if (next.length + tail(total - n - 1).length > room) {
      if (n === 0) {
        text = clip(entry, Math.max(20, room - tail(total - 1).length));
        n = 1;
      }
      break;
    }
    text = next;
    n++;
  }
  return text + tail(total - n);
}

const quoted = (t: string | undefined) => (t ? `: ${oneLine(t, 300)}` : '');

/** What happened, in one line: used by the log files and by every log view. */
export function summaryLine(e: GccEvent): string {
  switch (e.type) {
    case 'memory.initialized':
      return 'Memory initialized';
    case 'objective.added':
      return `Objective added: ${oneLine(e.data.text, 300)}`;
    case 'objective.checked':
      return `Objective done${quoted(e.data.text)}`;
    case 'objective.unchecked':
      return `Objective reopened${quoted(e.data.text)}`;
    case 'objective.removed':
      return `Objective removed${quoted(e.data.text)}`;
    case 'objective.edited':
      return `Objective reworded: ${oneLine(e.data.text, 300)}`;
    case 'notes.patched':
      return 'Notes in main.md edited by hand';
    case 'config.set':
      return `Config ${flatText(e.data.key)} = ${flatText(String(e.data.value))}`;
    case 'branch.created':
      return `Branch ${e.data.name} started from ${e.data.parent}: ${oneLine(e.data.purpose, 300)}`;
    case 'branch.switched':
      return `Switched to ${e.data.to}`;
    case 'commit.recorded':
      return `Commit ${e.data.label} ${e.data.id}: ${oneLine(e.data.title, 160)}`;
    case 'branch.merged':
      return `Branch ${e.data.branch} merged into ${e.data.into}`;
    case 'branch.abandoned':
      return `Branch ${e.data.branch} abandoned: ${oneLine(e.data.reason, 300)}`;
    case 'ota.logged':
      return oneLine([e.data.observation, e.data.thought, e.data.action].filter((x) => x.trim()).join(' — '), 300);
    case 'tool.recorded':
      return (
        (e.data.isError ? 'Failed: ' : '') + oneLine(e.data.input ? `${e.data.tool} ${e.data.input}` : e.data.tool, 300)
      );
    case 'memory.repaired':
      return (
        `Repaired ${flatText(e.data.segment)}: ${e.data.lost}` +
        ` ${e.data.lost === 1 ? 'event' : 'events'} lost, ${e.data.kept} kept ` +
        `(${oneLine(e.data.reason, 200)})`
      );
    case 'session.started':
      return `Session started (${flatText(e.data.reason)}) in ${flatText(e.data.host)}`;
    case 'session.compacted':
      return `Context compacted in ${flatText(e.data.host)}`;
    case 'session.ended':
      return `Session ended (${flatText(e.data.reason)}) in ${flatText(e.data.host)}`;
    case 'prompt.recorded':
      return `The user asked: ${oneLine(e.data.text, 300)}`;
  }
}

function body(e: GccEvent): string[] {
  switch (e.type) {
    case 'branch.created':
      return [
        field('Action', `Branch ${e.data.name} started from ${e.data.parent}`),
        field('Purpose', e.data.purpose),
        ...e.data.hypotheses.map((h) => field('Hypothesis', h)),
      ];
    case 'branch.abandoned':
      return [field('Action', `Branch ${e.data.branch} abandoned`), field('Reason', e.data.reason)];
    case 'notes.patched':
      return [field('Action', summaryLine(e)), field('Patch', e.data.patch)];
    case 'ota.logged': {
      const out: string[] = [];
      if (e.data.observation.trim()) out.push(field('Observation', e.data.observation));
      if (e.data.thought.trim()) out.push(field('Thought', e.data.thought));
      if (e.data.action.trim()) out.push(field('Action', e.data.action));
      return out;
    }
    case 'tool.recorded': {
      const tool = flatText(e.data.tool);
      const out = [field('Action', e.data.input ? `${tool}: ${e.data.input}` : tool)];
      if (e.data.result.trim() || e.data.isError)
        out.push(field(e.data.isError ? 'Error' : 'Observation', e.data.result || '(no output)'));
      if (e.data.files.length) out.push(field('Files', filesFitted(e.data.files, FILES_ROOM)));
      return out;
    }
    case 'prompt.recorded':
      return [field('User', e.data.text)];
    default:
      return [field('Action', summaryLine(e))];
  }
}

export function renderProse(e: GccEvent): string {
  return [header(e), ...body(e)].join('\n');
}
