/**
 * Provider tokens from secretlint's recommended preset, the maintained rule set: every scanner
 * rule of the preset is run once on a recording text, which keeps each pattern the rule matches
 * with. The executable does this at build time (scripts/bundle.mjs puts the patterns in as data),
 * since loading and running the preset in every hook process costs several times a redaction.
 */
import { rules } from '@secretlint/secretlint-rule-preset-recommend';

/** A pattern of a rule, as source and flags (data the build can write out). */
export type ProviderPattern = readonly [rule: string, source: string, flags: string];

/** The part of a secretlint rule this reads: its id and type, and its file handler. */
interface ScannerRule {
  meta: { id: string; type: string };
  create(context: object, options: object): { file?(source: object): unknown };
}

/** AWS account ids are not secret (the preset reports them only when asked to). */
const NOT_SECRET = /ACCOUNT\|account/;
/** Rules of the preset that find no secret: its `secretlint-disable` comment filter. */
const NOT_SCANNERS = new Set(['filter-comments']);

/** The patterns each scanner rule of the preset matches a file's text with. */
export function extractProviderPatterns(): ProviderPattern[] {
  const found = new Map<string, ProviderPattern>();
  for (const rule of rules as unknown as readonly ScannerRule[]) {
    const id = rule.meta.id.replace('@secretlint/secretlint-rule-', '');
    if (rule.meta.type !== 'scanner' || NOT_SCANNERS.has(id)) continue;
    const content = Object.assign(new String(''), {
      matchAll(re: RegExp) {
        if (!NOT_SECRET.test(re.source)) found.set(`${re.source}/${re.flags}`, [id, re.source, re.flags]);
        return [][Symbol.iterator]();
      },
    });
    const context = { report() {}, ignore() {}, createTranslator: () => () => '' };
    try {
      // enableIDScanRule: AWS access key ids are secret enough to redact.
      rule.create(context, { enableIDScanRule: true }).file?.({ content, filePath: 'f', ext: '', contentType: 'text' });
    } catch {
      // A rule that reads the text otherwise (a .json or .p12 parser) has no pattern to give.
    }
  }
  return [...found.values()];
}

/** Replaced by the patterns as data in the bundled executable. */
export const PROVIDER_PATTERNS: readonly ProviderPattern[] = extractProviderPatterns();
