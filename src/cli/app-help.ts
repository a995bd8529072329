import { HELP_FLAG } from './flags/plane.js';
import { helpOf, type CommandSpec } from './flags/table.js';

/** `lease-gate app`: the protection-rule app; every setting of its config file is in its help. */
export const APP = {
  usage: 'lease-gate app',
  flags: {
    config: { type: 'string', value: 'FILE', required: true },
    'log-format': {
      type: 'string',
      value: 'text|json',
      synopsis: false,
      help: `text for people (the default), or one JSON object a line with level, time and
  msg for a log store; also LEASE_GATE_LOG_FORMAT.`,
    },
    help: HELP_FLAG,
  },
  about: `  Serve a GitHub App's custom deployment protection rule: a job that targets a configured
  environment waits for its lease without a runner, and is approved once the lease is granted.
  Prints "lease-gate app listening on http://HOST:PORT[PATH]" first; one log line per step of a run.
  FILE is JSON (paths in it are relative to FILE):
    appId              the App's ID: a number, or a string of digits ("123456")
    privateKeyFile     the App's private key (PEM), for the App JWT and installation tokens
    webhookSecretFile  the webhook secret; deliveries without a matching X-Hub-Signature-256 get 401
    githubApiUrl       GitHub's REST API (default https://api.github.com; GHES: https://HOST/api/v3)
    githubServerUrl    the server the runs' DIDs name (default https://github.com: the runner's GITHUB_SERVER_URL)
    plane.url          the plane (the hosted plane or a lease-gate kernel)
    plane.keyFile      the plane key (default: LEASE_GATE_KEY, then INTRAMEDIAL_KEY; none only for a plane on loopback)
    listen.host        address to listen on (default 127.0.0.1; GitHub must reach it, e.g. via a proxy)
    listen.port        port (default 8790; 0 picks a free one)
    listen.path        the webhook path (default /)
    rules              [{ repository, environment, resource, job? }]: the first rule whose repository
                       glob (owner/repo, * matches anything but /) and environment (any case) match the
                       run names the resource; job is the workflow job id whose lease-gate step takes up
                       the lease (absent: any job of the run). No rule: rejected with the reason.
    takeUpGrace        how long the app keeps an approved run's lease for its job to start (default 10m)
    maxWait            a run waiting longer is rejected (default 6h; at most 24h)
    runCheckEvery      how often a waiting run's status is checked, for a missed workflow_run event (default 1m)
    deploymentStatus   post a "queued" deployment status naming the holder while a run waits (default true)
  An unknown setting, or a private key that does not parse, is refused at start (exit 2). At start the
  app reads its recent deliveries (GET /app/hook/deliveries, App JWT) and queues again, oldest first,
  the runs still waiting; an approved run keeps its lease even when GitHub answers the review 422.
  Durations: '500ms', '90s', '15m', '1h' or plain seconds. The App needs Actions: read and Deployments:
  read and write, and all three events: deployment_protection_rule (a run asks for the environment),
  workflow_run (a run ended: its place is given back) and deployment_review (reviewers decided).`,
} as const satisfies CommandSpec;

/** `lease-gate app smoke`: the wiring checked without GitHub. */
export const APP_SMOKE = {
  usage: 'lease-gate app smoke',
  flags: {
    url: { type: 'string', value: 'URL', required: true },
    'secret-file': { type: 'string', value: 'FILE', required: true },
    help: HELP_FLAG,
  },
  about: `  Check the wiring without GitHub: sign a sample deployment_protection_rule delivery with the webhook
  secret, send it to URL (the webhook URL GitHub is given, through the TLS proxy) and say the app's
  answer: OK on its 202 (the app ignores the sample: it names no run), else what is wrong (exit 1).`,
} as const satisfies CommandSpec;

/** `lease-gate app --help`: every setting of the config file (docs/protection-rule.md says why). */
export const APP_HELP = `${helpOf(APP)}\n${helpOf(APP_SMOKE)}`;
