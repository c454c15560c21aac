import { Command, InvalidArgumentError, Option } from 'commander';
import fs from 'node:fs';
import path from 'node:path';
import { databasePath } from '../db/open.js';
import type { Store } from '../db/store.js';
import { describeStartupError } from '../startupErrors.js';
import { SERVICE_VERSION } from '../version.js';
import type { Role } from '../modules/keys/access.js';
import type { CreatedKey, PublicKey } from '../modules/keys/keys.schemas.js';
import { formatTable } from './table.js';
import { addExperimentCommands } from './experimentsCommands.js';
import { addLabelCommands } from './labelCommands.js';
import { addDbCommands } from './dbCommands.js';
import { addPromptCommands } from './prompts/commands.js';
import { addImportCommand } from './import/command.js';
import { addDatasetCommands } from './datasets/commands.js';
import { addEvalCommands } from './eval/commands.js';
import { Invalid } from '../lib/errors.js';
import { API_KEY_ENV, type ConnectOptions, overHttp, URL_ENV, withApi } from './api/connect.js';
import { ApiError } from './api/client.js';
import { configOrExit } from './config.js';
import { describeInvalid, jsonOutput, printRows, setOutput } from './output.js';

/**
 * The `promptline` command. The commands that have an API equivalent go through the management API
 * (./api): to a running server over HTTP with --url and --api-key, else to the local database
 * in-process. The rest (serve, status, projects, db) work on the local database only.
 */
async function services(store: Store) {
  const { createServices } = await import('../services.js');
  return { ...createServices(store), store };
}

type Services = Awaited<ReturnType<typeof services>>;

/**
 * Runs a local-only action on the database of the configured data directory. Only commands that are meant
 * to start one (`projects create`) may create it: anywhere else a missing database is a mistaken
 * folder, said plainly, not an empty database made silently in it.
 */
async function withStore<T>(action: (services: Services) => Promise<T>, options: { create?: boolean } = {}): Promise<T> {
  const config = configOrExit();
  const file = databasePath(config.dataDir);
  if (config.databaseUrl === null && !options.create && !fs.existsSync(file)) {
    throw new Error(`no database at ${path.resolve(file)}: give --data-dir (or PROMPTLINE_DATA_DIR) the folder the server uses`);
  }
  const { openStore } = await import('../db/store.js');
  const store = await openStore({ ...config, postgres: { timeoutMs: config.postgres.reportTimeoutMs } });
  try {
    return await action(await services(store));
  } finally {
    await store.close();
  }
}

const LOCAL_ONLY = ' (local database only: no API equivalent)';

/** A local-only command given a server to talk to: refused, rather than quietly run on a local folder. */
function refuseOverHttp(command: Command): void {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  if (overHttp()) command.error(`error: '${names.join(' ')}' works on the local database only; leave out --url and --api-key (${URL_ENV}, ${API_KEY_ENV})`);
}

const PROJECT_OPTION = ['--project <name>', "project name (local database only; over HTTP the API key's project)"] as const;

/**
 * `--project` of keys, users and audit: required on the local database, as it always was; over HTTP
 * connect() refuses it (the key's project is used).
 */
function projectOf(command: Command): ConnectOptions {
  const project = command.opts<{ project?: string }>().project;
  if (project === undefined && !overHttp()) command.error("error: required option '--project <name>' not specified");
  return { project };
}

const ROLES: Role[] = ['runtime', 'read', 'admin'];

