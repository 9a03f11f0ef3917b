import { SERVER_SETTINGS, settingEnvName, type ServerSetting } from './server-settings.js';

/** One option of a command, as `node:util` `parseArgs` takes it, plus what `--help` shows. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** Shown after the option name in help, e.g. `ID`. */
  readonly placeholder?: string;
  readonly description: string;
  /** A value option that may be given more than once (`--tag a --tag b`): every value is kept, in order. */
  readonly multiple?: true;
}

/** An option that takes a value (`--account ID`): its placeholder in help, and what it is. */
function valued(placeholder: string, description: string): OptionSpec {
  return { type: 'string', placeholder, description };
}

/** A positional argument of a command. */
export interface PositionalSpec {
  readonly name: string;
  readonly description: string;
}

/** A command of `fleet-hours`: what it takes and what its `--help` says. */
export interface CommandSpec {
  /** The words that name it, e.g. `keys create`. */
  readonly name: string;
  readonly summary: string;
  /** More text for `--help`, shown after the usage line. */
  readonly details?: string;
  readonly positionals: readonly PositionalSpec[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Options that must be given. */
  readonly required: readonly string[];
  readonly examples: readonly string[];
}

/** Options every command takes. */
export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  'database-url': valued(
    'URL',
    'PostgreSQL server to use (default: env DATABASE_URL). Without one, the embedded database in --data-dir is used.',
  ),
  'data-dir': valued('DIR', 'Directory of the embedded database (default: env FLEET_HOURS_DATA_DIR, else ./.fleet-hours).'),
  json: { type: 'boolean', description: 'Print exactly one JSON document on stdout and nothing else.' },
  help: { type: 'boolean', short: 'h', description: 'Show help for the command.' },
};

const port: OptionSpec = valued('PORT', 'TCP port to listen on; 0 picks a free one (default 8080).');
const host: OptionSpec = valued('HOST', 'Address to listen on (default 127.0.0.1; 0.0.0.0 for every interface).');
/** The options of `serve`: one per setting of {@link SERVER_SETTINGS}, with its default and variable (D30, P29). */
const serveOptions: Readonly<Record<string, OptionSpec>> = Object.fromEntries(
  Object.values(SERVER_SETTINGS).map((setting: ServerSetting<unknown>) => [
    setting.flag,
    valued(setting.placeholder, `${setting.description}. Default ${setting.shownDefault}; env ${settingEnvName(setting)}.`),
  ]),
);
/** Points per transaction of `import telemetry` (its `TELEMETRY_BATCH_POINTS`). */
const TELEMETRY_BATCH_POINTS_TEXT = '10,000';
const account: OptionSpec = valued('ID', 'Account id.');
/** D61, D63: the tags and machine identity of `devices create` and `devices update`. */
const deviceTagAndIdentityOptions = (change: boolean): Readonly<Record<string, OptionSpec>> => ({
  tag: {
    ...valued(
      'TAG',
      `A tag of the device; repeat for more (at most 20, each 1–64 characters, case-sensitive)${change ? ': they replace its tags' : ''}.`,
    ),
    multiple: true,
  },
  tags: valued(
    'TAGS',
    `Tags separated by commas${change ? ', replacing its tags ("" removes every tag)' : ''}; with --tag, both are kept.`,
  ),
  'oem-name': valued('NAME', `The machine's manufacturer${change ? ' ("" for none)' : ''}.`),
  'equipment-model': valued('MODEL', `The machine's model${change ? ' ("" for none)' : ''}.`),
  'serial-number': valued('SERIAL', `The machine's serial number${change ? ' ("" for none)' : ''}.`),
  pin: valued('PIN', `The machine's product identification number${change ? ' ("" for none)' : ''}.`),
});
const device: OptionSpec = valued('ID', 'Device id.');
const windowFrom: OptionSpec = valued('DATE', "First local day, YYYY-MM-DD, in the device's zone (default: 7 days before --to).");
const windowTo: OptionSpec = valued('DATE', 'Last local day, YYYY-MM-DD, included (default: today, up to now).');
const format: OptionSpec = valued('ndjson|csv', 'File format (default: from the extension .ndjson/.jsonl/.csv, else from the first line).');

const endpointId: OptionSpec = valued('ID', 'Webhook endpoint id, as webhooks list shows it.');
const eventTypesOption: OptionSpec = valued(
  'TYPES',
  'Event types, separated by commas: service.due_soon, service.overdue, device.silent, device.reporting (default: all).',
);
const aempSourceId: OptionSpec = valued('ID', 'AEMP source id, as aemp-sources list shows it.');
const _AEMP_DETAILS =
  'The secret of --auth (the password, the token or the client secret) is never an argument: it is the first line of ' +
  '--secret-file, else the variable FLEET_HOURS_AEMP_SECRET; it is stored to sign in and never shown. --auth is given whole ' +
  'each time, with its secret. Requests go only to https and public addresses unless the polling server allows private ones.';
/** The options of a source's write (P137): `--id` and `--enable`/`--disable` for a change. */
const _aempSourceOptions = (change: boolean): Readonly<Record<string, OptionSpec>> => ({
  account,
  ...(change ? { id: aempSourceId } : {}),
  name: valued('TEXT', 'What the source is, for people.'),
  url: valued('URL', 'The feed’s first page (…/Fleet/1, or …/Fleet/0 where it starts there): https.'),
  auth: valued('KIND', 'basic, bearer or oauth2_client_credentials.'),
  username: valued('TEXT', 'basic: the user name.'),
  'token-url': valued('URL', 'oauth2_client_credentials: where tokens are asked for.'),
  'client-id': valued('TEXT', 'oauth2_client_credentials: the client id.'),
  scope: valued('TEXT', 'oauth2_client_credentials: the scope asked for, if any.'),
  'secret-file': valued('PATH', 'A file whose first line is the secret of --auth.'),
  'poll-every': valued('SECONDS', 'Seconds between two polls, 300 to 604800 (default 3600).'),
  'min-interval-per-url': valued('SECONDS', 'The least seconds between two requests of one URL, as the OEM asks (default 300).'),
  ...(change
    ? {
        enable: { type: 'boolean', description: 'Poll it again.' },
        disable: { type: 'boolean', description: 'Stop polling it.' },
      }
    : {}),
});
const webhookUrl: OptionSpec = valued('URL', 'Where to POST the events: https (http only for a loopback host).');
const webhookDescription = (change: boolean): OptionSpec =>
  valued('TEXT', `What the endpoint is for, at most 200 characters${change ? ' ("" for none)' : ' (default: none)'}.`);
