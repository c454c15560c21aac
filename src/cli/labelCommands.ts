import { type Command, InvalidArgumentError } from 'commander';
import { createInterface } from 'node:readline/promises';
import type { ImpactView } from '../modules/inputs/impact.schemas.js';
import type { PromptView, VersionView } from '../modules/prompts/prompts.schemas.js';
import type { ApiClient } from './api/client.js';
import { withApi } from './api/connect.js';
import { jsonOutput, printRows } from './output.js';
import { formatTable } from './table.js';

const PROJECT_OPTION = ['--project <name>', 'project name (local database only, default "default"; over HTTP the API key\'s project)'] as const;

/** `labels` as a person reads them: `production=2 staging=3`. */
const labelList = (labels: Record<string, number>) =>
  Object.entries(labels)
    .map(([label, version]) => `${label}=${version}`)
    .join(' ');

const promptPath = (id: string) => `/prompts/${encodeURIComponent(id)}`;

function parseVersion(value: string): number {
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new InvalidArgumentError('expected a version number (1, 2, ...)');
  return Number(value);
}

/** Whether the operator, asked on the terminal, goes on; anything but y or yes is a no. */
async function confirmed(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^(y|yes)$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}

/**
 * Moves a label after showing the warning the console shows before the same move (the impact of
 * the version on that label). When recent calls would fail (they did not send a variable the version
 * needs), the move is asked on a terminal and refused elsewhere unless --yes, so that a CI job never
 * breaks callers without having been told it would.
 */
async function moveLabel(api: ApiClient, promptId: string, label: string, version: number, yes: boolean): Promise<void> {
  const impact = await api.request<ImpactView>('GET', `${promptPath(promptId)}/versions/${version}/impact`, { query: { label } });
  if (impact.warning !== null) process.stderr.write(`warning: ${impact.warning}\n`);
  // As the console, which asks for its tick only then: a warning that no recent call would fail only informs.
  if (impact.calls_missing_any > 0 && !yes) {
    if (!process.stdin.isTTY) throw new Error('not moved: give --yes to move the label all the same');
    if (!(await confirmed(`Move ${label} of ${promptId} to version ${version} all the same? [y/N] `))) throw new Error('not moved');
  }
  const prompt = await api.request<PromptView>('PUT', `${promptPath(promptId)}/labels/${encodeURIComponent(label)}`, { body: { version } });
  if (jsonOutput()) console.log(JSON.stringify(prompt, null, 2));
  else console.log(`${label} of ${promptId} now points at version ${version} (labels: ${labelList(prompt.labels)})`);
}

/** `promptline prompts list|show|labels move`: prompts through the management API, over HTTP or locally. */
export function addLabelCommands(program: Command): Command {
  // Other files add their own commands under `prompts`: one parent, whichever file makes it first.
  const prompts =
    program.commands.find((c) => c.name() === 'prompts') ?? program.command('prompts').description('prompts, their versions and labels (over HTTP too)');
  prompts
    .command('list')
    .description('list prompts with their latest version and labels (as GET /prompts)')
    .option(...PROJECT_OPTION)
    .option('--archived', 'include archived prompts')
    .action((opts: { project?: string; archived?: boolean }) =>
      withApi(opts, async (api) => {
        const all: PromptView[] = [];
        let cursor: string | undefined;
        do {
          const page = await api.request<{ data: PromptView[]; next_cursor: string | null }>('GET', '/prompts', {
            query: { limit: 500, cursor, include_archived: opts.archived },
          });
          all.push(...page.data);
          cursor = page.next_cursor ?? undefined;
        } while (cursor !== undefined);
        if (jsonOutput()) printRows(all, []);
        else
          printRows(
            all.map((p) => ({ ...p, labels: labelList(p.labels) })),
            ['prompt_id', 'latest_version', 'labels', 'created_at', 'archived_at'],
          );
      }),
    );
  prompts
    .command('show <prompt_id>')
    .description('show a prompt and its versions (as GET /prompts/{id} and its versions)')
    .option(...PROJECT_OPTION)
    .action((id: string, opts: { project?: string }) =>
      withApi(opts, async (api) => {
        const prompt = await api.request<PromptView>('GET', promptPath(id));
        const versions = (await api.request<{ data: VersionView[] }>('GET', `${promptPath(id)}/versions`)).data;
        if (jsonOutput()) {
          console.log(JSON.stringify({ ...prompt, versions }, null, 2));
          return;
        }
        console.log(formatTable([{ ...prompt, labels: labelList(prompt.labels) }], ['prompt_id', 'description', 'latest_version', 'labels', 'archived_at']));
        const rows = versions.map((v) => ({ ...v, variables: v.variables.join(' '), labels: v.labels.join(' ') }));
        console.log(`\n${formatTable(rows, ['version', 'type', 'model', 'variables', 'labels', 'commit_message', 'created_at'])}`);
      }),
    );
  prompts
    .command('labels')
    .description("move a prompt's labels")
    .command('move <prompt_id> <label> <version>')
    .description(
      'point a label at a version (as PUT /prompts/{id}/labels/{label}), after the warning of GET .../versions/{v}/impact when recent callers would break: asked on a terminal, refused elsewhere without --yes',
    )
    .option(...PROJECT_OPTION)
    .option('--yes', 'move even when the impact warns, without asking')
    .action((promptId: string, label: string, version: string, opts: { project?: string; yes?: boolean }) =>
      withApi(opts, (api) => moveLabel(api, promptId, label, parseVersion(version), opts.yes ?? false)),
    );
  return prompts;
}
