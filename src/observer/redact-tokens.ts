/**
 * Provider tokens recognised by their own shape: a literal prefix the provider puts on every
 * token (ghp_, glpat-, AKIA, sk-ant-, dckr_pat_ …) followed by a bounded run of its charset. The
 * facts (prefixes, lengths, charsets) follow gitleaks' rule set (config/gitleaks.toml), written
 * afresh here for redaction rather than detection:
 *
 * - Lengths are minimums with a generous bounded maximum, not gitleaks' exact lengths: a scanner
 *   wants precision, a redactor must not stop early and leak a token's tail.
 * - No entropy filter or EXAMPLE allowlist: a fake key in a log costs nothing, a real one does.
 * - Every token must start a word (not follow a letter or digit): the same letters inside a longer run
 *   (a base64 image, a hash, an identifier) are not a token.
 */

import { Buffer } from 'node:buffer';
import { leadStartingWord, REDACTED, type RedactionRule, rule } from './redact-rule.js';

/** A token: `lead`, a short literal that starts a word, then the body `rest`. */
function token(name: string, description: string, keywords: readonly string[], lead: string, rest: string): RedactionRule {
  return rule(name, description, keywords, leadStartingWord(lead) + rest);
}

/** A rule for several token shapes, each a [lead, rest] pair. */
function tokens(name: string, description: string, keywords: readonly string[], shapes: readonly (readonly [string, string])[]): RedactionRule {
  return rule(name, description, keywords, `(?:${shapes.map(([lead, rest]) => leadStartingWord(lead) + rest).join('|')})`);
}

/**
 * A Discord bot token's first segment is the bot's numeric id in base64; checking that it
 * decodes to digits keeps dotted identifiers of the same shape out.
 */
function discordToken(match: string): string {
  const id = Buffer.from(match.slice(0, match.indexOf('.')), 'base64').toString('latin1');
  return /^[0-9]{15,22}$/.test(id) ? REDACTED : match;
}

