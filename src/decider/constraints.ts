/**
 * The user's standing instructions, read from their prompts: the sentences that bind the work
 * ("requirements.txt is frozen by the security review — no new dependencies", "never touch the
 * migrations", "only edit src/billing"), kept in their words until superseded. What supersedes
 * one (docs/agents.md): a newer instruction of the user's on the same subject (the newer wording
 * stands), or a prompt or a commit that lifts it ("no longer frozen", "lifted", "you may now").
 */

export interface Constraint {
  text: string;
  at: string;
  branch: string;
}

/** Words that make a sentence of a prompt a standing instruction. */
const BINDING = new RegExp(
  String.raw`\b(?:must(?:n't| not)?|never|do not|don't|does not|doesn't|cannot|can't|frozen|freeze|only` +
    String.raw`|always|no new|not allowed|forbidden)\b`,
  'i',
);
/** Words that lift an earlier instruction. */
const LIFTING = new RegExp(
  String.raw`\b(?:no longer|not frozen any ?more|unfrozen|unfreeze|lifted|is lifted|you (?:may|can) now` +
    String.raw`|feel free to|ignore (?:what i said|my earlier)|scratch that|forget (?:what i said|` +
    String.raw`that))\b`,
  'i',
);
const SENTENCE_MAX = 240;
/** At most this many instructions read from one prompt: a long prompt is a task, not a rulebook. */
const PER_PROMPT = 3;
const STOP = new Set(
  (
    'must mustn never always only frozen freeze keep avoid allowed forbidden cannot dont does ' +
    'doesnt with from that this these those there their they them your yours have been will ' +
    'would should could into onto upon about after before when while what which where then ' +
    'than also just like make sure please more less very each every some other again still ' +
    'even here'
  ).split(' '),
);

/** The sentences of a prompt that bind the work, each clipped; none for a plain request. */
export function instructionsIn(prompt: string): string[] {
  const out: string[] = [];
  for (const s of sentences(prompt)) {
    if (!BINDING.test(s) || LIFTING.test(s) || /\?$/.test(s)) continue;
    out.push(s.length > SENTENCE_MAX ? `${s.slice(0, SENTENCE_MAX - 1).trimEnd()}…` : s);
    if (out.length >= PER_PROMPT) break;
  }
  return out;
}

/** Does `text` lift an instruction (it says so, on the same subject)? */
export function lifts(text: string, instruction: string): boolean {
  return sentences(text).some((s) => LIFTING.test(s) && sameSubject(s, instruction));
}

/** Two sentences about one subject: a name they share (a file, an identifier), or most of the shorter one's words. */
export function sameSubject(a: string, b: string): boolean {
  const wa = words(a);
  const wb = words(b);
  const shared = [...wa].filter((w) => wb.has(w));
  if (shared.some((w) => /[._/\d-]/.test(w))) return true;
  const fewer = Math.min(wa.size, wb.size);
  return fewer > 0 && shared.length >= Math.max(2, Math.ceil(fewer / 2));
}

function words(s: string): Set<string> {
  return new Set(
    s
      .toLowerCase()
      .replace(/[’']/g, '')
      .split(/[^\p{L}\p{N}._/-]+/u)
      .map((w) => w.replace(/^[._/-]+|[._/-]+$/g, ''))
      .filter((w) => w.length >= 4 && !STOP.has(w)),
  );
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) =>
      s
        .replace(/\s+/g, ' ')
        .replace(/^[-*•>\s]+/, '')
        .trim(),
    )
    .filter((s) => s.length >= 8);
}
