/**
 * The redaction corpus: secrets of every kind the redactor covers, each in the form a tool
 * input or output shows it, and ordinary text that must come out unchanged. Token-shaped
 * secrets are generated from a fixed seed at run time, so no string in this repository looks
 * like a live credential to a secret scanner, and every run sees the same values.
 */

import { Buffer } from 'node:buffer';

let seed = 0x5eed;
/** mulberry32: a small deterministic generator. */
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';
const B64 = ALNUM + '+/';

/** `n` characters drawn from `alphabet`, always holding a digit when the alphabet has one. */
export function gen(alphabet: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(random() * alphabet.length)];
  return /[0-9]/.test(alphabet) && !/[0-9]/.test(s) ? `${s.slice(0, -1)}7` : s;
}
const b64 = (text: string) => Buffer.from(text).toString('base64');
/** Base64 wrapped at 76 columns, as base64(1) prints it. */
const wrapped = (text: string) => b64(text).replace(/.{76}/g, '$&\n').trimEnd();

// Generated secrets, one per kind (joined from parts so no literal here is a whole token).
const awsId = 'AKIA' + gen(UPPER + '234567', 16);
const awsSecret = gen(ALNUM, 30) + '/' + gen(ALNUM + '+', 9);
const awsSession = 'IQoJb3JpZ2luX2' + gen(B64, 300);
const gcpKey = 'AIza' + gen(ALNUM + '_-', 35);
const pemBody = Array.from({ length: 6 }, () => gen(B64, 64));
const ghp = 'ghp' + '_' + gen(ALNUM, 36);
const ghs = 'ghs' + '_' + gen(ALNUM, 36);
const ghFine = 'github' + '_pat_11' + gen(UPPER + DIGITS, 20) + '_' + gen(ALNUM, 59);
const glpat = 'glpat' + '-' + gen(ALNUM + '_-', 20);
const glrt = 'glrt' + '-' + gen(ALNUM, 20);
const slackBot = 'xoxb' + '-' + gen(DIGITS, 12) + '-' + gen(DIGITS, 13) + '-' + gen(ALNUM, 24);
const slackHook = gen(UPPER + DIGITS, 9) + '/' + gen(UPPER + DIGITS, 11) + '/' + gen(ALNUM, 24);
const stripe = 'sk' + '_live_' + gen(ALNUM, 99);
const whsec = 'whsec' + '_' + gen(ALNUM, 32);
const openai = 'sk' + '-proj-' + gen(ALNUM + '_-', 156);
const anthropic = 'sk' + '-ant-api03-' + gen(ALNUM + '_-', 93) + 'AA';
const hf = 'hf' + '_' + gen(UPPER + LOWER, 34);
const npm = 'npm' + '_' + gen(ALNUM, 36);
const pypi = 'pypi' + '-AgEIcHlwaS5vcmc' + gen(ALNUM + '_-', 120);
const rubygems = 'rubygems' + '_' + gen(HEX, 48);
const nuget = 'oy2' + gen(LOWER + DIGITS, 43);
const dockerPat = 'dckr' + '_pat_' + gen(ALNUM + '_-', 27);
const twilio = 'SK' + gen(HEX, 32);
const sendgrid = 'SG' + '.' + gen(ALNUM + '_-', 22) + '.' + gen(ALNUM + '_-', 43);
const mailgun = 'key' + '-' + gen(HEX, 32);
const shopify = 'shpat' + '_' + gen(HEX, 32);
const databricks = 'dapi' + gen(HEX, 32);
const digitalocean = 'dop' + '_v1_' + gen(HEX, 64);
const heroku = 'HRKU' + '-AA' + gen(ALNUM + '_-', 58);
const linear = 'lin' + '_api_' + gen(ALNUM, 40);
const notion = 'ntn' + '_' + gen(DIGITS, 11) + gen(ALNUM, 35);
const discord =
  b64('1' + gen(DIGITS, 17)).replace(/=+$/, '') + '.' + gen(ALNUM + '_-', 6) + '.' + gen(ALNUM + '_-', 38);
const telegram = gen(DIGITS, 10) + ':AA' + gen(ALNUM + '_-', 33);
const jwt =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9' +
  '.' +
  b64(`{"sub":"${gen(DIGITS, 10)}","name":"Jo"}`).replace(/=+$/, '') +
  '.' +
  gen(ALNUM + '_-', 43);
const vault = 'hvs' + '.' + gen(ALNUM + '_-', 90);
const azureAd = gen(ALNUM, 3) + '8Q~' + gen(ALNUM + '_~.-', 34);
const azureKey = gen(B64, 86) + '==';
const azureSig = gen(ALNUM, 30) + '%2B' + gen(ALNUM, 10) + '%3D';
const password = 'Tr0ub4dor&3x' + gen(ALNUM, 6);
const dbPassword = 'pg' + gen(ALNUM, 14);
const cliToken = gen(ALNUM, 24);
const cliKey = gen(ALNUM, 32);
const azdoPat = gen(LOWER + '234567', 52);
const openaiLegacy = 'sk' + '-' + gen(ALNUM, 20) + 'T3Blbk' + 'FJ' + gen(ALNUM, 20);
const stripeRestricted = 'rk' + '_live_' + gen(ALNUM, 40);
const shopifySecret = 'shpss' + '_' + gen(HEX, 32);
const groq = 'gsk' + '_' + gen(ALNUM, 52);
const vercel = 'vcp' + '_' + gen(ALNUM, 40);
const figma = 'figd' + '_' + gen(ALNUM + '_-', 40);
const tailscale = 'tskey' + '-auth-' + gen(ALNUM, 16) + '-' + gen(ALNUM, 30);
const grafanaSa = 'glsa' + '_' + gen(ALNUM, 32) + '_' + gen(HEX, 8);
const onePassword = 'ops' + '_eyJ' + gen(ALNUM, 120) + 'fQ==';
const twilioAuth = gen(HEX, 32);
const amzSig = gen(HEX, 64);
const discordHook = gen(ALNUM + '_-', 68);

