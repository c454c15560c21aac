import fs from 'node:fs';
import { type Command, Option } from 'commander';
import type { TSchema } from '@sinclair/typebox';
import { validateValue } from '../http/fastapi/pydanticValidator.js';
import { decodePythonJson } from '../http/fastapi/pythonJson.js';
import { CreateExperimentBody, PatchExperimentBody, type ExperimentStatus } from '../modules/experiments/experiments.schemas.js';
import type { ExperimentView } from '../modules/experiments/experiments.schemas.js';
import { formatTable } from './table.js';
import { allocationTable, banditSummary } from './banditOutput.js';
import { type CheckRow, rolloutTimeline } from './rolloutTimeline.js';
import { addResultsCommand } from './resultsCommand.js';
import { startWarnings } from './startWarnings.js';
import { withApi } from './api/connect.js';
import { jsonOutput } from './output.js';

/** JSON from `--json` or `--file` (`-` for stdin), validated with the API's own schema and messages. */
function readJsonInput<T>(schema: TSchema, opts: { json?: string; file?: string }): T {
  const text = opts.json ?? (opts.file === '-' ? fs.readFileSync(0, 'utf8') : opts.file ? fs.readFileSync(opts.file, 'utf8') : undefined);
  if (text === undefined) throw new Error("give the experiment as --json '{...}' or --file PATH (- for stdin)");
  const decoded = decodePythonJson(text);
  if (!decoded.ok) throw new Error(`invalid JSON at position ${decoded.pos}: ${decoded.msg}`);
  const { value, errors } = validateValue(schema, decoded.value, { loc: ['body'], strict: true });
  // Printed as the API would list them: one `loc: message` line each.
  if (errors.length > 0) throw new Error(errors.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('\n'));
  return value as T;
}

function printExperiments(rows: ExperimentView[]): void {
  if (jsonOutput()) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  console.log(
    formatTable(
      rows.map((e) => ({
        ...e,
        variants: e.variants.map((v) => `${v.key}=v${v.version}@${Math.round(v.weight * 1000) / 10}%`).join(' '),
      })),
      ['experiment_id', 'prompt_id', 'status', 'variants', 'control', 'coverage', 'winner', 'started_at'],
    ),
  );
}

/** An experiment's path in the API. */
const at = (id: string, action = '') => `/experiments/${encodeURIComponent(id)}${action}`;

