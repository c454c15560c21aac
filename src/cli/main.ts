import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig, type Config } from '../config.js';
import fs from 'node:fs';
import path from 'node:path';
import { databasePath } from '../db/open.js';
import { databaseStatus } from '../db/status.js';
import { openStore, type Store } from '../db/store.js';
import { serve } from '../serve.js';
import { describeStartupError } from '../startupErrors.js';
import { SERVICE_VERSION } from '../version.js';
import { createServices } from '../services.js';
import type { Role } from '../modules/keys/access.js';
import { formatTable } from './table.js';
import { addExperimentCommands } from './experimentsCommands.js';
import { addDbCommands } from './dbCommands.js';
import { addImportCommand } from './import/command.js';
import { Invalid } from '../lib/errors.js';
import { CLI_ACTOR } from '../modules/changes/changeLog.js';

/** The `promptline` command: operator tasks on the same database file the server uses. */
function configOrExit(): Config {
  const { config, errors } = loadConfig(process.env);
  if (config === null) {
    for (const error of errors) process.stderr.write(`promptline: ${error}\n`);
    process.exit(1);
  }
  return config;
}

function services(store: Store) {
  const built = createServices(store);
  const { projects } = built;
  const projectId = async (name: string) => {
    const project = await projects.findByName(name);
    if (project === null) throw new Error(`project ${JSON.stringify(name)} not found`);
    return project.id;
  };
  return { ...built, store, projectId };
}

type Services = ReturnType<typeof services>;

/**
 * Runs an action on the database of the configured data directory. Only commands that are meant
 * to start one (`projects create`) may create it: anywhere else a missing database is a mistaken
 * folder, said plainly, not an empty database made silently in it.
 */
async function withStore<T>(action: (services: Services) => Promise<T>, options: { create?: boolean } = {}): Promise<T> {
  const config = configOrExit();
  const file = databasePath(config.dataDir);
  if (config.databaseUrl === null && !options.create && !fs.existsSync(file)) {
    throw new Error(`no database at ${path.resolve(file)}: give --data-dir (or PROMPTLINE_DATA_DIR) the folder the server uses`);
  }
  // An operator's command may compute a whole report on this connection: it gets a report's deadline.
  const store = await openStore({ ...config, postgres: { timeoutMs: config.postgres.reportTimeoutMs } });
  try {
    return await action(services(store));
  } finally {
    await store.close();
  }
}

const ROLES: Role[] = ['runtime', 'read', 'admin'];