const scheduleId: OptionSpec = valued('ID', 'Service schedule id, as service list shows it.');
const DURATION_HELP =
  'Durations are 250h, 90m or 3600s, always with the unit (a bare 250 is refused); decimals are read exactly and must come to whole seconds ' +
  '(1.5h, not 0.5s). Instants are ISO 8601 with an offset or Z (2026-11-20T07:00:00-05:00), or now.';

const spec = (command: Omit<CommandSpec, 'positionals' | 'options' | 'required'> & Partial<CommandSpec>): CommandSpec => ({
  positionals: [],
  options: {},
  required: [],
  ...command,
});

/** Every command of `fleet-hours`, in the order `--help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  spec({
    name: 'migrate',
    summary: 'Create or update the database schema',
    details: 'Every other command also brings the schema up to date before it runs; use this to do it on its own, e.g. in a deploy step.',
    examples: ['fleet-hours migrate --database-url postgres://fleet@db.internal/fleet_hours'],
  }),
  spec({
    name: 'serve',
    summary: 'Serve the HTTP API',
    details:
      'Migrates, then serves the API, the probes GET /healthz (the process is up) and GET /readyz (the database answers), ' +
      'and Prometheus metrics when --metrics-port is given. Logs one JSON object per line on stdout, a failed start included. ' +
      'SIGTERM or SIGINT stop it gracefully: no new connections, open requests finish, the database is closed, exit code 0. ' +
      'Every setting is a flag or an environment variable; a flag wins over its variable.',
    options: serveOptions,
    examples: [
      'fleet-hours serve --port 8080',
      'DATABASE_URL=postgres://fleet@db.internal/fleet_hours fleet-hours serve --host 0.0.0.0 --trusted-proxy-hops 1 --metrics-port 9464',
      'FLEET_HOURS_RATE_LIMIT_HOURS=60 FLEET_HOURS_LOG_LEVEL=warn fleet-hours serve',
    ],
  }),
  spec({
    name: 'demo',
    summary: 'Serve a fresh demo database: eight vehicles, six with a year of shifts and two live',
    details:
      'Creates a fresh embedded database (in memory unless --data-dir names a new, empty directory), seeds a demo fleet ' +
      '(six vehicles in New York, Berlin, Lord Howe Island, Kathmandu, São Paulo and the Chatham Islands, a year of shifts), ' +
      'then serves it and prints the URL, a working API key and ready curl lines. Two more vehicles are live: simulated trackers ' +
      'report through POST /ingest/v1/telemetry while the demo runs, so their meters count up; the banner prints their ingest token, ' +
      'a curl line that sends a point and an OsmAnd URL. DATABASE_URL is ignored: the demo never touches a server database. ' +
      'Without --port it listens on 8080, or on a free port when 8080 is taken. --webhook-url adds a webhook endpoint for every ' +
      'event type to the demo account and prints its secret; the demo then sends its events there (an address that is not ' +
      'public, e.g. a receiver on this machine, only with --webhook-allow-private-addresses on).',
    options: {
      port,
      host,
      'webhook-url': valued('URL', "Send the demo's webhooks here: https (http only for a loopback host)."),
      'webhook-allow-private-addresses': serveOptions['webhook-allow-private-addresses']!,
    },
    examples: [
      'fleet-hours demo',
      'fleet-hours demo --port 3000 --data-dir ./demo-data',
      'fleet-hours demo --webhook-url http://127.0.0.1:9000/hooks --webhook-allow-private-addresses on',
    ],
  }),
  spec({
    name: 'simulate',
    summary: 'Drive simulated vehicles against a running server through an ingestion endpoint',
    details:
      'Each vehicle works realistic days from a seeded model: shifts on the local wall clock (engine off at night and on Sundays), ' +
      'driving at varying speed, idling at stops, engine-off stops, and minutes without a report (data gaps). Its reports go to the ' +
      'server at --url with the ingest token (fhi_…) as native NDJSON batches (POST /ingest/v1/telemetry), Traccar forwarded positions ' +
      '(POST /ingest/traccar) or OsmAnd requests (GET or POST /ingest/osmand/TOKEN), a --shuffle fraction late and a --resend fraction ' +
      'twice. --realtime (the default) stamps reports with the clock and sends each as it happens, starting a shift at once; --backfill ' +
      'sends historic days as fast as --rate and --concurrency allow. 429 and 503 answers are retried after Retry-After. Prints sent, ' +
      'accepted, duplicates, errors, positions/s, p50/p99 latency and, per vehicle, the engine time the server should now hold. ' +
      'Runs until --duration, --count or the backfill span is done, or Ctrl+C; exit code 1 when a request failed. ' +
      'The devices must exist: create them with devices create --imei (the default IMEIs are the prefix 35630704250 and 0001, 0002, …). ' +
      'The examples run against fleet-hours demo as printed, with the ingest token of its banner: 356307042441062 and ' +
      '861585040812392 are its live vehicles, which report telemetry only (a device with imported segments refuses points ' +
      'that overlap them).',
    options: {
      url: valued('URL', 'Base URL of the server (default http://127.0.0.1:8080).'),
      token: valued('TOKEN', 'Ingest token, fhi_… (default: env FLEET_HOURS_INGEST_TOKEN).'),
      protocol: valued('native|traccar|osmand', 'Ingestion endpoint to use (default native).'),
      vehicles: valued('N', 'Number of vehicles (default 3, or as many as --imeis/--device-ids name).'),
      'imei-prefix': valued('DIGITS', 'IMEIs are this prefix and the vehicle number, 15 digits (default 35630704250).'),
      imeis: valued('LIST', 'Comma-separated IMEIs of the vehicles, instead of --imei-prefix.'),
      'device-ids': valued('LIST', 'Comma-separated device ids, sent as device_id (native only).'),
      interval: valued(
        'SECONDS',
        "Seconds between a vehicle's reports while its engine runs (default 10; live with --rate: vehicles / rate).",
      ),
      'parked-interval': valued('SECONDS', 'Seconds between heartbeats while parked (default 10 × --interval, at most 1800).'),
      rate: valued('N', 'At most N positions per second, all vehicles together (default: no limit).'),
      duration: valued('SECONDS', 'Stop after this many seconds.'),
      count: valued('N', 'Stop after N reports (repeats not counted).'),
      realtime: { type: 'boolean', description: 'Timestamps are now; each report is sent as it happens (the default).' },
      backfill: valued(
        'FROM..TO',
        'Historic reports, sent as fast as allowed: FROM and TO are dates YYYY-MM-DD or YYYY/MM/DD (local days of --timezone, both included) or ISO 8601 instants with an offset; TO is capped at now.',
      ),
      timezone: valued('IANA', 'Zone whose wall clock the shifts follow (default UTC).'),
      'shift-start': valued(
        'now|schedule',
        'now: a shift starts with the run (default live); schedule: at the usual hours (default for --backfill).',
      ),
      seed: valued('N', 'Seed of every random choice: the same seed sends the same reports (default 1).'),
      shuffle: valued('FRACTION', 'Fraction of reports sent late, out of order (default 0).'),
      resend: valued('FRACTION', 'Fraction of reports sent twice (default 0).'),
      concurrency: valued('N', 'Requests in flight at once (default 4).'),
      'batch-size': valued('N', 'Points per native batch, at most 10000 (default 500).'),
      method: valued('GET|POST', 'How OsmAnd positions are sent: query string or form body (default GET).'),
    },
    examples: [
      'fleet-hours simulate --token fhi_… --imeis 356307042441062,861585040812392 --duration 60',
      'fleet-hours simulate --token fhi_… --protocol traccar --imeis 861585040812392 --backfill 2026-11-16..2026-11-20 --timezone Europe/Berlin --shuffle 0.05 --resend 0.02',
      'fleet-hours simulate --token fhi_… --protocol osmand --method POST --imeis 356307042441062,861585040812392 --count 200 --json',
      'fleet-hours simulate --url http://127.0.0.1:8080 --token fhi_… --imeis 356307042441062,861585040812392 --interval 1 --rate 2 --concurrency 16',
    ],
  }),
  spec({
    name: 'accounts create',
    summary: 'Create an account',
    options: {
      name: valued('NAME', 'Account name.'),
      plan: valued('PLAN', 'business (includes API access, the default) or starter (no API access).'),
    },
    required: ['name'],
    examples: [
      'fleet-hours accounts create --name "Acme Haulage"',
      'fleet-hours accounts create --name "Corner Shop" --plan starter --json',
    ],
  }),
  spec({
    name: 'accounts set-plan',
    summary: "Change an account's plan",
    positionals: [
      { name: 'ID', description: 'Account id.' },
      { name: 'PLAN', description: 'business or starter.' },
    ],
    examples: ['fleet-hours accounts set-plan 2 business'],
  }),
  spec({
    name: 'accounts list',
    summary: 'List every account',
    examples: ['fleet-hours accounts list'],
  }),
  spec({
    name: 'accounts update',
    summary: "Change an account's quiet time before an active device is silent",
    details:
      'An active device that has reported and sends nothing for --silent-after raises device.silent, and device.reporting when it ' +
      'reports again (default 30 minutes; from 1 minute to 366 days). ' +
      DURATION_HELP,
    options: {
      id: valued('ID', 'Account id.'),
      'silent-after': valued('DURATION', 'Quiet time, e.g. 30m or 2h.'),
    },
    required: ['id', 'silent-after'],
    examples: ['fleet-hours accounts update --id 1 --silent-after 30m'],
  }),
  spec({
    name: 'keys create',
    summary: 'Create an API key (shown once)',
    details:
      'The key is printed this once and never again: only its SHA-256 fingerprint is stored. A lost key cannot be recovered; create a new one.',
    options: {
      account,
      label: valued('TEXT', 'A note to tell keys apart, e.g. "billing export".'),
      'expires-at': valued('ISO-INSTANT', 'When the key stops working, with an offset, e.g. 2027-01-01T00:00:00Z (default: never).'),
      scope: valued('SCOPE', 'read (default): the key reads; manage: it also creates and changes devices through the API.'),
    },
    required: ['account'],
    examples: [
      'fleet-hours keys create --account 1 --label "billing export"',
      'fleet-hours keys create --account 1 --label "backoffice sync" --scope manage',
      'fleet-hours keys create --account 1 --expires-at 2027-01-01T00:00:00Z --json',
    ],
  }),
  spec({
    name: 'keys list',
    summary: "List an account's keys (fingerprints only, never the keys)",
    options: { account },
    required: ['account'],
    examples: ['fleet-hours keys list --account 1'],
  }),
  spec({
    name: 'keys revoke',
    summary: 'Revoke a key; it stops working on the next request',
    positionals: [{ name: 'KEY-ID', description: 'Key id, as `keys list` shows it.' }],
    examples: ['fleet-hours keys revoke 3'],
  }),
  spec({
    name: 'ingest-tokens create',
    summary: 'Create an ingest token for live telemetry (shown once)',
    details:
      "An ingest token (fhi_…) writes the telemetry of the account's devices over HTTP (POST /ingest/v1/telemetry, /ingest/traccar, " +
      '/ingest/osmand/TOKEN) and reads nothing. It is printed this once and never again: only its SHA-256 fingerprint is stored.',
    options: {
      account,
      label: valued('TEXT', 'A note to tell tokens apart, e.g. "traccar forwarder".'),
      'expires-at': valued('ISO-INSTANT', 'When the token stops working, with an offset, e.g. 2027-01-01T00:00:00Z (default: never).'),
    },
    required: ['account'],
    examples: [
      'fleet-hours ingest-tokens create --account 1 --label "traccar forwarder"',
      'fleet-hours ingest-tokens create --account 1 --expires-at 2027-01-01T00:00:00Z --json',
    ],
  }),
  spec({
    name: 'ingest-tokens list',
    summary: "List an account's ingest tokens (fingerprints only, never the tokens)",
    options: { account },
    required: ['account'],
    examples: ['fleet-hours ingest-tokens list --account 1'],
  }),
  spec({
    name: 'ingest-tokens revoke',
    summary: 'Revoke an ingest token; it stops working on the next request',
    positionals: [{ name: 'TOKEN-ID', description: 'Token id, as `ingest-tokens list` shows it.' }],
    examples: ['fleet-hours ingest-tokens revoke 2'],
  }),
  spec({
    name: 'devices create',
    summary: 'Create a device (vehicle)',
    options: {
      account,
      name: valued('NAME', 'Display name of the vehicle.'),
      imei: valued('IMEI', 'Identifier of the tracker box.'),
      model: valued('MODEL', 'Tracker model.'),
      timezone: valued('IANA', 'IANA time zone of the vehicle, e.g. Europe/Berlin.'),
      registration: valued('REG', 'Registration plate (default: none).'),
      status: valued('STATUS', 'active (default) or inactive.'),
      ...deviceTagAndIdentityOptions(false),
    },
    required: ['account', 'name', 'imei', 'model', 'timezone'],
    examples: [
      'fleet-hours devices create --account 1 --name "Truck 14" --imei 356307042441013 --model FMB920 --timezone America/New_York --registration "NY 4821"',
      'fleet-hours devices create --account 1 --name "Excavator 4" --imei 490154203237518 --model FMC130 --timezone Europe/Berlin --tag north-yard --tag cranes --oem-name CAT --equipment-model 320',
    ],
  }),
  spec({
    name: 'devices list',
    summary: "List an account's devices",
    options: { account, tag: valued('TAG', 'Only the devices having this tag.') },
    required: ['account'],
    examples: ['fleet-hours devices list --account 1', 'fleet-hours devices list --account 1 --tag north-yard'],
  }),
  spec({
    name: 'devices update',
    summary: 'Change a device',
    details: 'Give at least one option. --registration "" clears the registration.',
    positionals: [{ name: 'ID', description: 'Device id.' }],
    options: {
      name: valued('NAME', 'New display name.'),
      imei: valued('IMEI', 'New tracker box identifier.'),
      timezone: valued('IANA', 'New IANA time zone.'),
      status: valued('STATUS', 'active or inactive; an inactive device frees its IMEI.'),
      registration: valued('REG', 'New registration ("" for none).'),
      model: valued('MODEL', 'New tracker model.'),
      ...deviceTagAndIdentityOptions(true),
    },
    examples: [
      'fleet-hours devices update 4 --timezone Europe/Berlin --status inactive',
      'fleet-hours devices update 4 --tags north-yard,cranes',
    ],
  }),
  spec({
    name: 'import segments',
    summary: 'Import engine segments from NDJSON or CSV',
    details:
      'NDJSON: one {"started_at": ISO, "ended_at": ISO|null, "state": "moving"|"idle"} per line. ' +
      'CSV: a header started_at,ended_at,state, then one segment per row (ended_at empty while the engine still runs). ' +
      'Instants carry an offset or Z. Blank lines are ignored. The whole file is checked first and written in one ' +
      'transaction: a bad line or an overlap writes nothing. Re-importing the same file is harmless (identical segments are skipped).',
    positionals: [{ name: 'FILE', description: 'Path of the file, or - for stdin.' }],
    options: { device, format },
    required: ['device'],
    examples: [
      'fleet-hours import segments --device 4 ./segments-2026-03.ndjson',
      'gunzip -c segments.csv.gz | fleet-hours import segments --device 4 --format csv -',
    ],
  }),
  spec({
    name: 'import telemetry',
    summary: 'Import telemetry points, stored as live ingestion stores them',
    details:
      'NDJSON: one {"time": ISO, "ignition": bool, "speed_kmh": number} per line. CSV: a header time,ignition,speed_kmh. ' +
      "The points are stored through the same code as HTTP ingestion: the device's engine segments are made of all its points, " +
      'whatever order and files they came in. A point with the ignition on counts as moving at 5 km/h or more, else idle, for the ' +
      "time until the device's next point, but for 300 s at most: a longer silence counts as engine off, so no hours are made up " +
      'across a gap in the data (the newest point counts for up to 300 s). A point equal to a stored one is a duplicate, so importing a file again ' +
      'changes nothing. The whole file is checked first: a bad line writes nothing. The points are then written in time order in ' +
      `batches of ${TELEMETRY_BATCH_POINTS_TEXT} points, each its own transaction: the file is not one transaction, and a batch refused ` +
      'for an overlap with imported segments leaves the batches before it stored (the message says how many points). A point ' +
      'older than --telemetry-retention-days, or than the points the database already dropped, is refused as HTTP ingestion refuses it.',
    positionals: [{ name: 'FILE', description: 'Path of the file, or - for stdin.' }],
    options: { device, format, 'telemetry-retention-days': serveOptions['telemetry-retention-days']! },
    required: ['device'],
    examples: [
      'fleet-hours import telemetry --device 4 ./telemetry.csv',
      'gunzip -c tractor.ndjson.gz | fleet-hours import telemetry --device 4 --format ndjson -',
    ],
  }),
  spec({
    name: 'hours',
    summary: 'Engine, moving and idle time of a device over local days in its zone',
    details:
      'Reads what GET /api/v1/devices/ID/hours answers, straight from the database: no server or API key needed. The window is ' +
      "whole local days in the device's own time zone, --from to --to, both included (a day of a clock change is 23 or 25 hours " +
      'long). Without --from and --to: the last 7 days up to now; --from alone runs to now; --to alone starts 7 days before it. ' +
      'A window longer than 365 days is shortened to the 365 days that end at --to. --json prints the same body as the API.',
    options: { device, from: windowFrom, to: windowTo },
    required: ['device'],
    examples: [
      'fleet-hours hours --device 4',
      'fleet-hours hours --device 4 --from 2026-11-01 --to 2026-11-01',
      'fleet-hours hours --device 4 --from 2026-03-01 --to 2026-03-31 --json',
    ],
  }),
  spec({
    name: 'daily',
    summary: 'Engine, moving and idle time of a device per local day, as a table',
    details:
      "Reads what GET /api/v1/devices/ID/hours/daily answers, straight from the database: one row per local day in the device's " +
      'own time zone, days without engine time included. The window and its defaults are those of the hours command. ' +
      '--json prints the same body as the API.',
    options: { device, from: windowFrom, to: windowTo },
    required: ['device'],
    examples: [
      'fleet-hours daily --device 4',
      'fleet-hours daily --device 4 --from 2026-10-29 --to 2026-11-04',
      'fleet-hours daily --device 4 --from 2026-03-01 --json',
    ],
  }),
  spec({
    name: 'meter',
    summary: 'The running engine-hour meter of a device',
    details:
      'Reads what GET /api/v1/devices/ID/meter answers, straight from the database: engine, moving and idle time since the ' +
      'first segment, with an engine that is running now counted up to now. --json prints the same body as the API.',
    options: { device },
    required: ['device'],
    examples: ['fleet-hours meter --device 4', 'fleet-hours meter --device 4 --json'],
  }),
  spec({
    name: 'utilization',
    summary: 'Utilization against the work calendar, per day, ISO week or month: a device, every device, or each tag',
    details:
      'Reads what GET /api/v1/devices/ID/utilization (--device) or GET /api/v1/utilization (--account: every device of the ' +
      'account, or with --by tag one line per tag) answers, straight from the database. The window and its defaults are those ' +
      "of the hours command, in each device's own zone. Per period: engine time, the part inside and outside the work " +
      'calendar, the scheduled time, the days with engine time, utilization (engine time inside the calendar over the ' +
      'scheduled time) and idle share (idle over engine time), shown as percent with one decimal (- when there is nothing to ' +
      "divide by). --format json (or --json) prints the API's body, unrounded, every device in one document; --format csv " +
      "the rows and columns of the API's CSV.",
    options: {
      device: valued('ID', 'Device id: its own periods.'),
      account: valued('ID', 'Account id: every device of the account (or each tag, with --by tag).'),
      tag: valued('TAG', 'With --account: only the devices having this tag.'),
      by: valued('device|tag', 'With --account: one entry per device (default) or per tag.'),
      from: windowFrom,
      to: windowTo,
      'group-by': valued('day|week|month', 'Periods: local days (default), ISO weeks (Monday first) or calendar months.'),
      format: valued('table|json|csv', 'What to print (default table).'),
    },
    examples: [
      'fleet-hours utilization --device 4 --from 2026-11-02 --to 2026-11-29 --group-by week',
      'fleet-hours utilization --account 1 --tag north --from 2026-10-01 --to 2026-12-31 --group-by month --format csv > q4.csv',
      'fleet-hours utilization --account 1 --by tag --group-by week --json',
    ],
  }),
  spec({
    name: 'hour-meter set',
    summary: "Record a reading of a machine's own hour meter",
    details:
      "The machine's hour meter counts its whole life; the meter counts from the first report. From a reading on, the hour " +
      'meter is the reading plus the engine time (moving and idle) since it, exact to the second; a reading given for the past ' +
      're-bases everything after it. A reading at an instant that already has one replaces it. A reading lower than the one ' +
      'before it is stored (a replaced meter) with a note on stderr; one in the future is refused. ' +
      DURATION_HELP,
    options: {
      device,
      reading: valued('DURATION', 'What the hour meter shows, e.g. 12500h or 12500.5h.'),
      at: valued('INSTANT', 'When it showed it: ISO 8601 with an offset, or now (the default).'),
    },
    required: ['device', 'reading'],
    examples: [
      'fleet-hours hour-meter set --device 7 --reading 12500h --at 2026-11-20T07:00:00-05:00',
      'fleet-hours hour-meter set --device 7 --reading 12512.5h --json',
    ],
  }),
  spec({
    name: 'hour-meter list',
    summary: "List a device's hour-meter readings, newest first",
    details:
      "Instants in the device's zone, readings in h:mm, and the hour meter now. --json prints " +
      '{ device_id, timezone, data: [{ id, device_id, read_at, reading_seconds, recorded_at }] }.',
    options: { device },
    required: ['device'],
    examples: ['fleet-hours hour-meter list --device 7', 'fleet-hours hour-meter list --device 7 --json'],
  }),
  spec({
    name: 'hour-meter remove',
    summary: 'Remove an hour-meter reading',
    details: 'The hour meter then counts from the reading before it (or from the first report). A reading of another device is not found.',
    options: { device, id: valued('ID', 'Reading id, as hour-meter list shows it.') },
    required: ['device', 'id'],
    examples: ['fleet-hours hour-meter remove --device 7 --id 2'],
  }),
  spec({
    name: 'service create',
    summary: 'Create a service schedule: engine hours and days between services, whichever comes first',
    details:
      'A schedule is due at its last service plus --every of hour meter, or plus --every-days in local days of the device, ' +
      'whichever comes first; it is due_soon within --due-soon or --due-soon-days of that (by default a tenth of each ' +
      'interval, days at least 1), overdue once either has run out. Without --last-done-at the last service is now. With it, ' +
      "the hour meter at that instant is computed from the device's readings and engine time at every read (late data shows at " +
      'once), unless --last-done-hours gives it; --last-done-hours alone is refused (exit 2). A zero or negative interval, ' +
      'a margin larger than its interval, or a last service in the future is refused naming the option (exit 1). ' +
      DURATION_HELP,
    options: {
      device,
      name: valued('NAME', 'What is done, e.g. "Engine oil" (1 to 200 characters).'),
      every: valued('DURATION', 'Engine time between services, e.g. 250h.'),
      'every-days': valued('DAYS', 'Calendar days between services too (default none).'),
      'due-soon': valued('DURATION', 'Due-soon margin of engine time (default a tenth of --every).'),
      'due-soon-days': valued('DAYS', 'Due-soon margin in days (default a tenth of --every-days, at least 1).'),
      'last-done-at': valued('INSTANT', 'When it was last done (default now).'),
      'last-done-hours': valued('DURATION', 'The hour meter then, with --last-done-at (default: computed from the stored data).'),
    },
    required: ['device', 'name', 'every'],
    examples: [
      'fleet-hours service create --device 7 --name "Engine oil" --every 250h --every-days 180',
      'fleet-hours service create --device 7 --name "Air filter" --every 500h --due-soon 25h --last-done-at 2026-09-01T08:00:00-04:00 --last-done-hours 1025h',
    ],
  }),
  spec({
    name: 'service list',
    summary: 'Where each service schedule stands: due, remaining engine time and days, status',
    details:
      'With --device, that device (--json: the body of GET /api/v1/devices/ID/service). Otherwise every device of --account, ' +
      'or of every account, by account then device id (--json: { data: [body…] }, each as GET /api/v1/service shows it). ' +
      '--status due_soon,overdue keeps the devices with at least one schedule in one of those statuses (each still lists all ' +
      'its schedules); it is refused with --device. Engine time is shown in h:mm.',
    options: {
      device: valued('ID', 'Only this device.'),
      account: valued('ID', "Only this account's devices (default: every account)."),
      status: valued('STATUSES', 'Comma-separated statuses: ok, due_soon, overdue.'),
      tag: valued('TAG', 'Only the devices having this tag (refused with --device).'),
    },
    examples: [
      'fleet-hours service list --device 7',
      'fleet-hours service list --status due_soon,overdue',
      'fleet-hours service list --account 1 --tag north-yard --status overdue',
      'fleet-hours service list --account 1 --json',
    ],
  }),
  spec({
    name: 'service update',
    summary: 'Change a service schedule',
    details:
      'Give at least one option. --every-days none removes the calendar interval and its margin; --due-soon default and ' +
      '--due-soon-days default go back to a tenth of the interval. The last service stays (service done changes it). ' +
      DURATION_HELP,
    options: {
      id: scheduleId,
      name: valued('NAME', 'New name.'),
      every: valued('DURATION', 'New engine time between services.'),
      'every-days': valued('DAYS|none', 'New calendar days between services, or none.'),
      'due-soon': valued('DURATION|default', 'New due-soon margin of engine time.'),
      'due-soon-days': valued('DAYS|default', 'New due-soon margin in days.'),
    },
    required: ['id'],
    examples: ['fleet-hours service update --id 3 --every 300h --every-days none', 'fleet-hours service update --id 3 --due-soon 30h'],
  }),
  spec({
    name: 'service done',
    summary: 'Record a service: the hour meter at that instant becomes the last service',
    details:
      "The hour meter at --at is computed from the device's readings and engine time at every read, so late data and new " +
      'readings show at once; the output says what it reads now. An instant in the future is refused (exit 1).',
    options: {
      id: scheduleId,
      at: valued('INSTANT', 'When it was done: ISO 8601 with an offset, or now (the default).'),
    },
    required: ['id'],
    examples: ['fleet-hours service done --id 3', 'fleet-hours service done --id 3 --at 2026-11-24T16:30:00-05:00 --json'],
  }),
  spec({
    name: 'service remove',
    summary: 'Remove a service schedule',
    options: { id: scheduleId },
    required: ['id'],
    examples: ['fleet-hours service remove --id 3'],
  }),
  spec({
    name: 'calendar set',
    summary: "Set a device's work calendar, or an account's default",
    details:
      'FILE holds the calendar as JSON, as the API takes it: {"weekly": {"mon": [["07:00", "17:00"]], ..., "sun": []}, ' +
      '"exceptions": [{"date": "2026-12-25", "windows": []}]}. Every day mon to sun is needed ([] for a day without work); ' +
      'a window is [start, end] in the device\'s local time, HH:MM, with "24:00" only as an end; an end before the start runs ' +
      'past midnight; the windows of a day do not overlap; at most 10 windows a day and 366 exceptions, each date once. ' +
      "A device without its own calendar uses its account's default. The file is checked before anything is changed.",
    options: {
      device: valued('ID', 'Device id: set its own calendar.'),
      account: valued('ID', 'Account id: set the default of its devices.'),
      file: valued('FILE', 'The calendar, as JSON.'),
    },
    required: ['file'],
    examples: [
      'fleet-hours calendar set --account 1 --file weekdays.json',
      'fleet-hours calendar set --device 4 --file night-shift.json --json',
    ],
  }),
  spec({
    name: 'calendar show',
    summary: "Show the work calendar a device uses, or an account's default",
    details:
      "A device's own calendar, else its account's default, else none. --json prints " +
      '{ source: device|account|none, timezone, weekly, exceptions, version }, as the API answers.',
    options: { device: valued('ID', 'Device id.'), account: valued('ID', 'Account id: its default.') },
    examples: ['fleet-hours calendar show --device 4', 'fleet-hours calendar show --account 1 --json'],
  }),
  spec({
    name: 'calendar remove',
    summary: "Remove a device's own work calendar, or an account's default",
    details: "The device then uses its account's default again (or none). Removing a calendar that is not there changes nothing.",
    options: { device: valued('ID', 'Device id: remove its own calendar.'), account: valued('ID', 'Account id: remove the default.') },
    examples: ['fleet-hours calendar remove --device 4'],
  }),
  spec({
    name: 'webhooks create',
    summary: 'Add a webhook endpoint to an account (its secret is shown once)',
    details:
      'The running servers POST every event of the types it wants to the URL, signed per Standard Webhooks (webhook-id, ' +
      'webhook-timestamp, webhook-signature) with the secret whsec_… printed this once: verify every request with it. Delivery is ' +
      'at least once, retried on the schedule of --webhook-retry-schedule of serve; a 410 or five days without a success disable ' +
      'the endpoint. Only public addresses are reached: loopback, private and every other special-purpose address is refused ' +
      'unless serve (or demo, or webhooks test) runs with --webhook-allow-private-addresses on.',
    options: { account, url: webhookUrl, events: eventTypesOption, description: webhookDescription(false) },
    required: ['account', 'url'],
    examples: [
      'fleet-hours webhooks create --account 1 --url https://ops.example.com/hooks --description "Dispatch board"',
      'fleet-hours webhooks create --account 1 --url https://ops.example.com/hooks --events service.due_soon,service.overdue --json',
    ],
  }),
  spec({
    name: 'webhooks list',
    summary: "List an account's webhook endpoints (never their secrets)",
    options: { account },
    required: ['account'],
    examples: ['fleet-hours webhooks list --account 1 --json'],
  }),
  spec({
    name: 'webhooks update',
    summary: 'Change a webhook endpoint, or enable or disable it',
    details: 'Give at least one option. --enable also clears why it was disabled (a 410, five days of failures) and its failing streak.',
    options: {
      id: endpointId,
      url: webhookUrl,
      events: eventTypesOption,
      description: webhookDescription(true),
      enable: { type: 'boolean', description: 'Deliver to it again; its pending deliveries go on.' },
      disable: { type: 'boolean', description: 'Stop delivering to it; its deliveries wait.' },
    },
    required: ['id'],
    examples: ['fleet-hours webhooks update --id 4 --events service.overdue', 'fleet-hours webhooks update --id 4 --enable'],
  }),
  spec({
    name: 'webhooks rotate',
    summary: "Replace a webhook endpoint's secret (shown once); both sign for 24 hours",
    options: { id: endpointId },
    required: ['id'],
    examples: ['fleet-hours webhooks rotate --id 4'],
  }),
  spec({
    name: 'webhooks remove',
    summary: 'Remove a webhook endpoint with its deliveries',
    options: { id: endpointId },
    required: ['id'],
    examples: ['fleet-hours webhooks remove --id 4'],
  }),
  spec({
    name: 'webhooks test',
    summary: 'Send a webhook.test event to an endpoint now and print the outcome',
    details:
      'Exit 0 when the endpoint answered 2xx, 1 otherwise (the event then stays in the outbox and the servers retry it). ' +
      '--webhook-timeout and --webhook-allow-private-addresses are read like serve (the flag, else FLEET_HOURS_WEBHOOK_TIMEOUT ' +
      'and FLEET_HOURS_WEBHOOK_ALLOW_PRIVATE_ADDRESSES); an address that is not public is refused unless allowed.',
    options: {
      id: endpointId,
      'webhook-timeout': serveOptions['webhook-timeout']!,
      'webhook-allow-private-addresses': serveOptions['webhook-allow-private-addresses']!,
    },
    required: ['id'],
    examples: ['fleet-hours webhooks test --id 4', 'fleet-hours webhooks test --id 4 --webhook-allow-private-addresses on'],
  }),
  spec({
    name: 'webhooks deliveries',
    summary: "List a webhook endpoint's delivery attempts, newest first",
    details:
      'Each attempt: when, the event, the HTTP status (none for a timeout or a refused connection), how long it took and what failed.',
    options: {
      id: endpointId,
      failed: { type: 'boolean', description: 'Only the attempts of events whose delivery has failed.' },
      limit: valued('N', 'At most N attempts (default 50, at most 1000).'),
    },
    required: ['id'],
    examples: ['fleet-hours webhooks deliveries --id 4 --failed --limit 20'],
  }),
  spec({
    name: 'webhooks replay',
    summary: 'Send an event again to every endpoint it went to, under the same id',
    options: { event: valued('EVENT_ID', 'The event id (evt_…), as webhooks deliveries shows it.') },
    required: ['event'],
    examples: ['fleet-hours webhooks replay --event evt_overdue_s3_c1788264000'],
  }),
  // AEMP sources (D65, P137): the options name the API body's fields.
  spec({
    name: 'aemp-sources create',
    summary: 'Add an AEMP (ISO 15143-3) feed of an OEM cloud to an account; the running servers poll it',
    details: _AEMP_DETAILS,
    options: _aempSourceOptions(false),
    required: ['account', 'name', 'url', 'auth'],
    examples: [
      'fleet-hours aemp-sources create --account 1 --name "Cat" --url https://oem.example/aemp/Fleet/1 --auth oauth2_client_credentials --token-url https://oem.example/token --client-id fleet --secret-file cat-secret.txt',
      'FLEET_HOURS_AEMP_SECRET=… fleet-hours aemp-sources create --account 1 --name "Volvo" --url https://oem.example/Fleet/1 --auth basic --username fleet',
    ],
  }),
  spec({
    name: 'aemp-sources list',
    summary: "List an account's AEMP sources (never their secrets)",
    options: { account },
    required: ['account'],
    examples: ['fleet-hours aemp-sources list --account 1 --json'],
  }),
  spec({
    name: 'aemp-sources update',
    summary: 'Change an AEMP source, or enable or disable its polls',
    details: `Give at least one option. ${_AEMP_DETAILS}`,
    options: _aempSourceOptions(true),
    required: ['account', 'id'],
    examples: [
      'fleet-hours aemp-sources update --account 1 --id 3 --poll-every 900',
      'fleet-hours aemp-sources update --account 1 --id 3 --disable',
    ],
  }),
  spec({
    name: 'aemp-sources remove',
    summary: 'Remove an AEMP source and the records of its polls (the readings it stored stay)',
    options: { account, id: aempSourceId },
    required: ['account', 'id'],
    examples: ['fleet-hours aemp-sources remove --account 1 --id 3'],
  }),
  spec({
    name: 'aemp-sources poll',
    summary: 'Poll an AEMP source now and print the record of the poll (stored like the servers’ polls)',
    details:
      'Exit 0 when the feed was read to its end, 1 when the poll ended early (the record says why). --aemp-allow-private-addresses ' +
      'is read like serve (the flag, else FLEET_HOURS_AEMP_ALLOW_PRIVATE_ADDRESSES).',
    options: { account, id: aempSourceId, 'aemp-allow-private-addresses': serveOptions['aemp-allow-private-addresses']! },
    required: ['account', 'id'],
    examples: ['fleet-hours aemp-sources poll --account 1 --id 3 --json'],
  }),
  spec({
    name: 'audit list',
    summary: "List an account's changes, newest first",
    details:
      'Every change made to the account by the API (the key by its label and the first 8 characters of its fingerprint, and the ' +
      "request's X-Request-Id) or by this CLI (devices create and update, keys create and revoke, accounts set-plan): when, the " +
      'action, the resource and each field changed as [before, after]; secrets are written as "[redacted]". The same entries as ' +
      'GET /api/v1/audit, a page at a time: pass the cursor printed under a page to see the next one. Entries older than ' +
      '--audit-retention-days are removed by maintenance.',
    options: {
      account,
      limit: valued('N', 'Entries per page (default 50, at most 500).'),
      cursor: valued('CURSOR', 'Where the page starts: the cursor printed under the previous page (its next_cursor with --json).'),
    },
    required: ['account'],
    examples: ['fleet-hours audit list --account 1', 'fleet-hours audit list --account 1 --limit 20 --json'],
  }),
  spec({
    name: 'verify',
    summary: 'Check every derived datum against its source; --repair rebuilds what differs',
    details:
      'Checks, for every device (or --device ID): telemetry segments against what the stored points give, ' +
      "per-day figures against the closed segments in the device's zone, lifetime totals and the longest segment against the same " +
      'segments, and last_reported_at against the newest stored point or imported segment instant. Imported segments ' +
      'have no source to check. Exit 0 when all agree; exit 1 with a report naming each device, what differs and by how many ' +
      'seconds (--json: one document). It reads in bounded chunks, one device at a time, so memory stays flat whatever the size of ' +
      'the database, and each device in one snapshot without locks, so servers keep running. --repair rebuilds what differs from ' +
      'its source, each device in its own transaction under its row lock (writes of that device wait meanwhile, servers keep ' +
      'running), reports what it repaired, verifies again and exits 0 when that is clean. Replaces figures verify and figures ' +
      'rebuild, which remain for the figures alone.',
    options: {
      device: valued('ID', 'Only this device (default: every device).'),
      repair: { type: 'boolean', description: 'Rebuild what differs from its source, then verify again.' },
    },
    examples: ['fleet-hours verify', 'fleet-hours verify --device 4 --json', 'fleet-hours verify --repair'],
  }),
  spec({
    name: 'maintenance',
    summary: 'Create the telemetry partitions ahead and drop those older than the retention',
    details:
      'Raw telemetry points are kept in one partition per month. Every running server creates the partitions of the current ' +
      'month and the next two, and drops whole partitions older than --telemetry-retention-days, once an hour; this command ' +
      'does the same once, e.g. from cron on a host without a running server. Segments, daily figures and meters are never ' +
      'dropped: no answer of /hours, /hours/daily, /meter or /service changes. 0 (the default) keeps every point. It also removes ' +
      'the entries of the change log (audit list) older than --audit-retention-days (default 365; 0 keeps every entry), as every ' +
      'running server does each hour.',
    options: {
      'telemetry-retention-days': serveOptions['telemetry-retention-days']!,
      'audit-retention-days': serveOptions['audit-retention-days']!,
    },
    examples: ['fleet-hours maintenance', 'FLEET_HOURS_TELEMETRY_RETENTION_DAYS=400 fleet-hours maintenance --json'],
  }),
  spec({
    name: 'figures rebuild',
    summary: 'Rebuild the daily figures of a device or all from their segments (verify --repair does more)',
    details:
      'Fleet Hours keeps per-day figures and lifetime totals of every device in the transaction of each write, so that reads cost ' +
      'the days of a window and the meter a constant. After writing engine_segments outside Fleet Hours (SQL, another tool), ' +
      'rebuild them; each device is rebuilt in its own transaction, and writes to it wait meanwhile.',
    options: { device: valued('ID', 'Only this device (default: every device).') },
    examples: ['fleet-hours figures rebuild', 'fleet-hours figures rebuild --device 4'],
  }),
  spec({
    name: 'figures verify',
    summary: 'Check the daily figures of a device or all against their segments (verify checks more)',
    details:
      'Changes nothing. Lists every difference and exits with code 1 when there is one (fix it with figures rebuild), 0 when all match.',
    options: { device: valued('ID', 'Only this device (default: every device).') },
    examples: ['fleet-hours figures verify', 'fleet-hours figures verify --device 4 --json'],
  }),
];

/** Command groups: the first word of a two-word command. */
export const COMMAND_GROUPS: Readonly<Record<string, string>> = {
  accounts: 'Accounts and their plans',
  keys: 'API keys',
  'ingest-tokens': 'Ingest tokens for live telemetry',
  devices: 'Devices (vehicles)',
  import: 'Importing engine segments and telemetry',
  figures: 'Daily figures behind fast reads',
  'hour-meter': "Readings of a machine's own hour meter",
  service: 'Service schedules: what is due, due soon or overdue',
  calendar: 'Work calendars: the hours each machine is meant to work',
  webhooks: 'Signed webhooks: endpoints, deliveries, replays',
  'aemp-sources': 'AEMP (ISO 15143-3) feeds of OEM clouds the servers poll for hour-meter readings',
  audit: 'The change log: who changed what, and when',
};