/** One token per prefix of our own table that no sample below shows in context: each seen alone in output. */
const PREFIXED: [string, string][] = [
  ['aws-bedrock-key', 'ABSK' + gen(B64, 120)],
  ['aws-key-id', 'APKA' + gen(UPPER + DIGITS, 16)],
  ['gcp-oauth', 'ya29' + '.' + gen(ALNUM + '_-', 60)],
  ['openshift-token', 'sha256' + '~' + gen(ALNUM + '_-', 43)],
  ['fly-token', 'fo1' + '_' + gen(ALNUM, 45)],
  ['fly-macaroon', 'fm2' + '_' + gen(B64, 120)],
  ['supabase-token', 'sbp' + '_' + gen(HEX, 40)],
  ['grafana-api-key', 'eyJrIjoi' + gen(ALNUM, 80)],
  ['atlassian-token', 'ATATT3' + gen(ALNUM, 120)],
  ['buildkite-token', 'bkua' + '_' + gen(HEX, 40)],
  ['postman-token', 'PMAK' + '-' + gen(HEX, 24) + '-' + gen(HEX, 34)],
  ['sentry-token', 'sntrys' + '_' + gen(ALNUM, 60)],
  ['clojars-token', 'CLOJARS' + '_' + gen(ALNUM, 60)],
  ['artifactory-token', 'AKCp' + gen(ALNUM, 70)],
  ['square-token', 'sq0atp' + '-' + gen(ALNUM, 22)],
  ['brevo-key', 'xkeysib' + '-' + gen(HEX, 64) + '-' + gen(ALNUM, 16)],
  ['linear-oauth', 'lin' + '_oauth_' + gen(ALNUM, 40)],
  ['notion-legacy-token', 'secret' + '_' + gen(ALNUM, 43)],
  ['mapbox-secret-token', 'sk' + '.eyJ' + gen(ALNUM, 30) + '.' + gen(ALNUM, 22)],
  ['doppler-token', 'dp' + '.pt.' + gen(ALNUM, 43)],
  ['pulumi-token', 'pul' + '-' + gen(HEX, 40)],
  ['planetscale-token', 'pscale' + '_tkn_' + gen(ALNUM, 43)],
  ['new-relic-key', 'NRAK' + '-' + gen(UPPER + DIGITS, 27)],
  ['dynatrace-token', 'dt0c01' + '.' + gen(UPPER + DIGITS, 24) + '.' + gen(ALNUM, 64)],
  ['terraform-cloud-token', gen(ALNUM, 14) + '.atlasv1.' + gen(ALNUM, 70)],
  ['mailchimp-key', gen(HEX, 32) + '-us12'],
  ['cloudflare-origin-ca-key', 'v1.0' + '-' + gen(HEX, 24) + '-' + gen(HEX, 146)],
  ['gitlab-token', 'glptt' + '-' + gen(ALNUM, 40)],
  ['github-fine-grained-pat', 'github' + '_pat_' + gen(ALNUM, 40)],
  ['vault-token', 'hvb' + '.' + gen(ALNUM, 60)],
  ['docker-hub-org-token', 'dckr' + '_oat_' + gen(ALNUM + '_-', 32)],
  ['heroku-api-key', heroku],
  ['digitalocean-token', digitalocean],
];

export interface TruePositive {
  kind: string;
  text: string;
  /** Substrings that must be gone from the output. */
  secrets: string[];
  /** Substrings that must survive (the name, the user, the host). */
  keep?: string[];
}

const tp = (kind: string, text: string, secrets: string | string[], keep?: string[]): TruePositive => ({
  kind,
  text,
  secrets: Array.isArray(secrets) ? secrets : [secrets],
  ...(keep ? { keep } : {}),
});

