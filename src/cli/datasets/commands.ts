import fs from 'node:fs';
import { once } from 'node:events';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { DatasetVersionView, DatasetView } from '../../modules/datasets/datasets.schemas.js';
import { withApi } from '../api/connect.js';
import { jsonOutput, printRows } from '../output.js';
import { formatOf, type ItemFormat } from './itemFiles.js';
import { datasetPath, exportItems, importItems } from './transfer.js';

const PROJECT_OPTION = ['--project <name>', 'project name (local database only, default "default"; over HTTP the API key\'s project)'] as const;
const FORMAT_OPTION = () => new Option('--format <format>', 'csv or jsonl (default: from the file name)').choices(['csv', 'jsonl']);
const DATASET_COLUMNS = ['dataset_id', 'latest_version', 'item_count', 'description', 'created_at', 'archived_at'];
const VERSION_COLUMNS = ['version', 'source', 'item_count', 'added', 'removed', 'created_at'];

function parseVersion(value: string): number {
  if (!/^[1-9]\d{0,14}$/.test(value)) throw new InvalidArgumentError('expected a version number (1, 2, ...)');
  return Number(value);
}

function formatFor(file: string | undefined, given: string | undefined): ItemFormat {
  const format = (given as ItemFormat | undefined) ?? (file === undefined ? undefined : formatOf(file));
  if (format === undefined) throw new Error(`give --format csv or jsonl: ${file === undefined ? 'standard output has no name' : `${file} does not say`}`);
  return format;
}

/**
 * Writes to a file, or standard output, waiting whenever the stream asks to (a large export stays
 * in bounded memory). A file whose export fails half-way is removed, so no truncated file is left
 * looking like a whole version.
 */
function writerTo(file: string | undefined): { write: (chunk: string) => Promise<void>; end: () => Promise<void>; abandon: () => Promise<void> } {
  const stream = file === undefined ? process.stdout : fs.createWriteStream(file);
  return {
    async write(chunk) {
      if (!stream.write(chunk)) await once(stream, 'drain');
    },
    async end() {
      if (stream === process.stdout) return;
      stream.end();
      await once(stream, 'finish');
    },
    async abandon() {
      if (file === undefined) return;
      // The file is opened asynchronously: removed before that open completes, it would be created
      // again by it. Removed once the stream has closed, it stays removed.
      if (!stream.closed) {
        const closed = once(stream, 'close');
        stream.destroy();
        await closed;
      }
      fs.rmSync(file, { force: true });
    },
  };
}

/** `promptline datasets create|list|show|import|export`: datasets through the management API, over HTTP or locally. */
export function addDatasetCommands(program: Command): Command {
  const datasets = program.command('datasets').description('datasets of items to evaluate prompts on (over HTTP too)');
  datasets
    .command('create <dataset_id>')
    .description('create an empty dataset (as POST /datasets)')
    .option(...PROJECT_OPTION)
    .option('--description <text>', 'what the dataset is for')
    .action((datasetId: string, opts: { project?: string; description?: string }) =>
      withApi(opts, async (api) => {
        const created = await api.request<DatasetView>('POST', '/datasets', { body: { dataset_id: datasetId, description: opts.description } });
        printRows([created], DATASET_COLUMNS);
      }),
    );
  datasets
    .command('list')
    .description('list datasets with their latest version (as GET /datasets)')
    .option(...PROJECT_OPTION)
    .option('--archived', 'include archived datasets')
    .action((opts: { project?: string; archived?: boolean }) =>
      withApi(opts, async (api) => {
        const all: DatasetView[] = [];
        let cursor: string | undefined;
        do {
          const page = await api.request<{ data: DatasetView[]; next_cursor: string | null }>('GET', '/datasets', {
            query: { limit: 500, cursor, include_archived: opts.archived },
          });
          all.push(...page.data);
          cursor = page.next_cursor ?? undefined;
        } while (cursor !== undefined);
        printRows(all, DATASET_COLUMNS);
      }),
    );
  datasets
    .command('show <dataset_id>')
    .description('one dataset and its versions, newest first (as GET /datasets/{id} and its versions)')
    .option(...PROJECT_OPTION)
    .action((datasetId: string, opts: { project?: string }) =>
      withApi(opts, async (api) => {
        const dataset = await api.request<DatasetView>('GET', datasetPath(datasetId));
        const versions = await api.request<{ data: DatasetVersionView[] }>('GET', `${datasetPath(datasetId)}/versions`, { query: { limit: 500 } });
        if (jsonOutput()) console.log(JSON.stringify({ ...dataset, versions: versions.data }, null, 2));
        else {
          printRows([dataset], DATASET_COLUMNS);
          console.log('');
          printRows(versions.data, VERSION_COLUMNS);
        }
      }),
    );
  datasets
    .command('import <dataset_id> <file>')
    .description('add the items of a CSV or JSONL file as a new version; nothing is stored if any line is wrong')
    .option(...PROJECT_OPTION)
    .addOption(FORMAT_OPTION())
    .option('--replace', "the new version holds only the file's items")
    .action((datasetId: string, file: string, opts: { project?: string; format?: string; replace?: boolean }) => {
      const format = formatFor(file, opts.format);
      return withApi(opts, async (api) => {
        const made = await importItems(api, datasetId, file, format, opts.replace ?? false);
        if (jsonOutput()) console.log(JSON.stringify(made, null, 2));
        else {
          const [made1] = made;
          console.log(`${datasetId}: ${made1!.added} items imported as version ${made1!.version}, which holds ${made1!.item_count} items`);
        }
      });
    });
  // The version is an argument, not --version: that flag is the program's own, wherever it is written.
  datasets
    .command('export <dataset_id> [version]')
    .description('write the items of a version (default: the latest) as CSV or JSONL, to a file or standard output')
    .option(...PROJECT_OPTION)
    .option('--out <file>', 'the file to write (default: standard output)')
    .addOption(FORMAT_OPTION())
    .action((datasetId: string, version: string | undefined, opts: { project?: string; out?: string; format?: string }) => {
      const format = formatFor(opts.out, opts.format);
      const chosen = version === undefined ? undefined : parseVersion(version);
      return withApi(opts, async (api) => {
        const out = writerTo(opts.out);
        let written: number;
        try {
          written = await exportItems(api, datasetId, chosen, format, out.write);
          await out.end();
        } catch (error) {
          await out.abandon();
          throw error;
        }
        if (opts.out !== undefined) process.stderr.write(`${datasetId}: version ${written} written to ${opts.out}\n`);
      });
    });
  return datasets;
}