/** `--rate-limit`: requests per minute, 0 for unlimited, `default` to follow PROMPTLINE_RATE_LIMIT_PER_MINUTE. */
function parseRateLimit(value: string): number | null {
  if (value === 'default') return null;
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected requests per minute (0 for unlimited) or "default"');
  return Number(value);
}
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
    .hook('preAction', () => {
      const dir = program.opts<{ dataDir?: string }>().dataDir;
      if (dir !== undefined) process.env.PROMPTLINE_DATA_DIR = dir;
    });
  program
    .command('status')
    .description('which database this uses, its size and schema version, and what it holds')
    .action(() =>
      withStore(async ({ store }) => {
        for (const [name, value] of await databaseStatus(store, configOrExit())) console.log(`${`${name}:`.padEnd(17)}${value}`);
      }),
    );
  program
    .command('serve')
    .description('start the HTTP service (configuration from environment variables)')
    .action(async () => {
      const config = configOrExit();
      try {
        await serve(config);
      } catch (error) {
        throw new Error(describeStartupError(error, config) ?? String(error), { cause: error });
      }
    });

  const projects = program.command('projects').description('manage projects');
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

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description('create an API key; the key is printed once')
    .requiredOption('--project <name>', 'project name')
    .requiredOption('--role <role>', 'runtime | read | admin', parseRole)
    .option('--name <name>', 'a name to recognise the key by', 'cli')
    .option('--rate-limit <n>', RATE_LIMIT_HELP, parseRateLimit)
    .action((opts: { project: string; role: Role; name: string; rateLimit?: number | null }) =>
      withStore(async ({ keys: k, projectId }) => {
        const created = await k.create(
          await projectId(opts.project),
          { name: opts.name, role: opts.role, rate_limit_per_minute: opts.rateLimit ?? null },
          CLI_ACTOR,
        );
        console.log(formatTable([created], KEY_COLUMNS));
        console.log(`\nkey (shown only this once): ${created.key}`);
      }),
    );
  keys
    .command('list')
    .description('list API keys (no secrets)')
    .requiredOption('--project <name>', 'project name')
    .action((opts: { project: string }) =>
      withStore(async ({ keys: k, projectId }) =>
        console.log(
          formatTable(await k.list(await projectId(opts.project)), [
            'key_id',
            'name',
            'role',
            'key_prefix',
            'rate_limit_per_minute',
            'created_at',
            'revoked_at',
          ]),
        ),
      ),
    );
  keys
    .command('update <key_id>')
    .description('rename a key or change its rate limit; a running server applies it on the next request')
    .requiredOption('--project <name>', 'project name')
    .option('--name <name>', 'a new name')
    .option('--rate-limit <n>', RATE_LIMIT_HELP, parseRateLimit)
    .action((keyId: string, opts: { project: string; name?: string; rateLimit?: number | null }) =>
      withStore(async ({ keys: k, projectId }) => {
        const changes = {
          ...(opts.name !== undefined ? { name: opts.name } : {}),
          ...(opts.rateLimit !== undefined ? { rate_limit_per_minute: opts.rateLimit } : {}),
        };
        console.log(formatTable([await k.update(await projectId(opts.project), keyId, changes, CLI_ACTOR)], KEY_COLUMNS));
      }),
    );
  keys
    .command('revoke <key_id>')
    .description('revoke an API key; effective on the next request')
    .requiredOption('--project <name>', 'project name')
    .action((keyId: string, opts: { project: string }) =>
      withStore(async ({ keys: k, projectId }) => {
        await k.revoke(await projectId(opts.project), keyId, CLI_ACTOR);
        console.log(`revoked ${keyId}`);
      }),
    );
  program
    .command('users')
    .description("a user's data")
    .command('forget <external_user_id>')
    .description("erase a user's runs text, outcomes' free text and metadata (as DELETE /users/{id}); numbers stay under a random alias")
    .requiredOption('--project <name>', 'project name')
    .action((userId: string, opts: { project: string }) =>
      withStore(async ({ users, projectId }) => {
        const forgotten = await users.forget(await projectId(opts.project), userId, CLI_ACTOR);
        console.log(formatTable([forgotten], ['alias', 'runs', 'outcomes', 'assignments', 'idempotency_records']));
      }),
    );
  program
    .command('audit')
    .description('who changed what, newest first (as GET /audit)')
    .requiredOption('--project <name>', 'project name')
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
    .action((opts: { project: string; action?: string; targetType?: 'prompt' | 'experiment' | 'key' | 'user'; target?: string; limit: number }) =>
      withStore(async ({ audit, projectId }) => {
        const page = await audit.list(await projectId(opts.project), {
          action: opts.action,
          target_type: opts.targetType,
          target_id: opts.target,
          limit: opts.limit,
        });
        console.log(formatTable(page.data, ['created_at', 'key_name', 'action', 'target_type', 'target_id']));
      }),
    );
  addExperimentCommands(program, (project, action) => withStore(async (built) => action(built, await built.projectId(project))));
  addDbCommands(program, configOrExit);
  addImportCommand(program);
  return program;
}

/** Service errors read as the API would answer them; anything else by its message. */
function describeError(error: unknown): string {
  if (error instanceof Invalid) return error.issues.map((i) => `${[i.part, ...i.path].join('.')}: ${i.reason}`).join('\n');
  return error instanceof Error ? error.message : String(error);
}

buildCli()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(`promptline: ${describeError(error)}\n`);
    process.exit(1);
  });