export const TRUE_POSITIVES: TruePositive[] = [
  tp('aws-access-key-id', `$ env | grep AWS\nAWS_ACCESS_KEY_ID=${awsId}\nAWS_REGION=eu-west-1`, awsId, [
    'AWS_REGION=eu-west-1',
  ]),
  tp(
    'aws-secret-access-key',
    `[default]\naws_access_key_id = ${awsId}\naws_secret_access_key = ${awsSecret}\n`,
    [awsId, awsSecret],
    ['aws_secret_access_key = '],
  ),
  tp('aws-secret-access-key', `aws configure set aws_secret_access_key ${awsSecret} --profile ci`, awsSecret, [
    '--profile ci',
  ]),
  tp(
    'aws-secret-access-key',
    `{"Credentials": {"AccessKeyId": "${awsId.replace('AKIA', 'ASIA')}", "SecretAccessKey": ` +
      `"${awsSecret}", "SessionToken": "${awsSession}"}}`,
    [awsSecret, awsSession, awsId.replace('AKIA', 'ASIA')],
  ),
  tp(
    'aws-credential-pair',
    `User name,Password,Access key ID,Secret access key\nci-bot,,${awsId},${awsSecret}`,
    [awsId, awsSecret],
    ['ci-bot'],
  ),
  tp('aws-session-token', `export AWS_SESSION_TOKEN="${awsSession}"`, awsSession, ['AWS_SESSION_TOKEN=']),
  tp('gcp-api-key', `curl "https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key=${gcpKey}"`, gcpKey, [
    'maps.googleapis.com',
  ]),
  tp(
    'gcp-service-account',
    JSON.stringify({
      type: 'service_account',
      project_id: 'demo',
      private_key_id: gen(HEX, 40),
      private_key: `-----BEGIN PRIVATE KEY-----\n${pemBody.join('\n')}\n-----END PRIVATE KEY-----\n`,
      client_email: 'ci@demo.iam.gserviceaccount.com',
    }),
    pemBody,
    ['ci@demo.iam.gserviceaccount.com'],
  ),
  tp(
    'azure-storage-connection-string',
    `AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=demo;AccountKe` +
      `y=${azureKey};EndpointSuffix=core.windows.net"`,
    azureKey,
    ['AccountName=demo'],
  ),
  tp(
    'azure-storage-key',
    `$ az storage account keys list -n demo\n[\n  {\n    "keyName": "key1",\n    ` +
      `"permissions": "FULL",\n    "value": "${azureKey}"\n  }\n]`,
    azureKey,
    ['"keyName": "key1"'],
  ),
  tp(
    'azure-sas',
    `GET https://demo.blob.core.windows.net/c/report.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-` +
      `01-01T00:00:00Z&sig=${azureSig} HTTP/1.1`,
    azureSig,
    ['demo.blob.core.windows.net'],
  ),
  tp(
    'azure-ad-client-secret',
    `az login --service-principal -u 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 --tenant ` +
      `contoso.onmicrosoft.com\n  "password": "${azureAd}"`,
    azureAd,
  ),
  tp(
    'azure-ad-client-secret',
    `Set-PSUAuthenticationMethod -Type 'OpenIDConnect' -ClientId 'app' -ClientSecret '${azureAd}'`,
    azureAd,
  ),
  tp('github-token', `git push https://x-access-token:${ghs}@github.com/org/repo.git HEAD:main`, ghs, [
    'github.com/org/repo.git',
  ]),
  tp(
    'github-token',
    `$ gh auth status\ngithub.com\n  ✓ Logged in to github.com account bob (keyring)\n  - Token: ${ghp}`,
    ghp,
    ['Logged in'],
  ),
  tp('github-fine-grained-pat', `GH_TOKEN: ${ghFine}`, ghFine),
  tp('gitlab-token', `curl --header "PRIVATE-TOKEN: ${glpat}" "https://gitlab.example.com/api/v4/projects"`, glpat, [
    'gitlab.example.com',
  ]),
  tp(
    'gitlab-runner-token',
    `[[runners]]\n  name = "ci"\n  url = "https://gitlab.com/"\n  token = "${glrt}"\n  executor = "docker"`,
    glrt,
    ['executor = "docker"'],
  ),
  tp('slack-token', `SLACK_BOT_TOKEN=${slackBot}`, slackBot),
  tp(
    'slack-webhook',
    `curl -X POST -d '{"text":"deploy done"}' https://hooks.slack.com/services/${slackHook}`,
    slackHook,
    ['hooks.slack.com/services/'],
  ),
  tp('stripe-key', `# .env\nSTRIPE_SECRET_KEY=${stripe}\nSTRIPE_PUBLISHABLE_KEY=pk_live_placeholder`, stripe),
  tp(
    'stripe-webhook-secret',
    `Error: No signatures found matching the expected signature for payload.\n    at ` +
      `Webhooks.constructEvent (node_modules/stripe/lib/Webhooks.js:41:15)\n  secret ` +
      `used: ${whsec}`,
    whsec,
  ),
  tp('openai-key', `client = OpenAI(api_key="${openai}")`, openai, ['client = OpenAI(api_key=']),
  tp(
    'anthropic-key',
    `POST /v1/messages HTTP/1.1\nHost: api.anthropic.com\nx-api-key: ${anthropic}\nanthropic-version: 2023-06-01`,
    anthropic,
    ['anthropic-version: 2023-06-01'],
  ),
  tp('huggingface-token', `$ huggingface-cli login --token ${hf} --add-to-git-credential`, hf),
  tp('huggingface-token', `HF_TOKEN ${hf}`, hf),
  tp('npm-token', `$ cat ~/.npmrc\n//registry.npmjs.org/:_authToken=${npm}\nalways-auth=true`, npm, [
    'always-auth=true',
  ]),
  tp('pypi-token', `[pypi]\n  username = __token__\n  password = ${pypi}`, pypi, ['username = __token__']),
  tp('rubygems-token', `---\n:rubygems_api_key: ${rubygems}`, rubygems),
  tp(
    'nuget-api-key',
    `dotnet nuget push Demo.1.0.0.nupkg --api-key ${nuget} --source https://api.nuget.org/v3/index.json`,
    nuget,
    ['api.nuget.org'],
  ),
  tp(
    'nuget-config-password',
    `<packageSourceCredentials>\n  <github>\n    <add key="Username" value="bob" />\n    <add ` +
      `key="ClearTextPassword" value="${password}" />\n  </github>\n</packageSourceCredentials>`,
    password,
    ['value="bob"'],
  ),
  tp(
    'docker-hub-token',
    `$ docker login -u bob -p ${dockerPat} registry-1.docker.io\nWARNING! Using --password via the CLI is insecure.`,
    dockerPat,
    ['docker login -u bob -p'],
  ),
  tp(
    'docker-config-auth',
    `{\n  "auths": {\n    "https://index.docker.io/v1/": {\n      "auth": "${b64(`bob:${password}`)}"\n    }\n  }\n}`,
    [b64(`bob:${password}`), password],
  ),
  tp('twilio', `TWILIO_API_KEY=${twilio}\nTWILIO_AUTH_TOKEN=${gen(HEX, 32)}`, twilio),
  tp('sendgrid', `sg = SendGridAPIClient('${sendgrid}')`, sendgrid),
  tp(
    'mailgun',
    `requests.post("https://api.mailgun.net/v3/mg.example.com/messages", auth=("api", "${mailgun}"))`,
    mailgun,
  ),
  tp('shopify', `X-Shopify-Access-Token: ${shopify}`, shopify),
  tp('databricks', `databricks configure --host https://adb-1.azuredatabricks.net --token ${databricks}`, databricks),
  tp('digitalocean', `doctl auth init --access-token ${digitalocean}`, digitalocean),
  tp('heroku', `heroku config:set HEROKU_API_KEY=${heroku} -a demo`, heroku),
  tp(
    'heroku-netrc',
    `machine api.heroku.com\n  login bob@example.com\n  password ${heroku}\nmachine ` +
      `git.heroku.com\n  login bob@example.com\n  password ${password}`,
    [heroku, password],
    ['login bob@example.com'],
  ),
  tp('linear', `const linear = new LinearClient({ apiKey: "${linear}" });`, linear),
  tp('notion', `NOTION_TOKEN=${notion} node sync.js`, notion),
  tp('discord-bot-token', `client.login('${discord}');`, discord),
  tp(
    'telegram-bot-token',
    `requests.get("https://api.telegram.org/bot${telegram}/sendMessage?chat_id=42&text=hi")`,
    telegram,
    ['api.telegram.org/bot'],
  ),
  tp(
    'jwt',
    `HTTP/1.1 200 OK\nSet-Cookie: session=${jwt}; Path=/; HttpOnly; Secure\nContent-Type: application/json`,
    jwt,
    ['Path=/', 'Content-Type: application/json'],
  ),
  tp('vault-token', `export VAULT_ADDR=https://vault:8200\nvault login ${vault}`, vault, [
    'VAULT_ADDR=https://vault:8200',
  ]),
  tp(
    'pem-private-key',
    `$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n${pemBody.join('\n')}\n-----END RSA PRIVATE KEY-----\n$ ls`,
    pemBody,
    ['$ ls'],
  ),
  tp(
    'ssh-private-key',
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${pemBody.slice(0, 3).join('\n')}\n-----END OPENSSH PRIVATE KEY-----`,
    pemBody.slice(0, 3),
  ),
  tp(
    'pgp-private-key',
    `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${pemBody.slice(2).join('\n')}\n=AbCd\n-----END ` +
      `PGP PRIVATE KEY BLOCK-----`,
    pemBody.slice(2),
  ),
  tp(
    'pem-json-escaped',
    `{"tls": {"key": "-----BEGIN EC PRIVATE ` +
      `KEY-----\\n${pemBody[0]}\\n${pemBody[1]}\\n-----END EC PRIVATE KEY-----\\n"}}`,
    [pemBody[0]!, pemBody[1]!],
  ),
  tp('database-url', `DATABASE_URL=postgres://app:${dbPassword}@db.internal:5432/app?sslmode=require`, dbPassword, [
    'postgres://app:',
    '@db.internal:5432/app',
  ]),
  tp(
    'database-url',
    `Error: connect ECONNREFUSED\n    at TCPConnectWrap.afterConnect [as oncomplete] ` +
      `(node:net:1555:16)\n  url: 'mysql://root:${dbPassword}@127.0.0.1:3306/shop'`,
    dbPassword,
    ['mysql://root:', '@127.0.0.1:3306/shop'],
  ),
  tp('database-url', `mongosh "mongodb+srv://admin:${dbPassword}@cluster0.ab1cd.mongodb.net/test"`, dbPassword, [
    'cluster0.ab1cd.mongodb.net',
  ]),
  tp('database-url', `REDIS_URL=redis://:${dbPassword}@cache:6379/0`, dbPassword, ['@cache:6379/0']),
  tp('git-url-credentials', `$ git clone https://bob:${glpat}@gitlab.com/team/app.git\nCloning into 'app'...`, glpat, [
    "Cloning into 'app'",
  ]),
  tp(
    'basic-auth',
    `GET /api HTTP/1.1\nHost: example.com\nAuthorization: Basic ${b64(`bob:${password}`)}\nAccept: */*`,
    [b64(`bob:${password}`), password],
    ['Authorization: Basic', 'Accept: */*'],
  ),
  tp('bearer-auth', `curl -s -H "Authorization: Bearer ${jwt}" https://api.example.com/v1/me`, jwt, [
    'Authorization: Bearer',
  ]),
  tp('curl-user', `curl -u deploy:${password} https://artifacts.example.com/upload -T build.zip`, password, [
    'curl -u deploy:',
    '-T build.zip',
  ]),
  tp('curl-user', `curl --user=deploy:${password} https://artifacts.example.com/`, password),
  tp('mysql-password', `mysql -h db -uroot -p${password} shop -e "select 1"`, password, ['-e "select 1"']),
  tp('mysql-password', `mysqldump -u root -p'${password}' --all-databases > dump.sql`, password),
  tp('mysql-password', `mysql --user=root --password=${password} shop`, password),
  tp('sshpass', `sshpass -p '${password}' ssh -o StrictHostKeyChecking=no deploy@10.0.0.5 uptime`, password, [
    'deploy@10.0.0.5',
  ]),
  tp('docker-login-password', `docker login registry.example.com -u ci -p ${password}`, password),
  tp('redis-cli-password', `redis-cli -h cache -a ${password} PING`, password, ['PING']),
  tp('cli-password-flag', `psql-wrapper --host db --password ${password} --dbname app`, password, ['--dbname app']),
  tp('cli-token-flag', `vercel deploy --prod --token=${cliToken}`, cliToken, ['vercel deploy --prod --token=']),
  tp('cli-api-key-flag', `["node", "cli.js", "--api-key", "${cliKey}"]`, cliKey, ['"--api-key", "']),
  tp('openssl-passin', `openssl rsa -in key.pem -passin pass:${password} -out plain.pem`, password, ['-out plain.pem']),
  tp('ssh-keygen-passphrase', `ssh-keygen -t ed25519 -N '${password}' -f ~/.ssh/deploy`, password),
  tp('gh-secret-body', `gh secret set NPM_TOKEN --body "${npm}" --repo org/app`, npm, ['--repo org/app']),
  tp(
    'kubectl-from-literal',
    `kubectl create secret generic api --from-literal=apiKey=${gen(ALNUM, 30)} --from-literal=dsn=${dbPassword}`,
    dbPassword,
    ['--from-literal=apiKey='],
  ),
  tp('env-password', `$ PGPASSWORD=${dbPassword} psql -h db -U app -c 'select 1'`, dbPassword, ['psql -h db -U app']),
  tp('env-export', `export DB_PASSWORD='${password}'\nexport API_SECRET=${gen(ALNUM, 40)}`, password, [
    'export DB_PASSWORD=',
  ]),
  tp('env-pat', `$ az devops login\nAZURE_DEVOPS_EXT_PAT=${azdoPat}`, azdoPat, ['$ az devops login']),
  tp(
    'passphrase-line',
    `$ cat vault.txt\npassword: correct horse battery staple\nuser: bob`,
    ['correct horse', 'battery staple'],
    ['user: bob'],
  ),
  tp('passphrase-line', `passphrase=correct horse battery staple`, ['correct horse', 'battery staple']),
  tp(
    'keyword-punctuated-value',
    `SECRET_KEY = Zx9!abc(def)ghi\nDEBUG = False`,
    ['Zx9!abc', '(def)ghi'],
    ['DEBUG = False'],
  ),
  tp('keyword-punctuated-value', `DJANGO_SECRET_KEY = django-insecure-(k3y)!@#x`, ['django-insecure', '(k3y)!@#x']),
  tp(
    'env-file',
    `NODE_ENV=production\nJWT_SECRET=${gen(ALNUM, 48)}\nSESSION_SECRET="${password}"\nPORT=3000`,
    password,
    ['NODE_ENV=production', 'PORT=3000'],
  ),
  tp('json-api-key', `{"service": "maps", "api_key": "${gen(ALNUM, 32)}", "client_secret": "${password}"}`, password, [
    '"service": "maps"',
  ]),
  tp(
    'yaml-secret',
    `database:\n  host: db.internal\n  username: app\n  password: ${dbPassword}\nsmtp:\n  password: "${password}"`,
    [dbPassword, password],
    ['username: app'],
  ),
  tp('toml-secret', `[auth]\nsecret_key = "${password}"\nissuer = "https://auth.example.com"`, password, [
    'issuer = "https://auth.example.com"',
  ]),
  tp(
    'properties-secret',
    `spring.datasource.url=jdbc:postgresql://db:5432/app\nspring.datasource.password=${dbPassword}`,
    dbPassword,
    ['jdbc:postgresql://db:5432/app'],
  ),
  tp(
    'php-define',
    `define( 'DB_PASSWORD', '${password}' );\ndefine( 'AUTH_KEY', '${gen(ALNUM + '!@#', 64)}' );`,
    password,
    ["define( 'DB_PASSWORD', '"],
  ),
  tp(
    'maven-settings',
    `<server>\n  <id>nexus</id>\n  <username>deploy</username>\n  <password>${password}</password>\n</server>`,
    password,
    ['<username>deploy</username>'],
  ),
  tp('cookie-header', `Cookie: _ga=GA1.2.3; sessionid=${gen(ALNUM, 32)}x; csrftoken=${password}`, password, [
    'Cookie: _ga=',
  ]),
  // secretlint's preset (redact-provider.ts) supplies these shapes.
  tp('openai-key', `OPENAI_API_KEY=${openaiLegacy}`, openaiLegacy),
  tp('stripe-restricted-key', `stripe.api_key = '${stripeRestricted}'`, stripeRestricted),
  tp('shopify-shared-secret', `Shopify secret ${shopifySecret} rotated`, shopifySecret),
  tp('groq-key', `client = Groq(api_key=os.environ.get("GROQ") or "${groq}")`, groq),
  tp('vercel-token', `vercel whoami --scope team ${vercel}`, vercel),
  tp('figma-token', `X-Figma-Token: ${figma}`, figma),
  tp('tailscale-key', `tailscale up --authkey=${tailscale}`, tailscale),
  tp('grafana-service-account', `grafana token ${grafanaSa}`, grafanaSa),
  tp('1password-service-account', `export OP_SERVICE_ACCOUNT_TOKEN=${onePassword}`, onePassword.slice(4)),
  tp('twilio-auth-token', `TWILIO_AUTH_TOKEN=${twilioAuth}`, twilioAuth, ['TWILIO_AUTH_TOKEN=']),
  // Our own rules: command lines, assignments, PowerShell, encodings, names.
  tp('sshpass-env', `SSHPASS=${password} sshpass -e ssh deploy@10.0.0.5`, password, ['sshpass -e ssh deploy@10.0.0.5']),
  tp('mysql-password', `mysql -p${password}`, password),
  tp('api-key-env', `API_KEY=${cliKey}`, cliKey, ['API_KEY=']),
  tp('yaml-secret', `app:\n  secret: ${cliToken}\n  name: web`, cliToken, ['name: web']),
  tp('full-width-colon', `password：${password}`, password, ['password：']),
  tp('powershell-secure-string', `$pw = ConvertTo-SecureString "${password}" -AsPlainText -Force`, password, [
    '-AsPlainText -Force',
  ]),
  tp('powershell-secure-string', `ConvertTo-SecureString -String '${password}' -AsPlainText -Force`, password),
  tp('powershell-secure-string', `ConvertTo-SecureString -AsPlainText -Force -String "${password}"`, password, [
    '-AsPlainText -Force -String',
  ]),
  tp('powershell-secure-string', `ConvertTo-SecureString -String:'${password}' -AsPlainText -Force`, password),
  tp('powershell-secure-string', `ConvertTo-SecureString -AsPlainText "${password}" -Force`, password),
  tp('powershell-secure-string', `$s = "${password}" | ConvertTo-SecureString -AsPlainText -Force`, password, [
    '| ConvertTo-SecureString -AsPlainText -Force',
  ]),
  tp('powershell-credential', `[System.Net.NetworkCredential]::new('svc', '${password}')`, password, ["'svc'"]),
  tp('sshpass-env', `$env:SSHPASS = '${password}'; sshpass -e ssh deploy@host`, password, ['sshpass -e']),
  tp('sshpass-env', `setenv SSHPASS ${password}`, password, ['setenv SSHPASS']),
  tp('sshpass-env', `set -gx SSHPASS '${password}'`, password, ['set -gx SSHPASS']),
  tp('full-width-colon', `password ： ${password}`, password, ['password ：']),
  tp('full-width-colon', `パスワード：${password}`, password, ['パスワード：']),
  tp('full-width-colon', `数据库密码：${dbPassword}`, dbPassword, ['数据库密码：']),
  tp('full-width-colon', `비밀번호: ${password}`, password, ['비밀번호']),
  tp(
    'url-encoded',
    `curl "https://api.example.com/login?form=password%3D${encodeURIComponent(password)}%26user%3Dbob"`,
    [password, encodeURIComponent(password)],
    ['api.example.com'],
  ),
  tp('url-encoded', `redirect_uri=postgres%3A%2F%2Fapp%3A${dbPassword}%40db%2Fapp`, dbPassword),
  tp('branch-name', `feature/${ghp}-fix`, ghp, ['feature/']),
  tp('file-path', `secrets/${awsId}.txt`, awsId, ['secrets/', '.txt']),
  ...PREFIXED.map(([kind, token]) => tp(kind, `found ${token} in the output`, token, ['in the output'])),
  tp('npm-config-set', `npm config set //npm.example.com/:_authToken ${cliToken}`, cliToken, [
    'npm config set //npm.example.com/:_authToken',
  ]),
  tp(
    'slack-webhook',
    `curl -d @msg.json https://hooks.slack.com/services/T0${slackHook.slice(2, 9)}/B0${slackHook.slice(12)}`,
    slackHook.slice(12),
    ['hooks.slack.com/services/'],
  ),
  tp('mongo-password', `mongosh --host db -u admin -p ${password} admin`, password, ['admin']),
  tp('zip-password', `zip -P ${password} -r backup.zip data/`, password, ['-r backup.zip data/']),
  tp('7z-password', `7z a -p${password} backup.7z data/`, password),
  tp('httpie-auth', `http -a bob:${password} https://api.example.com/me`, password, ['bob:']),
  tp('smbclient-password', `smbclient //fs/share -U bob%${password}`, password, ['bob%']),
  tp('npmrc-auth', `registry=https://npm.example.com/\n_auth=${b64(`bob:${password}`)}`, b64(`bob:${password}`)),
  tp(
    'putty-private-key',
    `PuTTY-User-Key-File-3: ssh-rsa\nPrivate-Lines: 2\n${pemBody[0]}\n${pemBody[1]}\nPrivate-MAC: 0a1b`,
    [pemBody[0]!, pemBody[1]!],
  ),
  tp('connection-string', `Server=db;Database=app;User Id=sa;Password=${password};Encrypt=true`, password, [
    'User Id=sa',
  ]),
  tp('authorization-header', `Authorization: ${cliKey}`, cliKey, ['Authorization: ']),
  tp('signed-url-signature', `https://b.s3.amazonaws.com/k?X-Amz-Expires=60&X-Amz-Signature=${amzSig}`, amzSig, [
    'X-Amz-Expires=60',
  ]),
  tp('webhook-url', `https://discord.com/api/webhooks/123456789012345678/${discordHook}`, discordHook, [
    'discord.com/api/webhooks/',
  ]),
  tp('base64-github-token', `$ echo ${b64(ghp)} | base64 -d`, [b64(ghp), ghp], ['| base64 -d']),
  tp('base64-wrapped-lines', `$ base64 token.txt\n${wrapped(`${ghFine}\n`)}`, [
    ghFine,
    ...wrapped(`${ghFine}\n`).split('\n'),
  ]),
  tp(
    'k8s-secret-data',
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ntype: Opaque\ndata:\n' +
      `  DATABASE_URL: ${b64(`postgres://app:${dbPassword}@db/app`)}\n` +
      `  .dockerconfigjson: ${b64(JSON.stringify({ auths: { 'ghcr.io': { auth: b64(`bob:${ghp}`) } } }))}`,
    [dbPassword, ghp, b64(`postgres://app:${dbPassword}@db/app`)],
    ['name: app'],
  ),
];

const pngBytes = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from(gen(B64, 600), 'latin1'),
]);

