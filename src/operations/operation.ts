/**
 * An operation, declared once: its name, what it is for, its arguments, how the command line
 * spells them, what kind of answer it gives, and what it asks of the engine. Every front end —
 * the CLI, the MCP tools, Pi's tools, `/gcc` and the daemon — is a thin adapter over these
 * declarations and one runner (runner.ts), so names, help, descriptions, argument parsing,
 * errors and the framing of answers agree everywhere.
 *
 * Arguments are declared as plain data (`Fields`): the command line lists, parses and explains
 * them without loading zod; the zod schema that checks a call and the JSON Schema hosts read are
 * built from the same declaration on first use (schema.ts).
 */
import type { ContextQuery } from '../context/query.js';
import type { Memory } from '../engine/memory.js';

/** Where an operation is offered. */
export type Front = 'cli' | 'mcp' | 'pi' | 'slash';

/** What kind of value an argument takes: text, a list of text, a whole number, a switch, one of some words. */
export type FieldKind = 'string' | 'strings' | 'number' | 'boolean' | 'enum';

/** One argument. */
export interface Field {
  kind: FieldKind;
  /** A call must give it. */
  required?: true;
  /** Text: its least length; a number: its least value. */
  min?: number;
  /** The words an `enum` takes. */
  values?: readonly string[];
  /** What it is for: tool descriptions, `--help` and docs/operations.md read it. */
  help?: string;
}

export type Fields = Readonly<Record<string, Field>>;

type ValueOf<F extends Field> = F['kind'] extends 'strings'
  ? string[]
  : F['kind'] extends 'number'
    ? number
    : F['kind'] extends 'boolean'
      ? boolean
      : F extends { values: readonly (infer V)[] }
        ? V
        : string;

/** The arguments a declaration takes, as the operation receives them once checked. */
export type ArgsOf<F extends Fields> = string extends keyof F
  ? Record<string, unknown>
  : { -readonly [K in keyof F as F[K] extends { required: true } ? K : never]: ValueOf<F[K]> } & {
      -readonly [K in keyof F as F[K] extends { required: true } ? never : K]?: ValueOf<F[K]> | undefined;
    };

/**
 * What an answer is, which says how each front end frames it: `memory` is text read from
 * memory (handed to a model framed as project data); `result` says what a write did; `report`
 * is a check's findings (its exit code says whether it found problems).
 */
type AnswerKind = 'memory' | 'result' | 'report';

/** What an operation needs before it runs. */
export type Needs = 'memory' | 'create' | 'none';

/** How the command line spells one argument. */
export interface CliArg {
  /** The argument's field in the schema. */
  field: string;
  /**
   * `positional`: the next word; `rest`: every word left, joined; `flag`: `--name value` (or a switch for booleans).
   */
  as: 'positional' | 'rest' | 'flag';
  /** Flag name when it is not the field's (kebab-case); `--hypothesis` for `hypotheses`. */
  flag?: string;
  /** A flag whose value may be left out (`--branch [name]`): present without a value gives `''`. */
  optionalValue?: boolean;
  /** Other fields this spelling sets (`--log` sets `level: 'log'`). */
  sets?: Record<string, unknown>;
  /** The line `--help` prints for this spelling, when the field's own description does not fit it. */
  help?: string;
}

export interface Answer {
  /** What the reader sees (already inside any budget). */
  text: string;
  /** The same answer as data, for `--json` and MCP's structured content (never repeating `text`). */
  data: Record<string, unknown>;
  /** Exit code when not 0 (verify and doctor report problems this way). */
  exit?: number;
}

export interface RunContext {
  memory: Memory;
  session: string | undefined;
  budget: number | undefined;
  /** The asking front end's spelling of a CONTEXT query, for "how to see more" notes. */
  spell: (q: ContextQuery) => string;
  front: Front;
  /**
   * Given by a front end that prints the answer's text as it is (the command line without
   * `--json`): an answer too long to hold may be written through it in pieces, its text then
   * left empty.
   */
  print?: (chunk: string) => void;
}

export interface BareContext {
  dir: string;
  /** The folder the caller named (--dir), when it named one. */
  explicitDir: string | undefined;
  session: string | undefined;
  budget: number | undefined;
  front: Front;
}

interface Base<F extends Fields> {
  name: string;
  /** One line: the help text, and the tool description where `describe` is not set. */
  summary: string;
  /** The description models read (MCP, Pi): short, it rides in every request. */
  describe?: string;
  /** Its arguments, in the order usage and help list them. */
  args: F;
  cli: CliArg[];
  /** One call as typed on the command line (after `gctx `), for help. */
  example: string;
  answer: AnswerKind;
  /**
   * A read shown before the operation acts (MERGE shows the branch it folds first): the answer
   * is the preview's text, then the result's, framed as memory as a whole.
   */
  preview?: (args: ArgsOf<F>, ctx: RunContext) => Promise<Answer> | Answer;
  /** The same call made by a library caller (the engine's API), for fixes said to one: `memory.execute({…})`. */
  library?: (args: ArgsOf<F>) => string;
  /** Where things stand: a front end adds where it stands itself (its session, channel, settings). */
  overview?: true;
  /** A refusal checked before the memory is opened (or created), in the folder it would be. */
  guard?: (args: ArgsOf<F>, dir: string) => void;
  /** Extra usage words after the generated ones, e.g. `add|check|uncheck|remove`. */
  usage?: string;
  fronts: readonly Front[];
  /** True when the operation only reads (hosts may run it without asking). */
  readOnly: boolean;
  /**
   * The pass over the whole history a call makes, if any, for a front end to prepare for
   * (the command line runs verify in a lean process): `verify` reads every byte, `replay`
   * folds every event again.
   */
  wholePass?: (args: ArgsOf<F>) => WholePass | undefined;
}

type WholePass = 'verify' | 'replay';

export type Operation<F extends Fields = Fields> =
  | (Base<F> & { needs: 'memory' | 'create'; run(args: ArgsOf<F>, ctx: RunContext): Promise<Answer> | Answer })
  | (Base<F> & { needs: 'none'; run(args: ArgsOf<F>, ctx: BareContext): Promise<Answer> | Answer });

/** Declared with its arguments' types kept, stored in the catalogue without them. */
export function operation<const F extends Fields>(op: Operation<F>): Operation {
  return op as unknown as Operation;
}

/** How a front end speaks to its caller. */
export interface Speaker {
  front: Front;
  /** A CONTEXT query as this caller asks for it, for "how to see more" notes. */
  spell(q: ContextQuery): string;
  /** What a call of `op` takes: the fix of an argument error (a usage line, or the fields). */
  usage(op: Operation): string;
  /** A model reads the answers: `op` is called as a tool of this name, and memory is framed as project data. */
  tool?(op: Operation): string;
  /** A `gctx …` call quoted in a fix, in this caller's words; left as it is when not given. */
  call?(words: string): string;
}
