/**
 * The repeat guard: before a tool call, is it plainly a retry of an approach the memory records
 * as failed? An approach is what was tried, why it failed, the files it touched and the branch it
 * was tried on (an abandoned branch, or a ruled-out approach the state records). Both are reduced
 * to distinctive tokens — tool, package and file names, flags — dropping stop words and the words
 * every call uses; a call repeats an approach when the tokens they share weigh enough, the
 * approach's own subject (its branch name and what was tried) weighing most. The answer is
 * context for the agent, never a refusal: a new reason may justify trying again.
 *
 * Pure and in memory: no git, no log read (docs/benchmarks.md gives the suite's rates).
 */

/** A failed approach, from an abandoned branch or a recorded ruled-out approach. */
export interface Approach {
  what: string;
  why: string;
  files?: readonly string[];
  branch: string;
  /** The branch itself was abandoned (else the approach was ruled out while on it). */
  abandoned?: boolean;
}

/** The call as the hook sees it: its tool and its input's text. */
interface CallShape {
  tool?: string | undefined;
  input?: unknown;
}

/** What the folded state offers: abandoned branches, and ruled-out approaches where recorded. */
export interface ApproachSource {
  failed: readonly { branch: string; purpose: string; reason: string; merged?: unknown }[];
  failedApproaches?: readonly Approach[];
}

/** Every approach the state records as failed (a branch merged elsewhere is not one). */
export function approachesOf(s: ApproachSource): Approach[] {
  const abandoned = s.failed
    .filter((f) => !f.merged)
    .map((f) => ({ what: f.purpose, why: f.reason, branch: f.branch, abandoned: true }));
  return [...abandoned, ...(s.failedApproaches ?? [])];
}

/*
 * Words that say nothing about which approach a call takes: English glue, and the vocabulary of
 * ordinary development calls (programs, verbs, folders, file kinds, generic subjects).
 */
const COMMON = new Set(
  `
    a an the and or but of to in on at for from by with without into onto over under as is are was were
    be been being it its this that these those not no yes do does did done has have had can could will
    would should may might must so than then there here when where which who what why how all any some
    each every more most less least much many few new old same other another only also just very too
    again once up down out off we our you your they their he she his her them us i me my one two three
    first second last next before after because since while until use used uses using try tried trying
    tries attempt make made makes add added adds remove removed fix fixed fixes run runs ran running get
    set put call calls called work works worked working fail fails failed failing break breaks broke
    broken instead rather via per change changed changes update updated replace replaced switch switched
    move moved keep kept drop dropped need needs want experiment exp spike wip feat feature branch
    approach idea option alt alternative poc prototype npm npx pnpm yarn node git cd ls cat echo grep rg
    sed awk head tail find mkdir rm cp mv touch chmod sh bash env sudo python python3 pip install ci
    exec dlx test tests build start dev lint format check status diff log show commit push pull fetch
    clone src lib dist spec docs doc scripts script bin config configs tmp public app apps packages pkg
    index main ts tsx js jsx mjs cjs json md yaml yml toml sql txt html css lock file files code line
    lines function functions class type types module modules import export const let var return true
    false null undefined error errors warning value values name names path paths data item items list
    lists string number object array key keys server client api http https url request response database
    db table tables query queries cache caching migration migrations schema user users auth login
    session sessions service services handler handlers route routes model models util utils helper
    helpers version versions dependency dependencies package release deploy deployment production prod
    staging local remote default issue issues bug bugs problem problems reason support supported
    unsupported options flag flags setting settings help verbose quiet force save dry watch include
    exclude
  `
    .trim()
    .split(/\s+/),
);