/** `--rate-limit`: requests per minute, 0 for unlimited, `default` to follow PROMPTLINE_RATE_LIMIT_PER_MINUTE. */
function parseRateLimit(value: string): number | 'default' {
  // Not null for "default": commander turns a parser's null into '' (which the API rightly refuses).
  if (value === 'default') return 'default';
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected requests per minute (0 for unlimited) or "default"');
  return Number(value);
}
/** The API's spelling: null follows the server default. */
const rateLimitOf = (value: number | 'default'): number | null => (value === 'default' ? null : value);
const RATE_LIMIT_HELP = 'requests per minute for this key: a number, 0 for unlimited, or "default" (the server default)';
const KEY_COLUMNS = ['key_id', 'name', 'role', 'rate_limit_per_minute', 'created_at'];
function parseRole(value: string): Role {
  if (!(ROLES as string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${ROLES.join(', ')}`);
  return value as Role;
}

function buildCli(): Command {
  const program = new Command('promptline')
    .version(SERVICE_VERSION)
    .description('Promptline: run, A/B-test and measure LLM prompts')
    .option('--data-dir <dir>', 'the folder of the database the server uses (default: PROMPTLINE_DATA_DIR, else ./data)')
    .option('--url <url>', `a running server to send the commands to over HTTP (default: ${URL_ENV}); needs --api-key`)
    .option('--api-key <key>', `the API key to call it with (default: ${API_KEY_ENV}); its project is the one acted on`)
    .addOption(new Option('--output <format>', "table, or json: the API's objects").choices(['table', 'json']).default('table'))
    .hook('preAction', () => {
      const opts = program.opts<{ dataDir?: string; url?: string; apiKey?: string; output: 'table' | 'json' }>();
      if (opts.dataDir !== undefined) process.env.PROMPTLINE_DATA_DIR = opts.dataDir;
      // Read where every command reads them (api/connect.ts), whichever way they were given.
      if (opts.url !== undefined) process.env[URL_ENV] = opts.url;
      if (opts.apiKey !== undefined) process.env[API_KEY_ENV] = opts.apiKey;
      setOutput(opts.output);
    });
  program
    .command('status')
    .description(`which database this uses, its size and schema version, and what it holds${LOCAL_ONLY}`)
    .hook('preAction', (_program, command) => refuseOverHttp(command))
    .action(() =>
      withStore(async ({ store }) => {
        const { databaseStatus } = await import('../db/status.js');
        for (const [name, value] of await databaseStatus(store, configOrExit())) console.log(`${`${name}:`.padEnd(17)}${value}`);
      }),
    );
  program
    .command('serve')
    .description('start the HTTP service (configuration from environment variables; the server itself, never over --url)')
    .action(async () => {
      const config = configOrExit();
      const { serve } = await import('../serve.js');
      try {
        await serve(config);
      } catch (error) {
        throw new Error(describeStartupError(error, config) ?? String(error), { cause: error });
      }
    });

  const projects = program
    .command('projects')
    .description(`manage projects${LOCAL_ONLY}`)
    .hook('preAction', (_program, command) => refuseOverHttp(command));
  projects
    .command('create <name>')
    .description('create a project')
    .action((name: string) =>
      withStore(
        async ({ projects: p }) => {
          const row = await p.create(name);
          console.log(formatTable([row], ['id', 'name', 'created_at']));
        },
        { create: true },
      ),
    );
  projects
    .command('list')
    .description('list projects')
    .action(() => withStore(async ({ projects: p }) => console.log(formatTable(await p.list(), ['id', 'name', 'created_at']))));

  const keys = program.command('keys').description('manage API keys (over HTTP too)');
  keys
    .command('create')
    .description('create an API key; the key is printed once')
    .option(...PROJECT_OPTION)
    .requiredOption('--role <role>', 'runtime | read | admin', parseRole)
    .option('--name <name>', 'a name to recognise the key by', 'cli')
    .option('--rate-limit <n>', RATE_LIMIT_HELP, parseRateLimit)
    .action((opts: { role: Role; name: string; rateLimit?: number | 'default' }, command: Command) =>
      withApi(projectOf(command), async (api) => {
        const created = await api.request<CreatedKey>('POST', '/keys', {
          body: { name: opts.name, role: opts.role, rate_limit_per_minute: rateLimitOf(opts.rateLimit ?? 'default') },
        });
        printRows([created], KEY_COLUMNS);
        if (!jsonOutput()) console.log(`\nkey (shown only this once): ${created.key}`);
      }),
    );
  keys
    .command('list')
    .description('list API keys (no secrets)')
    .option(...PROJECT_OPTION)
    .action((_opts: unknown, command: Command) =>
      withApi(projectOf(command), async (api) =>
        printRows((await api.request<{ data: PublicKey[] }>('GET', '/keys')).data, [
          'key_id',
          'name',
          'role',
          'key_prefix',
          'rate_limit_per_minute',
          'created_at',
          'revoked_at',
        ]),
      ),
    );
  keys
    .command('update <key_id>')
    .description('rename a key or change its rate limit; a running server applies it on the next request')
    .option(...PROJECT_OPTION)
    .option('--name <name>', 'a new name')
    .option('--rate-limit <n>', RATE_LIMIT_HELP, parseRateLimit)
    .action((keyId: string, opts: { name?: string; rateLimit?: number | 'default' }, command: Command) =>
      withApi(projectOf(command), async (api) => {
        const changes = {
          ...(opts.name !== undefined ? { name: opts.name } : {}),
          ...(opts.rateLimit !== undefined ? { rate_limit_per_minute: rateLimitOf(opts.rateLimit) } : {}),
        };
        printRows([await api.request<PublicKey>('PATCH', `/keys/${encodeURIComponent(keyId)}`, { body: changes })], KEY_COLUMNS);
      }),
    );
  keys
    .command('revoke <key_id>')
    .description('revoke an API key; effective on the next request')
    .option(...PROJECT_OPTION)
    .action((keyId: string, _opts: unknown, command: Command) =>
      withApi(projectOf(command), async (api) => {
        await api.request('DELETE', `/keys/${encodeURIComponent(keyId)}`);
        console.log(jsonOutput() ? JSON.stringify({ revoked: keyId }) : `revoked ${keyId}`);
      }),
    );
  program
    .command('users')
    .description("a user's data (over HTTP too)")
    .command('forget <external_user_id>')
    .description("erase a user's runs text, outcomes' free text and metadata (as DELETE /users/{id}); numbers stay under a random alias")
    .option(...PROJECT_OPTION)
    .action((userId: string, _opts: unknown, command: Command) =>
      withApi(projectOf(command), async (api) => {
        const forgotten = await api.request<object>('DELETE', `/users/${encodeURIComponent(userId)}`);
        printRows([forgotten], ['alias', 'runs', 'outcomes', 'assignments', 'idempotency_records']);
      }),
    );
  program
    .command('audit')
    .description('who changed what, newest first (as GET /audit; over HTTP too)')
    .option(...PROJECT_OPTION)
    .option('--action <action>', 'only this action, e.g. prompt.label_moved')
    .addOption(new Option('--target-type <type>', 'only changes to this kind of object').choices(['prompt', 'experiment', 'key', 'user']))
    .option('--target <id>', 'only changes to this object')
    .option(
      '--limit <n>',
      'how many entries',
      (v) => {
        if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 500) throw new InvalidArgumentError('expected an integer from 1 to 500');
        return Number(v);
      },
      50,
    )
    .action((opts: { action?: string; targetType?: string; target?: string; limit: number }, command: Command) =>
      withApi(projectOf(command), async (api) => {
        const page = await api.request<{ data: object[] }>('GET', '/audit', {
          query: { action: opts.action, target_type: opts.targetType, target_id: opts.target, limit: opts.limit },
        });
        printRows(page.data, ['created_at', 'key_name', 'action', 'target_type', 'target_id']);
      }),
    );
  addExperimentCommands(program);
  addLabelCommands(program);
  addDbCommands(program, configOrExit).hook('preAction', (_program, command) => refuseOverHttp(command));
  addPromptCommands(program, (command) => {
    refuseOverHttp(command);
    return withStore(async ({ store, projects: p }) => {
      const { describeRefusal, refusedStoredPatterns } = await import('../storedPatterns.js');
      const refused = await refusedStoredPatterns(store.sql, () => p.list());
      for (const r of refused) console.log(describeRefusal(r));
      console.log(`${refused.length} stored pattern(s) refused by the linear-time engine${refused.length > 0 ? ': create new versions without them' : ''}`);
      if (refused.length > 0) process.exitCode = 1;
    });
  });
  addImportCommand(program);
  addDatasetCommands(program);
  addEvalCommands(program);
  return program;
}

/** Service errors read as the API would answer them; anything else by its message. */
function describeError(error: unknown): string {
  if (error instanceof Invalid) return describeInvalid(error);
  if (error instanceof ApiError && error.status === 401) return `${error.message} (the server refused the API key: check --api-key or ${API_KEY_ENV})`;
  if (error instanceof ApiError && error.status === 403) return `${error.message} (this command needs an admin key, or a read key for what only reads)`;
  return error instanceof Error ? error.message : String(error);
}

buildCli()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(`promptline: ${describeError(error)}\n`);
    process.exit(1);
  });
