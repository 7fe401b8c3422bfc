/**
 * Adopting a person's edits of main.md and metadata.yaml as events. Pure: given the
 * version gctx last wrote (the base), the version on disk and the state, return the events
 * that carry the edit, plus whether some part could not be adopted (the caller keeps that
 * file aside and warns). Diffing against the base, not the current state, keeps another
 * writer's newer events from being read as the person's deletions.
 */
import { diffLib, yamlLib } from '../runtime/lazy-deps.js';
import { type Config, DEFAULT_CONFIG, type NewEvent } from '../events/types.js';
import { MAX_OBJECTIVES } from '../events/rules.js';
import { normalizeLine } from '../decider/objectives.js';
import type { MemoryState } from '../decider/state.js';
import { NO_OBJECTIVES, NOTES_HEADER, OBJECTIVES_HEADER, objectiveText } from './render-main.js';

/** Most changed lines one hand edit of Notes may make (main.md is read as a whole, each turn). */
export const NOTES_EDIT_MAX = 2_000;

/** Lines that differ on both sides between the common head and tail of two texts: the smaller side. */
function rewritten(a: string, b: string): number {
  const x = a.split('\n');
  const y = b.split('\n');
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  return Math.min(x.length - head - tail, y.length - head - tail);
}

export interface Adoption {
  events: NewEvent[];
  /** Something was edited that cannot be carried into the log. */
  unadopted: string[];
}

/** A main.md larger than this is not a hand edit gctx takes in: it is set aside whole. */
export const MAX_HAND_EDIT = 256 * 1024;

interface MainParts {
  /** False when the Objectives heading is missing or renamed: then no objective is touched. */
  hasObjectives: boolean;
  objectives: { text: string; done: boolean }[];
  /** The generated sections, with objectives and notes cut out, for comparison. */
  rest: string;
  notes: string;
  badObjectiveLines: string[];
}

/**
 * What every free text taken from a hand edit goes through before it becomes an event (the engine passes secret
 * redaction).
 */
export type Redact = (text: string) => string;

function splitMain(text: string, redact: Redact): MainParts {
  const notesAt = text.indexOf(`\n${NOTES_HEADER}\n`);
  const head = notesAt === -1 ? text : text.slice(0, notesAt + 1);
  let notes = notesAt === -1 ? '' : text.slice(notesAt + NOTES_HEADER.length + 2);
  if (notes.startsWith('\n')) notes = notes.slice(1);
  const objStart = head.indexOf(`\n${OBJECTIVES_HEADER}\n`);
  const objectives: MainParts['objectives'] = [];
  const badObjectiveLines: string[] = [];
  let rest = head;
  if (objStart !== -1) {
    const bodyStart = objStart + OBJECTIVES_HEADER.length + 2;
    const next = head.indexOf('\n## ', bodyStart - 1);
    const bodyEnd = next === -1 ? head.length : next + 1;
    for (const line of head.slice(bodyStart, bodyEnd).split('\n')) {
      const m = /^\s*[-*] \[( |x|X)\]\s*(.*)$/.exec(line);
      if (m) {
        const t = normalizeLine(redact(m[2]!));
        if (t) objectives.push({ text: t, done: m[1] !== ' ' });
      } else if (line.trim() !== '' && line.trim() !== NO_OBJECTIVES) badObjectiveLines.push(line);
    }
    rest = head.slice(0, bodyStart) + head.slice(bodyEnd);
  }
  return { hasObjectives: objStart !== -1, objectives, rest, notes, badObjectiveLines };
}

/**
 * `redact` is applied to every text the edit brings in (objectives, the Notes section whole,
 * lines quoted in a reason) before anything is compared or diffed: a secret typed into
 * main.md never reaches an event, and a patch is made from text already redacted, so it
 * applies as made. The base was rendered from events, which were redacted when written.
 */
