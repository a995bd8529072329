#!/usr/bin/env node
Object.defineProperty(exports, Symbol.toStringTag, { value: "Module" });
let node_os = require("node:os");
let node_util = require("node:util");
let node_http = require("node:http");
let node_child_process = require("node:child_process");
let node_fs = require("node:fs");
let node_url = require("node:url");
// src/errors.ts
/**
* The one base of every error lease-gate throws on purpose, and the one
* function that turns any error into the line a person sees.
*
* A LeaseGateError's message is written for people (what failed, what to do)
* and printed as it is, never with a stack; `code` is stable, one per kind
* (ERROR_CODES), for code that decides on the kind of failure, and `cause`
* keeps the error it wraps. Made as `new X(message, { ...fields, cause })`:
* the message first as for Error, everything else named (sigstore's BaseError
* is the model), so a field cannot be given in another's place.
*/
var LeaseGateError = class extends Error {
	name = "LeaseGateError";
	code;
	constructor(message, options) {
		super(message, options.cause === void 0 ? void 0 : { cause: options.cause });
		this.code = options.code;
	}
};
/** `{ cause }` when there is one, else nothing: `cause` is absent rather than undefined. */
function causeOf(cause) {
	return cause === void 0 ? {} : { cause };
}
/**
* A promise of lease-gate's own code broken (a count that cannot be off, a state
* the code never makes): a bug to report, printed as unexpected with its code
* `internal` rather than as a person's mistake.
*/
var InternalError = class extends LeaseGateError {
	name = "InternalError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "internal"
		});
	}
};
/** What a person can do about the system errors a face meets most. */
const HINTS = {
	EADDRINUSE: " (the port is in use: pick another with --port, or 0 for a free one)",
	ENOENT: " (no such file or directory)",
	ECONNREFUSED: " (nothing listens there: is the kernel running?)",
	EACCES: " (permission denied)"
};
/**
* One line for any error: ours as written (a bug of ours, code `internal`, as
* unexpected); an error of the system or of a driver (it
* carries a string `code`: a port in use, a missing file, a refused connection, a
* PostgreSQL error) by its first line, which names the path, address or reason, with a
* hint for the common ones; anything else named as unexpected. Callers that print to a
* log or a terminal still escape it (untrusted(), logLine()).
*/
function errorMessage(error) {
	const text = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
	if (error instanceof LeaseGateError) return error.code === "internal" ? `Unexpected error: ${text}` : error.message;
	const code = error?.code;
	if (typeof code === "string") return `${text}${HINTS[code] ?? ""}`;
	return `Unexpected error: ${text}`;
}
/**
* The error's own words for the inside of a longer message ("Cannot read FILE: <this>."):
* its message (or what it is, when not an Error) on one line, without errorMessage's
* "Unexpected error: " or hints, which do not fit mid-sentence: the sentence around it
* says what failed. Line breaks become spaces rather than cutting at the first, because
* some libraries put the reason on a later line (@actions/core's "Failed to get ID Token.
* \n Error Code : 500 \u2026"). Callers clip and escape as their output needs; wrap with
* `{ cause: error }` to keep the rest.
*/
function causeText(error) {
	return (error instanceof Error ? error.message : String(error)).replace(/\s*[\r\n]+\s*/g, " ").trim();
}
// src/control-chars.ts
/**
* Control characters, once, for every layer that keeps them out of a line of text: the
* plane's clipped texts and deploy fields, the kernel's reasons and notifications, the
* action's outputs, the session's log lines and a shown URL.
*
* Here, beside errors.ts, and not in plane/: src/http/ (url-display.ts) sits below plane/ and
* may import nothing of ours but top-level modules like this one, and every other user may
* import it too. No imports and no node: APIs, so the console page may bundle it.
*/
/** C0 controls and DEL, as a character class's ranges (a line break, ESC, NUL, \u2026). */
const CONTROL_RANGES = "\\u0000-\\u001f\\u007f";
new RegExp(`[${CONTROL_RANGES}]`);
/** Every control character of a text, for `.replace`. */
const CONTROL_CHARS = new RegExp(`[${CONTROL_RANGES}]`, "g");
/** A whole text of `min` to `max` characters (no bound: any length), none a control character. */
const controlFree = (min = 0, max) => new RegExp(`^[^${CONTROL_RANGES}]{${min},${max ?? ""}}$`);
/**
* What a terminal or the runner must not be handed raw, for text escaped rather than
* replaced (lease/escape.ts): C0 controls but tab and line feed (those are escaped first,
* by the runner's own rule), DEL and the C1 controls (a terminal reads 0x9b as CSI), and
* the Unicode line and paragraph separators (a line break to some readers).
*/
const TERMINAL_CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;
// src/lease/escape.ts
/**
* Text from outside (plane answers, GitHub, files of other processes) on its
* way to a log line, a terminal or a job summary. Nothing it holds may start a
* line, run a workflow command or drive a terminal.
*/
/** One line, bounded: CR and LF as the runner escapes them (%0D, %0A), other controls as \uXXXX. */
function untrusted(text, max = 300) {
	return (text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`).replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/\t/g, " ").replace(TERMINAL_CONTROL_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
/** A whole log line for the runner: nothing after it can begin a new line. */
function logLine(text) {
	return text.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(TERMINAL_CONTROL_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
// src/cli/flags/plane.ts
/**
* The flags of the commands that talk to a plane, and the help of acquire, release, run,
* status and history. Light on purpose: main() reads every help without loading a command.
*/
/** main() answers `--help` and `-h` before a command parses; parsing them too keeps them known. */
const HELP_FLAG = {
	type: "boolean",
	short: "h",
	default: false,
	hidden: "main() answers it before the command runs"
};
/** Said once in the overview's "Common:" part. */
const common = (flag) => ({
	...flag,
	common: true
});
const RESOURCE = {
	type: "string",
	value: "R"
};
const ACTOR_DID = {
	type: "string",
	value: "D"
};
const API_URL = {
	type: "string",
	value: "U"
};
const WAIT_TIMEOUT = {
	type: "string",
	value: "30m"
};
const OIDC_TOKEN_FILE = {
	type: "string",
	value: "FILE"
};
const JSON_FLAG = {
	type: "boolean",
	default: false
};
/** The credential's flags, said once in the overview's "Common:" part. */
const AUTH_FLAGS$1 = {
	"oidc-token-file": common(OIDC_TOKEN_FILE),
	auth: common({
		type: "string",
		value: "auto|key|oidc"
	}),
	"oidc-audience": common({
		type: "string",
		value: "AUD"
	}),
	"id-token-var": common({
		type: "string",
		value: "NAME"
	})
};
/** What every plane command parses that its synopsis need not repeat. */
const COMMON_FLAGS = {
	"actor-did": common(ACTOR_DID),
	"wait-timeout": common(WAIT_TIMEOUT),
	...AUTH_FLAGS$1,
	help: HELP_FLAG
};
/** The deploy's identity (deploy-flags.ts reads them), for CI systems that are not GitHub Actions. */
const DEPLOY_FLAGS = {
	repository: {
		type: "string",
		value: "OWNER/REPO"
	},
	workflow: {
		type: "string",
		value: "W"
	},
	ref: {
		type: "string",
		value: "REF"
	},
	commit: {
		type: "string",
		value: "SHA"
	},
	"run-number": {
		type: "string",
		value: "N"
	},
	"run-attempt": {
		type: "string",
		value: "N"
	},
	"run-url": {
		type: "string",
		value: "URL"
	},
	queue: {
		type: "string",
		value: "fifo|newest"
	}
};
/** The help's lines for the deploy flags. */
const DEPLOY_HELP = `  What is deployed (recorded in the grant's ledger entry, shown by status): --repository, --workflow,
  --ref, --commit (the full SHA), --run-number, --run-attempt, --run-url (https://). --queue newest
  steps aside when a newer run (higher --run-number) of the same repository, workflow and ref starts
  waiting ("superseded by \u2026" on stderr); it needs those four flags.`;
/** The flags of acquire, and of the commands that name an actor the same way. */
const WAITING_FLAGS = {
	resource: RESOURCE,
	"actor-did": ACTOR_DID,
	"api-url": API_URL,
	"wait-timeout": WAIT_TIMEOUT
};
const ACQUIRE = {
	usage: "lease-gate acquire",
	flags: {
		...WAITING_FLAGS,
		json: JSON_FLAG,
		...DEPLOY_FLAGS,
		...AUTH_FLAGS$1,
		help: HELP_FLAG
	},
	about: `  Take the lease, waiting on the plane's back-off while another holds it. Nothing renews a lease
  taken with acquire: it lapses at the expiry the plane answered (30 s on a default kernel), said on
  stderr. To hold it while a command runs, use run. --wait-timeout 0 asks once.
${DEPLOY_HELP} Superseded, acquire exits 1: nothing is held.`
};
const RELEASE = {
	usage: "lease-gate release",
	flags: {
		resource: RESOURCE,
		"actor-did": ACTOR_DID,
		"api-url": API_URL,
		json: JSON_FLAG,
		"wait-timeout": common(WAIT_TIMEOUT),
		...AUTH_FLAGS$1,
		help: HELP_FLAG
	},
	about: "  Give back the lease this actor holds."
};
const RUN$1 = {
	usage: "lease-gate run",
	flags: {
		...WAITING_FLAGS,
		"on-lost": {
			type: "string",
			default: "terminate",
			value: "terminate|warn"
		},
		...DEPLOY_FLAGS,
		json: {
			...JSON_FLAG,
			hidden: "parsed as every plane command's: run prints the command's output"
		},
		...AUTH_FLAGS$1,
		help: HELP_FLAG
	},
	after: "-- <command> [args...]",
	about: `  Hold the lease while the command runs (renewing it), release it after, exit with the command's code.
  The command sees LEASE_GATE_LEASE_ID and LEASE_GATE_FENCE. Signals are forwarded to it. If the lease is
  lost, 'terminate' stops the command and 'warn' lets it finish; either way the exit code is non-zero.
  The command runs in its own process group: signals are forwarded to the group. On Linux it also runs
  in a cgroup of its own where the cgroup2 mount allows one (root), else its descendants are followed
  in /proc (LEASE_GATE_RUN_CGROUP=0 skips the cgroup). On loss (or when the command exits leaving
  processes) all of it, setsid() children too, gets SIGTERM, then SIGKILL 10 s later. On a kernel it
  keeps a watch on its lease, so a revoke stops the command at once; the kernel grants the resource
  to the next agent only once run gave it back (after all of it is gone) or the kernel's lock-delay
  passed. Against a plane without the watch, a loss is noticed at the next renewal (within ~10 s).
${DEPLOY_HELP} Superseded, run exits 0 without running the command (as the action succeeds).`
};
const STATUS = {
	usage: "lease-gate status",
	flags: {
		resource: RESOURCE,
		"api-url": API_URL,
		json: JSON_FLAG,
		...COMMON_FLAGS
	},
	about: `  Show who holds the resource, without taking it, and its queue as the console shows it: each
  waiter's place, how long it has waited and, once a hold has ended, about how long it has left
  to wait at recent hold times (a kernel's; --json: "queue", null from a plane that lists none).`
};
const HISTORY = {
	usage: "lease-gate history",
	flags: {
		resource: RESOURCE,
		since: {
			type: "string",
			value: "4h|7d|TIME"
		},
		"api-url": API_URL,
		json: JSON_FLAG,
		...COMMON_FLAGS
	},
	about: `  What the kernel's ledger says happened, in the console's words, oldest first: each hold (holder,
  fence, how long, how it ended: released, lapsed, revoked by whom and why), each freeze, unfreeze
  and break-glass. --resource: only R (default: every resource). --since: only what ran or happened
  since a duration back from now or an ISO 8601 time with a zone.`
};
// src/cli/flags/table.ts
/**
* The table as node:util's options: only the parser's own fields, so the help's cannot
* reach it. Typed as the table, whose literal rows give parse() its values' types.
*/
function optionsOf(table) {
	const options = {};
	for (const [name, flag] of Object.entries(table)) options[name] = {
		type: flag.type,
		...flag.multiple ? { multiple: true } : {},
		...flag.short ? { short: flag.short } : {},
		...flag.default !== void 0 ? { default: flag.default } : {}
	};
	return options;
}
/** `--host 127.0.0.1`, `--quiet`: the flag with its value as the help shows it. */
function formOf(name, flag) {
	return flag.type === "string" ? `--${name} ${flag.value ?? "VALUE"}` : `--${name}`;
}
const bracket = (text, flag) => flag.required ? text : `[${text}]`;
/** The synopsis line: the words, then each visible flag in the table's order. */
function synopsisOf(spec) {
	const parts = [spec.usage, ...spec.before ? [spec.before] : []];
	const rows = Object.entries(spec.flags).filter(([, flag]) => !flag.hidden && !flag.common && flag.synopsis !== false);
	for (let i = 0; i < rows.length; i += 1) {
		const [name, flag] = rows[i];
		const group = [formOf(name, flag)];
		while (rows[i + 1]?.[1].or) group.push(formOf(...rows[i += 1]));
		const text = group.join(" | ");
		parts.push(group.length > 1 && flag.required ? `(${text})` : bracket(text, flag));
	}
	if (spec.after) parts.push(spec.after);
	return parts.join(" ");
}
/** A paragraph's first words: the flag, its note, and the flags that go with it. */
function leadOf(name, flag, table) {
	const words = [formOf(name, flag) + (flag.note ? ` (${flag.note})` : "")];
	for (const other of flag.with ?? []) {
		const row = table[other];
		if (row) words.push(bracket(formOf(other, row), row));
	}
	return words.join(" ");
}
/** The command's help: synopsis, prose, then each flag's paragraph in the table's order. */
function helpOf(spec) {
	const lines = [synopsisOf(spec)];
	if (spec.about) lines.push(spec.about);
	for (const [name, flag] of Object.entries(spec.flags)) {
		const gap = flag.help?.startsWith("\n") ? "" : " ";
		if (flag.help && !flag.hidden) lines.push(`  ${leadOf(name, flag, spec.flags)}:${gap}${flag.help}`);
	}
	if (spec.end) lines.push(spec.end);
	return lines.join("\n");
}
// src/cli/app-help.ts
/** `lease-gate app`: the protection-rule app; every setting of its config file is in its help. */
const APP = {
	usage: "lease-gate app",
	flags: {
		config: {
			type: "string",
			value: "FILE",
			required: true
		},
		"log-format": {
			type: "string",
			value: "text|json",
			synopsis: false,
			help: `text for people (the default), or one JSON object a line with level, time and
  msg for a log store; also LEASE_GATE_LOG_FORMAT.`
		},
		help: HELP_FLAG
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
  workflow_run (a run ended: its place is given back) and deployment_review (reviewers decided).`
};
/** `lease-gate app smoke`: the wiring checked without GitHub. */
const APP_SMOKE = {
	usage: "lease-gate app smoke",
	flags: {
		url: {
			type: "string",
			value: "URL",
			required: true
		},
		"secret-file": {
			type: "string",
			value: "FILE",
			required: true
		},
		help: HELP_FLAG
	},
	about: `  Check the wiring without GitHub: sign a sample deployment_protection_rule delivery with the webhook
  secret, send it to URL (the webhook URL GitHub is given, through the TLS proxy) and say the app's
  answer: OK on its 202 (the app ignores the sample: it names no run), else what is wrong (exit 1).`
};
`${helpOf(APP)}${helpOf(APP_SMOKE)}`;
// src/cli/flags/kernel.ts
/**
* `lease-gate kernel`'s flags, one row each: its parser options and its help both come from
* here, and kernelSettings() (kernel-settings.ts) reads and checks what they parse to.
*/
/** Where the kernel keeps its state: also `kernel migrate`'s flags. */
const STORE_FLAGS = {
	store: {
		type: "string",
		value: "postgres[://\u2026]",
		with: [
			"schema",
			"pool-size",
			"signing-key"
		],
		help: `any number of replicas
  on one PostgreSQL database (--store postgres reads DATABASE_URL). 'kernel migrate --store \u2026' only
  brings the schema up to date.`,
		synopsis: false
	},
	schema: {
		type: "string",
		value: "public",
		synopsis: false
	},
	"pool-size": {
		type: "string",
		value: "10",
		synopsis: false
	}
};
/** Who may call it: OIDC tokens under a policy, scoped keys (see docs/kernel.md). */
const AUTH_FLAGS = {
	"oidc-audience": {
		type: "string",
		value: "AUD",
		with: [
			"policy",
			"oidc-issuer",
			"oidc-did-host"
		],
		help: `accept OIDC ID tokens
  (GitHub Actions' by default; --oidc-issuer [KIND=]URL, repeatable, names others: gitlab=URL,
  circleci=URL); each acts only as its own job's DIDs, leasing what the policy allows.`,
		synopsis: false
	},
	policy: {
		type: "string",
		value: "FILE",
		required: true,
		synopsis: false
	},
	"oidc-issuer": {
		type: "string",
		multiple: true,
		value: "[KIND=]URL",
		synopsis: false
	},
	"oidc-did-host": {
		type: "string",
		value: "HOST",
		synopsis: false
	},
	"oidc-issuers": {
		type: "string",
		value: "FILE",
		with: ["policy"],
		help: `several OIDC issuers (JSON: name, kind,
  url, audience, organization, repositories; docs/ci-issuers.md), instead of --oidc-issuer; each
  policy rule names its issuer.`,
		synopsis: false
	},
	keys: {
		type: "string",
		value: "FILE",
		help: "scoped keys, each acting only as its DIDs and leasing only its resources.",
		synopsis: false
	}
};
/** What it tells, and what holds grants back: webhooks, health checks, the promotion order. */
const GATE_FLAGS = {
	windows: {
		type: "string",
		value: "FILE",
		help: "recurring freezes (JSON: name, schedule as cron, duration, timeZone, resources, reason).",
		synopsis: false
	},
	notify: {
		type: "string",
		multiple: true,
		value: "URL",
		note: "repeatable",
		with: ["notify-secret-file"],
		help: `POST each grant, release, lapse, revoke, freeze
  and unfreeze as signed JSON (X-Hub-Signature-256), retried for up to 10 min, in order per resource.`,
		synopsis: false
	},
	"notify-secret-file": {
		type: "string",
		value: "FILE",
		required: true,
		synopsis: false
	},
	"notify-file": {
		type: "string",
		value: "FILE",
		help: "the same as a config entry, {\"notify\": {\"urls\": [...], \"secretFile\": \"FILE\"}}.",
		synopsis: false
	},
	"health-check": {
		type: "string",
		multiple: true,
		default: [],
		value: "RESOURCE=URL",
		note: "repeatable",
		with: ["health-interval-ms", "health-freeze-held"],
		help: `hold
  new grants of RESOURCE while URL (https:, or http: on loopback) answers other than 2xx or not in 5 s;
  with --health-freeze-held a failure while it is held freezes it until an operator unfreezes it.`,
		synopsis: false
	},
	"health-interval-ms": {
		type: "string",
		default: "10000",
		value: "10000",
		synopsis: false
	},
	"health-freeze-held": {
		type: "boolean",
		default: false,
		synopsis: false
	},
	promote: {
		type: "string",
		multiple: true,
		default: [],
		value: "FROM->TO",
		note: "repeatable; 'staging->production' means lock:deploy/staging -> lock:deploy/production",
		help: `
  TO is granted only to a commit (deploy.repository, deploy.commit) the ledger shows completed a hold
  on FROM (released, not outdated); else refused 'not_promoted', naming the step. Break-glass overrides.`,
		synopsis: false
	},
	"github-token-file": {
		type: "string",
		value: "FILE",
		with: ["github-api-url"],
		help: `a descendant passes too: GitHub's
  compare is asked whether a commit that completed FROM contains it (the grant names it, promotedVia).
  The file is read at each question (a rotated token needs no restart); GitHub not answering refuses.`,
		synopsis: false
	},
	"github-api-url": {
		type: "string",
		value: "https://api.github.com",
		synopsis: false
	}
};
const KERNEL_FLAGS = {
	host: {
		type: "string",
		default: "127.0.0.1",
		value: "127.0.0.1"
	},
	port: {
		type: "string",
		default: "8787",
		value: "8787"
	},
	"ttl-ms": {
		type: "string",
		default: "30000",
		value: "30000"
	},
	"lock-delay-ms": {
		type: "string",
		value: "N",
		help: `after a revoke, how long others wait at most for the holder to give back
  (default a third of --ttl-ms plus 2 s: 12000 for 30 s leases; 0: none).`
	},
	"data-prefix": {
		type: "string",
		value: "PATH"
	},
	ledger: {
		type: "string",
		value: "FILE"
	},
	quiet: {
		type: "boolean",
		default: false
	},
	"log-format": {
		type: "string",
		value: "text|json",
		synopsis: false,
		help: `text for people (the default), or one JSON object a line with level, time,
  msg and fields (resource, did, requestId, replica) for a log store; also LEASE_GATE_LOG_FORMAT.`
	},
	state: {
		type: "string",
		hidden: "--data-prefix's old name: still accepted, with a warning"
	},
	"exit-with-pid": {
		type: "string",
		default: "0",
		hidden: "the action's dry run: the kernel goes when the job that started it goes"
	},
	"approver-oidc": {
		type: "string",
		multiple: true,
		default: [],
		value: "PATTERN",
		note: "repeatable, needs --oidc-audience",
		help: `an OIDC identity (a glob over the token's
  sub, e.g. repo:acme/ops:environment:break-glass) may approve a break-glass too, as oidc:SUB.`,
		synopsis: false
	},
	...AUTH_FLAGS,
	"public-url": {
		type: "string",
		multiple: true,
		default: [],
		value: "URL",
		note: "repeatable",
		help: `a URL clients reach it by beyond loopback and its listen address, such as
  the https:// one of a TLS proxy; other Host names are answered 421, other origins may not change leases.`,
		synopsis: false
	},
	...STORE_FLAGS,
	"signing-key": {
		type: "string",
		value: "FILE",
		required: true,
		synopsis: false
	},
	...GATE_FLAGS,
	help: HELP_FLAG
};
const KERNEL = {
	usage: "lease-gate kernel",
	flags: KERNEL_FLAGS,
	about: `  Serve the local plane. Prints "lease-gate kernel listening on http://HOST:PORT" first.
  LEASE_GATE_KERNEL_KEY: require this Bearer key (needed to listen beyond loopback, 16 characters at least there).
  LEASE_GATE_ADMIN_KEY: the key that may revoke, freeze and break glass (never the kernel key).
  LEASE_GATE_APPROVER_KEY: a second operator's key; each break-glass then waits for its approval.
  LEASE_GATE_METRICS_KEY: a key that reads GET /metrics (Prometheus) and nothing else; the admin key reads them too.`
};
// src/cli/flags/ledger.ts
/** The ledger's commands: a signing key, a bundle fetched, a bundle checked offline. */
const KEYGEN = {
	usage: "lease-gate keygen",
	flags: { out: {
		type: "string",
		value: "DIR",
		required: true
	} },
	about: `  Write an Ed25519 ledger signing key: DIR/ledger.key (PKCS#8 PEM, mode 0600) and DIR/ledger.pub (SPKI PEM).`
};
const LEDGER_EXPORT = {
	usage: "lease-gate ledger export",
	flags: {
		"api-url": {
			type: "string",
			value: "U"
		},
		url: {
			type: "string",
			value: "U",
			synopsis: false
		},
		out: {
			type: "string",
			value: "FILE"
		}
	},
	about: `  Fetch the kernel's ledger bundle (and its public key, to FILE.pub). --url U is the older name of --api-url.`
};
const VERIFY = {
	usage: "lease-gate verify",
	before: "FILE",
	flags: {
		"public-key": {
			type: "string",
			value: "KEY",
			required: true
		},
		previous: {
			type: "string",
			value: "CHECKPOINT"
		},
		"allow-partial": {
			type: "boolean",
			default: false
		},
		promote: {
			type: "string",
			multiple: true,
			default: [],
			value: "FROM->TO"
		},
		json: {
			type: "boolean",
			default: false
		}
	},
	about: `  Check a ledger bundle offline: signature, origin, every inclusion proof, order, timestamps,
  completeness, and (with --previous) that an older checkpoint's entries were not rewritten; with
  --promote (as the kernel's), that every grant of TO names a commit that completed FROM before it.`
};
// src/cli/flags/operator.ts
/** The operator's commands (an admin key's): revoke, freeze, unfreeze and break glass. */
const BY = {
	type: "string",
	value: "NAME"
};
const REASON = {
	type: "string",
	value: "TEXT"
};
/** The pass's job: one DID, or any job of a run (`or`: one of the two). */
const AGENT = {
	type: "string",
	value: "DID",
	required: true
};
const RUN = {
	type: "string",
	value: "OWNER/REPO/RUN_ID",
	or: true
};
/** The two flags every operator command ends with. */
const TAIL = {
	"api-url": API_URL,
	json: JSON_FLAG,
	...COMMON_FLAGS
};
const REVOKE = {
	usage: "lease-gate revoke",
	flags: {
		resource: RESOURCE,
		reason: REASON,
		by: BY,
		...TAIL
	},
	about: `  End a lease now (needs LEASE_GATE_ADMIN_KEY). Its holder's watch hears it at once; the next agent is
  granted once the holder gives back or the lock-delay passes. --by NAME: who the ledger names as
  having revoked it (operator:NAME).`
};
const FREEZE = {
	usage: "lease-gate freeze",
	flags: {
		resource: RESOURCE,
		reason: {
			...REASON,
			required: true
		},
		until: {
			type: "string",
			value: "TIME"
		},
		for: {
			type: "string",
			value: "DURATION",
			or: true
		},
		by: BY,
		...TAIL
	},
	about: `  Grant the resource to nobody new until TIME (ISO 8601 with a zone), for DURATION (90m, 4h, 3d) or until
  unfrozen (needs LEASE_GATE_ADMIN_KEY). The holder keeps it (revoke it too to stop it); waiters keep
  their place and are told "frozen until \u2026 by an operator: TEXT". --by NAME: who the ledger names
  (operator:NAME; letters, digits, . _ @ -, up to 64), else operator:admin-key.`
};
const UNFREEZE = {
	usage: "lease-gate unfreeze",
	flags: {
		resource: RESOURCE,
		by: BY,
		...TAIL
	},
	about: `  End a freeze (needs LEASE_GATE_ADMIN_KEY); the next in line is granted it. --by NAME as for freeze.`
};
const BREAK_GLASS = {
	usage: "lease-gate break-glass",
	flags: {
		resource: RESOURCE,
		agent: AGENT,
		run: RUN,
		reason: {
			...REASON,
			required: true
		},
		for: {
			type: "string",
			value: "DURATION"
		},
		by: BY,
		cancel: {
			type: "boolean",
			synopsis: false
		},
		...TAIL
	},
	about: `  Let one job (its DID, as the console's queue lists it; or any job of a GitHub run, any attempt, as a
  refused job's log names it: the hotfix path) be granted the resource once, past a freeze, the promotion order,
  a window, a health check's hold and the queue, for DURATION (default 15m, at most 1h; needs
  LEASE_GATE_ADMIN_KEY). Never past a holder or a revoke. Recorded in the ledger with TEXT and --by.
  With a kernel started with LEASE_GATE_APPROVER_KEY or --approver-oidc it waits for approve-break-glass.`
};
/** `break-glass --cancel`: the same command's second form, parsed with BREAK_GLASS's table. */
const BREAK_GLASS_CANCEL = {
	usage: "lease-gate break-glass",
	flags: {
		cancel: {
			type: "boolean",
			required: true
		},
		resource: RESOURCE,
		agent: {
			...AGENT,
			required: false
		},
		run: RUN,
		by: BY,
		"api-url": API_URL,
		json: JSON_FLAG
	},
	about: `  Withdraw the unused break-glass (only --agent's or --run's, when given): a signed ledger entry, so a restart
  does not bring it back. A new break-glass withdraws the last the same way.`
};
const APPROVE_BREAK_GLASS = {
	usage: "lease-gate approve-break-glass",
	flags: {
		resource: RESOURCE,
		agent: AGENT,
		run: RUN,
		by: {
			...BY,
			required: true
		},
		"oidc-token-file": {
			...OIDC_TOKEN_FILE,
			or: true
		},
		"api-url": API_URL,
		json: JSON_FLAG,
		"actor-did": common(ACTOR_DID),
		"wait-timeout": common(WAIT_TIMEOUT),
		help: HELP_FLAG
	},
	about: `  The second operator's approval of a break-glass: with LEASE_GATE_APPROVER_KEY and --by NAME (NAME must
  not be the operator who opened it), or as an OIDC identity the kernel's --approver-oidc allows, its ID
  token read from FILE (then the ledger names it oidc:SUB; not the job's own run). Recorded as approvedBy.`
};
// node_modules/zod/v4/core/util.js
function getEnumValues(entries) {
	const numericValues = Object.values(entries).filter((v) => typeof v === "number");
	return Object.entries(entries).filter(([k, _]) => numericValues.indexOf(+k) === -1).map(([_, v]) => v);
}
function joinValues(array, separator = "|") {
	return array.map((val) => stringifyPrimitive(val)).join(separator);
}
function jsonStringifyReplacer(_, value) {
	if (typeof value === "bigint") return value.toString();
	return value;
}
var Cached = class {
	constructor(getter) {
		this._getter = getter;
		this._value = void 0;
	}
	get value() {
		const getter = this._getter;
		if (getter !== void 0) {
			this._value = getter();
			this._getter = void 0;
		}
		return this._value;
	}
};
function cached(getter) {
	return new Cached(getter);
}
function nullish(input) {
	return input === null || input === void 0;
}
function cleanRegex(source) {
	const start = source.startsWith("^") ? 1 : 0;
	const end = source.endsWith("$") ? source.length - 1 : source.length;
	return source.slice(start, end);
}
function assignProp(target, prop, value) {
	Object.defineProperty(target, prop, {
		value,
		writable: true,
		enumerable: true,
		configurable: true
	});
}
const captureStackTrace = "captureStackTrace" in Error ? Error.captureStackTrace : (..._args) => {};
function isObject(data) {
	return typeof data === "object" && data !== null && !Array.isArray(data);
}
function isPlainObject(o) {
	if (isObject(o) === false) return false;
	const ctor = o.constructor;
	if (ctor === void 0) return true;
	if (typeof ctor !== "function") return true;
	const prot = ctor.prototype;
	if (isObject(prot) === false) return false;
	if (Object.prototype.hasOwnProperty.call(prot, "isPrototypeOf") === false) return false;
	return true;
}
function shallowClone(o) {
	if (isPlainObject(o)) return { ...o };
	if (Array.isArray(o)) return [...o];
	if (o instanceof Map) return new Map(o);
	if (o instanceof Set) return new Set(o);
	return o;
}
const propertyKeyTypes = /* @__PURE__*/ new Set([
	"string",
	"number",
	"symbol"
]);
function escapeRegex(str) {
	return str.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
function clone(inst, def, params) {
	const cl = new inst._zod.constr(def ?? inst._zod.def);
	if (!def || params?.parent) cl._zod.parent = inst;
	return cl;
}
function normalizeParams(_params) {
	const params = _params;
	if (!params) return {};
	if (typeof params === "string") return { error: () => params };
	if (params?.message !== void 0) {
		if (params?.error !== void 0) throw new Error("Cannot specify both `message` and `error` params");
		params.error = params.message;
	}
	delete params.message;
	if (typeof params.error === "string") return {
		...params,
		error: () => params.error
	};
	return params;
}
function stringifyPrimitive(value) {
	if (typeof value === "bigint") return value.toString() + "n";
	if (typeof value === "string") return `"${value}"`;
	return `${value}`;
}
function optionalKeys(shape) {
	return Object.keys(shape).filter((k) => {
		return shape[k]._zod.optin !== void 0 && shape[k]._zod.optout === "optional";
	});
}
const NUMBER_FORMAT_RANGES = /*@__PURE__*/ (() => ({
	safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
	int32: [-2147483648, 2147483647],
	uint32: [0, 4294967295],
	float32: [-34028234663852886e22, 34028234663852886e22],
	float64: [-Number.MAX_VALUE, Number.MAX_VALUE]
}))();
function aborted(x, startIndex = 0) {
	if (x.aborted === true) return true;
	for (let i = startIndex; i < x.issues.length; i++) if (x.issues[i]?.continue !== true) return true;
	return false;
}
function explicitlyAborted(x, startIndex = 0) {
	if (x.aborted === true) return true;
	for (let i = startIndex; i < x.issues.length; i++) if (x.issues[i]?.continue === false) return true;
	return false;
}
function prefixIssues(path, issues) {
	return issues.map((iss) => {
		var _a;
		(_a = iss).path ?? (_a.path = []);
		iss.path.unshift(path);
		return iss;
	});
}
function unwrapMessage(message) {
	return typeof message === "string" ? message : message?.message;
}
/** The leading size checks of `defChecks` that set an upper bound, each paired with it. */
function sizeCaps(defChecks) {
	const caps = [];
	for (const ch of defChecks ?? []) {
		const d = ch._zod.def;
		if (!/_(length|size)$|_equals$/.test(d.check)) break;
		const max = d.maximum ?? d.length ?? d.size;
		if (max >= 0) caps.push([max, ch]);
	}
	return caps;
}
function attachSchema(issues, start, inst) {
	var _a;
	for (let i = start; i < issues.length; i++) (_a = issues[i]).schema ?? (_a.schema = inst);
}
function finalizeIssue(iss, ctx, config) {
	var _a;
	const traits = iss.inst?._zod?.traits;
	if (traits?.has("$ZodType")) {
		if (traits.has("$ZodCheck")) (_a = iss).schema ?? (_a.schema = iss.inst);
		else iss.schema = iss.inst;
	}
	const schemaError = iss.schema !== iss.inst ? iss.schema?._zod.def?.error : void 0;
	const message = iss.message ? iss.message : unwrapMessage(iss.inst?._zod.def?.error?.(iss)) ?? unwrapMessage(schemaError?.(iss)) ?? unwrapMessage(ctx?.error?.(iss)) ?? unwrapMessage(config.customError?.(iss)) ?? unwrapMessage(config.localeError?.(iss)) ?? "Invalid input";
	const full = {};
	for (const k of Object.keys(iss)) {
		if (k === "inst" || k === "schema" || k === "continue" || k === "input" || k === "__proto__") continue;
		full[k] = iss[k];
	}
	full.path ?? (full.path = []);
	full.message = message;
	if (ctx?.reportInput) full.input = iss.input;
	return full;
}
const highSurrogate = /[\uD800-\uDBFF]/;
function codePointLength(str) {
	const units = str.length;
	if (!highSurrogate.test(str)) return units;
	let count = units;
	for (let i = 0; i < units - 1; i++) if ((str.charCodeAt(i) & 64512) === 55296 && (str.charCodeAt(i + 1) & 64512) === 56320) {
		count--;
		i++;
	}
	return count;
}
function getLengthableOrigin(input) {
	if (Array.isArray(input)) return "array";
	if (typeof input === "string") return "string";
	return "unknown";
}
function parsedType(data) {
	const t = typeof data;
	switch (t) {
		case "number": return Number.isNaN(data) ? "nan" : "number";
		case "object": {
			if (data === null) return "null";
			if (Array.isArray(data)) return "array";
			const obj = data;
			if (obj && Object.getPrototypeOf(obj) !== Object.prototype && "constructor" in obj && obj.constructor) return obj.constructor.name;
		}
	}
	return t;
}
function issue(...args) {
	const [iss, input, inst] = args;
	if (typeof iss === "string") return {
		message: iss,
		code: "custom",
		input,
		inst
	};
	return { ...iss };
}
/**
* Installs a trait's members on its prototype. Each value builds that member for the instance on first read; the built value shadows the accessor as an own property, so a detached `const { parse } = schema` keeps working.
*
* Call this from a `proto` initializer, which runs once per prototype \u2014 never per instance.
*/
function members(proto, table) {
	for (const key in table) {
		const desc = Object.getOwnPropertyDescriptor(table, key);
		if (desc.get) Object.defineProperty(proto, key, {
			...desc,
			enumerable: false
		});
		else defineBound(proto, key, desc.value);
	}
}
/** Shadows a prototype member with an own value, so a getter that builds from the instance runs once. */
function own(inst, key, value, enumerable = true) {
	Object.defineProperty(inst, key, {
		configurable: true,
		writable: true,
		enumerable,
		value
	});
	return value;
}
/** Like {@link own}, for a member that was never an own data property and has to stay out of `Object.keys`. */
function hide(inst, key, value) {
	return own(inst, key, value, false);
}
function defineBound(proto, key, fn) {
	Object.defineProperty(proto, key, {
		configurable: true,
		get() {
			return this == null ? fn : own(this, key, fn.bind(this));
		},
		set(value) {
			own(this, key, value);
		}
	});
}
/** Returns the prototype to install on, or `undefined` if this group is already installed on it. */
function claim(inst, sentinel) {
	const proto = Object.getPrototypeOf(inst);
	return sentinel in proto ? void 0 : proto;
}
let installing;
let broke = false;
const breaker = {
	configurable: true,
	get() {
		broke = true;
	}
};
/**
* Installs a lazily-derived internal on the `_zod` prototype of `inst`'s
* constructor, computed from the internals object itself and cached there on
* first read. One accessor per constructor rather than one per instance.
*/
function defineLazyInternal(inst, key, compute) {
	const proto = Object.getPrototypeOf(inst._zod);
	if (key in proto && installing !== inst._zod) {
		installing = void 0;
		return;
	}
	installing = inst._zod;
	Object.defineProperty(proto, key, {
		configurable: true,
		get() {
			Object.defineProperty(this, key, breaker);
			const outer = broke;
			broke = false;
			try {
				const value = compute(this);
				if (broke) delete this[key];
				else Object.defineProperty(this, key, {
					configurable: true,
					writable: true,
					value
				});
				broke = broke || outer;
				return value;
			} catch (err) {
				delete this[key];
				broke = broke || outer;
				throw err;
			}
		},
		set(value) {
			Object.defineProperty(this, key, {
				configurable: true,
				writable: true,
				value
			});
		}
	});
}
/**
* Installs `key` on `inst`'s prototype, computed by `make` on first read and cached there as an own
* data property. One accessor per constructor rather than one per instance, because an own accessor
* puts every instance after the first into v8 dictionary mode. The key doubles as the sentinel.
*/
function installLazyProp(inst, key, make, enumerable) {
	const proto = claim(inst, key);
	if (!proto) return;
	Object.defineProperty(proto, key, {
		configurable: true,
		get() {
			const desc = {
				configurable: true,
				writable: true,
				enumerable,
				value: void 0
			};
			Object.defineProperty(this, key, desc);
			desc.value = make(this);
			Object.defineProperty(this, key, desc);
			return desc.value;
		},
		set(value) {
			Object.defineProperty(this, key, {
				configurable: true,
				writable: true,
				enumerable,
				value
			});
		}
	});
}
/** Marks the thunk `_catch` synthesises for a constant catch value. `Function.length` cannot tell that thunk from a user callback \u2014 rest and defaulted parameters both report arity 0 \u2014 and a user callback reads `ctx.error`, whose issues only finalize correctly against the caller's per-parse error map. Provenance can say what arity cannot. A plain string key rather than `Symbol.for`, whose call at module scope no bundler can prove pure \u2014 the same shape that anchored `urlCanParse` into every build. */
const CONSTANT_CATCH = "~constantCatch";
/** Wraps a constant catch value in a thunk tagged with {@link CONSTANT_CATCH}. */
function constantCatch(value) {
	const fn = () => value;
	fn[CONSTANT_CATCH] = true;
	return fn;
}
// node_modules/zod/v4/core/core.js
var _a;
/** A special constant with type `never` */
const NEVER = /*@__PURE__*/ Object.freeze({ status: "aborted" });
const _zodDesc = {
	value: void 0,
	enumerable: false
};
let _E = "captureStackTrace" in Error ? Error : null;
function newError(Definition) {
	const E = _E;
	if (E) {
		const saved = E.stackTraceLimit;
		if (typeof saved === "number") {
			try {
				E.stackTraceLimit = 0;
			} catch {
				_E = null;
				return new Definition();
			}
			try {
				return new Definition();
			} finally {
				E.stackTraceLimit = saved;
			}
		}
	}
	return new Definition();
}
/* @__NO_SIDE_EFFECTS__ */
function $constructor(name, initializer, proto, params) {
	const zodProto = {};
	function Internals(def) {
		this.def = def;
		this.constr = _;
		this.traits = /* @__PURE__ */ new Set();
	}
	Internals.prototype = zodProto;
	const protoMembers = proto;
	const initialized = protoMembers && /* @__PURE__ */ new WeakSet();
	function init(inst, def) {
		if (!inst._zod) {
			_zodDesc.value = new Internals(def);
			try {
				Object.defineProperty(inst, "_zod", _zodDesc);
			} finally {
				_zodDesc.value = void 0;
			}
		} else if (inst._zod.traits.has(name)) return;
		inst._zod.traits.add(name);
		initializer(inst, def);
		if (initialized) {
			const own = Object.getPrototypeOf(inst);
			const ctorProto = inst._zod.constr.prototype;
			let up = own;
			while (up && up !== ctorProto) up = Object.getPrototypeOf(up);
			const target = up ?? own;
			if (!initialized.has(target)) {
				initialized.add(target);
				members(target, protoMembers);
			}
		}
		const proto = _.prototype;
		for (const k in proto) {
			if (!Object.prototype.hasOwnProperty.call(proto, k)) continue;
			if (!(k in inst)) inst[k] = proto[k].bind(inst);
		}
	}
	const Parent = params?.Parent ?? Object;
	class Definition extends Parent {}
	Object.defineProperty(Definition, "name", { value: name });
	function _(def) {
		const inst = params?.Parent ? newError(Definition) : this;
		init(inst, def);
		const deferred = inst._zod.deferred;
		if (deferred) {
			for (const fn of deferred) fn();
			inst._zod.deferred = void 0;
		}
		const pp = globalThis.__zod_globalConfig?.postProcessor;
		if (pp) pp(inst);
		return inst;
	}
	Object.defineProperty(_, "init", { value: init });
	Object.defineProperty(_, Symbol.hasInstance, { value: (inst) => {
		if (params?.Parent && inst instanceof params.Parent) return true;
		return inst?._zod?.traits?.has(name);
	} });
	Object.defineProperty(_, "name", { value: name });
	return _;
}
var $ZodAsyncError = class extends Error {
	constructor() {
		super(`Encountered Promise during synchronous parse. Use .parseAsync() instead.`);
	}
};
var $ZodEncodeError = class extends Error {
	constructor(name) {
		super(`Encountered unidirectional transform during encode: ${name}`);
		this.name = "ZodEncodeError";
	}
};
(_a = globalThis).__zod_globalConfig ?? (_a.__zod_globalConfig = {});
const globalConfig = globalThis.__zod_globalConfig;
function config(newConfig) {
	if (newConfig) Object.assign(globalConfig, newConfig);
	return globalConfig;
}
// node_modules/zod/v4/core/errors.js
function _getMessage() {
	const internals = this._zod;
	internals.message ?? (internals.message = JSON.stringify(internals.def, jsonStringifyReplacer, 2));
	return internals.message;
}
function _setMessage(value) {
	this._zod.message = value;
}
const _messageDesc = {
	get: _getMessage,
	set: _setMessage,
	enumerable: true,
	configurable: true
};
const _issuesDesc = {
	value: void 0,
	enumerable: false
};
const _installedToString = /* @__PURE__ */ new WeakSet([Object.prototype, Error.prototype]);
const initializer = (inst, def) => {
	inst.name = "$ZodError";
	_issuesDesc.value = def;
	Object.defineProperty(inst, "issues", _issuesDesc);
	_issuesDesc.value = void 0;
	Object.defineProperty(inst, "message", _messageDesc);
	const proto = Object.getPrototypeOf(inst);
	if (!_installedToString.has(proto)) {
		_installedToString.add(proto);
		Object.defineProperty(proto, "toString", {
			configurable: true,
			enumerable: false,
			get() {
				const value = () => this.message;
				Object.defineProperty(this, "toString", {
					value,
					configurable: true,
					writable: true
				});
				return value;
			},
			set(value) {
				Object.defineProperty(this, "toString", {
					value,
					configurable: true,
					writable: true
				});
			}
		});
	}
};
const $ZodRealError = /* @__PURE__ */ $constructor("$ZodError", initializer, void 0, { Parent: Error });
// node_modules/zod/v4/core/parse.js
const _parse = (_Err) => {
	const fn = (schema, value, _ctx, _params) => {
		const ctx = _ctx ? {
			..._ctx,
			async: false
		} : { async: false };
		const result = schema._zod.run({
			value,
			issues: []
		}, ctx);
		if (result instanceof Promise) throw new $ZodAsyncError();
		if (result.issues.length) {
			const e = new ((_params?.Err) ?? _Err)(result.issues.map((iss) => finalizeIssue(iss, ctx, config())));
			captureStackTrace(e, _params?.callee ?? fn);
			throw e;
		}
		return result.value;
	};
	return fn;
};
const parse$1 = /* @__PURE__*/ _parse($ZodRealError);
const _parseAsync = (_Err) => {
	const fn = async (schema, value, _ctx, params) => {
		const ctx = _ctx ? {
			..._ctx,
			async: true
		} : { async: true };
		let result = schema._zod.run({
			value,
			issues: []
		}, ctx);
		if (result instanceof Promise) result = await result;
		if (result.issues.length) {
			const e = new ((params?.Err) ?? _Err)(result.issues.map((iss) => finalizeIssue(iss, ctx, config())));
			captureStackTrace(e, params?.callee ?? fn);
			throw e;
		}
		return result.value;
	};
	return fn;
};
const parseAsync = /* @__PURE__*/ _parseAsync($ZodRealError);
const _safeParse = (_Err) => (schema, value, _ctx) => {
	const ctx = _ctx ? {
		..._ctx,
		async: false
	} : { async: false };
	const result = schema._zod.run({
		value,
		issues: []
	}, ctx);
	if (result instanceof Promise) throw new $ZodAsyncError();
	return result.issues.length ? failure$1(_Err, result.issues, ctx) : {
		success: true,
		data: result.value
	};
};
const safeParse = /* @__PURE__*/ _safeParse($ZodRealError);
function failure$1(Err, issues, ctx) {
	let error;
	return {
		success: false,
		get error() {
			if (!error) {
				error = new Err(issues.map((iss) => finalizeIssue(iss, ctx, config())));
				issues = void 0;
				ctx = void 0;
			}
			return error;
		},
		set error(e) {
			error = e;
			issues = void 0;
			ctx = void 0;
		}
	};
}
const _safeParseAsync = (_Err) => async (schema, value, _ctx) => {
	const ctx = _ctx ? {
		..._ctx,
		async: true
	} : { async: true };
	let result = schema._zod.run({
		value,
		issues: []
	}, ctx);
	if (result instanceof Promise) result = await result;
	return result.issues.length ? failure$1(_Err, result.issues, ctx) : {
		success: true,
		data: result.value
	};
};
const safeParseAsync = /* @__PURE__*/ _safeParseAsync($ZodRealError);
// node_modules/zod/v4/core/regexes.js
const anyString = /^[\s\S]{0,}$/;
const number$1 = /^-?\d+(?:\.\d+)?$/;
const boolean$1 = /^(?:true|false)$/i;
const _undefined$2 = /^undefined$/i;
// node_modules/zod/v4/core/checks.js
const $ZodCheck = /*@__PURE__*/ $constructor("$ZodCheck", (inst, def) => {
	var _a;
	inst._zod ?? (inst._zod = {});
	inst._zod.def = def;
	(_a = inst._zod).onattach ?? (_a.onattach = []);
});
/** Default `when` for length-based checks: run only on non-nullish values with a `length`. */
const _whenHasLength = (payload) => {
	const val = payload.value;
	return !nullish(val) && val.length !== void 0;
};
const numericOriginMap = {
	number: "number",
	bigint: "bigint",
	object: "date"
};
const $ZodCheckLessThan = /*@__PURE__*/ $constructor("$ZodCheckLessThan", (inst, def) => {
	$ZodCheck.init(inst, def);
	const origin = numericOriginMap[typeof def.value];
	inst._zod.check = (payload) => {
		if (def.inclusive ? payload.value <= def.value : payload.value < def.value) return;
		payload.issues.push({
			origin: numericOriginMap[typeof payload.value] ?? origin,
			code: "too_big",
			maximum: typeof def.value === "object" ? def.value.getTime() : def.value,
			input: payload.value,
			inclusive: def.inclusive,
			inst,
			continue: !def.abort
		});
	};
});
const $ZodCheckGreaterThan = /*@__PURE__*/ $constructor("$ZodCheckGreaterThan", (inst, def) => {
	$ZodCheck.init(inst, def);
	const origin = numericOriginMap[typeof def.value];
	inst._zod.check = (payload) => {
		if (def.inclusive ? payload.value >= def.value : payload.value > def.value) return;
		payload.issues.push({
			origin: numericOriginMap[typeof payload.value] ?? origin,
			code: "too_small",
			minimum: typeof def.value === "object" ? def.value.getTime() : def.value,
			input: payload.value,
			inclusive: def.inclusive,
			inst,
			continue: !def.abort
		});
	};
});
const $ZodCheckNumberFormat = /*@__PURE__*/ $constructor("$ZodCheckNumberFormat", (inst, def) => {
	$ZodCheck.init(inst, def);
	def.format = def.format || "float64";
	const isInt = def.format?.includes("int");
	const origin = isInt ? "int" : "number";
	const [minimum, maximum] = NUMBER_FORMAT_RANGES[def.format];
	inst._zod.check = (payload) => {
		const input = payload.value;
		if (isInt) {
			if (!Number.isInteger(input)) {
				payload.issues.push({
					expected: origin,
					format: def.format,
					code: "invalid_type",
					continue: false,
					input,
					inst
				});
				return;
			}
			if (!Number.isSafeInteger(input)) {
				if (input > 0) payload.issues.push({
					input,
					code: "too_big",
					maximum: Number.MAX_SAFE_INTEGER,
					note: "Integers must be within the safe integer range.",
					inst,
					origin,
					inclusive: true,
					continue: !def.abort
				});
				else payload.issues.push({
					input,
					code: "too_small",
					minimum: Number.MIN_SAFE_INTEGER,
					note: "Integers must be within the safe integer range.",
					inst,
					origin,
					inclusive: true,
					continue: !def.abort
				});
				return;
			}
		}
		if (input < minimum) payload.issues.push({
			origin: "number",
			input,
			code: "too_small",
			minimum,
			inclusive: true,
			inst,
			continue: !def.abort
		});
		if (input > maximum) payload.issues.push({
			origin: "number",
			input,
			code: "too_big",
			maximum,
			inclusive: true,
			inst,
			continue: !def.abort
		});
	};
});
const $ZodCheckMaxLength = /*@__PURE__*/ $constructor("$ZodCheckMaxLength", (inst, def) => {
	var _a;
	$ZodCheck.init(inst, def);
	(_a = inst._zod.def).when ?? (_a.when = _whenHasLength);
	inst._zod.check = (payload) => {
		const input = payload.value;
		const units = input.length;
		if ((typeof input === "string" && units > def.maximum ? codePointLength(input) : units) <= def.maximum) return;
		const origin = getLengthableOrigin(input);
		payload.issues.push({
			origin,
			code: "too_big",
			maximum: def.maximum,
			inclusive: true,
			input,
			inst,
			continue: !def.abort
		});
	};
});
const $ZodCheckMinLength = /*@__PURE__*/ $constructor("$ZodCheckMinLength", (inst, def) => {
	var _a;
	$ZodCheck.init(inst, def);
	(_a = inst._zod.def).when ?? (_a.when = _whenHasLength);
	inst._zod.check = (payload) => {
		const input = payload.value;
		const units = input.length;
		if ((typeof input === "string" && units >= def.minimum && units < def.minimum * 2 ? codePointLength(input) : units) >= def.minimum) return;
		const origin = getLengthableOrigin(input);
		payload.issues.push({
			origin,
			code: "too_small",
			minimum: def.minimum,
			inclusive: true,
			input,
			inst,
			continue: !def.abort
		});
	};
});
const $ZodCheckStringFormat = /*@__PURE__*/ $constructor("$ZodCheckStringFormat", (inst, def) => {
	var _a, _b;
	$ZodCheck.init(inst, def);
	if (def.pattern) (_a = inst._zod).check ?? (_a.check = (payload) => {
		def.pattern.lastIndex = 0;
		if (def.pattern.test(payload.value)) return;
		payload.issues.push({
			origin: "string",
			code: "invalid_format",
			format: def.format,
			input: payload.value,
			...def.pattern ? { pattern: def.pattern.toString() } : {},
			inst,
			continue: !def.abort
		});
	});
	else (_b = inst._zod).check ?? (_b.check = () => {});
});
const $ZodCheckRegex = /*@__PURE__*/ $constructor("$ZodCheckRegex", (inst, def) => {
	$ZodCheckStringFormat.init(inst, def);
	inst._zod.check = (payload) => {
		def.pattern.lastIndex = 0;
		if (def.pattern.test(payload.value)) return;
		payload.issues.push({
			origin: "string",
			code: "invalid_format",
			format: "regex",
			input: payload.value,
			pattern: def.pattern.toString(),
			inst,
			continue: !def.abort
		});
	};
});
// node_modules/zod/v4/core/versions.js
const version$1 = {
	major: 4,
	minor: 6,
	patch: 7
};
// node_modules/zod/v4/core/schemas.js
const $ZodType = /*@__PURE__*/ $constructor("$ZodType", (inst, def) => {
	var _a;
	inst ?? (inst = {});
	inst._zod.def = def;
	inst._zod.bag = inst._zod.bag || {};
	inst._zod.version = version$1;
	const defChecks = inst._zod.def.checks;
	const checks = inst._zod.traits.has("$ZodCheck") ? [inst, ...defChecks ?? []] : defChecks?.length ? [...defChecks] : [];
	for (const ch of checks) for (const fn of ch._zod.onattach) fn(inst);
	if (checks.length === 0) {
		(_a = inst._zod).deferred ?? (_a.deferred = []);
		inst._zod.deferred?.push(() => {
			inst._zod.run = inst._zod.parse;
		});
	} else {
		const runChecks = (payload, checks, ctx) => {
			if (payload.memo) return payload;
			let isAborted = aborted(payload);
			let asyncResult;
			for (const ch of checks) {
				if (ch._zod.def.when) {
					if (explicitlyAborted(payload)) continue;
					if (!ch._zod.def.when(payload)) continue;
				} else if (isAborted) continue;
				const currLen = payload.issues.length;
				const _ = ch._zod.check(payload);
				if (_ instanceof Promise && ctx?.async === false) throw new $ZodAsyncError();
				if (asyncResult || _ instanceof Promise) asyncResult = (asyncResult ?? Promise.resolve()).then(async () => {
					await _;
					if (payload.issues.length === currLen) return;
					attachSchema(payload.issues, currLen, inst);
					if (!isAborted) isAborted = aborted(payload, currLen);
				});
				else {
					if (payload.issues.length === currLen) continue;
					attachSchema(payload.issues, currLen, inst);
					if (!isAborted) isAborted = aborted(payload, currLen);
				}
			}
			if (asyncResult) return asyncResult.then(() => {
				return payload;
			});
			return payload;
		};
		const handleCanaryResult = (canary, payload, ctx) => {
			if (aborted(canary)) {
				canary.aborted = true;
				return canary;
			}
			const checkResult = runChecks(payload, checks, ctx);
			if (checkResult instanceof Promise) {
				if (ctx.async === false) throw new $ZodAsyncError();
				return checkResult.then((checkResult) => inst._zod.parse(checkResult, ctx));
			}
			return inst._zod.parse(checkResult, ctx);
		};
		inst._zod.run = (payload, ctx) => {
			if (ctx.skipChecks) return inst._zod.parse(payload, ctx);
			if (ctx.direction === "backward") {
				const canary = inst._zod.parse({
					value: payload.value,
					issues: []
				}, {
					...ctx,
					skipChecks: true
				});
				if (canary instanceof Promise) return canary.then((canary) => {
					return handleCanaryResult(canary, payload, ctx);
				});
				return handleCanaryResult(canary, payload, ctx);
			}
			const result = inst._zod.parse(payload, ctx);
			if (result instanceof Promise) {
				if (ctx.async === false) throw new $ZodAsyncError();
				return result.then((result) => runChecks(result, checks, ctx));
			}
			return runChecks(result, checks, ctx);
		};
	}
}, {
	get "~standard"() {
		return hide(this, "~standard", standardProps(this));
	},
	set "~standard"(value) {
		own(this, "~standard", value);
	}
});
/** The Standard Schema surface for `inst`. Shared so wrappers can extend it without forcing it. */
const toStandardResult = (r, ctx) => r.issues.length ? { issues: r.issues.map((iss) => finalizeIssue(iss, ctx, config())) } : { value: r.value };
async function validateAsync(inst, value) {
	const ctx = { async: true };
	return toStandardResult(await inst._zod.run({
		value,
		issues: []
	}, ctx), ctx);
}
function standardProps(inst) {
	return {
		validate: (value) => {
			const ctx = { async: false };
			try {
				const r = inst._zod.run({
					value,
					issues: []
				}, ctx);
				if (!(r instanceof Promise)) return toStandardResult(r, ctx);
			} catch (_) {}
			return validateAsync(inst, value);
		},
		vendor: "zod",
		version: 1
	};
}
const $ZodString = /*@__PURE__*/ $constructor("$ZodString", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.pattern = def.pattern ?? anyString;
	inst._zod.parse = (payload, _) => {
		if (def.coerce) try {
			payload.value = String(payload.value);
		} catch (_) {}
		if (typeof payload.value === "string") return payload;
		payload.issues.push({
			expected: "string",
			code: "invalid_type",
			input: payload.value,
			inst
		});
		return payload;
	};
});
const $ZodNumber = /*@__PURE__*/ $constructor("$ZodNumber", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.pattern = number$1;
	inst._zod.parse = (payload, _ctx) => {
		if (def.coerce) try {
			payload.value = Number(payload.value);
		} catch (_) {}
		const input = payload.value;
		if (typeof input === "number" && !Number.isNaN(input) && Number.isFinite(input)) return payload;
		const received = typeof input === "number" ? Number.isNaN(input) ? "NaN" : !Number.isFinite(input) ? String(input) : void 0 : void 0;
		payload.issues.push({
			expected: "number",
			code: "invalid_type",
			input,
			inst,
			...received ? { received } : {}
		});
		return payload;
	};
});
const $ZodNumberFormat = /*@__PURE__*/ $constructor("$ZodNumberFormat", (inst, def) => {
	$ZodCheckNumberFormat.init(inst, def);
	$ZodNumber.init(inst, def);
});
const $ZodBoolean = /*@__PURE__*/ $constructor("$ZodBoolean", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.pattern = boolean$1;
	inst._zod.parse = (payload, _ctx) => {
		if (def.coerce) try {
			payload.value = Boolean(payload.value);
		} catch (_) {}
		const input = payload.value;
		if (typeof input === "boolean") return payload;
		payload.issues.push({
			expected: "boolean",
			code: "invalid_type",
			input,
			inst
		});
		return payload;
	};
});
const $ZodUndefined = /*@__PURE__*/ $constructor("$ZodUndefined", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.pattern = _undefined$2;
	inst._zod.values = /* @__PURE__ */ new Set([void 0]);
	inst._zod.parse = (payload, _ctx) => {
		const input = payload.value;
		if (typeof input === "undefined") return payload;
		payload.issues.push({
			expected: "undefined",
			code: "invalid_type",
			input,
			inst
		});
		return payload;
	};
});
const $ZodUnknown = /*@__PURE__*/ $constructor("$ZodUnknown", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.parse = (payload) => payload;
});
const $ZodNever = /*@__PURE__*/ $constructor("$ZodNever", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.parse = (payload, _ctx) => {
		payload.issues.push({
			expected: "never",
			code: "invalid_type",
			input: payload.value,
			inst
		});
		return payload;
	};
});
function capSize(inst, size) {
	const caps = sizeCaps(inst._zod.def.checks);
	if (!caps.length) return;
	const cap = Math.min(...caps.map((c) => c[0]));
	const parse = inst._zod.parse;
	inst._zod.parse = (payload, ctx) => {
		const n = size(payload.value);
		if (n > cap && !ctx?.skipChecks && ctx?.direction !== "backward") {
			for (const [max, ch] of sizeCaps(inst._zod.def.checks)) if (n > max && ch._zod.def.when(payload)) {
				const start = payload.issues.length;
				ch._zod.check(payload);
				payload.issues[start].continue = false;
				attachSchema(payload.issues, start, inst);
				return payload;
			}
		}
		return parse(payload, ctx);
	};
}
const arraySize = (input) => Array.isArray(input) ? input.length : -1;
function handleArrayResult(result, final, index) {
	if (result.issues.length) final.issues.push(...prefixIssues(index, result.issues));
	final.value[index] = result.value;
}
const $ZodArray = /*@__PURE__*/ $constructor("$ZodArray", (inst, def) => {
	$ZodType.init(inst, def);
	const memo = globalConfig.memoizer;
	memo?.attach(inst);
	inst._zod.parse = (payload, ctx) => {
		const input = payload.value;
		if (!Array.isArray(input)) {
			payload.issues.push({
				expected: "array",
				code: "invalid_type",
				input,
				inst
			});
			return payload;
		}
		payload.value = memo ? memo.alloc(inst, payload, Array(input.length), ctx) : Array(input.length);
		const proms = [];
		const abortEarly = ctx?.abortEarly;
		for (let i = 0; i < input.length; i++) {
			const item = input[i];
			const result = def.element._zod.run({
				value: item,
				issues: []
			}, ctx);
			if (result instanceof Promise) proms.push(result.then((result) => handleArrayResult(result, payload, i)));
			else {
				handleArrayResult(result, payload, i);
				if (abortEarly && result.issues.length !== 0 && aborted(result)) break;
			}
		}
		if (proms.length) return Promise.all(proms).then(() => payload);
		return payload;
	};
	capSize(inst, arraySize);
});
function handlePropertyResult(result, final, key, input, optin, optout) {
	const isPresent = key in input;
	const isOptionalOut = optout === "optional";
	if (!isPresent && isOptionalOut && optin === "optional") return;
	if (result.issues.length) {
		if (optin !== void 0 && isOptionalOut && !isPresent) return;
		final.issues.push(...prefixIssues(key, result.issues));
	}
	if (!isPresent && optin === void 0) {
		if (!result.issues.length) final.issues.push({
			code: "invalid_type",
			expected: "nonoptional",
			input: void 0,
			path: [key]
		});
		return;
	}
	if (result.value === void 0) {
		if (isPresent || optin === "defaulted" && !isOptionalOut) final.value[key] = void 0;
	} else final.value[key] = result.value;
}
const NO_SYMBOL_KEYS = [];
function normalizeDef(def) {
	const keys = Object.keys(def.shape);
	const ownSymbols = Object.getOwnPropertySymbols(def.shape);
	const symbolKeys = ownSymbols.length ? ownSymbols : NO_SYMBOL_KEYS;
	const allKeys = symbolKeys.length ? [...keys, ...symbolKeys] : keys;
	for (const k of allKeys) if (!def.shape?.[k]?._zod?.traits?.has("$ZodType")) throw new Error(`Invalid element at key "${String(k)}": expected a Zod schema`);
	const okeys = optionalKeys(def.shape);
	return {
		...def,
		allKeys,
		symbolKeys,
		keySet: new Set(keys),
		numKeys: keys.length,
		optionalKeys: new Set(okeys)
	};
}
function handleCatchall(proms, input, payload, ctx, def, inst, abortEarly) {
	const unrecognized = [];
	const keySet = def.keySet;
	const _catchall = def.catchall._zod;
	const t = _catchall.def.type;
	const optin = _catchall.optin;
	const optout = _catchall.optout;
	let seen = 0;
	for (const key in input) {
		if (abortEarly && payload.issues.length !== seen) {
			if (aborted(payload, seen)) break;
			seen = payload.issues.length;
		}
		if (keySet.has(key)) continue;
		if (key === "__proto__") {
			if (t === "never") unrecognized.push(key);
			continue;
		}
		if (t === "never") {
			unrecognized.push(key);
			continue;
		}
		const r = _catchall.run({
			value: input[key],
			issues: []
		}, ctx);
		if (r instanceof Promise) proms.push(r.then((r) => handlePropertyResult(r, payload, key, input, optin, optout)));
		else handlePropertyResult(r, payload, key, input, optin, optout);
	}
	if (unrecognized.length) payload.issues.push({
		code: "unrecognized_keys",
		keys: unrecognized,
		input,
		inst,
		continue: true
	});
	if (!proms.length) return payload;
	return Promise.all(proms).then(() => {
		return payload;
	});
}
const $ZodObject = /*@__PURE__*/ $constructor("$ZodObject", (inst, def) => {
	$ZodType.init(inst, def);
	const desc = Object.getOwnPropertyDescriptor(def, "shape");
	const sh = desc?.get ? desc.get.raw : def.shape ?? {};
	if (sh) {
		const get = () => {
			const newSh = { ...sh };
			Object.defineProperty(def, "shape", { value: newSh });
			get.raw = newSh;
			return newSh;
		};
		get.raw = sh;
		Object.defineProperty(def, "shape", { get });
	}
	const _normalized = cached(() => normalizeDef(def));
	defineLazyInternal(inst, "propValues", (zod) => {
		const shape = zod.def.shape;
		const propValues = {};
		for (const key in shape) {
			const field = shape[key]._zod;
			if (field.values) {
				if (!Object.prototype.hasOwnProperty.call(propValues, key)) assignProp(propValues, key, /* @__PURE__ */ new Set());
				for (const v of field.values) propValues[key].add(v);
				if (field.optin !== void 0) propValues[key].add(void 0);
			}
		}
		return propValues;
	});
	const isObject$1 = isObject;
	const catchall = def.catchall;
	let value;
	const memo = globalConfig.memoizer;
	memo?.attach(inst);
	inst._zod.parse = (payload, ctx) => {
		value ?? (value = _normalized.value);
		const input = payload.value;
		if (!isObject$1(input)) {
			payload.issues.push({
				expected: "object",
				code: "invalid_type",
				input,
				inst
			});
			return payload;
		}
		payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
		const proms = [];
		const shape = value.shape;
		const abortEarly = ctx?.abortEarly;
		let seen = payload.issues.length;
		for (const key of value.allKeys) {
			if (abortEarly && payload.issues.length !== seen) {
				if (aborted(payload, seen)) break;
				seen = payload.issues.length;
			}
			if (key === "__proto__") continue;
			const el = shape[key];
			const optin = el._zod.optin;
			const optout = el._zod.optout;
			const r = el._zod.run({
				value: input[key],
				issues: []
			}, ctx);
			if (r instanceof Promise) proms.push(r.then((r) => handlePropertyResult(r, payload, key, input, optin, optout)));
			else handlePropertyResult(r, payload, key, input, optin, optout);
		}
		if (!catchall) return proms.length ? Promise.all(proms).then(() => payload) : payload;
		return handleCatchall(proms, input, payload, ctx, _normalized.value, inst, abortEarly === true);
	};
});
function handleUnionResults(results, final, inst, ctx) {
	for (const result of results) if (result.issues.length === 0) {
		final.value = result.value;
		return final;
	}
	const nonaborted = results.filter((r) => !aborted(r));
	if (nonaborted.length === 1) {
		final.value = nonaborted[0].value;
		return nonaborted[0];
	}
	final.issues.push({
		code: "invalid_union",
		input: final.value,
		inst,
		errors: results.map((result) => result.issues.map((iss) => finalizeIssue(iss, ctx, config())))
	});
	return final;
}
const $ZodUnion = /*@__PURE__*/ $constructor("$ZodUnion", (inst, def) => {
	$ZodType.init(inst, def);
	defineLazyInternal(inst, "optin", (zod) => zod.def.options.some((o) => o._zod.optin === "defaulted") ? "defaulted" : zod.def.options.some((o) => o._zod.optin !== void 0) ? "optional" : void 0);
	defineLazyInternal(inst, "optout", (zod) => zod.def.options.some((o) => o._zod.optout === "optional") ? "optional" : void 0);
	defineLazyInternal(inst, "values", (zod) => {
		if (zod.def.options.every((o) => o._zod.values)) return new Set(zod.def.options.flatMap((option) => Array.from(option._zod.values)));
	});
	defineLazyInternal(inst, "pattern", (zod) => {
		if (zod.def.options.every((o) => o._zod.pattern)) {
			const patterns = zod.def.options.map((o) => o._zod.pattern);
			return new RegExp(`^(${patterns.map((p) => cleanRegex(p.source)).join("|")})$`);
		}
	});
	const first = def.options.length === 1 ? def.options[0]._zod.run : null;
	inst._zod.parse = (payload, ctx) => {
		if (first) return first(payload, ctx);
		let async = false;
		const results = [];
		for (const option of def.options) {
			const result = option._zod.run({
				value: payload.value,
				issues: []
			}, ctx);
			if (result instanceof Promise) {
				results.push(result);
				async = true;
			} else {
				if (result.issues.length === 0) return result;
				results.push(result);
			}
		}
		if (!async) return handleUnionResults(results, payload, inst, ctx);
		return Promise.all(results).then((results) => {
			return handleUnionResults(results, payload, inst, ctx);
		});
	};
});
const $ZodRecord = /*@__PURE__*/ $constructor("$ZodRecord", (inst, def) => {
	$ZodType.init(inst, def);
	const memo = globalConfig.memoizer;
	memo?.attach(inst);
	inst._zod.parse = (payload, ctx) => {
		const input = payload.value;
		if (!isPlainObject(input)) {
			payload.issues.push({
				expected: "record",
				code: "invalid_type",
				input,
				inst
			});
			return payload;
		}
		const proms = [];
		const values = def.keyType._zod.values;
		if (values && !def.partial) {
			payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
			const recordKeys = /* @__PURE__ */ new Set();
			for (const key of values) if (typeof key === "string" || typeof key === "number" || typeof key === "symbol") {
				recordKeys.add(typeof key === "number" ? key.toString() : key);
				if (key === "__proto__") continue;
				const keyResult = def.keyType._zod.run({
					value: key,
					issues: []
				}, ctx);
				if (keyResult instanceof Promise) throw new Error("Async schemas not supported in object keys currently");
				if (keyResult.issues.length) {
					payload.issues.push({
						code: "invalid_key",
						origin: "record",
						issues: keyResult.issues.map((iss) => finalizeIssue(iss, ctx, config())),
						input: key,
						path: [key],
						inst
					});
					continue;
				}
				const outKey = keyResult.value;
				if (outKey === "__proto__") continue;
				const result = def.valueType._zod.run({
					value: input[key],
					issues: []
				}, ctx);
				if (result instanceof Promise) proms.push(result.then((result) => {
					if (result.issues.length) payload.issues.push(...prefixIssues(key, result.issues));
					payload.value[outKey] = result.value;
				}));
				else {
					if (result.issues.length) payload.issues.push(...prefixIssues(key, result.issues));
					payload.value[outKey] = result.value;
				}
			}
			let unrecognized;
			for (const key in input) if (!recordKeys.has(key)) {
				if (def.mode === "loose") {
					if (key === "__proto__") continue;
					payload.value[key] = input[key];
				} else {
					unrecognized = unrecognized ?? [];
					unrecognized.push(key);
				}
			}
			if (unrecognized && unrecognized.length > 0) payload.issues.push({
				code: "unrecognized_keys",
				input,
				inst,
				keys: unrecognized,
				continue: true
			});
		} else {
			payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
			let unrecognized;
			for (const key of Reflect.ownKeys(input)) {
				if (key === "__proto__") continue;
				if (!Object.prototype.propertyIsEnumerable.call(input, key)) continue;
				let keyResult = def.keyType._zod.run({
					value: key,
					issues: []
				}, ctx);
				if (keyResult instanceof Promise) throw new Error("Async schemas not supported in object keys currently");
				if (typeof key === "string" && number$1.test(key) && keyResult.issues.length) {
					const retryResult = def.keyType._zod.run({
						value: Number(key),
						issues: []
					}, ctx);
					if (retryResult instanceof Promise) throw new Error("Async schemas not supported in object keys currently");
					if (retryResult.issues.length === 0) keyResult = retryResult;
				}
				if (keyResult.issues.length) {
					if (def.mode === "loose") payload.value[key] = input[key];
					else if (values) {
						unrecognized = unrecognized ?? [];
						unrecognized.push(key);
					} else payload.issues.push({
						code: "invalid_key",
						origin: "record",
						issues: keyResult.issues.map((iss) => finalizeIssue(iss, ctx, config())),
						input: key,
						path: [key],
						inst
					});
					continue;
				}
				const outKey = keyResult.value;
				if (outKey === "__proto__") continue;
				const result = def.valueType._zod.run({
					value: input[key],
					issues: []
				}, ctx);
				if (result instanceof Promise) proms.push(result.then((result) => {
					if (result.issues.length) payload.issues.push(...prefixIssues(key, result.issues));
					payload.value[outKey] = result.value;
				}));
				else {
					if (result.issues.length) payload.issues.push(...prefixIssues(key, result.issues));
					payload.value[outKey] = result.value;
				}
			}
			if (unrecognized && unrecognized.length > 0) payload.issues.push({
				code: "unrecognized_keys",
				input,
				inst,
				keys: unrecognized,
				continue: true
			});
		}
		if (proms.length) return Promise.all(proms).then(() => payload);
		return payload;
	};
});
const $ZodEnum = /*@__PURE__*/ $constructor("$ZodEnum", (inst, def) => {
	$ZodType.init(inst, def);
	const values = getEnumValues(def.entries);
	const valuesSet = new Set(values);
	inst._zod.values = valuesSet;
	defineLazyInternal(inst, "pattern", (zod) => {
		const patternValues = getEnumValues(zod.def.entries).filter((k) => propertyKeyTypes.has(typeof k));
		return new RegExp(patternValues.length ? `^(${patternValues.map((o) => escapeRegex(o.toString())).join("|")})$` : "^[^\\s\\S]$");
	});
	inst._zod.parse = (payload, _ctx) => {
		const input = payload.value;
		if (valuesSet.has(input)) return payload;
		payload.issues.push({
			code: "invalid_value",
			values,
			input,
			inst
		});
		return payload;
	};
});
const $ZodLiteral = /*@__PURE__*/ $constructor("$ZodLiteral", (inst, def) => {
	$ZodType.init(inst, def);
	const values = new Set(def.values);
	inst._zod.values = values;
	defineLazyInternal(inst, "pattern", (zod) => {
		const vals = zod.def.values;
		return new RegExp(vals.length ? `^(${vals.map((o) => typeof o === "string" ? escapeRegex(o) : o ? escapeRegex(o.toString()) : String(o)).join("|")})$` : "^[^\\s\\S]$");
	});
	inst._zod.parse = (payload, _ctx) => {
		const input = payload.value;
		if (values.has(input)) return payload;
		payload.issues.push({
			code: "invalid_value",
			values: def.values,
			input,
			inst
		});
		return payload;
	};
});
const $ZodTransform = /*@__PURE__*/ $constructor("$ZodTransform", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.optin = "optional";
	globalConfig.memoizer?.guard(inst);
	inst._zod.parse = (payload, ctx) => {
		if (ctx.direction === "backward") throw new $ZodEncodeError(inst.constructor.name);
		const _out = def.transform(payload.value, payload);
		if (ctx.async) return (_out instanceof Promise ? _out : Promise.resolve(_out)).then((output) => {
			payload.value = output;
			return payload;
		});
		if (_out instanceof Promise) throw new $ZodAsyncError();
		payload.value = _out;
		return payload;
	};
});
function handleOptionalResult(payload, result) {
	payload.value = result.issues.length ? void 0 : result.value;
	return payload;
}
const $ZodOptional = /*@__PURE__*/ $constructor("$ZodOptional", (inst, def) => {
	$ZodType.init(inst, def);
	defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin === "defaulted" ? "defaulted" : "optional");
	inst._zod.optout = "optional";
	defineLazyInternal(inst, "values", (zod) => {
		const values = zod.def.innerType._zod.values;
		return values ? /* @__PURE__ */ new Set([...values, void 0]) : void 0;
	});
	defineLazyInternal(inst, "pattern", (zod) => {
		const pattern = zod.def.innerType._zod.pattern;
		return pattern ? new RegExp(`^(${cleanRegex(pattern.source)})?$`) : void 0;
	});
	inst._zod.parse = (payload, ctx) => {
		if (payload.value === void 0) {
			if (def.innerType._zod.optin !== "defaulted") return payload;
			const result = def.innerType._zod.run({
				value: payload.value,
				issues: []
			}, ctx);
			if (result instanceof Promise) return result.then((result) => handleOptionalResult(payload, result));
			return handleOptionalResult(payload, result);
		}
		return def.innerType._zod.run(payload, ctx);
	};
});
const $ZodNullable = /*@__PURE__*/ $constructor("$ZodNullable", (inst, def) => {
	$ZodType.init(inst, def);
	defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin);
	defineLazyInternal(inst, "optout", (zod) => zod.def.innerType._zod.optout);
	defineLazyInternal(inst, "pattern", (zod) => {
		const pattern = zod.def.innerType._zod.pattern;
		return pattern ? new RegExp(`^(${cleanRegex(pattern.source)}|null)$`) : void 0;
	});
	defineLazyInternal(inst, "values", (zod) => {
		return zod.def.innerType._zod.values ? /* @__PURE__ */ new Set([...zod.def.innerType._zod.values, null]) : void 0;
	});
	inst._zod.parse = (payload, ctx) => {
		if (payload.value === null) return payload;
		return def.innerType._zod.run(payload, ctx);
	};
});
const $ZodDefault = /*@__PURE__*/ $constructor("$ZodDefault", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.optin = "defaulted";
	defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
	inst._zod.parse = (payload, ctx) => {
		if (ctx.direction === "backward") return def.innerType._zod.run(payload, ctx);
		if (payload.value === void 0) {
			payload.value = def.defaultValue;
			/**
			* $ZodDefault returns the default value immediately in forward direction.
			* It doesn't pass the default value into the validator ("prefault"). There's no reason to pass the default value through validation. The validity of the default is enforced by TypeScript statically. Otherwise, it's the responsibility of the user to ensure the default is valid. In the case of pipes with divergent in/out types, you can specify the default on the `in` schema of your ZodPipe to set a "prefault" for the pipe.   */
			return payload;
		}
		const result = def.innerType._zod.run(payload, ctx);
		if (result instanceof Promise) return result.then((result) => handleDefaultResult(result, def));
		return handleDefaultResult(result, def);
	};
});
function handleDefaultResult(payload, def) {
	if (payload.value === void 0) payload.value = def.defaultValue;
	return payload;
}
function handleCatchResult(payload, result, def, ctx) {
	if (!result.issues.length) {
		payload.value = result.value;
		if (result.memo) payload.memo = true;
		return payload;
	}
	payload.value = def.catchValue({
		...result,
		value: payload.value,
		error: { issues: result.issues.map((iss) => finalizeIssue(iss, ctx, config())) },
		input: payload.value
	});
	return payload;
}
const $ZodCatch = /*@__PURE__*/ $constructor("$ZodCatch", (inst, def) => {
	$ZodType.init(inst, def);
	defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin === "defaulted" ? "defaulted" : "optional");
	defineLazyInternal(inst, "optout", (zod) => zod.def.innerType._zod.optout);
	defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
	inst._zod.parse = (payload, ctx) => {
		if (ctx.direction === "backward") return def.innerType._zod.run(payload, ctx);
		const result = def.innerType._zod.run({
			value: payload.value,
			issues: []
		}, ctx);
		if (result instanceof Promise) return result.then((result) => handleCatchResult(payload, result, def, ctx));
		return handleCatchResult(payload, result, def, ctx);
	};
});
const $ZodPipe = /*@__PURE__*/ $constructor("$ZodPipe", (inst, def) => {
	$ZodType.init(inst, def);
	defineLazyInternal(inst, "values", (zod) => zod.def.in._zod.values);
	defineLazyInternal(inst, "optin", (zod) => zod.def.in._zod.optin);
	defineLazyInternal(inst, "optout", (zod) => zod.def.out._zod.optout);
	defineLazyInternal(inst, "propValues", (zod) => zod.def.in._zod.propValues);
	inst._zod.parse = (payload, ctx) => {
		if (ctx.direction === "backward") {
			const right = def.out._zod.run(payload, ctx);
			if (right instanceof Promise) return right.then((right) => handlePipeResult(right, def.in, ctx));
			return handlePipeResult(right, def.in, ctx);
		}
		const left = def.in._zod.run(payload, ctx);
		if (left instanceof Promise) return left.then((left) => handlePipeResult(left, def.out, ctx));
		return handlePipeResult(left, def.out, ctx);
	};
});
function handlePipeResult(left, next, ctx) {
	if (left.issues.some((iss) => iss.code !== "unrecognized_keys")) {
		left.aborted = true;
		return left;
	}
	return next._zod.run({
		value: left.value,
		issues: left.issues
	}, ctx);
}
const $ZodCustom = /*@__PURE__*/ $constructor("$ZodCustom", (inst, def) => {
	$ZodCheck.init(inst, def);
	$ZodType.init(inst, def);
	inst._zod.parse = (payload, _) => {
		return payload;
	};
	inst._zod.check = (payload) => {
		const input = payload.value;
		const r = def.fn(input);
		if (r instanceof Promise) return r.then((r) => handleRefineResult(r, payload, input, inst));
		handleRefineResult(r, payload, input, inst);
	};
});
function handleRefineResult(result, payload, input, inst) {
	if (!result) {
		const _iss = {
			code: "custom",
			input,
			inst,
			path: [...inst._zod.def.path ?? []],
			continue: !inst._zod.def.abort
		};
		if (inst._zod.def.params) _iss.params = inst._zod.def.params;
		payload.issues.push(issue(_iss));
	}
}
// node_modules/zod/v4/core/api.js
function snapshotChecks(def) {
	if (def.checks) def.checks = [...def.checks];
	return def;
}
// @__NO_SIDE_EFFECTS__
function _string(Class, params) {
	return new Class(snapshotChecks({
		type: "string",
		...normalizeParams(params)
	}));
}
// @__NO_SIDE_EFFECTS__
function _number(Class, params) {
	return new Class(snapshotChecks({
		type: "number",
		checks: [],
		...normalizeParams(params)
	}));
}
// @__NO_SIDE_EFFECTS__
function _int(Class, params) {
	return new Class({
		type: "number",
		check: "number_format",
		abort: false,
		format: "safeint",
		...normalizeParams(params)
	});
}
// @__NO_SIDE_EFFECTS__
function _boolean(Class, params) {
	return new Class({
		type: "boolean",
		...normalizeParams(params)
	});
}
// @__NO_SIDE_EFFECTS__
function _undefined$1(Class, params) {
	return new Class({
		type: "undefined",
		...normalizeParams(params)
	});
}
// @__NO_SIDE_EFFECTS__
function _unknown(Class) {
	return new Class({ type: "unknown" });
}
// @__NO_SIDE_EFFECTS__
function _never(Class, params) {
	return new Class({
		type: "never",
		...normalizeParams(params)
	});
}
// @__NO_SIDE_EFFECTS__
function _lte(value, params) {
	return new $ZodCheckLessThan({
		check: "less_than",
		...normalizeParams(params),
		value,
		inclusive: true
	});
}
// @__NO_SIDE_EFFECTS__
function _gt(value, params) {
	return new $ZodCheckGreaterThan({
		check: "greater_than",
		...normalizeParams(params),
		value,
		inclusive: false
	});
}
// @__NO_SIDE_EFFECTS__
function _gte(value, params) {
	return new $ZodCheckGreaterThan({
		check: "greater_than",
		...normalizeParams(params),
		value,
		inclusive: true
	});
}
// @__NO_SIDE_EFFECTS__
function _positive(params) {
	return /* @__PURE__ */ _gt(0, params);
}
// @__NO_SIDE_EFFECTS__
function _nonnegative(params) {
	return /* @__PURE__ */ _gte(0, params);
}
// @__NO_SIDE_EFFECTS__
function _maxLength(maximum, params) {
	return new $ZodCheckMaxLength({
		check: "max_length",
		...normalizeParams(params),
		maximum
	});
}
// @__NO_SIDE_EFFECTS__
function _minLength(minimum, params) {
	return new $ZodCheckMinLength({
		check: "min_length",
		...normalizeParams(params),
		minimum
	});
}
// @__NO_SIDE_EFFECTS__
function _regex(pattern, params) {
	return new $ZodCheckRegex({
		check: "string_format",
		format: "regex",
		...normalizeParams(params),
		pattern
	});
}
// @__NO_SIDE_EFFECTS__
function _refine(Class, fn, _params) {
	return new Class({
		type: "custom",
		check: "custom",
		fn,
		...normalizeParams(_params)
	});
}
// node_modules/zod/v4/mini/schemas.js
const ZodMiniType = /*@__PURE__*/ $constructor("ZodMiniType", (inst, def) => {
	if (!inst._zod) throw new Error("Uninitialized schema in ZodMiniType.");
	$ZodType.init(inst, def);
	inst.def = def;
	inst.type = def.type;
}, {
	get with() {
		return this.check;
	},
	set with(value) {
		own(this, "with", value);
	},
	parse(data, params) {
		return parse$1(this, data, params, { callee: this.parse });
	},
	parseAsync(data, params) {
		return parseAsync(this, data, params, { callee: this.parseAsync });
	},
	safeParse(data, params) {
		return safeParse(this, data, params);
	},
	safeParseAsync(data, params) {
		return safeParseAsync(this, data, params);
	},
	check(...checks) {
		const def = this.def;
		return this.clone({
			...def,
			checks: [...def.checks ?? [], ...checks.map((ch) => typeof ch === "function" ? { _zod: {
				check: ch,
				def: { check: "custom" },
				onattach: []
			} } : ch)]
		}, { parent: true });
	},
	clone(_def, params) {
		return clone(this, _def, params);
	},
	brand() {
		return this;
	},
	register(reg, meta) {
		reg.add(this, meta);
		return this;
	},
	apply(fn, ...args) {
		return args.length === 0 ? fn(this) : fn(this, ...args);
	}
});
const ZodMiniString = /*@__PURE__*/ $constructor("ZodMiniString", (inst, def) => {
	$ZodString.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function string(params) {
	return /* @__PURE__ */ _string(ZodMiniString, params);
}
const ZodMiniNumber = /*@__PURE__*/ $constructor("ZodMiniNumber", (inst, def) => {
	$ZodNumber.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function number(params) {
	return /* @__PURE__ */ _number(ZodMiniNumber, params);
}
const ZodMiniNumberFormat = /*@__PURE__*/ $constructor("ZodMiniNumberFormat", (inst, def) => {
	$ZodNumberFormat.init(inst, def);
	ZodMiniNumber.init(inst, def);
});
function int(params) {
	return /* @__PURE__ */ _int(ZodMiniNumberFormat, params);
}
const ZodMiniBoolean = /*@__PURE__*/ $constructor("ZodMiniBoolean", (inst, def) => {
	$ZodBoolean.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function boolean(params) {
	return /* @__PURE__ */ _boolean(ZodMiniBoolean, params);
}
const ZodMiniUndefined = /*@__PURE__*/ $constructor("ZodMiniUndefined", (inst, def) => {
	$ZodUndefined.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function _undefined(params) {
	return /* @__PURE__ */ _undefined$1(ZodMiniUndefined, params);
}
const ZodMiniUnknown = /*@__PURE__*/ $constructor("ZodMiniUnknown", (inst, def) => {
	$ZodUnknown.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function unknown() {
	return /* @__PURE__ */ _unknown(ZodMiniUnknown);
}
const ZodMiniNever = /*@__PURE__*/ $constructor("ZodMiniNever", (inst, def) => {
	$ZodNever.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function never(params) {
	return /* @__PURE__ */ _never(ZodMiniNever, params);
}
const ZodMiniArray = /*@__PURE__*/ $constructor("ZodMiniArray", (inst, def) => {
	$ZodArray.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function array(element, params) {
	return new ZodMiniArray({
		type: "array",
		element,
		...normalizeParams(params)
	});
}
const ZodMiniObject = /*@__PURE__*/ $constructor("ZodMiniObject", (inst, def) => {
	$ZodObject.init(inst, def);
	ZodMiniType.init(inst, def);
	installLazyProp(inst, "shape", (self) => self._zod.def.shape, false);
});
// @__NO_SIDE_EFFECTS__
function object(shape, params) {
	const def = {
		type: "object",
		shape: shape ?? {},
		...normalizeParams(params)
	};
	return new ZodMiniObject(def);
}
// @__NO_SIDE_EFFECTS__
function strictObject(shape, params) {
	return new ZodMiniObject({
		type: "object",
		shape,
		catchall: /* @__PURE__ */ never(),
		...normalizeParams(params)
	});
}
const ZodMiniUnion = /*@__PURE__*/ $constructor("ZodMiniUnion", (inst, def) => {
	$ZodUnion.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function union(options, params) {
	return new ZodMiniUnion({
		type: "union",
		options,
		...normalizeParams(params)
	});
}
const ZodMiniRecord = /*@__PURE__*/ $constructor("ZodMiniRecord", (inst, def) => {
	$ZodRecord.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function record(keyType, valueType, params) {
	if (!valueType || !valueType._zod) return new ZodMiniRecord({
		type: "record",
		keyType: /* @__PURE__ */ string(),
		valueType: keyType,
		...normalizeParams(valueType)
	});
	return new ZodMiniRecord({
		type: "record",
		keyType,
		valueType,
		...normalizeParams(params)
	});
}
// @__NO_SIDE_EFFECTS__
function partialRecord(keyType, valueType, params) {
	return new ZodMiniRecord({
		type: "record",
		keyType,
		valueType,
		...normalizeParams(params),
		partial: true
	});
}
const ZodMiniEnum = /*@__PURE__*/ $constructor("ZodMiniEnum", (inst, def) => {
	$ZodEnum.init(inst, def);
	ZodMiniType.init(inst, def);
	inst.options = [...inst._zod.values];
});
// @__NO_SIDE_EFFECTS__
function _enum(values, params) {
	const entries = Array.isArray(values) ? Object.fromEntries(values.map((v) => [v, v])) : values;
	return new ZodMiniEnum({
		type: "enum",
		entries,
		...normalizeParams(params)
	});
}
const ZodMiniLiteral = /*@__PURE__*/ $constructor("ZodMiniLiteral", (inst, def) => {
	$ZodLiteral.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function literal(value, params) {
	return new ZodMiniLiteral({
		type: "literal",
		values: Array.isArray(value) ? value : [value],
		...normalizeParams(params)
	});
}
const ZodMiniTransform = /*@__PURE__*/ $constructor("ZodMiniTransform", (inst, def) => {
	$ZodTransform.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function transform(fn) {
	return new ZodMiniTransform({
		type: "transform",
		transform: fn
	});
}
const ZodMiniOptional = /*@__PURE__*/ $constructor("ZodMiniOptional", (inst, def) => {
	$ZodOptional.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function optional(innerType) {
	return new ZodMiniOptional({
		type: "optional",
		innerType
	});
}
const ZodMiniNullable = /*@__PURE__*/ $constructor("ZodMiniNullable", (inst, def) => {
	$ZodNullable.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function nullable(innerType) {
	return new ZodMiniNullable({
		type: "nullable",
		innerType
	});
}
const ZodMiniDefault = /*@__PURE__*/ $constructor("ZodMiniDefault", (inst, def) => {
	$ZodDefault.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function _default(innerType, defaultValue) {
	return new ZodMiniDefault({
		type: "default",
		innerType,
		get defaultValue() {
			return typeof defaultValue === "function" ? defaultValue() : shallowClone(defaultValue);
		}
	});
}
const ZodMiniCatch = /*@__PURE__*/ $constructor("ZodMiniCatch", (inst, def) => {
	$ZodCatch.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function _catch(innerType, catchValue) {
	return new ZodMiniCatch({
		type: "catch",
		innerType,
		catchValue: typeof catchValue === "function" ? catchValue : constantCatch(catchValue)
	});
}
const ZodMiniPipe = /*@__PURE__*/ $constructor("ZodMiniPipe", (inst, def) => {
	$ZodPipe.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function pipe(in_, out) {
	return new ZodMiniPipe({
		type: "pipe",
		in: in_,
		out
	});
}
const ZodMiniCustom = /*@__PURE__*/ $constructor("ZodMiniCustom", (inst, def) => {
	$ZodCustom.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function refine(fn, _params = {}) {
	return /* @__PURE__ */ _refine(ZodMiniCustom, fn, _params);
}
// src/plane/deploy.ts
/**
* What a lease request may say of the deploy it gates: extension fields of
* the lease body (`deploy: {...}`, `queue: 'newest'`). The hosted plane does
* not document them and ignores unknown fields; the bundled kernel validates
* them (a bad field is a 400 naming it), records them in the grant's ledger
* entry, supersedes waiting runs by them and answers the last grant's deploy
* of the same repository (`previous`) with a grant. Every field is optional:
* a CI system that knows no run number still names its commit.
*/
const REPOSITORY_PATTERN = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
/** A full commit id: SHA-1 (40) or SHA-256 (64) hex; the compare API needs it whole. */
const COMMIT_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Printable ASCII without spaces, as git refs are. */
const REF_PATTERN = /^[\x21-\x7e]{1,256}$/;
/** A workflow name is one line of text. */
const ONE_LINE = controlFree(1, 256);
const DEPLOY_FORMS = {
	repository: "owner/repo",
	workflow: "one line of 1 to 256 characters",
	ref: "1 to 256 printable characters without spaces, such as refs/heads/main",
	commit: "a full commit SHA: 40 (or 64) lowercase hex digits",
	runNumber: "a whole number from 1 to 10^12",
	runAttempt: "a whole number from 1 to 10^6",
	runUrl: "an https:// URL of at most 2048 characters"
};
const text = (pattern, form) => (/* @__PURE__ */ string()).check(/* @__PURE__ */ _regex(pattern, `expected ${form}`));
const whole = (max, form) => (/* @__PURE__ */ number()).check(/* @__PURE__ */ refine((n) => Number.isInteger(n) && n >= 1 && n <= max, `expected ${form}`));
const isRunUrl = (value) => {
	if (value.length > 2048) return false;
	try {
		const url = new URL(value);
		return url.protocol === "https:" && url.username === "" && url.password === "";
	} catch {
		return false;
	}
};
/** Unknown keys are dropped, not refused: a newer gate may say more than this kernel knows. */
const deploySchema = /* @__PURE__ */ object({
	repository: /* @__PURE__ */ optional(text(REPOSITORY_PATTERN, DEPLOY_FORMS.repository)),
	workflow: /* @__PURE__ */ optional(text(ONE_LINE, DEPLOY_FORMS.workflow)),
	ref: /* @__PURE__ */ optional(text(REF_PATTERN, DEPLOY_FORMS.ref)),
	commit: /* @__PURE__ */ optional(text(COMMIT_PATTERN, DEPLOY_FORMS.commit)),
	runNumber: /* @__PURE__ */ optional(whole(0xe8d4a51000, DEPLOY_FORMS.runNumber)),
	runAttempt: /* @__PURE__ */ optional(whole(1e6, DEPLOY_FORMS.runAttempt)),
	runUrl: /* @__PURE__ */ optional((/* @__PURE__ */ string()).check(/* @__PURE__ */ refine(isRunUrl, `expected ${DEPLOY_FORMS.runUrl}`)))
});
/** The deploy's fields in one fixed order (ledger lines, console rows, the kernel's check). */
const DEPLOY_FIELDS = [
	"repository",
	"workflow",
	"ref",
	"commit",
	"runNumber",
	"runAttempt",
	"runUrl"
];
/** How a waiting run treats newer runs of its lane: `fifo` waits its turn; `newest` steps aside. */
const QUEUE_MODES = ["fifo", "newest"];
const queueSchema = /* @__PURE__ */ _enum(QUEUE_MODES);
/** The extension fields of a lease request body, as the kernel reads them. */
const leaseExtensionSchema = /* @__PURE__ */ object({
	deploy: /* @__PURE__ */ optional(deploySchema),
	queue: /* @__PURE__ */ optional(queueSchema)
});
/** A kernel's answer to a waiter a newer run of its lane took the place of. */
const supersededSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(false),
	reason: /* @__PURE__ */ literal("superseded"),
	by: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _minLength(1), /* @__PURE__ */ _maxLength(2048))
});
/** The commit list in a fixed order, so a ledger line and a console row read the same. */
function deployEntries(deploy) {
	const out = [];
	for (const key of DEPLOY_FIELDS) {
		const value = deploy[key];
		if (value !== void 0) out.push([key, value]);
	}
	return out;
}
/** A plain copy with only the known fields (what the kernel keeps and records). */
function cleanDeploy(deploy) {
	const out = {};
	for (const [key, value] of deployEntries(deploy)) out[key] = value;
	return Object.keys(out).length ? out : void 0;
}
// src/plane/schema.ts
/**
* The plane's wire contract (CONTRACT.md part 1 and interfaces.md). Only the
* fields we use are validated, and bounded: every answer is untrusted input.
* Unknown fields are accepted and ignored. zod/mini keeps this off the
* start-up bill (every job pays it twice).
*/
const LEASE_PATH = "/api/v1/acp/coordination/lease";
const RELEASE_PATH = "/api/v1/acp/coordination/release";
const REVOKE_PATH = "/api/v1/acp/coordination/revoke";
/** The bundled kernel's watch on one's own lease (answered when it ends); other planes may 404. */
const WATCH_PATH = "/api/v1/acp/coordination/watch";
/** The bundled kernel's operator freeze (admin key), CONTRACT.md part 3. */
const FREEZE_PATH = "/api/v1/acp/coordination/freeze";
const UNFREEZE_PATH = "/api/v1/acp/coordination/unfreeze";
/** The bundled kernel's break-glass (admin key) and its second operator's approval (approver key). */
const BREAK_GLASS_PATH = "/api/v1/acp/coordination/break-glass";
const APPROVE_BREAK_GLASS_PATH = "/api/v1/acp/coordination/break-glass/approve";
const WITHDRAW_BREAK_GLASS_PATH = "/api/v1/acp/coordination/break-glass/withdraw";
/** The local kernel's overview of every resource with a lease, a reservation or waiters. */
const KERNEL_RESOURCES_PATH = "/api/v1/kernel/resources";
/** The local kernel's ledger routes (the hosted plane documents a ledger, not yet its routes). */
const LEDGER_PATHS = {
	checkpoint: "/api/v1/acp/ledger/checkpoint",
	bundle: "/api/v1/acp/ledger/bundle",
	publicKey: "/api/v1/acp/ledger/public-key"
};
/** A resource name: printable ASCII without spaces, as `lock:deploy/production`. */
/**
* The name an operator gives itself on a freeze or unfreeze (the console's "Your name",
* the CLI's --by), recorded in the ledger as `operator:NAME`: one short word of a safe
* charset, so it reads the same in a terminal and a page and cannot pass for a job's DID.
*/
const OPERATOR_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const OPERATOR_NAME_FORM = "a name of 1 to 64 letters, digits, \".\", \"_\", \"@\" or \"-\", starting with a letter or digit";
const RESOURCE_PATTERN = /^[\x21-\x7e]{1,256}$/;
const RESOURCE_FORM = "1 to 256 printable characters without spaces, such as lock:deploy/production";
/** did:<method>:<method-specific id> with the DID syntax's characters. */
const DID_PATTERN = /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*)*$/;
const DID_FORM = `a DID of the form did:<method>:<id>, at most 512 characters`;
const isDid = (value) => value.length <= 512 && DID_PATTERN.test(value);
/** The range of a JavaScript Date: an expiry outside it cannot be shown, so it is refused. */
const MAX_EPOCH_MS = 864e13;
/** No plane back-off is longer than a day; longer is a broken answer. */
const MAX_WAIT_MS = 864e5;
const MAX_TEXT = 1e3;
/** A DID and a resource name as a request names them, each refusal naming the accepted form. */
const didSchema = (/* @__PURE__ */ string()).check(/* @__PURE__ */ refine(isDid, `expected ${DID_FORM}`));
const resourceSchema = (/* @__PURE__ */ string()).check(/* @__PURE__ */ _regex(RESOURCE_PATTERN, `expected ${RESOURCE_FORM}`));
const shortText = (max) => (/* @__PURE__ */ string()).check(/* @__PURE__ */ _minLength(1, "expected a non-empty string"), /* @__PURE__ */ _maxLength(max, `expected at most ${max} characters`));
const boundedNumber = (min, max, what) => (/* @__PURE__ */ number()).check(/* @__PURE__ */ refine((n) => Number.isFinite(n) && n >= min && n <= max, `expected ${what}`));
const leaseSchema = /* @__PURE__ */ object({
	id: shortText(256),
	resource: shortText(256),
	holder: didSchema,
	expiresAtMs: boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds within the range of a date"),
	/**
	* The bundled kernel's: how long this grant or renewal runs from when the plane decided
	* it (a lease time, not a point on any clock), so the keeper paces without a wall clock.
	* One we cannot read is dropped (the keeper falls back to the documented 30 s).
	*/
	ttlMs: /* @__PURE__ */ optional(/* @__PURE__ */ _catch(/* @__PURE__ */ optional(boundedNumber(1, 36e5, "milliseconds from 1 to an hour")), void 0)),
	/** Only the bundled kernel promises a fencing token. */
	fence: /* @__PURE__ */ optional(boundedNumber(0, Number.MAX_SAFE_INTEGER, "a whole number from 0 to 2^53-1").check(/* @__PURE__ */ refine(Number.isInteger, "expected a whole number"))),
	/** The kernel's extension (plane/deploy.ts): what the holder deploys; one we cannot read is dropped. */
	deploy: /* @__PURE__ */ optional(/* @__PURE__ */ _catch(/* @__PURE__ */ optional(deploySchema), void 0))
});
const grantedSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	lease: leaseSchema
});
const heldSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(false),
	reason: /* @__PURE__ */ literal("lease_held"),
	holder: didSchema,
	reserved: /* @__PURE__ */ optional(/* @__PURE__ */ boolean()),
	stampede: /* @__PURE__ */ object({ waitMs: boundedNumber(0, MAX_WAIT_MS, "milliseconds from 0 to a day") }),
	position: /* @__PURE__ */ optional(boundedNumber(0, 1e9, "a queue position")),
	/** The plane's estimate of the wait; optional (the kernel names it once a hold has ended). */
	etaMs: /* @__PURE__ */ optional(boundedNumber(0, MAX_WAIT_MS * 30, "milliseconds from 0 to 30 days")),
	/** How far the holder runs past a typical hold, when it does (the kernel's). */
	overdueMs: /* @__PURE__ */ optional(boundedNumber(0, MAX_WAIT_MS * 30, "milliseconds from 0 to 30 days"))
});
/** The kernel's operator freeze (CONTRACT.md part 3): a wait, within the gate's budget. */
const frozenSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(false),
	reason: /* @__PURE__ */ literal("frozen"),
	message: /* @__PURE__ */ optional(/* @__PURE__ */ string()),
	until: /* @__PURE__ */ optional(/* @__PURE__ */ nullable(boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds"))),
	stampede: /* @__PURE__ */ optional(/* @__PURE__ */ object({ waitMs: boundedNumber(0, MAX_WAIT_MS, "milliseconds from 0 to a day") })),
	position: /* @__PURE__ */ optional(boundedNumber(0, 1e9, "a queue position"))
});
const revokedSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(false),
	reason: /* @__PURE__ */ literal("revoked"),
	holder: /* @__PURE__ */ optional(didSchema),
	message: /* @__PURE__ */ optional(/* @__PURE__ */ string()),
	/** Who revoked (`operator:NAME`), when the plane names them. */
	by: /* @__PURE__ */ optional(shortText(200))
});
const otherRefusalSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(false),
	reason: shortText(200),
	message: /* @__PURE__ */ optional(/* @__PURE__ */ string())
});
const releaseAnswerSchema = /* @__PURE__ */ object({ releasedIds: (/* @__PURE__ */ array(shortText(256))).check(/* @__PURE__ */ _maxLength(100, "expected at most 100 ids")) });
const statusAnswerSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	lease: /* @__PURE__ */ nullable(leaseSchema),
	/** The bundled kernel's freeze in force (an operator's or a recurring window); other planes leave it out. */
	frozen: /* @__PURE__ */ optional(/* @__PURE__ */ nullable(/* @__PURE__ */ object({
		by: shortText(512),
		reason: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(1e4, "expected at most 10000 characters")),
		until: /* @__PURE__ */ nullable(boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds"))
	})))
});
const revokeAnswerSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	revoked: /* @__PURE__ */ boolean(),
	/** The bundled kernel names the lease it ended and its holder; other planes may not. */
	leaseId: /* @__PURE__ */ optional(/* @__PURE__ */ nullable(shortText(256))),
	holder: /* @__PURE__ */ optional(/* @__PURE__ */ nullable(didSchema))
});
/** The kernel's watch answer: still held, or how and when the lease ended (all of it untrusted). */
const watchAnswerSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	ended: /* @__PURE__ */ boolean(),
	reason: /* @__PURE__ */ optional(shortText(200)),
	endedAtMs: /* @__PURE__ */ optional(boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds within the range of a date")),
	message: /* @__PURE__ */ optional(/* @__PURE__ */ string()),
	holder: /* @__PURE__ */ optional(didSchema),
	/** Who revoked (`operator:NAME`), when the plane names them. */
	by: /* @__PURE__ */ optional(shortText(200))
});
const freezeAnswerSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	frozen: /* @__PURE__ */ boolean(),
	until: /* @__PURE__ */ optional(/* @__PURE__ */ nullable(boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds"))),
	/** Whether the command changed anything (unfreezing what was not frozen does not). */
	changed: /* @__PURE__ */ boolean()
});
/** The bundled kernel's break-glass, as opened or approved (its texts are untrusted: escape to print). */
const breakGlassAnswerSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	actorDid: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(512)),
	reason: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(1e3)),
	by: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(100)),
	until: boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds"),
	/** Waiting for the second operator's approval. */
	pending: /* @__PURE__ */ boolean(),
	approvedBy: /* @__PURE__ */ optional((/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(300))),
	/** The run and attempt whose OIDC token approved it (one approval approves one pass). */
	approval: /* @__PURE__ */ optional((/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(512))),
	/** The answer of a withdrawal: this pass is gone. */
	withdrawn: /* @__PURE__ */ optional(/* @__PURE__ */ literal(true))
});
/** Plane text is bounded before anything else sees it. */
function clipText(text, max = MAX_TEXT) {
	if (text === void 0) return void 0;
	const line = text.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(CONTROL_CHARS, " ");
	return line.length <= max ? line : `${line.slice(0, max - 1)}\u2026`;
}
/** Turns a zod failure into "field: problem" that a person can act on. */
function describeIssues(error) {
	return error.issues.slice(0, 5).map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(body)"}: ${issue.message}`).join("; ");
}
// src/plane/did.ts
/**
* The DID's shapes, part of the wire contract: the one segment encoder, GitHub's
* repository names, and the strict readers of a run DID (untrusted input), read alike
* by the session core (lease/did.ts, which derives the DIDs), the kernel (revokes and
* OIDC identities) and the console page. No I/O and no node: imports, so the page may
* bundle it.
*   did:web:<host>:<owner>:<repo>:actions:runs:<run id>:attempts:<n>:jobs:<job>:<nonce>
*/
/** A DID segment: UTF-8 bytes outside DID idchars percent-encoded, so a segment never holds a colon. */
function didSegment(value) {
	let out = "";
	for (const byte of new TextEncoder().encode(value)) {
		const char = String.fromCharCode(byte);
		out += /[A-Za-z0-9._-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
	}
	return out;
}
/** GitHub's naming rules: owners are 1\u201339 letters, digits or single hyphens; repos 1\u2013100 of [A-Za-z0-9._-]. */
const OWNER_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const REPO_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;
const RUN_ID_PATTERN = /^[1-9]\d{0,19}$/;
const HOST_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::\d{1,5})?$/;
/** `owner/repo` by GitHub's rules; undefined for anything else. */
function parseRepository(value) {
	const [owner, repo, ...rest] = value.split("/");
	if (rest.length || !owner || !repo || !OWNER_PATTERN.test(owner) || !REPO_PATTERN.test(repo)) return;
	return {
		owner,
		repo
	};
}
/**
* The run behind a DID made by deriveActorDid; undefined for any other DID.
* Strict: owner and repo by GitHub's rules (never percent-encoded), numeric
* run and attempt, a plain host name; nothing is decoded into a path.
*/
function parseRunDid(did) {
	if (!isDid(did) || !did.startsWith("did:web:")) return void 0;
	const parts = did.slice(8).split(":");
	if (parts.length !== 11) return void 0;
	const [rawHost = "", owner = "", repo = "", actions, runs, runId = "", attempts, attempt = "", jobs] = parts;
	const host = rawHost.replace(/%3A/gi, ":");
	if (!(actions === "actions" && runs === "runs" && attempts === "attempts" && jobs === "jobs") || !HOST_PATTERN.test(host) || !OWNER_PATTERN.test(owner) || !REPO_PATTERN.test(repo) || !RUN_ID_PATTERN.test(runId) || !/^\d{1,6}$/.test(attempt)) return;
	return {
		host,
		owner,
		repo,
		repository: `${owner}/${repo}`,
		runId,
		attempt
	};
}
/**
* The run attempt a DID speaks for, by the rule an OIDC token's check uses
* (kernel/auth/identity.ts): `did:web:<host>:<owner>:<repo>:actions:runs:<id>:attempts:<n>`
* and whatever follows, ignored, so every DID one token may act as has one key.
* Host, owner and repo compared without case (GitHub's are case-insensitive),
* run id and attempt as numbers. Undefined for a DID of no run.
*/
function runAttemptKey(did) {
	if (!did.startsWith("did:web:")) return void 0;
	const [host, owner, repo, actions, runs, runId = "", attempts, attempt = ""] = did.slice(8).split(":");
	if (!(actions === "actions" && runs === "runs" && attempts === "attempts") || !host || !owner || !repo || !/^\d+$/.test(runId) || !/^\d+$/.test(attempt)) return;
	const number = (digits) => digits.replace(/^0+(?=\d)/, "");
	return [
		host,
		owner,
		repo
	].join(":").toLowerCase() + `:${number(runId)}:${number(attempt)}`;
}
/** The run URL behind a DID made by deriveActorDid; undefined for any other DID. */
function runUrlFromDid(did) {
	const run = parseRunDid(did);
	if (!run) return void 0;
	const path = [
		run.owner,
		run.repo,
		"actions",
		"runs",
		run.runId,
		"attempts",
		run.attempt
	].map(encodeURIComponent).join("/");
	return `https://${run.host}/${path}`;
}
// src/lease/did.ts
function runContextFromEnv(env) {
	const { GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_JOB } = env;
	if (!GITHUB_REPOSITORY || !parseRepository(GITHUB_REPOSITORY)) return void 0;
	if (!GITHUB_RUN_ID || !RUN_ID_PATTERN.test(GITHUB_RUN_ID) || !GITHUB_JOB) return void 0;
	let serverUrl = "https://github.com";
	try {
		if (GITHUB_SERVER_URL) serverUrl = new URL(GITHUB_SERVER_URL).origin;
	} catch {
		return;
	}
	const attempt = GITHUB_RUN_ATTEMPT && /^\d{1,6}$/.test(GITHUB_RUN_ATTEMPT) ? GITHUB_RUN_ATTEMPT : "1";
	return {
		serverUrl,
		repository: GITHUB_REPOSITORY,
		runId: GITHUB_RUN_ID,
		runAttempt: attempt,
		job: GITHUB_JOB.slice(0, 100)
	};
}
function deriveActorDid(run, nonce) {
	const host = new URL(run.serverUrl).host;
	const [owner = "", repo = ""] = run.repository.split("/");
	const parts = [
		didSegment(host),
		didSegment(owner),
		didSegment(repo),
		"actions",
		"runs"
	];
	parts.push(didSegment(run.runId), "attempts", didSegment(run.runAttempt));
	parts.push("jobs", didSegment(run.job), didSegment(nonce));
	return `did:web:${parts.join(":")}`;
}
/** The CLI's DID away from a runner: this host and user, through the same encoder. */
function hostUserDid(host, user) {
	const did = `did:web:${didSegment(host || "localhost")}:users:${didSegment(user || "user")}`;
	return isDid(did) ? did : `did:web:${didSegment(host.slice(0, 100))}:users:${didSegment(user.slice(0, 100))}`;
}
/** A holder as people should read it: its DID, and its run when we know it. */
function describeHolder(did) {
	const url = runUrlFromDid(did);
	return url ? `${did} (run: ${url})` : did;
}
/** A holder in few characters, for a commit status: its run when we know it. */
function shortHolder(did) {
	const run = parseRunDid(did);
	return run ? `run ${run.runId} of ${run.repository}` : did;
}
// src/lease/errors.ts
/** A bad setting: the message names where the value came from and the accepted form. */
var SettingsError = class extends LeaseGateError {
	name = "SettingsError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "settings"
		});
	}
};
// src/gate/duration.ts
const UNIT_MS = {
	ms: 1,
	s: 1e3,
	m: 6e4,
	h: 36e5
};
/** The one form every duration input accepts, for error messages. */
const DURATION_FORM = "a duration such as '500ms', '90s', '15m', '1h' or plain seconds ('0' asks once)";
/** At most a day: GitHub stops any job long before that. */
const MAX_DURATION_MS = 864e5;
/** Parses `500ms`, `90s`, `15m`, `1h` or plain seconds; undefined when not one of those. */
function parseDuration(raw) {
	const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim());
	if (!match) return void 0;
	const unit = match[2] ?? "s";
	const ms = Math.round(Number(match[1]) * UNIT_MS[unit]);
	return ms <= MAX_DURATION_MS ? ms : void 0;
}
/** `1m 30s`-style text for logs. */
function formatDuration(ms) {
	if (ms < 1e3) return `${Math.round(ms)}ms`;
	const totalSeconds = Math.round(ms / 1e3);
	const hours = Math.floor(totalSeconds / 3600);
	const minutes = Math.floor(totalSeconds % 3600 / 60);
	const seconds = totalSeconds % 60;
	return [
		hours && `${hours}h`,
		minutes && `${minutes}m`,
		seconds && `${seconds}s`
	].filter(Boolean).join(" ") || "0s";
}
// src/http/errors.ts
const CODES = {
	network: "http_network",
	timeout: "http_timeout",
	"too-large": "http_too_large",
	cancelled: "http_cancelled"
};
/** The one error of the HTTP client: the exchange did not complete. */
var HttpError = class extends LeaseGateError {
	name = "HttpError";
	/** What went wrong, for callers that decide on it (retry, cancel). */
	failure;
	/** `[METHOD] "url"`, for messages. */
	call;
	/** What failed, without the call (`connection refused (ECONNREFUSED)`), for a sentence of the caller's own. */
	detail;
	constructor(message, options) {
		super(message, {
			...causeOf(options.cause),
			code: CODES[options.failure]
		});
		this.failure = options.failure;
		this.call = options.call;
		this.detail = message.startsWith(`${options.call}: `) ? message.slice(options.call.length + 2) : message;
	}
};
// src/http/loopback.ts
const LOOPBACK_HOSTS = /* @__PURE__ */ new Set([
	"localhost",
	"127.0.0.1",
	"[::1]",
	"::1"
]);
/**
* This machine, as a URL's (normalized) hostname names it: `localhost`, all of
* 127.0.0.0/8 and `[::1]`. Plain http: is allowed only to these, and the HTTP
* clients never send a request to them through a proxy.
*/
function isLoopbackHost(hostname) {
	return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
// src/http/agents.ts
/**
* Idle keep-alive sockets are closed after this: before a server's usual 5 s closes them
* under a request being sent. A server's shorter `Keep-Alive: timeout=` hint wins (Node).
*/
const KEEP_ALIVE_MS = 4e3;
/**
* What each scheme's agent is given as its `proxyEnv`, from `env` alone (never process.env
* when a test passes its own): https: falls back to HTTP_PROXY when HTTPS_PROXY is unset.
* `undefined`: no proxy for that scheme.
*/
function proxySettings(env) {
	const pick = (name) => env[name.toLowerCase()] ?? env[name] ?? "";
	const httpProxy = pick("HTTP_PROXY");
	const httpsProxy = pick("HTTPS_PROXY") || httpProxy;
	const noProxy = pick("NO_PROXY");
	return {
		"http:": httpProxy ? {
			HTTP_PROXY: httpProxy,
			NO_PROXY: noProxy
		} : void 0,
		"https:": httpsProxy ? {
			HTTPS_PROXY: httpsProxy,
			NO_PROXY: noProxy
		} : void 0
	};
}
/** Whether Node `version` (`24.22.3`) has the agents' `proxyEnv`: 24.5 on. */
function hasBuiltInProxy(version) {
	const [major = 0, minor = 0] = version.split(".").map(Number);
	return major > 24 || major === 24 && minor >= 5;
}
/**
* Node ignores a proxy URL it cannot parse, and a Node before 24.5 ignores `proxyEnv`: both
* would go around the proxy. Here each is a failure instead, naming the variable, never its
* value (it may hold the proxy's credentials).
*/
function proxyProblem(proxyEnv) {
	const [name, value] = Object.entries(proxyEnv)[0] ?? [];
	if (!hasBuiltInProxy(process.versions.node)) return `Node ${process.versions.node} cannot use the proxy in ${name}: Node 24.5 or later is needed`;
	return isProxyUrl(String(value)) ? void 0 : `the proxy named by ${name} is not an http: or https: URL`;
}
/** Whether `value` is a proxy URL Node's agents use: http: or https:, else Node ignores it. */
function isProxyUrl(value) {
	const url = URL.parse(value);
	return url !== null && (url.protocol === "http:" || url.protocol === "https:");
}
/** The accepted form of a proxy variable, for the message that refuses one. */
const PROXY_FORM = "an http:// or https:// URL, such as http://proxy.example:3128";
/**
* The first proxy variable of `env` the client would use that is not a URL it can use
* (lower case first, as proxySettings reads them), for a face to refuse before any request:
* sent, it would fail as if the network were down, and be retried as an outage.
*/
function badProxyVariable(env) {
	for (const name of ["HTTP_PROXY", "HTTPS_PROXY"]) {
		const lower = name.toLowerCase();
		const used = env[lower] !== void 0 ? lower : name;
		const value = env[used];
		if (value && !isProxyUrl(value)) return used;
	}
}
function createAgents(options) {
	const proxies = proxySettings(options.env);
	const made = /* @__PURE__ */ new Map();
	let https;
	let destroyed = false;
	return {
		async for(url, call) {
			const scheme = url.protocol === "https:" ? "https:" : "http:";
			const proxyEnv = options.proxyLoopback || !isLoopbackHost(url.hostname) ? proxies[scheme] : void 0;
			const problem = proxyEnv && proxyProblem(proxyEnv);
			if (problem) throw new HttpError(`${call}: ${problem}`, {
				failure: "network",
				call
			});
			const key = `${scheme}${proxyEnv ? "proxied" : "direct"}`;
			const module = scheme === "https:" ? await (https ??= import("node:https")) : void 0;
			if (destroyed) throw new HttpError(`${call}: the HTTP client is closed`, {
				failure: "cancelled",
				call
			});
			let agent = made.get(key);
			if (!agent) {
				const settings = {
					keepAlive: true,
					timeout: KEEP_ALIVE_MS,
					proxyEnv: proxyEnv ?? {}
				};
				agent = module ? new module.Agent(settings) : new node_http.Agent(settings);
				made.set(key, agent);
			}
			return agent;
		},
		destroy() {
			destroyed = true;
			for (const agent of made.values()) agent.destroy();
			made.clear();
		}
	};
}
// src/plane/url.ts
/**
* The plane origin must be https:, or plain http: to this machine only, so the
* key never crosses a network in clear. Returns the origin without a trailing slash.
*/
function parsePlaneUrl(raw) {
	let url;
	try {
		url = new URL(raw);
	} catch {
		return { ok: false };
	}
	const secure = url.protocol === "https:";
	const loopback = url.protocol === "http:" && isLoopbackHost(url.hostname);
	if (!(secure || loopback) || url.username || url.password || url.search || url.hash) return { ok: false };
	return {
		ok: true,
		url: url.href.replace(/\/+$/, "")
	};
}
// src/lease/settings.ts
/** Where clients read the plane key: ours first, then the hosted plane's documented name. */
const KEY_ENV = "LEASE_GATE_KEY";
const HOSTED_KEY_ENV = "INTRAMEDIAL_KEY";
/** The plane key from the environment, and the variable it came from. */
function keyFromEnv(env) {
	const ours = (env["LEASE_GATE_KEY"] ?? "").trim();
	if (ours) return {
		value: ours,
		from: KEY_ENV
	};
	return {
		value: (env["INTRAMEDIAL_KEY"] ?? "").trim(),
		from: HOSTED_KEY_ENV
	};
}
const API_URL_FORM = "an https:// origin without a path, query or fragment, such as https://api.intramedial.com (plain http:// only for localhost or 127.0.0.1)";
function invalid(given, expected) {
	const shown = given.value.slice(0, 80).replace(/[\r\n]/g, " ");
	return new SettingsError(`Invalid ${given.from}: '${shown}'. Expected ${expected}.`);
}
function readBoolean(given) {
	const value = given.value.trim();
	if (/^(true|True|TRUE)$/.test(value)) return true;
	if (/^(false|False|FALSE)$/.test(value)) return false;
	throw invalid(given, "'true' or 'false'");
}
/**
* Raw values \u2192 Settings, or a SettingsError before anything is sent anywhere.
* `keyRequired`: the action needs a key unless it is a dry run; the CLI needs
* one for anything but a plane on loopback.
*/
function buildSettings(raw, keyRequired) {
	const resource = raw.resource.value.trim();
	if (!RESOURCE_PATTERN.test(resource)) throw invalid(raw.resource, RESOURCE_FORM);
	const actorDid = raw.actorDid.value.trim();
	if (!isDid(actorDid)) throw invalid(raw.actorDid, DID_FORM);
	const url = parsePlaneUrl(raw.apiUrl.value.trim());
	if (!url.ok || new URL(url.url).pathname !== "/") throw invalid(raw.apiUrl, API_URL_FORM);
	const waitTimeoutMs = parseDuration(raw.waitTimeoutMs.value);
	if (waitTimeoutMs === void 0) throw invalid(raw.waitTimeoutMs, `${DURATION_FORM}, at most 24h`);
	const onTimeout = raw.onTimeout.value.trim();
	if (onTimeout !== "fail" && onTimeout !== "skip") throw invalid(raw.onTimeout, "'fail' or 'skip'");
	const keepAlive = readBoolean(raw.keepAlive);
	const dryRun = readBoolean(raw.dryRun);
	const key = raw.key.value.trim();
	const loopback = url.url.startsWith("http:");
	if (!key && keyRequired !== "never" && !(keyRequired === "unless-dry-run" ? dryRun : loopback)) throw new SettingsError(keyRequired === "unless-dry-run" ? `No plane key and no OIDC token: either set the 'key' input (or ${KEY_ENV} or ${HOSTED_KEY_ENV}) from a secret, or give the job \`permissions: id-token: write\` so it proves who it is with its GitHub OIDC token (auth: auto or oidc). To try the gate on a local kernel, use 'dry-run: true'.` : `No plane key: set ${KEY_ENV} (or ${HOSTED_KEY_ENV} for the hosted plane); only a local kernel on loopback may run without one.`);
	return {
		resource,
		actorDid,
		apiUrl: url.url,
		key,
		waitTimeoutMs,
		onTimeout,
		keepAlive,
		dryRun
	};
}
/**
* A proxy variable the client could not use refused before any request, naming the
* variable but never its value (a proxy URL may carry credentials).
*/
function checkProxyEnv(env) {
	const name = badProxyVariable(env);
	if (name) throw new SettingsError(`Invalid ${name} (value not shown). Expected ${PROXY_FORM}.`);
}
// src/cli/suggest.ts
/**
* "Did you mean": the closest of the known names to a typo, or undefined when
* none is close enough to be a guess worth printing (at most a third of the
* longer name's letters apart, and never more than 3 edits).
*/
function closest(typed, known) {
	let best;
	for (const name of known) {
		const distance = editDistance(typed, name);
		if (distance > Math.min(3, Math.max(1, Math.floor(Math.max(typed.length, name.length) / 3)))) continue;
		if (!best || distance < best.distance) best = {
			name,
			distance
		};
	}
	return best?.name;
}
/** Levenshtein distance (insert, delete, substitute), with a swap of two neighbours as one edit. */
function editDistance(a, b) {
	if (a.length > 100 || b.length > 100) return Math.max(a.length, b.length);
	const rows = [];
	for (let i = 0; i <= a.length; i++) {
		const row = [i];
		for (let j = 1; j <= b.length; j++) {
			if (i === 0) {
				row.push(j);
				continue;
			}
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			let d = Math.min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
			row.push(d);
		}
		rows.push(row);
	}
	return rows[a.length][b.length];
}
// src/cli/plane-url.ts
/**
* Where the CLI's plane URL comes from: `--api-url`, else LEASE_GATE_API_URL, else
* INTRAMEDIAL_API_URL (the hosted plane's name, still read), else the hosted plane.
* A command that asked the hosted plane only because nothing else was named says so
* when it fails, and how to point it at one's own kernel.
*/
const HOSTED_API_URL = "https://api.intramedial.com";
/** The variables read for the default `--api-url`, first found wins. */
const API_URL_ENVS = ["LEASE_GATE_API_URL", "INTRAMEDIAL_API_URL"];
const HOSTED_SOURCE = "the default, the hosted plane: no --api-url, no LEASE_GATE_API_URL";
/** `flag` is the value of `--api-url` (or its alias), `flagName` how it was spelled. */
function givenApiUrl(flag, env, flagName = "--api-url") {
	if (flag !== void 0) return {
		value: flag,
		from: flagName,
		source: `from ${flagName}`,
		hosted: false
	};
	for (const name of API_URL_ENVS) {
		const value = env[name];
		if (value) return {
			value,
			from: `${name} (environment)`,
			source: `from the environment variable ${name}`,
			hosted: false
		};
	}
	return {
		value: HOSTED_API_URL,
		from: "--api-url (default)",
		source: HOSTED_SOURCE,
		hosted: true
	};
}
/** What a failure against the hosted plane adds: it was (or would be) asked, and how to ask another. */
const hostedHint = (asked = true) => `The hosted plane ${HOSTED_API_URL} ${asked ? "was" : "would be"} asked: no --api-url and no LEASE_GATE_API_URL named another. To use your own kernel, pass --api-url URL or set LEASE_GATE_API_URL (e.g. http://127.0.0.1:8787).`;
const HOSTED_HINT = hostedHint();
/** The commands that talk to a plane (and take --api-url). */
const PLANE_COMMANDS = /* @__PURE__ */ new Set([
	"acquire",
	"release",
	"run",
	"status",
	"history",
	"revoke",
	"freeze",
	"unfreeze",
	"break-glass",
	"approve-break-glass",
	"ledger"
]);
/**
* Whether a plane command's run named no plane (no `--api-url`, `--url` for `ledger export`,
* nor a variable): then its failure was the hosted plane's. Only its own flags, before `--`.
*/
function askedHostedPlane(name, args, env) {
	if (!PLANE_COMMANDS.has(name)) return false;
	const own = args.includes("--") ? args.slice(0, args.indexOf("--")) : args;
	const flags = name === "ledger" ? ["--api-url", "--url"] : ["--api-url"];
	if (own.some((a) => flags.some((f) => a === f || a.startsWith(`${f}=`)))) return false;
	return givenApiUrl(void 0, env).hosted;
}
// src/plane/ci-job.ts
/**
* Which DIDs a CI job's OIDC token lets it act as, by the CI that issued it: part of the
* wire contract, so the kernel (which verified the token) and the CLI (which reads its own
* token only to name itself; the kernel checks) spell them alike. No I/O and no node:
* imports. Each prefix names the narrowest unit the issuer's claims vouch for, and ends
* with a colon, so a job may add its own segments (a host, a nonce) after it.
*
*   github     did:web:<host>:<owner>:<repo>:actions:runs:<run_id>:attempts:<run_attempt>:
*   gitlab     did:web:<host>:gitlab:projects:<project id>:pipelines:<pipeline_id>:jobs:<job_id>:
*   circleci   did:web:oidc.circleci.com:circleci:orgs:<org-id>:projects:<project-id>:jobs:<job-id>:
*   buildkite  did:web:agent.buildkite.com:buildkite:<organization_slug>:<pipeline_slug>:builds:<build_number>:jobs:<job_id>:
*   custom     the operator's template, `{claim}` replaced by the claim's value as one segment
*
* GitHub's tokens name no job, so a run attempt is the unit there; the other CIs name the
* job. GitLab's project is its id, never its path: in a merge-request pipeline from a fork
* `project_*` describes the fork, and a path can be renamed, so `job_project_id` (the project
* the job runs in) is bound where the token has it.
*/
const CI_KINDS = [
	"github",
	"gitlab",
	"circleci",
	"buildkite",
	"custom"
];
const CIRCLECI = "oidc.circleci.com/";
/** Ids as the CIs issue them: decimal numbers, or UUIDs (CircleCI), each one segment. */
const NUMBER = /^[1-9]\d{0,19}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A slug of Buildkite's: lowercase letters, digits and hyphens. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;
/** A `{claim}` placeholder of a custom template: claim names as JWTs spell them. */
const PLACEHOLDER = /\{([A-Za-z0-9_./-]{1,100})\}/g;
/** A claim as text: strings as they are, whole numbers in decimal; anything else absent. */
function claimText(claims, name) {
	const value = claims[name];
	if (typeof value === "string") return value;
	if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
}
const matching = (claims, name, form) => {
	const value = claimText(claims, name);
	return value !== void 0 && form.test(value) ? value : void 0;
};
const prefixOf = (segments) => `did:web:${segments.join(":")}:`;
/** The GitLab project the job runs in: `job_project_id` where the token has it. */
function gitlabProjectId(claims) {
	return matching(claims, "job_project_id", NUMBER) ?? matching(claims, "project_id", NUMBER);
}
/**
* The DID prefix a job's token vouches for, or undefined when its claims do not name a
* job of that CI in the accepted forms (the kernel then refuses the token 401).
* `host`: the DID host (GitHub's `--oidc-did-host`, GitLab's instance host); ignored by
* CircleCI and Buildkite, whose issuers are one host each. `template`: custom only.
*/
function jobDidPrefix(kind, claims, host, template) {
	const prefix = prefixFor(kind, claims, host, template);
	return prefix !== void 0 && isDid(`${prefix}x`) ? prefix : void 0;
}
function prefixFor(kind, claims, host, template) {
	switch (kind) {
		case "github": {
			const repo = parseRepository(claimText(claims, "repository") ?? "");
			const run = matching(claims, "run_id", NUMBER);
			const attempt = matching(claims, "run_attempt", /^[1-9]\d{0,5}$/);
			if (!repo || !run || !attempt) return void 0;
			const head = [
				didSegment(host),
				repo.owner,
				repo.repo
			];
			return prefixOf([
				...head,
				"actions",
				"runs",
				run,
				"attempts",
				attempt
			]);
		}
		case "gitlab": {
			const project = gitlabProjectId(claims);
			const pipeline = matching(claims, "pipeline_id", NUMBER);
			const job = matching(claims, "job_id", NUMBER);
			if (!project || !pipeline || !job) return void 0;
			const head = [
				didSegment(host),
				"gitlab",
				"projects",
				project
			];
			return prefixOf([
				...head,
				"pipelines",
				pipeline,
				"jobs",
				job
			]);
		}
		case "circleci": {
			const org = matching(claims, `${CIRCLECI}org-id`, UUID);
			const project = matching(claims, `${CIRCLECI}project-id`, UUID);
			const job = matching(claims, `${CIRCLECI}job-id`, UUID);
			if (!org || !project || !job) return void 0;
			return prefixOf([
				...[
					"oidc.circleci.com",
					"circleci",
					"orgs",
					org
				],
				"projects",
				project,
				"jobs",
				job
			]);
		}
		case "buildkite": {
			const org = matching(claims, "organization_slug", SLUG);
			const pipeline = matching(claims, "pipeline_slug", SLUG);
			const build = matching(claims, "build_number", NUMBER);
			const job = matching(claims, "job_id", UUID);
			if (!org || !pipeline || !build || !job) return void 0;
			return prefixOf([
				...[
					"agent.buildkite.com",
					"buildkite",
					org,
					pipeline
				],
				"builds",
				build,
				"jobs",
				job
			]);
		}
		case "custom": return template === void 0 ? void 0 : fromTemplate(template, claims);
	}
}
/**
* A custom issuer's prefix: each `{claim}` replaced by the claim's value as one DID segment
* (so a value can never add a colon); a missing or empty claim gives no prefix at all.
*/
function fromTemplate(template, claims) {
	let missing = false;
	const prefix = template.replace(PLACEHOLDER, (_, name) => {
		const value = claimText(claims, name);
		if (!value) missing = true;
		return value ? didSegment(value) : "";
	});
	return missing ? void 0 : prefix;
}
/** A custom template an operator wrote: checked at start, so a typo fails there, not per token. */
function templateProblem(template) {
	const names = [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
	const sample = template.replace(PLACEHOLDER, "x");
	if (!template.startsWith("did:web:") || !template.endsWith(":") || !isDid(`${sample}x`)) return "expected a DID prefix such as did:web:jenkins.example.com:{sub}: (did:web:, ending with a colon)";
	if (names.length === 0) return "expected at least one {claim} placeholder";
}
/**
* The CI whose token this is, by its issuer URL alone: what the CLI and `--oidc-issuer URL`
* assume when nothing says otherwise. GitLab instances and custom issuers cannot be told by
* their URL (they are named by `gitlab=URL`, or in an issuers file).
*/
function kindOfIssuer(issuer) {
	let url;
	try {
		url = new URL(issuer);
	} catch {
		return;
	}
	if (url.hostname === "token.actions.githubusercontent.com") return "github";
	if (url.hostname === "oidc.circleci.com") return "circleci";
	if (url.hostname === "agent.buildkite.com") return "buildkite";
	if (url.hostname === "gitlab.com") return "gitlab";
}
// src/lease/ci-exec.ts
/** The job's token could not be had: a CI tool missing, failing, or printing no token. */
var CiTokenError = class extends LeaseGateError {
	name = "CiTokenError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "helper"
		});
	}
};
/** A CI tool asks its agent over the network: long enough for a slow agent, short for a wait. */
const TOKEN_COMMAND_TIMEOUT_MS = 3e4;
/** A JWT is a few kilobytes; anything much longer is not one. */
const MAX_OUTPUT_BYTES = 65536;
const JWT$1 = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** Anything in a tool's words that looks like a JWT or a long secret. */
const SECRETISH = /[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*|[A-Za-z0-9_-]{40,}/g;
/** A tool's stderr, as a clause: first line, clipped, nothing token-shaped left in it. */
function toolWords(stderr) {
	return untrusted((stderr.trim().split("\n")[0] ?? "").replace(SECRETISH, "[redacted]"), 200);
}
/** `buildkite-agent oidc request-token`, as its error messages name it. */
const shown = (command) => [command.program, ...command.args.filter((arg) => !arg.startsWith("{"))].slice(0, 4).join(" ");
/** Runs the command and answers the token it printed; throws CiTokenError naming the command. */
function tokenFromCommand(command, timeoutMs = TOKEN_COMMAND_TIMEOUT_MS) {
	return new Promise((resolve, reject) => {
		(0, node_child_process.execFile)(command.program, [...command.args], {
			env: command.env,
			timeout: timeoutMs,
			killSignal: "SIGKILL",
			maxBuffer: MAX_OUTPUT_BYTES,
			windowsHide: true,
			encoding: "utf8"
		}, (error, stdout, stderr) => {
			const name = `\`${shown(command)}\``;
			if (error) {
				reject(new CiTokenError(failure(name, command.program, error, stderr, timeoutMs)));
				return;
			}
			const token = stdout.trim();
			if (!JWT$1.test(token)) {
				reject(new CiTokenError(`${name} printed no token (expected one compact JWT).`));
				return;
			}
			resolve(token);
		});
	});
}
/** Why the command failed, in words without its output. */
function failure(name, program, error, stderr, timeoutMs) {
	if (error.code === "ENOENT") return `${program} is not on PATH: ${name} cannot run.`;
	if (error.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") return `${name} printed more than ${MAX_OUTPUT_BYTES} bytes: not a token.`;
	if (error.killed) return `${name} did not answer within ${timeoutMs / 1e3} s.`;
	const words = toolWords(stderr);
	return `${name} failed${typeof error.code === "number" ? ` with code ${error.code}` : ""}${words ? `: ${words}` : ""}.`;
}
// src/http/exchange.ts
function exchange(x) {
	return new Promise((resolve, reject) => {
		let timer;
		const fail = (error) => {
			clearTimeout(timer);
			request.destroy();
			reject(error);
		};
		const deadline = (ms, words) => {
			clearTimeout(timer);
			timer = setTimeout(() => fail(new HttpError(`${x.call}: ${words}`, {
				failure: "timeout",
				call: x.call
			})), ms);
		};
		const request = (0, node_http.request)({
			...(0, node_url.urlToHttpOptions)(x.url),
			auth: null,
			method: x.method,
			headers: x.headers,
			agent: x.agent,
			signal: x.signal
		});
		request.on("error", fail);
		request.on("socket", (socket) => whenConnected(socket, () => clearTimeout(timer)));
		request.on("response", (response) => {
			const chunks = [];
			let size = 0;
			const paused = `the answer stopped for ${x.bodyTimeoutMs} ms`;
			deadline(x.bodyTimeoutMs, paused);
			response.on("data", (chunk) => {
				size += chunk.length;
				if (size > x.maxBytes) {
					fail(new HttpError(`${x.call}: answer larger than ${x.maxBytes} bytes`, {
						failure: "too-large",
						call: x.call
					}));
					return;
				}
				chunks.push(chunk);
				deadline(x.bodyTimeoutMs, paused);
			});
			response.on("error", fail);
			response.on("close", () => {
				if (!response.complete) fail(new HttpError(`${x.call}: connection closed by the other side within the answer`, {
					failure: "network",
					call: x.call
				}));
			});
			response.on("end", () => {
				clearTimeout(timer);
				const text = Buffer.concat(chunks).toString("utf8");
				resolve({
					status: response.statusCode ?? 0,
					headers: response.headers,
					text
				});
			});
		});
		deadline(x.connectTimeoutMs, `no connection within ${x.connectTimeoutMs} ms`);
		request.end(x.body);
	});
}
/**
* `then` once the socket can carry the request: a kept-alive socket (or one Node's proxy
* support hands over already through its tunnel) at once; a new one at its TCP connect,
* or at its TLS handshake for https:.
*/
function whenConnected(socket, then) {
	if (socket.encrypted === true && (socket.connecting || !socket.authorized)) socket.once("secureConnect", then);
	else if (socket.connecting) socket.once("connect", then);
	else then();
}
// src/http/network-error.ts
/**
* A failed request read as an HttpError whose message is ours: cancelled by the caller,
* timed out, or the network's failure named by its code, never by Node's words.
*/
/** `timeout`: the request's own deadline signal; `signal`: the caller's. */
function requestFailure(error, sent) {
	const { call, timeoutMs } = sent;
	if (error instanceof HttpError) return error;
	if (sent.signal?.aborted) return new HttpError(`${call}: cancelled`, {
		failure: "cancelled",
		call
	});
	if (sent.timeout.aborted) return new HttpError(`${call}: no answer within ${timeoutMs} ms`, {
		failure: "timeout",
		call,
		cause: error
	});
	if (codeOf(error) === "ETIMEDOUT") return new HttpError(`${call}: connection timed out (ETIMEDOUT)`, {
		failure: "timeout",
		call,
		cause: error
	});
	return new HttpError(`${call}: ${describeNetworkError(error)}`, {
		failure: "network",
		call,
		cause: error
	});
}
/**
* What failed, in our words, by the error's code: Node's own messages are not passed on,
* since some carry the URL (with its credentials and query) or the proxy's.
*/
function describeNetworkError(error) {
	const code = codeOf(error);
	if (code === "ECONNREFUSED") return "connection refused (ECONNREFUSED)";
	if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return `host name not resolved (${code})`;
	if (/^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|HOSTNAME_MISMATCH)/.test(code)) return `TLS handshake failed (${code})`;
	if (code === "ECONNRESET" || code === "EPIPE") return `connection closed by the other side (${code})`;
	if (code === "ERR_PROXY_TUNNEL") return `the proxy did not open the tunnel (${code})`;
	if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return `host not reachable (${code})`;
	if (code.startsWith("HPE_")) return `the answer is not HTTP (${code})`;
	return code ? `connection failed (${code})` : "connection failed";
}
/** The first string `code` of the error or of what it wraps. */
function codeOf(error) {
	for (let e = error, depth = 0; e && depth < 4; e = e.cause, depth += 1) {
		const code = e.code;
		if (typeof code === "string" && /^[A-Z0-9_]{1,64}$/.test(code)) return code;
	}
	return "";
}
// src/http/url-display.ts
/**
* The one way a URL lease-gate was given (a flag, a config file) is shown anywhere: in an
* error, a log line, an answer, a notification or the ledger. Only its scheme, host, port
* and path: credentials (`user:password@`), the query (`?token=\u2026`) and the fragment may
* hold a secret, and what is signed into the ledger can never be taken out again.
*
* Text that does not parse as a URL is cut the same way, by its characters: a refused
* flag is echoed so the person sees which one, never with what might be its secret.
*/
function urlForDisplay(raw) {
	let url;
	try {
		url = typeof raw === "string" ? new URL(raw) : raw;
	} catch {
		url = void 0;
	}
	return (url ? `${url.protocol}${url.host ? `//${url.host}` : ""}${url.pathname === "/" ? "" : url.pathname}` : cutByHand(String(raw))).replace(CONTROL_CHARS, "?").slice(0, 200);
}
/** `scheme://user:pass@host/path?query#fragment` \u2192 `scheme://host/path`, for text no URL parser takes. */
function cutByHand(text) {
	const match = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^?#]*)/.exec(text);
	const scheme = match?.[1] ?? "";
	let rest = match?.[2] ?? "";
	const slash = rest.indexOf("/");
	const at = (slash < 0 ? rest : rest.slice(0, slash)).lastIndexOf("@");
	if (at >= 0) rest = rest.slice(at + 1);
	return `${scheme}${rest}`;
}
// src/http/client.ts
/** Bodies past this are not ours to read: the plane's answers are small. */
const MAX_ANSWER_BYTES = 4194304;
const DEFAULTS = {
	connect: 5e3,
	headers: 1e4,
	body: 1e4
};
function createHttpClient(options = {}) {
	const headersTimeout = options.headersTimeoutMs ?? DEFAULTS.headers;
	const limits = {
		connectTimeoutMs: options.connectTimeoutMs ?? DEFAULTS.connect,
		bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULTS.body,
		maxBytes: MAX_ANSWER_BYTES
	};
	const agents = createAgents({
		env: options.env ?? process.env,
		proxyLoopback: options.proxyLoopback ?? false
	});
	const closing = new AbortController();
	async function send(req) {
		const call = `[${req.method}] "${urlForDisplay(req.url)}"`;
		if (closing.signal.aborted) throw new HttpError(`${call}: the HTTP client is closed`, {
			failure: "cancelled",
			call
		});
		const timeoutMs = req.timeoutMs ?? headersTimeout;
		const timeout = AbortSignal.timeout(timeoutMs);
		const cancel = req.signal ? AbortSignal.any([req.signal, closing.signal]) : closing.signal;
		try {
			const url = new URL(req.url);
			const answer = await exchange({
				...limits,
				method: req.method,
				url,
				headers: req.headers ?? {},
				body: req.body,
				agent: await agents.for(url, call),
				signal: AbortSignal.any([cancel, timeout]),
				call
			});
			return {
				status: answer.status,
				headers: answer.headers,
				text: answer.text
			};
		} catch (error) {
			throw requestFailure(error, {
				call,
				signal: cancel,
				timeout,
				timeoutMs
			});
		}
	}
	return {
		send,
		async getText(url, headers = {}, signal) {
			const answer = await send({
				method: "GET",
				url,
				headers,
				signal
			});
			if (answer.status !== 200) {
				const call = `[GET] "${urlForDisplay(url)}"`;
				throw new HttpError(`${call}: ${answer.status} ${answer.text.slice(0, 200)}`, {
					failure: "network",
					call
				});
			}
			return answer.text;
		},
		close() {
			if (!closing.signal.aborted) {
				closing.abort();
				agents.destroy();
			}
			return Promise.resolve();
		}
	};
}
const TOKEN_ENV = "LEASE_GATE_OIDC_TOKEN";
/** A token is replaced this long before its `exp`. */
const REFRESH_BEFORE_S = 120;
/** A token whose expiry we cannot read is asked for again after this. */
const UNKNOWN_LIFETIME_MS = 6e4;
const MAX_TOKEN_CHARS = 16384;
/** Of a JWT's payload only `exp` is read (seconds since the epoch); the rest is the plane's to check. */
const jwtExpirySchema = /* @__PURE__ */ object({ exp: /* @__PURE__ */ number() });
/** The runner's token service answers `{ value: <the JWT> }`. */
const tokenAnswerSchema = /* @__PURE__ */ object({ value: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _minLength(1), /* @__PURE__ */ _maxLength(MAX_TOKEN_CHARS)) });
/**
* A compact JWT's payload, read and NOT verified: the plane verifies. The CLI reads its own
* token only to pace refreshes and to name itself as the DID the token vouches for.
*/
function tokenClaims(token) {
	const payload = token.split(".")[1];
	if (!payload || payload.length > MAX_TOKEN_CHARS) return void 0;
	try {
		const json = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
		return json && typeof json === "object" && !Array.isArray(json) ? json : void 0;
	} catch {
		return;
	}
}
/** The `exp` of a compact JWT, read (not verified: the plane verifies) only to pace refreshes. */
function tokenExpiryMs(token) {
	const read = jwtExpirySchema.safeParse(tokenClaims(token));
	return read.success ? read.data.exp * 1e3 : void 0;
}
/** One token until shortly before it expires, then a fresh one; concurrent callers share a fetch. */
function cachedToken(fetch, now = Date.now) {
	let token;
	let freshUntil = -Infinity;
	let pending;
	return async () => {
		if (token && now() < freshUntil) return token;
		pending ??= fetch().then((value) => {
			const exp = tokenExpiryMs(value);
			token = value;
			freshUntil = exp === void 0 ? now() + UNKNOWN_LIFETIME_MS : Math.max(now() + 5e3, exp - REFRESH_BEFORE_S * 1e3);
			return value;
		}).finally(() => pending = void 0);
		return pending;
	};
}
/** Whether this job may ask the runner for a token (`permissions: id-token: write`). */
function runnerCanIssue(env) {
	return Boolean(env.ACTIONS_ID_TOKEN_REQUEST_URL && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN);
}
/**
* The runner's token request service, asked as `@actions/core`'s getIDToken asks
* it: GET `$ACTIONS_ID_TOKEN_REQUEST_URL&audience=AUD` with the request token
* as Bearer, answering `{ value }`. Its variables last the whole job.
*/
function runnerTokenSource(env, audience, http = createHttpClient({ env })) {
	const base = env.ACTIONS_ID_TOKEN_REQUEST_URL ?? "";
	const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN ?? "";
	let origin = { ok: false };
	try {
		origin = parsePlaneUrl(new URL(base).origin);
	} catch {}
	if (!origin.ok || !requestToken) throw new SettingsError("No OIDC token service: ACTIONS_ID_TOKEN_REQUEST_URL (https://, or http:// on loopback) and ACTIONS_ID_TOKEN_REQUEST_TOKEN must be set; give the job `permissions: id-token: write`.");
	return async () => {
		const text = await http.getText(`${base}&audience=${encodeURIComponent(audience)}`, {
			authorization: `Bearer ${requestToken}`,
			accept: "application/json"
		});
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			json = void 0;
		}
		const answer = tokenAnswerSchema.safeParse(json);
		if (!answer.success) throw new Error("the runner's token service answered without a token");
		return answer.data.value;
	};
}
/** A token from a file (read on each refresh: another tool may renew it) or from LEASE_GATE_OIDC_TOKEN. */
function givenTokenSource(file, env) {
	if (!file) {
		const value = (env["LEASE_GATE_OIDC_TOKEN"] ?? "").trim();
		return () => Promise.resolve(value);
	}
	const read = () => {
		let text;
		try {
			text = (0, node_fs.readFileSync)(file, "utf8").trim();
		} catch (error) {
			throw new SettingsError(`Cannot read --oidc-token-file ${file}: ${error.code ?? "unreadable"}.`, { cause: error });
		}
		if (!text || text.length > MAX_TOKEN_CHARS || /\s/.test(text)) throw new SettingsError(`Invalid --oidc-token-file ${file}: expected one compact JWT.`);
		return text;
	};
	read();
	return () => new Promise((resolve) => resolve(read()));
}
const CIRCLECI_TOKEN_ENV = "CIRCLE_OIDC_TOKEN_V2";
const CI_NAMES = {
	github: "GitHub Actions",
	gitlab: "GitLab CI",
	circleci: "CircleCI",
	buildkite: "Buildkite"
};
/** CircleCI's variable is used while it has this long left; after, the command mints another. */
const ENV_TOKEN_MARGIN_MS = 15e4;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;
/** The CI this process runs on, by the variable each sets in every job; undefined elsewhere. */
function ciOfEnv(env) {
	if (env.GITHUB_ACTIONS === "true") return "github";
	if (env.GITLAB_CI === "true") return "gitlab";
	if (env.CIRCLECI === "true") return "circleci";
	if (env.BUILDKITE === "true") return "buildkite";
}
/** The way to this job's token on `ci`; throws SettingsError for a bad flag (variable name, audience). */
function ciTokenWay(ci, env, options = {}) {
	const now = options.now ?? Date.now;
	const run = options.run ?? ((command) => tokenFromCommand(command));
	switch (ci) {
		case "github": return runnerCanIssue(env) ? {
			ci,
			source: runnerTokenSource(env, options.audience ?? "lease-gate")
		} : {
			ci,
			missing: "this job cannot ask the runner for a token (ACTIONS_ID_TOKEN_REQUEST_URL is not set): give the job `permissions: id-token: write`."
		};
		case "gitlab": return gitlabWay(env, options, now);
		case "circleci": return circleciWay(env, options.audience, now, run);
		case "buildkite": {
			if (!env.BUILDKITE_AGENT_ACCESS_TOKEN) return {
				ci,
				missing: "buildkite-agent asks for the job's token with BUILDKITE_AGENT_ACCESS_TOKEN, which the agent sets in each job's environment, and it is not set here: run the command in the job's own step (not a container without the agent's environment)."
			};
			const args = [
				"oidc",
				"request-token",
				"--audience",
				options.audience ?? "lease-gate"
			];
			return {
				ci,
				source: () => run({
					program: "buildkite-agent",
					args,
					env
				})
			};
		}
	}
}
function gitlabWay(env, options, now) {
	const name = options.idTokenVar ?? "LEASE_GATE_ID_TOKEN";
	if (!VARIABLE.test(name)) throw new SettingsError(`Invalid --id-token-var '${untrusted(name, 60)}'. Expected the name of the variable the job's \`id_tokens:\` sets (letters, digits, _).`);
	const token = (env[name] ?? "").trim();
	const aud = options.audience ?? "lease-gate";
	if (!token) return {
		ci: "gitlab",
		missing: `GitLab gives a job an ID token only in the variable its \`id_tokens:\` names, and ${name} is not set: add \`id_tokens: { ${name}: { aud: ${aud} } }\` to the job${name === "LEASE_GATE_ID_TOKEN" ? " (or name another variable with --id-token-var NAME)" : ""}.`
	};
	if (!JWT.test(token)) throw new SettingsError(`Invalid ${name}: expected one compact JWT (the job's id_tokens).`);
	const claimed = tokenClaims(token)?.aud;
	const audiences = Array.isArray(claimed) ? claimed : [claimed];
	if (options.audience !== void 0 && !audiences.includes(options.audience)) throw new SettingsError(`The ID token in ${name} is not for the audience '${untrusted(options.audience, 100)}': set \`aud: ${untrusted(options.audience, 100)}\` under the job's \`id_tokens: ${name}:\`.`);
	return {
		ci: "gitlab",
		source: () => {
			const exp = tokenExpiryMs(token);
			if (exp !== void 0 && exp <= now()) return Promise.reject(new CiTokenError(`The GitLab ID token in ${name} expired at ${new Date(exp).toISOString()}: GitLab issues it once per job, lasting the job's timeout, and cannot renew it. Give the job a \`timeout:\` longer than the hold.`));
			return Promise.resolve(token);
		}
	};
}
function circleciWay(env, audience, now, run) {
	const command = (aud) => ({
		program: "circleci",
		args: [
			"run",
			"oidc",
			"get",
			...aud === void 0 ? [] : ["--claims", JSON.stringify({ aud })]
		],
		env
	});
	if (audience !== void 0) return {
		ci: "circleci",
		source: () => run(command(audience))
	};
	const given = (env["CIRCLE_OIDC_TOKEN_V2"] ?? "").trim();
	if (!given) return {
		ci: "circleci",
		missing: `CircleCI sets ${CIRCLECI_TOKEN_ENV} in a job that may have OIDC tokens, and it is not set here; or ask for a token of your audience with --oidc-audience AUD (\`circleci run oidc get\`).`
	};
	return {
		ci: "circleci",
		source: () => {
			const exp = tokenExpiryMs(given);
			return exp !== void 0 && exp - ENV_TOKEN_MARGIN_MS > now() ? Promise.resolve(given) : run(command());
		}
	};
}
// src/cli/ci-auth.ts
/**
* The CLI's credential, as the action's `auth` input chooses it (`--auth`, LEASE_GATE_AUTH):
*   key   the key (LEASE_GATE_KEY), or none on a loopback kernel
*   oidc  a token: --oidc-token-file / LEASE_GATE_OIDC_TOKEN, else the job's own (ci-tokens.ts),
*         else a usage error naming what to set on this CI
*   auto  a token given by flag or variable; else the key if one is set; else the job's own
*         token if this job can get one; else none (a kernel off loopback then refuses)
* On a job's own token the CLI names itself by the token's claims (read, not verified: the
* kernel verifies and refuses any other DID) and lets the kernel fill the deploy from them.
*/
const AUTH_MODES = [
	"auto",
	"key",
	"oidc"
];
const AUTH_ENV = "LEASE_GATE_AUTH";
const AUDIENCE_ENV = "LEASE_GATE_OIDC_AUDIENCE";
/** The token to send, or undefined for the key (or none). Throws SettingsError for a bad flag. */
function credentialOf(values, env) {
	const auth = authMode(values, env);
	const audience = audienceOf(values, env);
	const tokenFile = values["oidc-token-file"];
	if (auth === "key") {
		if (tokenFile) throw new SettingsError("--auth key and --oidc-token-file contradict: the key is sent, or the token; give one.");
		return;
	}
	if (tokenFile || env["LEASE_GATE_OIDC_TOKEN"]) return { bearer: cachedToken(givenTokenSource(tokenFile, env)) };
	if (auth === "auto" && keyFromEnv(env).value) return void 0;
	const ci = ciOfEnv(env);
	if (!ci) {
		if (auth === "auto") return void 0;
		throw new SettingsError(`--auth oidc, but this is not a job of a CI whose token lease-gate finds (GitHub Actions, GitLab CI, CircleCI, Buildkite: none of GITHUB_ACTIONS, GITLAB_CI, CIRCLECI, BUILDKITE is 'true'): give the token with --oidc-token-file FILE or ${TOKEN_ENV}.`);
	}
	const way = ciTokenWay(ci, env, {
		audience,
		idTokenVar: values["id-token-var"]
	});
	if ("missing" in way) {
		if (auth === "auto") return void 0;
		throw new SettingsError(`--auth oidc on ${CI_NAMES[ci]}: ${way.missing}`);
	}
	return {
		bearer: cachedToken(way.source),
		ci
	};
}
function authMode(values, env) {
	const given = values.auth ?? (env["LEASE_GATE_AUTH"] || "auto");
	if (!AUTH_MODES.includes(given)) throw new SettingsError(`Invalid ${values.auth === void 0 ? `${AUTH_ENV} (environment)` : "--auth"} '${untrusted(given, 40)}'. Expected 'auto', 'key' or 'oidc'.`);
	return given;
}
function audienceOf(values, env) {
	const given = values["oidc-audience"] ?? (env["LEASE_GATE_OIDC_AUDIENCE"] || void 0);
	if (given !== void 0 && !/^[\x21-\x7e]{1,200}$/.test(given)) throw new SettingsError(`Invalid ${values["oidc-audience"] === void 0 ? `${AUDIENCE_ENV} (environment)` : "--oidc-audience"} '${untrusted(given, 60)}'. Expected 1 to 200 printable characters without spaces.`);
	return given;
}
/**
* The DID a job's own token vouches for, with one segment of this host after it (as the
* CLI's default DID on a GitHub runner), so `acquire` and a later `release` of the same job
* speak as one agent. GitLab's host is its issuer's; GitHub's the server's. Undefined when
* the claims name no job of that CI (the kernel would refuse the token anyway).
*/
function jobDid(ci, token, env) {
	const claims = tokenClaims(token);
	if (!claims) return void 0;
	const hostOf = (url) => {
		try {
			return typeof url === "string" ? new URL(url).host : "";
		} catch {
			return "";
		}
	};
	const prefix = jobDidPrefix(ci, claims, ci === "gitlab" ? hostOf(claims.iss) : ci === "github" ? hostOf(env.GITHUB_SERVER_URL || "https://github.com") : "");
	return prefix === void 0 ? void 0 : `${prefix}${didSegment((0, node_os.hostname)() || "host")}`;
}
/** The variable each CI sets to the commit the job runs on. */
const COMMIT_ENV = {
	github: "GITHUB_SHA",
	gitlab: "CI_COMMIT_SHA",
	circleci: "CIRCLE_SHA1",
	buildkite: "BUILDKITE_COMMIT"
};
/**
* The deploy sent on a job's own token: the fields given by flags, plus the commit the CI's
* environment names. Present even when empty: an empty deploy asks the kernel to fill every
* field from the token (it maps the repository, which the CLI cannot know), and where the
* token has a field, a sent value must agree with it (403 not_your_deploy).
*/
function jobDeploy(ci, flags, env) {
	const commit = (env[COMMIT_ENV[ci]] ?? "").trim().toLowerCase();
	return {
		...commit && deploySchema.safeParse({ commit }).success ? { commit } : {},
		...flags
	};
}
// src/cli/options.ts
/** Exit codes, as --help documents them; a signal is 128 + its number. */
const EXIT = {
	done: 0,
	refused: 1,
	usage: 2
};
/** 128 + the signal's number, for every signal. */
function signalExitCode(signal) {
	return 128 + (signal && node_os.constants.signals[signal] || 0);
}
/** Bad command-line use: printed with the usage hint, exit 2. */
var UsageError = class extends LeaseGateError {
	name = "UsageError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "usage"
		});
	}
};
function parse(args, options, allowPositionals = false) {
	try {
		return (0, node_util.parseArgs)({
			args,
			options,
			allowPositionals,
			strict: true
		});
	} catch (error) {
		const unknown = unknownFlag(error);
		if (unknown) throw new UsageError(unknownFlagMessage(unknown, options));
		throw new UsageError(errorMessage(error), { cause: error });
	}
}
/** The flag node:util refused as unknown (`--statsu`, `-x`), else undefined. */
function unknownFlag(error) {
	if (error?.code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return;
	return /^Unknown option '([^']*)'/.exec(errorMessage(error))?.[1];
}
/** "Unknown flag '--statsu'. Did you mean --status?", the guess from this command's own flags. */
function unknownFlagMessage(flag, options) {
	const guess = closest(flag.replace(/^-+/, "").split("=")[0] ?? "", Object.keys(options));
	const shown = `'${untrusted(flag, 60)}'`;
	return guess ? `Unknown flag ${shown}. Did you mean --${guess}?` : `Unknown flag ${shown}. (A command's own arguments go after '--'.)`;
}
/**
* The CLI's default DID: on a GitHub runner the run's DID (the runner host tells
* jobs apart), elsewhere this host and user, through the one DID encoder.
* Stable across calls, so `acquire` and a later `release` speak as the same agent.
*/
function defaultCliDid(env) {
	const run = runContextFromEnv(env);
	if (run) return deriveActorDid(run, (0, node_os.hostname)());
	let user = env.USER || env.USERNAME || "";
	try {
		user ||= (0, node_os.userInfo)().username;
	} catch {
		user ||= "user";
	}
	return hostUserDid((0, node_os.hostname)(), user);
}
/** A flag's value, else an environment variable's, else the default: each named as its source. */
function pick(flag, value, env, envName, fallback) {
	if (value !== void 0) return {
		value,
		from: `--${flag}`
	};
	const fromEnv = envName ? env[envName] : void 0;
	if (fromEnv) return {
		value: fromEnv,
		from: `${envName} (environment)`
	};
	return {
		value: fallback,
		from: `--${flag} (default)`
	};
}
/** Flags and environment \u2192 the session's settings; messages name the flag or variable. */
function settingsFromFlags(values, env) {
	const fixed = (value) => ({
		value,
		from: "default"
	});
	const given = givenApiUrl(values["api-url"], env);
	const apiUrl = {
		value: given.value,
		from: given.from
	};
	try {
		const credential = credentialOf(values, env);
		const bearer = credential?.bearer;
		checkProxyEnv(env);
		const settings = buildSettings({
			resource: pick("resource", values.resource, env, void 0, "lock:deploy/production"),
			actorDid: pick("actor-did", values["actor-did"], env, "LEASE_GATE_ACTOR_DID", values["actor-did"] ?? defaultCliDid(env)),
			apiUrl,
			key: bearer ? {
				value: "",
				from: "an OIDC token"
			} : keyFromEnv(env),
			waitTimeoutMs: pick("wait-timeout", values["wait-timeout"], env, void 0, "30m"),
			onTimeout: fixed("fail"),
			keepAlive: fixed("true"),
			dryRun: fixed("false")
		}, bearer ? "never" : "unless-loopback");
		const apiUrlFrom = given.source;
		if (!bearer) return {
			...settings,
			apiUrlFrom
		};
		return credential.ci ? {
			...settings,
			bearer,
			apiUrlFrom,
			ci: credential.ci
		} : {
			...settings,
			bearer,
			apiUrlFrom
		};
	} catch (error) {
		if (error instanceof SettingsError) throw new UsageError(given.hosted ? `${error.message} ${hostedHint(false)}` : error.message, { cause: error });
		throw error;
	}
}
/**
* settingsFromFlags for the commands that hold a lease (acquire, release, run): on a job's own
* token, and no DID given, the DID that token vouches for. The first token is asked for here
* (kept for the first request), so a CI that cannot give one fails before anything is sent.
*/
async function holderSettings(values, env) {
	const settings = settingsFromFlags(values, env);
	if (!settings.ci || !settings.bearer) return settings;
	if (values["actor-did"] !== void 0 || env.LEASE_GATE_ACTOR_DID) return settings;
	if (settings.ci === "github" && runContextFromEnv(env)) return settings;
	const did = jobDid(settings.ci, await settings.bearer(), env);
	if (!did) throw new UsageError(`This job's OIDC token names no job of ${settings.ci} in the form lease-gate knows: give --actor-did D (the kernel accepts only a DID its token vouches for).`);
	return {
		...settings,
		actorDid: did
	};
}
const stdio = {
	out: (line) => process.stdout.write(`${line}\n`),
	err: (line) => process.stderr.write(`${line}\n`),
	write: (text) => new Promise((resolve, reject) => process.stdout.write(text, (error) => error ? reject(error) : resolve()))
};
// package.json
var version = "1.0.0";
// src/cli/main.ts
function lazyFrom(load) {
	return (name) => async (args, io, env) => (await load())[name](args, io, env);
}
const leaseCommands = lazyFrom(() => Promise.resolve().then(() => require("./lease-commands-BNIgJISG.js")));
const freezeCommands = lazyFrom(() => Promise.resolve().then(() => require("./freeze-commands-D-iFFqN9.js")));
const breakGlassCommands = lazyFrom(() => Promise.resolve().then(() => require("./break-glass-commands-DrtTbllr.js")));
const ledgerCommands = lazyFrom(() => Promise.resolve().then(() => require("./ledger-commands-DQOzNejM.js")));
/** Each command: how it runs, and the flag tables its help is made of (two forms: two). */
const COMMANDS = {
	kernel: {
		run: lazyFrom(() => Promise.resolve().then(() => require("./kernel-command-DtAmYtw2.js")).then((n) => n.kernel_command_exports))("kernel"),
		specs: [KERNEL]
	},
	acquire: {
		run: leaseCommands("acquire"),
		specs: [ACQUIRE]
	},
	release: {
		run: leaseCommands("release"),
		specs: [RELEASE]
	},
	run: {
		run: lazyFrom(() => Promise.resolve().then(() => require("./run-command-CTrZY_-2.js")))("runCommand"),
		specs: [RUN$1]
	},
	keygen: {
		run: ledgerCommands("keygen"),
		specs: [KEYGEN]
	},
	ledger: {
		run: ledgerCommands("ledger"),
		specs: [LEDGER_EXPORT]
	},
	history: {
		run: lazyFrom(() => Promise.resolve().then(() => require("./history-command-DxRJyh10.js")))("history"),
		specs: [HISTORY]
	},
	verify: {
		run: ledgerCommands("verify"),
		specs: [VERIFY]
	},
	status: {
		run: leaseCommands("status"),
		specs: [STATUS]
	},
	app: {
		run: lazyFrom(() => Promise.resolve().then(() => require("./app-command-CzRJflPf.js")))("app"),
		specs: [APP, APP_SMOKE]
	},
	revoke: {
		run: leaseCommands("revoke"),
		specs: [REVOKE]
	},
	freeze: {
		run: freezeCommands("freeze"),
		specs: [FREEZE]
	},
	unfreeze: {
		run: freezeCommands("unfreeze"),
		specs: [UNFREEZE]
	},
	"break-glass": {
		run: breakGlassCommands("breakGlass"),
		specs: [BREAK_GLASS, BREAK_GLASS_CANCEL]
	},
	"approve-break-glass": {
		run: breakGlassCommands("approveBreakGlass"),
		specs: [APPROVE_BREAK_GLASS]
	}
};
/** Each command's help, as `lease-gate NAME --help` prints it. */
const HELPS = Object.fromEntries(Object.entries(COMMANDS).map(([name, command]) => [name, command.specs.map(helpOf).join("\n")]));
/** Used by the action itself; not in the help. */
const INTERNAL = { keep: lazyFrom(() => Promise.resolve().then(() => require("./keep-command-rOWHe6_i.js")))("keep") };
const USAGE = `Usage: lease-gate <command> [options]

${Object.values(HELPS).join("\n\n")}

Common: the key comes from LEASE_GATE_KEY (or INTRAMEDIAL_KEY, the hosted plane's name), or an OIDC ID token from --oidc-token-file FILE or
LEASE_GATE_OIDC_TOKEN is sent instead. --auth auto|key|oidc (LEASE_GATE_AUTH; auto: a given token, else the key, else
this CI job's own token if it can get one): on GitHub Actions the runner's token service, on GitLab the variable of the
job's id_tokens (--id-token-var NAME, default LEASE_GATE_ID_TOKEN), on CircleCI CIRCLE_OIDC_TOKEN_V2 or \`circleci run
oidc get\`, on Buildkite \`buildkite-agent oidc request-token\`; --oidc-audience AUD (LEASE_GATE_OIDC_AUDIENCE, default
lease-gate) is the audience asked for. The job then acts as the DID its token vouches for. --api-url defaults to LEASE_GATE_API_URL, then INTRAMEDIAL_API_URL,
else the hosted plane https://api.intramedial.com (a failure then says the hosted plane was asked);
--actor-did to LEASE_GATE_ACTOR_DID or this host and user.
An unreachable plane is said at once on stderr (the URL, where it came from), then retried quietly
within --wait-timeout (10 s with --wait-timeout 0; 30 s for the other commands), a line a minute.
Exit codes: 0 done, 1 refused, timed out, lost or the plane failed, 2 usage,
128+N when stopped by signal N (run: the command's own code, or 128+N for its signal).
lease-gate --version prints the version.`;
/** Runs one command; returns the exit code. Never throws for a user's mistake. */
async function main(argv, io = stdio, env = process.env) {
	const [name, ...args] = argv;
	if (name === "--version" || name === "-V" || name === "version") {
		io.out(`lease-gate ${version}`);
		return EXIT.done;
	}
	if (!name || name === "--help" || name === "-h" || name === "help") {
		io.out(USAGE);
		return name ? EXIT.done : EXIT.usage;
	}
	const internal = INTERNAL[name];
	if (internal) return internal(args, io, env);
	const command = COMMANDS[name];
	if (!command) {
		const guess = closest(name, Object.keys(COMMANDS));
		io.err(`Unknown command '${untrusted(name, 60)}'.${guess ? ` Did you mean '${guess}'?` : ""} Run 'lease-gate --help' for the list.`);
		return EXIT.usage;
	}
	const own = args.includes("--") ? args.slice(0, args.indexOf("--")) : args;
	if (own.includes("--help") || own.includes("-h")) {
		io.out(HELPS[name]);
		return EXIT.done;
	}
	try {
		return await command.run(args, io, env);
	} catch (error) {
		if (error instanceof UsageError) {
			io.err(`${endSentence(untrusted(error.message, 1e3))} See 'lease-gate ${name} --help'.`);
			return EXIT.usage;
		}
		io.err(`lease-gate ${name}: ${describeFailure(error)}`);
		if (askedHostedPlane(name, args, env)) io.err(`lease-gate: ${HOSTED_HINT}`);
		return EXIT.refused;
	}
}
/** A usage error ends its sentence before "See \u2026" is put after it. */
const endSentence = (text) => /[.?!][')"\]]*$/.test(text.trimEnd()) ? text.trimEnd() : `${text.trimEnd()}.`;
/** One line for any failure, never a stack (errorMessage()), escaped for the terminal. */
function describeFailure(error) {
	return untrusted(errorMessage(error), 1e3);
}
// src/cli/entry.ts
/** The CLI process: one line and exit 1 for anything unforeseen, never a stack trace. */
async function runCli(argv = process.argv.slice(2)) {
	const fail = (error) => {
		stdio.err(`lease-gate: ${describeFailure(error)}`);
		process.exit(1);
	};
	process.on("uncaughtException", fail).on("unhandledRejection", fail);
	try {
		process.exitCode = await main(argv);
	} catch (error) {
		fail(error);
	}
}
// src/bin/cli.ts
runCli();
exports.ACQUIRE = ACQUIRE;
exports.APP = APP;
exports.APPROVE_BREAK_GLASS = APPROVE_BREAK_GLASS;
exports.APPROVE_BREAK_GLASS_PATH = APPROVE_BREAK_GLASS_PATH;
exports.APP_SMOKE = APP_SMOKE;
exports.BREAK_GLASS = BREAK_GLASS;
exports.BREAK_GLASS_PATH = BREAK_GLASS_PATH;
exports.CI_KINDS = CI_KINDS;
exports.COMMIT_PATTERN = COMMIT_PATTERN;
exports.DEPLOY_FIELDS = DEPLOY_FIELDS;
exports.DEPLOY_FORMS = DEPLOY_FORMS;
exports.DID_FORM = DID_FORM;
exports.DURATION_FORM = DURATION_FORM;
exports.EXIT = EXIT;
exports.FREEZE = FREEZE;
exports.FREEZE_PATH = FREEZE_PATH;
exports.HISTORY = HISTORY;
exports.HOSTED_HINT = HOSTED_HINT;
exports.HOSTED_SOURCE = HOSTED_SOURCE;
exports.HOST_PATTERN = HOST_PATTERN;
exports.HttpError = HttpError;
exports.InternalError = InternalError;
exports.KERNEL_FLAGS = KERNEL_FLAGS;
exports.KERNEL_RESOURCES_PATH = KERNEL_RESOURCES_PATH;
exports.KEYGEN = KEYGEN;
exports.LEASE_PATH = LEASE_PATH;
exports.LEDGER_EXPORT = LEDGER_EXPORT;
exports.LEDGER_PATHS = LEDGER_PATHS;
exports.LeaseGateError = LeaseGateError;
exports.MAX_EPOCH_MS = MAX_EPOCH_MS;
exports.NEVER = NEVER;
exports.OPERATOR_NAME_FORM = OPERATOR_NAME_FORM;
exports.OPERATOR_NAME_PATTERN = OPERATOR_NAME_PATTERN;
exports.OWNER_PATTERN = OWNER_PATTERN;
exports.QUEUE_MODES = QUEUE_MODES;
exports.RELEASE = RELEASE;
exports.RELEASE_PATH = RELEASE_PATH;
exports.REPOSITORY_PATTERN = REPOSITORY_PATTERN;
exports.REPO_PATTERN = REPO_PATTERN;
exports.RESOURCE_FORM = RESOURCE_FORM;
exports.RESOURCE_PATTERN = RESOURCE_PATTERN;
exports.REVOKE = REVOKE;
exports.REVOKE_PATH = REVOKE_PATH;
exports.RUN = RUN$1;
exports.RUN_ID_PATTERN = RUN_ID_PATTERN;
exports.STATUS = STATUS;
exports.STORE_FLAGS = STORE_FLAGS;
exports.SettingsError = SettingsError;
exports.UNFREEZE = UNFREEZE;
exports.UNFREEZE_PATH = UNFREEZE_PATH;
exports.UsageError = UsageError;
exports.VERIFY = VERIFY;
exports.WATCH_PATH = WATCH_PATH;
exports.WITHDRAW_BREAK_GLASS_PATH = WITHDRAW_BREAK_GLASS_PATH;
exports._default = _default;
exports._enum = _enum;
exports._gte = _gte;
exports._lte = _lte;
exports._maxLength = _maxLength;
exports._minLength = _minLength;
exports._nonnegative = _nonnegative;
exports._positive = _positive;
exports._regex = _regex;
exports._undefined = _undefined;
exports.array = array;
exports.boolean = boolean;
exports.breakGlassAnswerSchema = breakGlassAnswerSchema;
exports.cachedToken = cachedToken;
exports.causeOf = causeOf;
exports.causeText = causeText;
exports.ciOfEnv = ciOfEnv;
exports.ciTokenWay = ciTokenWay;
exports.claimText = claimText;
exports.cleanDeploy = cleanDeploy;
exports.clipText = clipText;
exports.config = config;
exports.controlFree = controlFree;
exports.createHttpClient = createHttpClient;
exports.deployEntries = deployEntries;
exports.deploySchema = deploySchema;
exports.describeHolder = describeHolder;
exports.describeIssues = describeIssues;
exports.didSchema = didSchema;
exports.didSegment = didSegment;
exports.errorMessage = errorMessage;
exports.formatDuration = formatDuration;
exports.freezeAnswerSchema = freezeAnswerSchema;
exports.frozenSchema = frozenSchema;
exports.gitlabProjectId = gitlabProjectId;
exports.givenApiUrl = givenApiUrl;
exports.givenTokenSource = givenTokenSource;
exports.grantedSchema = grantedSchema;
exports.heldSchema = heldSchema;
exports.holderSettings = holderSettings;
exports.int = int;
exports.isDid = isDid;
exports.isLoopbackHost = isLoopbackHost;
exports.jobDeploy = jobDeploy;
exports.jobDidPrefix = jobDidPrefix;
exports.joinValues = joinValues;
exports.keyFromEnv = keyFromEnv;
exports.kindOfIssuer = kindOfIssuer;
exports.leaseExtensionSchema = leaseExtensionSchema;
exports.leaseSchema = leaseSchema;
exports.literal = literal;
exports.logLine = logLine;
exports.nullable = nullable;
exports.number = number;
exports.object = object;
exports.optional = optional;
exports.optionsOf = optionsOf;
exports.otherRefusalSchema = otherRefusalSchema;
exports.parse = parse;
exports.parseDuration = parseDuration;
exports.parsePlaneUrl = parsePlaneUrl;
exports.parseRepository = parseRepository;
exports.parsedType = parsedType;
exports.partialRecord = partialRecord;
exports.pipe = pipe;
exports.queueSchema = queueSchema;
exports.record = record;
exports.refine = refine;
exports.releaseAnswerSchema = releaseAnswerSchema;
exports.resourceSchema = resourceSchema;
exports.revokeAnswerSchema = revokeAnswerSchema;
exports.revokedSchema = revokedSchema;
exports.runAttemptKey = runAttemptKey;
exports.runnerTokenSource = runnerTokenSource;
exports.settingsFromFlags = settingsFromFlags;
exports.shortHolder = shortHolder;
exports.signalExitCode = signalExitCode;
exports.statusAnswerSchema = statusAnswerSchema;
exports.strictObject = strictObject;
exports.string = string;
exports.stringifyPrimitive = stringifyPrimitive;
exports.supersededSchema = supersededSchema;
exports.templateProblem = templateProblem;
exports.transform = transform;
exports.union = union;
exports.unknown = unknown;
exports.untrusted = untrusted;
exports.urlForDisplay = urlForDisplay;
exports.watchAnswerSchema = watchAnswerSchema;

//# sourceMappingURL=cli.js.map