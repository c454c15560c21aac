import type { Command } from 'commander';
import { ApiError, type ApiClient } from '../api/client.js';
import type { SyncInput, SyncView } from '../../modules/prompts/sync.schemas.js';
import { withApi } from '../api/connect.js';
import { gitSource, loadPromptFiles, readState, writeState, type LoadedFile } from './files.js';
import { diffStatus, formatPlan } from './plan.js';
import { pull } from './pull.js';

const PROJECT_OPTION = ['--project <name>', 'project name (local database only, default "default"; over HTTP the API key\'s project)'] as const;

/** DIR's files, checked; problems printed and the command ended with 1 (as `check` would). */
function filesOrExit(dir: string): LoadedFile[] {
  const { files, problems } = loadPromptFiles(dir);
  if (problems.length > 0) {
    for (const line of problems) process.stderr.write(`${line}\n`);
    process.stderr.write(`promptline: ${problems.length} problem(s) in ${dir}: nothing was sent\n`);
    process.exit(1);
  }
  return files;
}

function syncBody(dir: string, files: LoadedFile[], options: { dryRun: boolean; allowBreaking: boolean }): SyncInput {
  return {
    files: files.map((f) => ({ path: f.sourcePath, document: f.file })),
    bases: readState(dir),
    dry_run: options.dryRun,
    allow_breaking: options.allowBreaking,
    source: gitSource(dir),
  };
}

/**
 * The plan, or the server's refusal of the files (a model whose provider it lacks, say) as
 * `file:line: message`, like check's problems.
 */
async function plan(api: ApiClient, body: SyncInput, files: readonly LoadedFile[]): Promise<SyncView> {
  try {
    return await api.request<SyncView>('POST', '/prompts/sync', { body });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 422 || !Array.isArray(error.detail)) throw error;
    const lines = (error.detail as Array<{ loc: Array<string | number>; msg: string }>).map(({ loc, msg }) => {
      const [part, field, index, document, ...path] = loc;
      const file = typeof index === 'number' ? files[index] : undefined;
      if (part !== 'body' || field !== 'files' || document !== 'document' || file === undefined) return `${loc.join('.')}: ${msg}`;
      return `${file.display}:${file.lineOf(path)}: ${path.length > 0 ? `${path.join('.')}: ` : ''}${msg}`;
    });
    throw new Error(`the server refused the files:\n${lines.join('\n')}`);
  }
}

/**
 * `stored`: `prompts check --stored`, the check of the patterns stored in the local database
 * (main.ts runs it on the store, as its other local-only commands).
 */
export function addPromptCommands(program: Command, stored: (command: Command) => Promise<void>): Command {
  // labelCommands.ts adds its own commands under `prompts`: one parent, whichever file makes it first.
  const prompts =
    program.commands.find((c) => c.name() === 'prompts') ?? program.command('prompts').description('prompts, their versions and labels (over HTTP too)');
  prompts
    .command('check [dir]')
    .description(
      'check the prompt files of DIR offline: YAML, schema, templates, variables (exit 1 on any problem); with --stored, the patterns of every stored prompt and evaluator version instead',
    )
    .option('--stored', 'list the stored patterns the linear-time engine refuses, in every project (local database only: no API equivalent)')
    .action((dir: string | undefined, opts: { stored?: boolean }, command: Command) => {
      if (opts.stored) {
        if (dir !== undefined) command.error('error: give DIR or --stored, not both');
        return stored(command);
      }
      if (dir === undefined) command.error("error: missing required argument 'dir' (or --stored)");
      const { files, problems } = loadPromptFiles(dir);
      for (const line of problems) console.error(line);
      console.log(`${files.length} file(s) valid, ${problems.length} problem(s)`);
      if (problems.length > 0) process.exitCode = 1;
    });
  prompts
    .command('pull <dir>')
    .description("write the served version of every live prompt to DIR/<prompt_id>.prompt.yaml, and the pull's state")
    .option(...PROJECT_OPTION)
    .action((dir: string, opts: { project?: string }) =>
      withApi(opts, async (api) => {
        const { written, unchanged } = await pull(api, dir);
        for (const file of written) console.log(`wrote ${file}`);
        console.log(`${written.length} file(s) written, ${unchanged} unchanged`);
      }),
    );
  prompts
    .command('diff <dir>')
    .description('the plan of a push of DIR (exit 0 no change, 2 changes, 1 errors or conflicts)')
    .option(...PROJECT_OPTION)
    .option('--json', 'print the plan as JSON')
    .action((dir: string, opts: { project?: string; json?: boolean }) => {
      const files = filesOrExit(dir);
      return withApi({ project: opts.project }, async (api) => {
        const view = await plan(api, syncBody(dir, files, { dryRun: true, allowBreaking: false }), files);
        console.log(opts.json ? JSON.stringify(view, null, 2) : formatPlan(view, api.target));
        process.exitCode = diffStatus(view);
      });
    });
  prompts
    .command('push <dir>')
    .description('apply the files of DIR to the server, all or nothing (records the file, the commit and its author)')
    .option(...PROJECT_OPTION)
    .option('--dry-run', 'print the plan only (as diff)')
    .option('--allow-breaking', 'apply even when the served version would break callers')
    .action((dir: string, opts: { project?: string; dryRun?: boolean; allowBreaking?: boolean }) => {
      const files = filesOrExit(dir);
      return withApi({ project: opts.project }, async (api) => {
        try {
          const view = await plan(api, syncBody(dir, files, { dryRun: opts.dryRun ?? false, allowBreaking: opts.allowBreaking ?? false }), files);
          console.log(formatPlan(view, api.target));
          if (view.applied) writeState(dir, { ...readState(dir), ...view.state });
        } catch (error) {
          // A refused push (conflicts, breaking changes) is the server's sentence, as it is.
          if (!(error instanceof ApiError) || error.status !== 409) throw error;
          process.stderr.write(`${error.message}\n`);
          process.exitCode = 1;
        }
      });
    });
  return prompts;
}