export function adoptMain(
  state: MemoryState,
  base: string,
  disk: string,
  nonce: () => string,
  redact: Redact,
): Adoption {
  if (disk.length > MAX_HAND_EDIT)
    return {
      events: [],
      unadopted: [`main.md is ${disk.length} characters, more than the ${MAX_HAND_EDIT} gctx takes in as a hand edit`],
    };
  const b = splitMain(base, (t) => t);
  const d = splitMain(disk, redact);
  // Notes are redacted as one text: a rule may span lines (a private key block).
  if (d.notes !== b.notes) d.notes = redact(d.notes);
  const events: NewEvent[] = [];
  const unadopted: string[] = [];
  if (!d.hasObjectives) {
    // Renaming or deleting the heading is not a request to drop every objective.
    unadopted.push(`the "${OBJECTIVES_HEADER}" heading is missing or renamed, so no objective was changed`);
    d.objectives = b.objectives;
    d.rest = b.rest;
    d.badObjectiveLines = [];
  }
  if (d.objectives.length > MAX_OBJECTIVES) {
    unadopted.push(
      `${d.objectives.length} objectives, more than the ${MAX_OBJECTIVES} a roadmap holds, so no objective was changed`,
    );
    d.objectives = b.objectives;
  }
  if (d.badObjectiveLines.length)
    unadopted.push(
      `lines under Objectives that are not checkboxes: ${redact(d.badObjectiveLines.slice(0, 3).join(' | '))}`,
    );
  if (b.rest !== d.rest) unadopted.push('edits outside Objectives and Notes (those sections are generated)');

  // Match the base's objectives to state ids by position: the base was rendered from state.
  // An objective is compared as its line showed it: an event from the logs may hold text no line can.
  const shown = state.objectives.map((s) => ({ id: s.id, text: normalizeLine(objectiveText(s.text)) }));
  const baseIds = b.objectives.map((o, i) => ({
    ...o,
    id: shown.find((s, j) => j === i && s.text === o.text)?.id ?? shown.find((s) => s.text === o.text)?.id,
  }));
  const unmatchedBase = new Set(baseIds.map((_, i) => i));
  const unmatchedDisk: number[] = [];
  d.objectives.forEach((o, i) => {
    const j = baseIds.findIndex((x, k) => unmatchedBase.has(k) && x.text === o.text);
    if (j === -1) return unmatchedDisk.push(i);
    unmatchedBase.delete(j);
    const id = baseIds[j]!.id;
    if (id && baseIds[j]!.done !== o.done)
      events.push({ type: o.done ? 'objective.checked' : 'objective.unchecked', data: { id, text: o.text } });
  });
  const leftBase = [...unmatchedBase];
  for (const i of unmatchedDisk) {
    const o = d.objectives[i]!;
    const k = leftBase.shift();
    const old = k === undefined ? undefined : baseIds[k];
    if (old?.id) {
      events.push({ type: 'objective.edited', data: { id: old.id, text: o.text } });
      if (old.done !== o.done)
        events.push({ type: o.done ? 'objective.checked' : 'objective.unchecked', data: { id: old.id, text: o.text } });
    } else {
      const id = `o-${nonce().slice(0, 8)}`;
      events.push({ type: 'objective.added', data: { id, text: o.text } });
      if (o.done) events.push({ type: 'objective.checked', data: { id, text: o.text } });
    }
  }
  for (const k of leftBase) {
    const id = baseIds[k]!.id;
    if (id) events.push({ type: 'objective.removed', data: { id, text: baseIds[k]!.text } });
  }

  if (b.notes !== d.notes) {
    // A diff costs the size of the text times the size of the change: an edit that both removes
    // and adds more than NOTES_EDIT_MAX lines in one stretch is refused, with the reason, rather
    // than left to run for minutes. (Adding or removing a long stretch alone is quick.)
    if (rewritten(b.notes, d.notes) > NOTES_EDIT_MAX) {
      unadopted.push(
        `Notes were rewritten over more than ${NOTES_EDIT_MAX} lines at once; make the change in smaller edits`,
      );
    } else {
      const patch = diffLib().createPatch('main.md#notes', b.notes, d.notes, undefined, undefined, { context: 3 });
      if (diffLib().applyPatch(state.notes, patch) === false)
        unadopted.push('Notes changed here and in the log at the same time');
      else events.push({ type: 'notes.patched', data: { patch } });
    }
  }
  return { events, unadopted };
}

/** A metadata.yaml's document, null when it is not YAML. */
function parsed(text: string): Record<string, unknown> | null {
  try {
    const doc = yamlLib().parse(text) as unknown;
    return doc && typeof doc === 'object' ? (doc as Record<string, unknown>) : {};
  } catch {
    return null;
  }
}

const configIn = (doc: Record<string, unknown>): Record<string, unknown> =>
  typeof doc.config === 'object' && doc.config !== null ? { ...(doc.config as Record<string, unknown>) } : {};

/** The document without what may be edited: `config:`, and the skill's top-level proactive_commits. */
function generated(doc: Record<string, unknown> | null): string {
  const { config: _config, proactive_commits: _p, ...rest } = doc ?? {};
  return JSON.stringify(rest);
}

export function adoptMetadata(base: string, disk: string): Adoption {
  const events: NewEvent[] = [];
  const unadopted: string[] = [];
  const baseDoc = parsed(base);
  const diskDoc = parsed(disk);
  if (diskDoc === null) return { events, unadopted: ['metadata.yaml is not valid YAML'] };
  const b = configIn(baseDoc ?? {});
  const d = configIn(diskDoc);
  // The skill toggles proactive_commits at the top level; accept that spelling too.
  const top = diskDoc.proactive_commits;
  if (top !== undefined && d.proactive_commits === b.proactive_commits) d.proactive_commits = top;
  for (const key of Object.keys(DEFAULT_CONFIG) as (keyof Config)[]) {
    const v = d[key];
    if (v === undefined || v === b[key]) continue;
    if (typeof v !== typeof DEFAULT_CONFIG[key] || (typeof v === 'number' && (!Number.isInteger(v) || v < 1))) {
      unadopted.push(`config.${key} = ${JSON.stringify(v)} is not a valid value`);
      continue;
    }
    events.push({ type: 'config.set', data: { key, value: v as Config[keyof Config] } });
  }
  for (const key of Object.keys(d)) if (!(key in DEFAULT_CONFIG)) unadopted.push(`unknown config key ${key}`);
  if (generated(baseDoc) !== generated(diskDoc)) unadopted.push('edits outside `config:` (those values are generated)');
  return { events, unadopted };
}
