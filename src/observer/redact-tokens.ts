/**
 * Provider tokens that secretlint's preset (redact-provider.ts) misses, or matches only at one
 * exact length: a literal prefix the provider puts on every token, then a bounded run of its
 * charset (the facts follow gitleaks' rule set). A redactor takes a generous length range, since
 * stopping early would leak a token's tail, and no entropy filter: a fake key in a log costs
 * nothing, a real one does. A token starts a word, so the same letters inside a longer run (a
 * base64 image, a hash) are left.
 */

import { Buffer } from 'node:buffer';
import { leadStartingWord, REDACTED, type RedactionRule, rule } from './redact-rule.js';

/** [name, lead (a literal alternation), body]: a token is `lead` starting a word, then `body`. */
type Shape = readonly [name: string, lead: string, body: string];

const SHAPES: readonly Shape[] = [
  ['aws-session-token', 'IQoJb3JpZ2luX2|FwoGZXIvYXdz|FQoGZXIvYXdz', '[A-Za-z0-9/+=]{40,4096}'],
  ['aws-bedrock-key', 'ABSK', '[A-Za-z0-9+/]{100,400}={0,2}'],
  ['aws-key-id', 'ABIA|ACCA|APKA', '[A-Z0-9]{16}(?![A-Za-z0-9])'],
  ['gcp-api-key', 'AIza', '[0-9A-Za-z_-]{30,512}'],
  ['gcp-oauth', 'GOCSPX-|ya29\\.|1//0', '[0-9A-Za-z_-]{20,4096}'],
  ['digitalocean-token', 'do[opr]_v1_', '[a-f0-9]{64}'],
  ['heroku-api-key', 'HRKU-', '[0-9A-Za-z_-]{20,255}'],
  ['vault-token', 'hv[sbr]\\.', '[0-9A-Za-z_-]{20,512}'],
  ['cloudflare-origin-ca-key', 'v1\\.0-', '[a-f0-9]{24}-[a-f0-9]{146}'],
  ['openshift-token', 'sha256~', '[0-9A-Za-z_-]{43}'],
  ['fly-token', 'fo1_', '[0-9A-Za-z_-]{40,255}'],
  ['fly-macaroon', 'fm[12][ar]?_', '[A-Za-z0-9+/]{100,4096}={0,3}'],
  ['supabase-token', 'sbp_|sb_secret_', '[0-9A-Za-z_-]{20,255}'],
  ['grafana-api-key', 'eyJrIjoi', '[A-Za-z0-9]{70,400}={0,3}'],
  ['github-fine-grained-pat', 'github_pat_', '[A-Za-z0-9_]{22,255}'],
  ['gitlab-token', 'gl(?:pat|dt|rt|cbt|ptt|ft|imt|agent|oas|soat|ffct|wt)-|GR1348941', '[0-9A-Za-z_.-]{20,512}'],
  ['atlassian-token', 'ATATT3', '[0-9A-Za-z_=-]{100,512}'],
  ['buildkite-token', 'bkua_', '[a-f0-9]{40}'],
  ['postman-token', 'PMAK-', '[a-f0-9]{24}-[a-f0-9]{34}'],
  ['sentry-token', 'sntry[su]_', '[0-9A-Za-z+/=_-]{40,1024}'],
  ['pypi-token', 'pypi-Ag', '[0-9A-Za-z_-]{50,4096}'],
  ['rubygems-token', 'rubygems_', '[A-Za-z0-9]{40,255}'],
  ['nuget-api-key', 'oy2', '[a-z0-9]{43}(?![A-Za-z0-9])'],
  ['docker-hub-org-token', 'dckr_oat_', '[0-9A-Za-z_-]{20,255}'],
  ['clojars-token', 'CLOJARS_', '[A-Za-z0-9]{40,255}'],
  ['artifactory-token', 'AKCp|cmVmd', '[A-Za-z0-9]{55,255}'],
  ['anthropic-key', 'sk-ant-', '[0-9A-Za-z_-]{20,512}'],
  // sk- is shared by OpenAI (sk-proj-, sk-svcacct-, sk-admin-), DeepSeek and others; a digit
  // early on keeps hyphenated words out (sk-learn-compatible).
  ['openai-style-key', 'sk-', '(?=[A-Za-z_-]{0,48}[0-9])[0-9A-Za-z_-]{16,512}'],
  ['ai-provider-key', 'api_org_|gsk_|r8_|pplx-|xai-|lsv2_(?:pt|sk)_', '[0-9A-Za-z_]{30,255}'],
  ['stripe-webhook-secret', 'whsec_', '[0-9A-Za-z+/=_-]{20,255}'],
  ['square-token', 'sq0(?:atp|csp)-', '[0-9A-Za-z_-]{22,255}'],
  ['twilio-api-key', 'SK', '[0-9a-fA-F]{32}(?![A-Za-z0-9])'],
  ['sendgrid-key', 'SG\\.', '[0-9A-Za-z_-]{16,64}\\.[0-9A-Za-z_-]{16,128}'],
  ['mailgun-key', 'key-', '[a-f0-9]{32}(?![A-Za-z0-9])'],
  ['brevo-key', 'xkeysib-', '[a-f0-9]{64}-[A-Za-z0-9]{16}'],
  ['slack-token', 'xox[abposre]-|xapp-', '[0-9A-Za-z-]{10,512}'],
  ['linear-oauth', 'lin_oauth_', '[A-Za-z0-9]{30,255}'],
  ['notion-token', 'ntn_', '[A-Za-z0-9]{40,255}'],
  ['notion-legacy-token', 'secret_', '[A-Za-z0-9]{43}(?![A-Za-z0-9])'],
  ['mapbox-secret-token', 'sk\\.eyJ', '[0-9A-Za-z_-]{20,1024}\\.[0-9A-Za-z_-]{20,1024}'],
  ['doppler-token', 'dp\\.(?:pt|st|sa|ct|scim|audit)\\.', '[A-Za-z0-9]{40,255}'],
  ['pulumi-token', 'pul-', '[a-f0-9]{40}'],
  ['planetscale-token', 'pscale_(?:tkn|oauth|pw)_', '[0-9A-Za-z_.=-]{30,255}'],
  ['new-relic-key', 'NRAK-', '[A-Z0-9]{27}'],
  ['dynatrace-token', 'dt0c01\\.', '[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}'],
  ['age-secret-key', 'AGE-SECRET-KEY-1', '[A-Z0-9]{58}'],
  // JWTs: a base64url JSON header, a payload and a signature (an empty one still redacted).
  ['jwt', 'eyJ', '[0-9A-Za-z_-]{4,4096}\\.[0-9A-Za-z_-]{4,8192}\\.[0-9A-Za-z_-]{0,4096}'],
];

