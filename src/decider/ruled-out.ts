/**
 * What a commit or a merge's synthesis says was tried and did not work ("ruled out timing (still
 * 3/20)", "bumping the pool size did not help", "dead end: a retry decorator"), as approaches with
 * their reasons: a merged investigation's dead ends are failed approaches as much as an abandoned
 * branch. Read from the text people and agents write, so it errs towards silence: a sentence that
 * only reports a state ("the test still fails", "no effect on behaviour") is not an approach.
 */

export interface RuledOut {
  /** The approach, in the writer's words. */
  what: string;
  /** Why it was dropped: the writer's reason, or the phrase that dropped it. */
  why: string;
}

const WHAT_MAX = 140;
const WHY_MAX = 200;
/** At most this many approaches read from one text: a long synthesis is not a list of failures. */
const PER_TEXT = 6;

/** The verbs of a failed attempt, after what was attempted. */
const VERDICT = new RegExp(
  String.raw`^(?<what>.+?)[\s,:;—–-]*(?:\bbut\s+)?(?:\b(?:it|this|that)\s+)?\b(?<verb>did(?: not|n't) ` +
    String.raw`(?:help|work|fix (?:it|the \w+)|change anything)|does(?: not|n't) (?:help|work)|` +
    String.raw`made no difference|makes no difference|(?:had|has|showed) no effect|(?:was|is)(?: not|` +
    String.raw`n't) the (?:cause|culprit|problem|issue|reason)|(?:was|is|turned out to be|` +
    String.raw`proved) a dead end|(?:was|is|were|got|has been) ruled out|still (?:fail(?:s|ed|ing)?|flak` +
    String.raw`(?:y|es))|failed to help)\b(?<rest>.*)$`,
  'i',
);
/** "ruled out timing (still 3/20)", "ruled out X: reason", "ruled out X because reason". */
const RULED_OUT = new RegExp(
  String.raw`^(?:we\s+|also\s+|then\s+|and\s+)*ruled out\s+(?<what>.+?)(?:\s*\((?<paren>[^)]*)\)\s*$` +
    String.raw`|\s*(?::|—|–| - )\s*(?<colon>.+)$|\s+(?:because|since|as)\s+(?<because>.+)$|$)`,
  'i',
);
/** "dead end: X", "not the cause: X". */
const LEADING = new RegExp(
  String.raw`^(?<verb>dead end|not the cause|no effect|did not help|didn't help)\s*(?::|—|–| - )\s*(?<what>.+)$`,
  'i',
);
/** "reverted X because Y": a revert counts only with its reason. */
const REVERTED = new RegExp(
  String.raw`^(?:we\s+|then\s+|and\s+)*(?:reverted\s+(?<what>.+?)|(?<what2>.+?)\s+(?:was|were|` +
    String.raw`got) reverted)\s*(?:\bbecause\b|\bsince\b|:|—|–| - |\(|,\s*as\b)\s*(?<why>.+?)\)?$`,
  'i',
);
/** A subject that names no approach: the sentence before said it. */
const NO_SUBJECT = new RegExp(
  String.raw`^(?:it|this|that|these|those|which|they|there|nothing|none|the (?:test|tests|build|suite|` +
    String.raw`ci|job|run|bug|issue|problem|flake))$`,
  'i',
);
/** Only a state report, not an attempt, unless an attempt leads the clause. */
const STATE_VERB = /^still\b|^(?:had|has|showed) no effect$/i;
const ATTEMPT = new RegExp(
  String.raw`^(?:we\s+)?(?:tried|trying|with|after|adding|added|bumping|bumped|raising|raised|` +
    String.raw`increasing|increased|switching|switched|using|disabling|disabled|pinning|pinned|moving|` +
    String.raw`moved|changing|changed|setting|replacing|retrying|running)\b`,
  'i',
);
/** "no effect on behaviour" is what a refactor wants, not a failure. */
const HARMLESS =
  /^\s*on\s+(?:the\s+)?(?:behaviou?r|output|results?|semantics|users|(?:public\s+)?api|callers|performance)\b/i;

/** Approaches a text says were tried and dropped, each with its reason; none for ordinary sentences. */
export function ruledOut(text: string): RuledOut[] {
  const out: RuledOut[] = [];
  for (const clause of clauses(text)) {
    const found = one(clause);
    if (found && !out.some((o) => sameApproach(o.what, found.what))) out.push(found);
    if (out.length >= PER_TEXT) break;
  }
  return out;
}

/** Two wordings of one approach: equal once case, spacing and a leading "tried" are set aside. */
export function sameApproach(a: string, b: string): boolean {
  return key(a) === key(b);
}

const key = (s: string): string =>
  s
    .toLowerCase()
    .replace(/^(?:tried|trying)\s+/, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * A clause that only gives the verdict ("still fails 2/20", "it did not help"): it belongs to the attempt before it.
 */
const VERDICT_ONLY =
  /^(?:but\s+)?(?:it\s+|this\s+)?(?:still\b|did(?: not|n't)\b|does(?: not|n't)\b|made no\b|(?:had|has) no effect\b)/i;

function clauses(text: string): string[] {
  const parts = text
    .split(/(?<=[.!?])\s+(?=[A-Z(])|\n+|;\s*/)
    .flatMap((s) => s.split(/,\s*(?=(?:and\s+|also\s+|then\s+)?(?:ruled out|tried|reverted|dead end)\b)/i))
    .map((s) =>
      s
        .trim()
        .replace(/^[-*•]\s+/, '')
        .replace(/[.!]+$/, '')
        .trim(),
    );
  const out: string[] = [];
  for (const p of parts) {
    const prev = out.at(-1);
    if (prev !== undefined && VERDICT_ONLY.test(p) && ATTEMPT.test(prev)) out[out.length - 1] = `${prev}, ${p}`;
    else out.push(p);
  }
  return out.filter((s) => s.length > 3 && s.length < 600);
}

function one(clause: string): RuledOut | null {
  let m = RULED_OUT.exec(clause);
  if (m?.groups) {
    const why = m.groups.paren ?? m.groups.colon ?? m.groups.because;
    return make(m.groups.what!, why ? `ruled out: ${why}` : 'ruled out');
  }
  m = LEADING.exec(clause);
  if (m?.groups) return make(m.groups.what!, m.groups.verb!.toLowerCase());
  m = REVERTED.exec(clause);
  if (m?.groups) return make(m.groups.what ?? m.groups.what2!, `reverted: ${m.groups.why}`);
  m = VERDICT.exec(clause);
  if (!m?.groups) return null;
  const what = m.groups.what!;
  const verb = m.groups.verb!;
  const rest = m.groups.rest!.trim();
  if (STATE_VERB.test(verb) && !ATTEMPT.test(what)) return null;
  if (/no effect$/i.test(verb) && HARMLESS.test(rest)) return null;
  return make(what, `${verb.toLowerCase()}${m.groups.rest!}`);
}

function make(rawWhat: string, rawWhy: string): RuledOut | null {
  const what = rawWhat
    .replace(/^(?:so\s+|then\s+|and\s+|also\s+|first\s+|we\s+)*(?:tried\s+|trying\s+)?/i, '')
    .replace(/[\s,:;—–-]+$/, '')
    .trim();
  if (what.length < 3 || NO_SUBJECT.test(what)) return null;
  return { what: cut(what, WHAT_MAX), why: cut(rawWhy.replace(/\s+/g, ' ').trim(), WHY_MAX) };
}

const cut = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`);