/** Ordinary text, code and tool output that must come out unchanged. */
export const FALSE_POSITIVES: string[] = [
  `commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\nAuthor: Bob <bob@example.com>\nDate:   ` +
    `Mon Mar 3 10:12:00 2025 +0100\n\n    Fix token refresh`,
  `a1b2c3d Fix password reset\n9f8e7d6 Add token rotation (#412)\nMerge: 4e5f6a7 8b9c0d1`,
  `{"id": "123e4567-e89b-12d3-a456-426614174000", "requestId": "c0a8012e-7f3b-4d2a-9e1c-5b6a7d8e9f00"}`,
  `"node_modules/lodash": {\n  "version": "4.17.21",\n  "resolved": ` +
    `"https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",\n  "integrity": ` +
    `"sha512-${gen(B64, 86)}=="\n}`,
  `lodash@^4.17.21:\n  version "4.17.21"\n  integrity sha512-${gen(B64, 86)}==\n  integrity sha256-${gen(B64, 43)}=`,
  `<img alt="logo" src="data:image/png;base64,${pngBytes.toString('base64')}">`,
  `.button { color: #ff00aa; background: rgba(0, 0, 0, .5); border-color: #1e90ff; }`,
  `const handleAuthenticationTokenRefreshRequestWithExponentialBackoff = createHandler` +
    `();\nconst passwordResetTokenExpirationMinutes = 30;`,
  `Enter your password to continue. The password must be at least 12 characters.\nForgot ` +
    `your password: use the link below.`,
  `if (!password) throw new Error('password is required');\nconst passwordField = ` +
    `document.querySelector('#password');\nconst hash = await hashPassword(pw);`,
  `function validatePassword(password: string): boolean {\n  return password.length >= ` +
    `12;\n}\ninterface Config { apiKey: string; token?: string; secret: string | undefined }`,
  `def login(username, password):\n    self.password = password\n    user.password = ` +
    `hash_password(raw)\n    password = getpass.getpass("Password: ")`,
  `$ echo "$REGISTRY_PASSWORD" | docker login -u ci --password-stdin registry.example.com\nLogin Succeeded`,
  `$ mysql -u root -p\nEnter password:\n$ mysql -h db -u root -p shop`,
  `const token = req.headers.authorization?.split(' ')[1];\nconst { token: accessToken } = ` +
    `await res.json();\nconst token = await getToken();`,
  `fetch(url, { headers: { Authorization: \`Bearer \${token}\` } });\ncurl -H ` +
    `"Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user`,
  `env:\n  GITHUB_TOKEN: \${{ secrets.GITHUB_TOKEN }}\n  NPM_TOKEN: \${{ secrets.NPM_TOKEN ` +
    `}}\nwith:\n  password: \${{ secrets.DB_PASSWORD }}`,
  `export GITHUB_TOKEN=$GH_TOKEN\nexport DB_PASSWORD="\${DB_PASSWORD:-}"\ntoken: process.env.API_TOKEN,`,
  `exports[\`LoginForm renders 1\`] = \`<form><label for="password">Password</label><input ` +
    `type="password" name="password" /></form>\`;`,
  `!function(e,t){"use strict";var n=e.token||t.token,r=function(e){return ` +
    `e.password};e.exports={token:n,secret:r}}(this,window);`,
  `added 312 packages, and audited 313 packages in 4s\n\n45 packages are looking for ` +
    `funding\n  run \`npm fund\` for details\n\nfound 0 vulnerabilities\nnpm WARN deprecated ` +
    `inflight@1.0.6: This module is not supported`,
  `Collecting requests\n  Downloading requests-2.31.0-py3-none-any.whl (62 kB)\nRequirement ` +
    `already satisfied: keyring>=15.1 in ./venv/lib/python3.11/site-packages\nSuccessfully ` +
    `installed certifi-2024.2.2 requests-2.31.0`,
  `-rw-r--r--  1 bob  staff   1204 Mar  3 10:12 secrets.example.yaml\ndrwxr-xr-x  4 bob  ` +
    `staff    128 Mar  3 10:12 tokens\n-rw-------  1 bob  staff    411 Mar  3 10:12 ` +
    `id_ed25519.pub`,
  `https://github.com/org/repo/blob/main/src/auth/token.ts#L10\npostgres://localhost:5432/ap` +
    `p\ngit@github.com:org/repo.git\nssh://git@github.com:22/org/repo\nhttps://bob@example.com/` +
    `path?page=2`,
  `docker run --rm -u 1000:1000 -p 8080:80 -v "$PWD":/app node:22\nssh -p 2222 ` +
    `deploy@host\nmkdir -p build/out && cp -pR src build/`,
  `model: gpt-4o\nmax_tokens: 4096\ntoken_count = 12\ntokenizer = AutoTokenizer.from_pretrained("gpt2")`,
  `PWD=/home/bob/project\nOLDPWD=/home/bob\nPATH=/usr/local/bin:/usr/bin\nDB_PASSWORD_FILE=/r` +
    `un/secrets/db_password\nGNUPGHOME=/home/bob/.gnupg`,
  `{"access_token_url": "https://auth.example.com/token", "token_type": "Bearer", "expires_in": 3600}`,
  `Basic authentication sends a base64 header; Bearer authentication sends a ` +
    `token.\nAuthorization: required for every write.`,
  `Pass \`--token\` to authenticate, or use the --password option. See --api-key.`,
  `scikit-learn (sk-learn) task-management-system disk-based-approach risk-assessment-2024-q1`,
  `env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: ` +
    `db-creds\n        key: password\nsecretName: tls-cert\npasswordPolicy: strong`,
  `use crate::secret::SecretKey;\nfunc (c *Client) Token() string { return c.token }\nSELECT ` +
    `id, password_hash FROM users WHERE email = $1;`,
  `{\n  "dependencies": {\n    "jsonwebtoken": "^9.0.2",\n    "@aws-sdk/token-providers": ` +
    `"3.1127.0",\n    "passport-http-bearer": "^1.0.1",\n    "keytar": "7.9.0",\n    ` +
    `"secret-handshake": "latest"\n  }\n}`,
  `[http-bearer-auth-trait]: https://smithy.io/2.0/spec/authentication-traits.html\n[auth]: ` +
    `https://cloud.google.com/docs/authentication\nexport ` +
    `GOOGLE_APPLICATION_CREDENTIALS=/path/to/service-account.json`,
  `export const CHARS_PER_TOKEN = 4;\nconst AUTH_SCHEMES = 'Bearer|Basic|Digest` +
    `|Token';\nconst ai = new GoogleGenAI({ apiKey: 'GEMINI_API_KEY' });\nexport ` +
    `ANTHROPIC_API_KEY=sk-ant-...\nconst pass = results.commit.median < 3;`,
  `Anthropic also reads \`ANTHROPIC_AUTH_TOKEN\` as bearer authentication. The \`Pwd=\` ` +
    `and \`Password=\` keys are left to the assignment rules; \`mongosh -p\`, but a port for ` +
    `ssh.`,
  `SECRET_KEY = get_secret("DJANGO_SECRET_KEY")\nAPI_TOKEN = ` +
    `os.environ["API_TOKEN"]\nsecret_key=settings[KEY_NAME]\ntoken=useToken(ctx)`,
  `password: string | undefined;\napi_key: Optional[str] = None\nconst token = foo(bar);\n  ` +
    `password: your password here\nPassword: at least 12 characters, one digit.`,
  `// secretlint-disable-next-line\nconst example = 'placeholder';\naws_account_id = 123456789012`,
  `https://example.com/search?q=hello%20world&page=2\nprogress: 100% done (42/42)\nC%3A%5CUsers%5Cbob`,
  `getAuthenticationTokenRefreshHandlerForServiceAccountWithRetries ${gen(HEX, 64)} sha256:${gen(HEX, 64)}`,
  `注意：パスワードを入力してください\n端口：8080\nパスワード：\n密码：必填`,
  `Get-Help ConvertTo-SecureString -Full\n$s = Read-Host -AsSecureString | ConvertFrom-SecureString`,
  `v1.2.3 ^4.17.21 ~2.0.0 >=18 <23\nsha1: da39a3ee5e6b4b0d3255bfef95601890afd80709\nmd5: ` +
    `d41d8cd98f00b204e9800998ecf8427e`,
];