export const TOKEN_RULES: readonly RedactionRule[] = [
  // --- Cloud ------------------------------------------------------------------------------
  // An access key id followed by its 40-character secret, as in the credentials CSV the AWS
  // console hands out or `aws configure list` style output. Runs before the key-id rule, which
  // would otherwise leave the secret next to a redacted id.
  token(
    'aws-credential-pair',
    'AWS access key id followed by its 40-character secret access key (CSV, table or line)',
    ['akia', 'asia'],
    '(?:AKIA|ASIA)',
    '[A-Z0-9]{16}[ \\t]{0,4}[,:|;\\t ][ \\t]{0,4}[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])',
  ),
  token(
    'aws-access-key-id',
    'AWS access key ids and other unique ids: AKIA, ASIA, ABIA, ACCA, A3T…, AIDA, AROA … + 16',
    ['a3t', 'akia', 'asia', 'abia', 'acca', 'agpa', 'aida', 'aroa', 'aipa', 'anpa', 'anva', 'apka'],
    '(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)',
    '[A-Z0-9]{16}(?![A-Za-z0-9])',
  ),
  // The 40-character secret is only recognisable next to its name; `aws configure set` puts a
  // space where files put `=`. Keyworded values in general are redact-assign.ts's job.
  rule(
    'aws-secret-access-key',
    'AWS secret access key after its name (aws_secret_access_key, SecretAccessKey, AWS_SECRET_KEY), = : or space separated',
    ['secret'],
    '((?:aws_?)?secret_?access_?key|aws_?secret_?key)(\\\\?["\']?[ \\t]{0,4}(?:[:=]|[ \\t])[ \\t]{0,8}\\\\?["\']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])',
    `$1$2${REDACTED}`,
    'i',
  ),
  token(
    'aws-session-token',
    'AWS STS session tokens by their fixed base64 openings (IQoJb3JpZ2luX2…, FwoGZXIvYXdz…)',
    ['iqojb3jpz2lux2', 'fwogzxivyxdz', 'fqogzxivyxdz'],
    '(?:IQoJb3JpZ2luX2|FwoGZXIvYXdz|FQoGZXIvYXdz)',
    '[A-Za-z0-9/+=]{40,4096}',
  ),
  token('aws-bedrock-key', 'Amazon Bedrock long-lived API keys (ABSK…)', ['absk'], 'ABSK', '[A-Za-z0-9+/]{100,400}={0,2}'),
  token('gcp-api-key', 'Google API keys (AIza + 35)', ['aiza'], 'AIza', '[0-9A-Za-z_-]{30,512}'),
  token('gcp-oauth-client-secret', 'Google OAuth client secrets (GOCSPX-…)', ['gocspx-'], 'GOCSPX-', '[0-9A-Za-z_-]{20,512}'),
  token('gcp-oauth-access-token', 'Google OAuth access tokens (ya29.…)', ['ya29.'], 'ya29\\.', '[0-9A-Za-z_-]{20,4096}'),
  token('gcp-oauth-refresh-token', 'Google OAuth refresh tokens (1//0…)', ['1//0'], '1//0', '[0-9A-Za-z_-]{30,1024}'),
  rule(
    'azure-ad-client-secret',
    'Azure AD (Entra) client secrets: 3 chars, a digit, Q~, 31-34 more',
    ['q~'],
    leadStartingWord('[A-Za-z0-9_~.]', 'A-Za-z0-9_~.-') + '[A-Za-z0-9_~.]{2}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])',
  ),
  token('digitalocean-token', 'DigitalOcean tokens (dop_v1_, doo_v1_, dor_v1_ + 64 hex)', ['_v1_'], 'do[opr]_v1_', '[a-f0-9]{64}'),
  token('heroku-api-key', 'Heroku API keys (HRKU-…); the older UUID form only when keyworded', ['hrku-'], 'HRKU-', '[0-9A-Za-z_-]{20,255}'),
  token('databricks-token', 'Databricks tokens (dapi + 32 hex)', ['dapi'], 'dapi', '[a-f0-9]{32}(?:-[0-9])?'),
  token('vault-token', 'HashiCorp Vault service and batch tokens (hvs., hvb.)', ['hvs.', 'hvb.'], 'hv[sb]\\.', '[0-9A-Za-z_-]{20,512}'),
  rule('terraform-cloud-token', 'Terraform Cloud / Enterprise API tokens (….atlasv1.…)', ['.atlasv1.'], leadStartingWord('[A-Za-z0-9]') + '[A-Za-z0-9]{13}\\.atlasv1\\.[0-9A-Za-z_=-]{60,255}'),
  token('cloudflare-origin-ca-key', 'Cloudflare Origin CA keys (v1.0-…)', ['v1.0-'], 'v1\\.0-', '[a-f0-9]{24}-[a-f0-9]{146}'),
  token('openshift-token', 'OpenShift user tokens (sha256~ + 43)', ['sha256~'], 'sha256~', '[0-9A-Za-z_-]{43}'),
  tokens('fly-token', 'Fly.io tokens (fo1_, fm1a_, fm2_ …)', ['fo1_', 'fm1', 'fm2'], [['fo1_', '[0-9A-Za-z_-]{40,255}'], ['fm[12][ar]?_', '[A-Za-z0-9+/]{100,4096}={0,3}']]),
  tokens('supabase-token', 'Supabase access tokens and secret keys (sbp_, sb_secret_)', ['sbp_', 'sb_secret_'], [['sbp_', '[a-f0-9]{40}'], ['sb_secret_', '[0-9A-Za-z_-]{20,255}']]),
  token('tailscale-key', 'Tailscale auth and API keys (tskey-…)', ['tskey-'], 'tskey-', '[a-z]{1,16}-[0-9A-Za-z-]{20,255}'),
  tokens('grafana-token', 'Grafana service-account, cloud and API keys (glsa_, glc_, eyJrIjoi…)', ['glsa_', 'glc_', 'eyjrijoi'],
    [['glsa_', '[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}'], ['glc_', '[A-Za-z0-9+/]{32,400}={0,3}'], ['eyJrIjoi', '[A-Za-z0-9]{70,400}={0,3}']]),

  // --- Source forges and CI ---------------------------------------------------------------
  token('github-token', 'GitHub classic, OAuth, user-to-server, server-to-server and refresh tokens (ghp_, gho_, ghu_, ghs_, ghr_)',
    ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], 'gh[pousr]_', '[A-Za-z0-9]{30,255}'),
  token('github-fine-grained-pat', 'GitHub fine-grained personal access tokens (github_pat_…)', ['github_pat_'], 'github_pat_', '[A-Za-z0-9_]{22,255}'),
  token('gitlab-token', 'GitLab tokens: glpat-, gldt-, glrt-, glcbt-, glptt-, glft-, glimt-, glagent-, gloas-, glsoat-, glffct-',
    ['glpat-', 'gldt-', 'glrt-', 'glcbt-', 'glptt-', 'glft-', 'glimt-', 'glagent-', 'gloas-', 'glsoat-', 'glffct-', 'glwt-'], 'gl(?:pat|dt|rt|cbt|ptt|ft|imt|agent|oas|soat|ffct|wt)-', '[0-9A-Za-z_.-]{20,512}'),
  token('gitlab-runner-registration-token', 'GitLab runner registration tokens (GR1348941…)', ['gr1348941'], 'GR1348941', '[0-9A-Za-z_-]{20,255}'),
  token('atlassian-token', 'Atlassian API tokens (ATATT3…)', ['atatt3'], 'ATATT3', '[0-9A-Za-z_=-]{100,512}'),
  token('buildkite-token', 'Buildkite user access tokens (bkua_)', ['bkua_'], 'bkua_', '[a-f0-9]{40}'),
  token('postman-token', 'Postman API keys (PMAK-…)', ['pmak-'], 'PMAK-', '[a-f0-9]{24}-[a-f0-9]{34}'),
  token('sentry-token', 'Sentry org and user auth tokens (sntrys_, sntryu_)', ['sntry'], 'sntry[su]_', '[0-9A-Za-z+/=_-]{40,1024}'),

  // --- Package registries -----------------------------------------------------------------
  token('npm-token', 'npm access tokens (npm_ + 36)', ['npm_'], 'npm_', '[A-Za-z0-9]{30,255}'),
  token('pypi-token', 'PyPI and TestPyPI upload tokens (pypi-AgE…)', ['pypi-ag'], 'pypi-Ag', '[0-9A-Za-z_-]{50,4096}'),
  token('rubygems-token', 'RubyGems API keys (rubygems_ + 48 hex)', ['rubygems_'], 'rubygems_', '[A-Za-z0-9]{40,255}'),
  token('nuget-api-key', 'NuGet.org API keys (oy2 + 43)', ['oy2'], 'oy2', '[a-z0-9]{43}(?![A-Za-z0-9])'),
  token('docker-hub-token', 'Docker Hub personal and organisation access tokens (dckr_pat_, dckr_oat_)', ['dckr_'], 'dckr_(?:pat|oat)_', '[0-9A-Za-z_-]{20,255}'),
  token('clojars-token', 'Clojars deploy tokens (CLOJARS_…)', ['clojars_'], 'CLOJARS_', '[A-Za-z0-9]{40,255}'),
  tokens('artifactory-token', 'JFrog Artifactory API keys (AKCp…) and reference tokens (cmVmd…)', ['akcp', 'cmvmd'], [['AKCp', '[A-Za-z0-9]{60,255}'], ['cmVmd', '[A-Za-z0-9]{55,255}']]),

  // --- AI providers -----------------------------------------------------------------------
  token('anthropic-key', 'Anthropic API, admin and OAuth keys (sk-ant-…)', ['sk-ant-'], 'sk-ant-', '[0-9A-Za-z_-]{20,512}'),
  // sk- is shared by OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-), DeepSeek and others. A
  // digit somewhere early keeps hyphenated words out ("sk-learn-compatible").
  token('openai-style-key', 'OpenAI-style secret keys: sk-, sk-proj-, sk-svcacct-, sk-admin- (16+ chars holding a digit)', ['sk-'], 'sk-', '(?=[A-Za-z_-]{0,48}[0-9])[0-9A-Za-z_-]{16,512}'),
  token('huggingface-token', 'Hugging Face user and organisation tokens (hf_, api_org_)', ['hf_', 'api_org_'], '(?:hf|api_org)_', '[A-Za-z0-9]{30,255}'),
  token('ai-provider-key', 'Groq (gsk_), Replicate (r8_), Perplexity (pplx-), xAI (xai-), LangSmith (lsv2_pt_, lsv2_sk_) keys',
    ['gsk_', 'r8_', 'pplx-', 'xai-', 'lsv2_'], '(?:gsk_|r8_|pplx-|xai-|lsv2_(?:pt|sk)_)', '[0-9A-Za-z_]{30,255}'),

  // --- Payments, commerce, messaging -------------------------------------------------------
  token('stripe-key', 'Stripe secret and restricted keys (sk_live_, sk_test_, rk_live_ …); publishable pk_ keys are public',
    ['sk_', 'rk_'], '[rs]k_(?:live|test|prod)_', '[0-9A-Za-z]{10,255}'),
  token('stripe-webhook-secret', 'Stripe webhook signing secrets (whsec_)', ['whsec_'], 'whsec_', '[0-9A-Za-z+/=_-]{20,255}'),
  token('square-token', 'Square access tokens and OAuth secrets (sq0atp-, sq0csp-)', ['sq0'], 'sq0(?:atp|csp)-', '[0-9A-Za-z_-]{22,255}'),
  token('shopify-token', 'Shopify access tokens and shared secrets (shpat_, shpca_, shppa_, shpss_ + 32 hex)', ['shp'], 'shp(?:at|ca|pa|ss)_', '[a-fA-F0-9]{32}'),
  token('twilio-api-key', 'Twilio API key SIDs (SK + 32 hex); the auth token only when keyworded', ['sk'], 'SK', '[0-9a-fA-F]{32}(?![A-Za-z0-9])'),
  token('sendgrid-key', 'SendGrid API keys (SG.….…)', ['sg.'], 'SG\\.', '[0-9A-Za-z_-]{16,64}\\.[0-9A-Za-z_-]{16,128}'),
  token('mailgun-key', 'Mailgun private API keys (key- + 32 hex)', ['key-'], 'key-', '[a-f0-9]{32}(?![A-Za-z0-9])'),
  rule('mailchimp-key', 'Mailchimp API keys (32 hex + -us<dc>)', ['-us'], leadStartingWord('[a-f0-9]') + '[a-f0-9]{31}-us[0-9]{1,2}(?![A-Za-z0-9])'),
  token('brevo-key', 'Brevo (Sendinblue) API keys (xkeysib-…)', ['xkeysib-'], 'xkeysib-', '[a-f0-9]{64}-[A-Za-z0-9]{16}'),
  token('slack-token', 'Slack bot, user, app, config and legacy tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxo-, xoxe-, xapp-)',
    ['xox', 'xapp-'], '(?:xox[abposre]|xapp)-', '[0-9A-Za-z-]{10,512}'),
  rule('discord-bot-token', 'Discord bot tokens (base64 bot id . timestamp . HMAC), checked by decoding the id', ['.'],
    leadStartingWord('[MNO]', '0-9A-Za-z_-') + '[0-9A-Za-z_-]{23,27}\\.[0-9A-Za-z_-]{6,7}\\.[0-9A-Za-z_-]{27,40}(?![0-9A-Za-z_-])', discordToken),
  rule('telegram-bot-token', 'Telegram bot tokens (<bot id>:AA + 33)', [':aa'], '(?<![0-9])[0-9]{6,12}:AA[0-9A-Za-z_-]{30,255}'),
  token('linear-key', 'Linear API keys and OAuth tokens (lin_api_, lin_oauth_)', ['lin_'], 'lin_(?:api|oauth)_', '[A-Za-z0-9]{30,255}'),
  tokens('notion-token', 'Notion integration tokens (ntn_…, and the older secret_ + 43)', ['ntn_', 'secret_'],
    [['ntn_', '[A-Za-z0-9]{40,255}'], ['secret_', '[A-Za-z0-9]{43}(?![A-Za-z0-9])']]),
  token('mapbox-secret-token', 'Mapbox secret tokens (sk.eyJ…); public pk. tokens are left', ['sk.eyj'], 'sk\\.eyJ', '[0-9A-Za-z_-]{20,1024}\\.[0-9A-Za-z_-]{20,1024}'),
  tokens('misc-service-key', 'Doppler (dp.pt.), Pulumi (pul-), PlanetScale (pscale_), New Relic (NRAK-), Dynatrace (dt0c01.), 1Password (ops_eyJ), age (AGE-SECRET-KEY-1)',
    ['dp.', 'pul-', 'pscale_', 'nrak-', 'dt0c01.', 'ops_eyj', 'age-secret-key-1'],
    [
      ['dp\\.(?:pt|st|sa|ct|scim|audit)\\.', '[A-Za-z0-9]{40,255}'],
      ['pul-', '[a-f0-9]{40}'],
      ['pscale_(?:tkn|oauth|pw)_', '[0-9A-Za-z_.=-]{30,255}'],
      ['NRAK-', '[A-Z0-9]{27}'],
      ['dt0c01\\.', '[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}'],
      ['ops_eyJ', '[A-Za-z0-9+/]{100,4096}={0,3}'],
      ['AGE-SECRET-KEY-1', '[A-Z0-9]{58}'],
    ]),

  // --- Generic shapes ---------------------------------------------------------------------
  // JWTs (and JWS): a base64url JSON header, a payload and a signature. An unsigned token's
  // empty signature is still redacted, its payload may carry a session.
  token('jwt', 'JSON Web Tokens (eyJ….….…)', ['eyj'], 'eyJ', '[0-9A-Za-z_-]{4,4096}\\.[0-9A-Za-z_-]{4,8192}\\.[0-9A-Za-z_-]{0,4096}'),
];