/** The lowercase literal each branch of a lead starts with, for the rule's keyword gate. */
function keywords(lead: string): string[] {
  return lead.split('|').map((b) => /^[^[(\\]*/.exec(b.replace(/\\\./g, '.'))![0].toLowerCase());
}

/** A Discord bot token's first part is the bot's numeric id in base64: checked, so dotted identifiers are left. */
function discordToken(match: string): string {
  const id = Buffer.from(match.slice(0, match.indexOf('.')), 'base64').toString('latin1');
  return /^[0-9]{15,22}$/.test(id) ? REDACTED : match;
}

export const TOKEN_RULES: readonly RedactionRule[] = [
  // The key id and its 40-character secret side by side (the console's credentials CSV): the
  // key-id rule alone would leave the secret next to a redacted id.
  rule(
    'aws-credential-pair',
    ['akia', 'asia'],
    `${leadStartingWord('AKIA|ASIA')}[A-Z0-9]{16}[ \\t]{0,4}[,:|;\\t ][ \\t]{0,4}[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`,
  ),
  // `aws configure set` puts a space where files put `=`.
  rule(
    'aws-secret-access-key',
    ['secret'],
    '((?:aws_?)?secret_?access_?key|aws_?secret_?key)(\\\\?["\']?[ \\t]{0,4}(?:[:=]' +
      '|[ \\t])[ \\t]{0,8}\\\\?["\']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])',
    `$1$2${REDACTED}`,
    'i',
  ),
  ...SHAPES.map(([name, lead, body]) => {
    return rule(name, keywords(lead), leadStartingWord(lead) + body);
  }),
  rule(
    'azure-ad-client-secret',
    ['q~'],
    leadStartingWord('[A-Za-z0-9_~.]', 'A-Za-z0-9_~.-') +
      '[A-Za-z0-9_~.]{2}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])',
  ),
  rule(
    'terraform-cloud-token',
    ['.atlasv1.'],
    `${leadStartingWord('[A-Za-z0-9]')}[A-Za-z0-9]{13}\\.atlasv1\\.[0-9A-Za-z_=-]{60,255}`,
  ),
  rule('mailchimp-key', ['-us'], `${leadStartingWord('[a-f0-9]')}[a-f0-9]{31}-us[0-9]{1,2}(?![A-Za-z0-9])`),
  rule(
    'discord-bot-token',
    ['.'],
    leadStartingWord('[MNO]', '0-9A-Za-z_-') +
      '[0-9A-Za-z_-]{23,27}\\.[0-9A-Za-z_-]{6,7}\\.[0-9A-Za-z_-]{27,40}(?![0-9A-Za-z_-])',
    discordToken,
  ),
  rule('telegram-bot-token', [':aa'], '(?<![0-9])[0-9]{6,12}:AA[0-9A-Za-z_-]{30,255}'),
];
