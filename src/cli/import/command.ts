import fs from 'node:fs';
import { type Command, Option } from 'commander';
import { outOfRangeNumber } from '../../lib/jsonNumbers.js';
import type { ApiClient } from '../api/client.js';
import { withApi } from '../api/connect.js';
import { mapTemplateFiles, readTemplateFiles } from './dir.js';
import { mapLangfuse } from './langfuse.js';
import { mapOpenAI } from './openai.js';
import { applyPlan, planImport } from './plan.js';
import { formatApplied, formatPlan, formatProblems, planJson, summary } from './report.js';
import { lineAt, readUtf8File } from '../textFiles.js';
import type { Mapped } from './types.js';

const SOURCES = ['langfuse', 'openai', 'dir'] as const;
type Source = (typeof SOURCES)[number];

export interface ImportOptions {
  from: Source;
  dryRun?: boolean;
  provider?: string;
  /** One JSON document instead of the text: the plan, what was applied, what was not mapped. */
  json?: boolean;
}

function readJson(file: string): unknown {
  const text = readUtf8File(file);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
  // JSON.parse read such a number as Infinity, which would be sent (and stored) as null.
  const outOfRange = outOfRangeNumber(text);
  if (outOfRange !== null) throw new Error(`${file}:${lineAt(text, outOfRange.index)}: ${outOfRange.problem}`);
  return value;
}

/** Reads the source into prompts and versions (pure mappers; only reading the files touches the disk). */
function readSource(source: Source, location: string, options: { provider?: string }): Mapped {
  if (source === 'dir') {
    if (!fs.statSync(location, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${location} is not a folder`);
    return mapTemplateFiles(readTemplateFiles(location));
  }
  const json = readJson(location);
  return source === 'langfuse' ? mapLangfuse(json, options) : mapOpenAI(json, options);
}

/** The whole import, printed as it goes: the plan, then (unless a dry run) what was applied, then what was not mapped. */
export async function runImport(client: ApiClient, location: string, options: ImportOptions, print: (text: string) => void): Promise<void> {
  const mapped = readSource(options.from, location, { provider: options.provider });
  const plan = await planImport(client, mapped);
  const counts = summary(plan);
  if (options.json) {
    const applied = options.dryRun ? null : await applyPlan(client, plan);
    print(JSON.stringify(planJson(plan, applied, counts, options.dryRun === true), null, 2));
    return;
  }
  print(options.dryRun ? `plan (dry run, nothing changed) against ${client.target}:` : `plan against ${client.target}:`);
  print(formatPlan(plan));
  let problems = plan.problems;
  if (!options.dryRun) {
    const applied = await applyPlan(client, plan);
    print(`applied:\n${formatApplied(applied)}`);
    problems = [...problems, ...applied.problems];
  }
  if (problems.length > 0) print(formatProblems(problems));
  print(`${counts.create} version(s) to create, ${counts.exists} already there, ${counts.labels} label move(s)${options.dryRun ? ' (dry run)' : ''}`);
}

export function addImportCommand(program: Command): void {
  program
    .command('import <path>')
    .description("bring prompts in from another tool: Langfuse's prompts API JSON, an exported OpenAI stored prompt, or a folder of .txt/.md templates")
    .addOption(new Option('--from <source>', 'what PATH holds').choices([...SOURCES]).makeOptionMandatory())
    .option('--dry-run', 'print the plan (and what cannot be mapped) without changing anything')
    .option('--json', 'print one JSON document (the plan, what was applied, what was not mapped) for machines')
    .option('--provider <name>', "the Promptline provider for the source's bare model names (default: read from the name, e.g. gpt-4o → openai)")
    .option('--project <name>', 'project name (local database only, default "default"; over HTTP the API key\'s project)')
    .action((location: string, opts: ImportOptions & { project?: string }) =>
      withApi({ project: opts.project }, (client) => runImport(client, location, opts, (text) => console.log(text))),
    );
}
