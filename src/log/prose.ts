/**
 * The readable half of a log entry, in the GCC skill's shape. Prose is display only: the
 * machine line carries the event, so prose never has to be parsed and need not be
 * reversible. What it must guarantee is that no line it produces can be mistaken for a
 * machine line or an entry separator — every line starts with a fixed prefix or two spaces.
 */
import type { GccEvent } from '../events/types.js';

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
  'session.started': 'SESSION',
  'session.compacted': 'SESSION',
  'session.ended': 'SESSION',
};

const BREAKS = /[\r\u2028\u2029]/;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;
const CONTROL_ALL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** One line of free text: newlines folded so a title cannot open a new line. */
export function oneLine(text: string, max = 200): string {
  let flat = text;
  if (flat.includes('\n') || BREAKS.test(flat)) flat = flat.replace(/[\r\n\u2028\u2029]+/g, ' ⏎ ');
  if (CONTROL.test(flat)) flat = flat.replace(CONTROL_ALL, '�');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * A multi-line field: continuation lines indented so they stay inside the list item.
 * Each rewrite runs only on text that needs it: replay renders every commit's fields.
 */
export function block(text: string, max = 4000): string {
  let clean = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  if (BREAKS.test(clean)) clean = clean.replace(/\r\n?|[\u2028\u2029]/g, '\n');
  if (CONTROL.test(clean)) clean = clean.replace(CONTROL_ALL, '�');
  return clean.includes('\n') ? clean.replaceAll('\n', '\n  ') : clean;
}

function field(name: string, value: string): string {
  return `- **${name}**: ${block(value)}`;
}

export function header(e: GccEvent): string {
  return `**[${KIND[e.type]}-${String(e.seq).padStart(3, '0')}]** ${e.at} | Branch: ${oneLine(e.branch, 120)}`;
}

function body(e: GccEvent): string[] {
  switch (e.type) {
    case 'memory.initialized':
      return [field('Action', `Memory initialized (format ${e.data.format})`)];
    case 'objective.added':
      return [field('Action', `Objective added (${e.data.id}): ${e.data.text}`)];
    case 'objective.checked':
      return [field('Action', `Objective ${e.data.id} checked`)];
    case 'objective.unchecked':
      return [field('Action', `Objective ${e.data.id} unchecked`)];
    case 'objective.removed':
      return [field('Action', `Objective ${e.data.id} removed`)];
    case 'objective.edited':
      return [field('Action', `Objective ${e.data.id} reworded: ${e.data.text}`)];
    case 'notes.patched':
      return [field('Action', 'Notes in main.md edited by hand'), field('Patch', e.data.patch)];
    case 'config.set':
      return [field('Action', `Config ${e.data.key} = ${String(e.data.value)}`)];
    case 'branch.created':
      return [
        field('Action', `Branch ${e.data.name} created from ${e.data.parent}`),
        field('Purpose', e.data.purpose),
        ...e.data.hypotheses.map((h) => field('Hypothesis', h)),
      ];
    case 'branch.switched':
      return [field('Action', `Switched to ${e.data.to}${e.data.session ? ` (session ${e.data.session})` : ''}`)];
    case 'commit.recorded':
      return [field('Action', `Commit ${e.data.label} (${e.data.id}): ${oneLine(e.data.title)}`)];
    case 'branch.merged':
      return [field('Action', `Branch ${e.data.branch} merged into ${e.data.into} (${e.data.commit})`)];
    case 'branch.abandoned':
      return [field('Action', `Branch ${e.data.branch} abandoned`), field('Reason', e.data.reason)];
    case 'ota.logged':
      return [field('Observation', e.data.observation), field('Thought', e.data.thought), field('Action', e.data.action)];
    case 'tool.recorded':
      return [
        field('Observation', `${e.data.isError ? 'Error from' : 'Result of'} ${e.data.tool}: ${e.data.result}`),
        field('Thought', e.data.host ? `tool call via ${e.data.host}` : 'tool call'),
        field('Action', `${e.data.tool} ${e.data.input}`),
        ...(e.data.files.length ? [field('Files', e.data.files.map((f) => `${f.path} (+${f.added} -${f.removed})`).join(', '))] : []),
      ];
    case 'session.started':
      return [field('Action', `Session ${e.data.session} started (${e.data.reason}) in ${e.data.host}`)];
    case 'session.compacted':
      return [field('Action', `Session ${e.data.session} compacted in ${e.data.host}`)];
    case 'session.ended':
      return [field('Action', `Session ${e.data.session} ended (${e.data.reason}) in ${e.data.host}`)];
  }
}

export function renderProse(e: GccEvent): string {
  return [header(e), ...body(e)].join('\n');
}