/** A flag (with its value), or a word, name, package or path. */
const TOKEN = /--?[a-z0-9][a-z0-9-]*(?:=[^\s'"]*)?|@?[a-z0-9][a-z0-9._@/+-]*/g;

/** Distinctive tokens of a text: names whole and in parts, flags, file paths and their stems. */
export function tokens(text: string, min = 3): Set<string> {
  const out = new Set<string>();
  const add = (t: string) => {
    const w = t.replace(/^[._/@-]+|[._/@-]+$/g, '');
    if (w.length >= min && !COMMON.has(w) && !/^\d+$/.test(w)) out.add(w);
  };
  for (const m of text.toLowerCase().slice(0, 8000).matchAll(TOKEN)) {
    const t = m[0];
    if (t.startsWith('-')) {
      const flag = t.replace(/=.*$/, '');
      if (flag.length > 3 && !COMMON.has(flag.replace(/^-+/, ''))) out.add(flag);
      continue;
    }
    // A package with a version or scope, a path: the whole, then each part.
    const bare = t.replace(/@[\d^~<>=.x*]+.*$/, '');
    if (/[/@]/.test(bare)) add(bare);
    for (const part of bare.split(/[/@]+/)) {
      add(part);
      const stem = part.replace(/\.[a-z0-9]+$/, '');
      if (stem !== part) add(stem);
      if (/[-_.]/.test(stem)) for (const p of stem.split(/[-_.]+/)) add(p);
    }
  }
  return out;
}

/**
 * The branch's words, less prefixes like `try-` and numbers; `named` when one word is left, the
 * word the branch is named for — which counts though short (`ws`, `zx`) or common elsewhere.
 */
function branchWords(branch: string): { words: string[]; named: string | null } {
  const parts = branch
    .toLowerCase()
    .split(/[/_.-]+/)
    .filter((p) => p && !/^\d+$/.test(p) && !PREFIXES.has(p));
  return { words: parts.filter((p) => p.length >= 3 && !COMMON.has(p)), named: parts.length === 1 ? parts[0]! : null };
}

const PREFIXES = new Set(['try', 'exp', 'spike', 'use', 'wip', 'poc', 'feat', 'fix', 'experiment', 'attempt', 'test']);

/** The call's text: its tool, then every string of its input (commands, paths, contents). */
function callText(call: CallShape): string {
  const parts: string[] = [call.tool ?? ''];
  const walk = (v: unknown, depth: number) => {
    if (parts.length > 200 || depth > 4) return;
    if (typeof v === 'string') parts.push(v.slice(0, 4000));
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(call.input, 0);
  return parts.join('\n');
}

interface Prepared {
  approach: Approach;
  /** Token → weight: the subject (branch name, files, flags, a name in both what and why) 2, other prose less. */
  weights: Map<string, number>;
}

/** A call repeats an approach when it shares one of the approach's subject tokens (weight 2). */
const THRESHOLD = 2;
const PROSE = 0.7;

function prepare(a: Approach): Prepared {
  const weights = new Map<string, number>();
  const what = tokens(a.what);
  const why = tokens(a.why);
  const { words, named } = branchWords(a.branch);
  // What the approach was about is a name said in why it failed and in what was tried (or the
  // branch's name), or the one word a branch is named for; the goal's words are said in the
  // purpose and the branch's name, rarely in the reason.
  for (const t of new Set([...what, ...why, ...words])) {
    weights.set(t, why.has(t) && (what.has(t) || words.includes(t)) ? 2 : PROSE);
  }
  if (named && named.length >= 2) weights.set(named, 2);
  // A file by its path or its name; the folders it sits in are anyone's.
  for (const f of a.files ?? []) {
    const path = f.toLowerCase();
    weights.set(path, 2);
    const base = path.split('/').at(-1)!;
    if (base.length >= 3 && !COMMON.has(base.replace(/\.[a-z0-9]+$/, ''))) weights.set(base, 2);
  }
  // A flag is as distinctive as a name, wherever it was said.
  for (const t of weights.keys()) if (t.startsWith('-')) weights.set(t, 2);
  return { approach: a, weights };
}

/** The approach `call` plainly repeats, best scored first; null for an ordinary call. */
export function repeatOf(call: CallShape, approaches: readonly Approach[]): Approach | null {
  if (!approaches.length) return null;
  const have = tokens(callText(call), 2);
  let best: { a: Approach; score: number } | null = null;
  // A token most approaches share tells none apart: it counts only when few carry it.
  const prepared = approaches.slice(-50).map(prepare);
  const spread = new Map<string, number>();
  for (const p of prepared) for (const t of p.weights.keys()) spread.set(t, (spread.get(t) ?? 0) + 1);
  for (const p of prepared) {
    let score = 0;
    let strong = false;
    for (const [t, w] of p.weights) {
      if (!have.has(t) || (prepared.length >= 4 && spread.get(t)! > prepared.length / 2)) continue;
      score += w;
      strong ||= w >= THRESHOLD;
    }
    if (strong && (!best || score > best.score)) best = { a: p.approach, score };
  }
  return best?.a ?? null;
}

/** What the agent is told: `try-pgroll was abandoned: <reason>`, in one short paragraph. */
export function repeatText(a: Approach): string {
  const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  const why = clip(a.why.replace(/\s+/g, ' ').trim(), 400);
  const which = a.abandoned ? `${a.branch} was abandoned` : `"${clip(a.what, 120)}" was ruled out on ${a.branch}`;
  return `This call looks like a retry of a failed approach: ${which}: ${why}. Retry it only with a new reason.`;
}