export function addExperimentCommands(program: Command): Command {
  const experiments = program.command('experiments').description('manage A/B experiments on prompts (over HTTP too)');
  const projectOption = ['--project <name>', 'project name (local database only, default "default"; over HTTP the API key\'s project)'] as const;

  experiments
    .command('create')
    .description('create a draft experiment from JSON (the POST /experiments body)')
    .option(...projectOption)
    .option('--json <json>', 'the experiment as JSON')
    .option('--file <path>', 'a JSON file, - for stdin')
    .action((opts: { project?: string; json?: string; file?: string }) =>
      withApi(opts, async (api) => {
        const body = readJsonInput(CreateExperimentBody, opts);
        printExperiments([await api.request<ExperimentView>('POST', '/experiments', { body })]);
      }),
    );
  experiments
    .command('update <experiment_id>')
    .description('change a draft or paused experiment from JSON (the PATCH body)')
    .option(...projectOption)
    .option('--json <json>', 'the changes as JSON')
    .option('--file <path>', 'a JSON file, - for stdin')
    .action((id: string, opts: { project?: string; json?: string; file?: string }) =>
      withApi(opts, async (api) => {
        const body = readJsonInput(PatchExperimentBody, opts);
        printExperiments([await api.request<ExperimentView>('PATCH', at(id), { body })]);
      }),
    );
  experiments
    .command('list')
    .description('list experiments')
    .option(...projectOption)
    .option('--prompt <prompt_id>', 'only this prompt')
    .addOption(new Option('--status <status>', 'only experiments in this state').choices(['draft', 'running', 'paused', 'stopped', 'rolled_back', 'shipped']))
    .action((opts: { project?: string; prompt?: string; status?: ExperimentStatus }) =>
      withApi(opts, async (api) => {
        const all: ExperimentView[] = [];
        let cursor: string | undefined;
        do {
          const page = await api.request<{ data: ExperimentView[]; next_cursor: string | null }>('GET', '/experiments', {
            query: { prompt_id: opts.prompt, status: opts.status, limit: 500, cursor },
          });
          all.push(...page.data);
          cursor = page.next_cursor ?? undefined;
        } while (cursor !== undefined);
        printExperiments(all);
      }),
    );
  experiments
    .command('show <experiment_id>')
    .description('show one experiment')
    .option(...projectOption)
    .action((id: string, opts: { project?: string }) =>
      withApi(opts, async (api) => {
        const e = await api.request<ExperimentView>('GET', at(id));
        printExperiments([e]);
        if (jsonOutput()) return;
        console.log(
          `\n${formatTable(
            e.variants.map((v) => ({ ...v, weight: `${Math.round(v.weight * 10000) / 100}%` })),
            ['key', 'version', 'weight'],
          )}`,
        );
        if (e.metrics.length > 0) {
          const cap = (c: (typeof e.metrics)[number]['cap']) => (c === null ? '' : typeof c === 'number' ? String(c) : `p${c.percentile * 100}`);
          console.log(
            `\n${formatTable(
              e.metrics.map((m) => ({ ...m, cap: cap(m.cap) })),
              ['name', 'role', 'direction', 'cap'],
            )}`,
          );
        }
        console.log(`\ntarget effect ${e.target_mde * 100}%; CUPED ${e.cuped ? `on (${e.cuped_days} days before exposure)` : 'off'}`);
        if (e.rollout !== null) {
          const { data } = await api.request<{ data: CheckRow[] }>('GET', at(id, '/checks'));
          console.log(`\n${rolloutTimeline(e, data)}`);
        }
        if (e.bandit !== null) console.log(`\n${banditSummary(e.bandit)}`);
        if (e.allocation_history !== undefined)
          console.log(
            `\n${allocationTable(
              e.variants.map((v) => v.key),
              e.allocation_history,
            )}`,
          );
      }),
    );
  experiments
    .command('check <experiment_id>')
    .description('run one check of a rollout or a bandit now (what the scheduler does every hour) and print what it did')
    .option(...projectOption)
    .action((id: string, opts: { project?: string }) =>
      withApi(opts, async (api) => {
        const check = await api.request<CheckRow & { status: string }>('POST', at(id, '/check'));
        if (jsonOutput()) console.log(JSON.stringify(check, null, 2));
        else console.log(`${check.action}: ${check.reason} (status ${check.status})`);
      }),
    );
  for (const action of ['start', 'pause'] as const) {
    experiments
      .command(`${action} <experiment_id>`)
      .description(action === 'start' ? 'start or resume an experiment' : 'pause a running experiment')
      .option(...projectOption)
      .action((id: string, opts: { project?: string }) =>
        withApi(opts, async (api) => {
          // Said, never refused: which recent callers the start would break (stderr, before the table).
          if (action === 'start') for (const warning of await startWarnings(api, id)) console.error(`warning: ${warning}`);
          printExperiments([await api.request<ExperimentView>('POST', at(id, `/${action}`))]);
        }),
      );
  }
  experiments
    .command('stop <experiment_id>')
    .description('stop an experiment for good')
    .option(...projectOption)
    .option('--winner <variant>', 'the variant that won')
    .option(
      '--ship',
      "also move the prompt's production label to the winner's version, in the same transaction; refused when nobody was exposed or the results' decision does not back the winner",
    )
    .option('--override', 'with --ship: ship even though the results do not back the winner (needs --reason)')
    .option('--reason <text>', 'why the override ships against the decision (1 to 500 characters, kept in the audit log)')
    .action((id: string, opts: { project?: string; winner?: string; ship?: boolean; override?: boolean; reason?: string }) =>
      withApi(opts, async (api) => {
        const stop = {
          winner: opts.winner ?? null,
          ship: opts.ship ?? false,
          ...(opts.override ? { override: true } : {}),
          ...(opts.reason === undefined ? {} : { reason: opts.reason }),
        };
        const stopped = await api.request<ExperimentView>('POST', at(id, '/stop'), { body: stop });
        printExperiments([stopped]);
        if (stopped.shipped_version !== null && !jsonOutput())
          console.log(`\nproduction now serves version ${stopped.shipped_version} of ${stopped.prompt_id}`);
      }),
    );
  addResultsCommand(experiments);
  return experiments;
}
