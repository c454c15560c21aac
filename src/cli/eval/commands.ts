import fs from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { EvaluationView } from '../../modules/evaluations/evaluations.schemas.js';
import { contentHash, versionContent } from '../../promptFiles/hash.js';
import { parsePromptFile } from '../../promptFiles/parse.js';
import type { ApiClient } from '../api/client.js';
import { withApi } from '../api/connect.js';
import { DEFAULT_TOLERANCE, gate, type GateResult } from './gate.js';
import { markdownSummary, progressLine, textSummary } from './summary.js';

const ENDED = new Set(['completed', 'cancelled', 'budget_exhausted', 'failed']);
const POLL_MS = 500;
/** Exit codes: 1 the gate fails (with --fail-if-worse: a gating evaluator does not show the candidate within the tolerance); 2 the evaluation did not complete. */
const EXIT_WORSE = 1;
const EXIT_INCOMPLETE = 2;

const versionRef = (value: string): number | string => (/^[1-9]\d{0,14}$/.test(value) ? Number(value) : value);
function share(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number from 0 to 1');
  return n;
}
function positive(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}
const PROJECT_HELP = 'project name (local database only, default "default"; over HTTP the API key\'s project)';
const formatOption = () =>
  new Option('--format <format>', 'text, markdown (a pull-request comment) or json').choices(['text', 'markdown', 'json']).default('text');
const collect = (value: string, previous: string[] = []) => [...previous, value];

interface RunOptions {
  project?: string;
  prompt: string;
  candidate?: string;
  candidateFile?: string;
  baseline: string;
  dataset: string;
  datasetVersion?: number;
  evaluator: string[];
  gate?: string[];
  concurrency?: number;
  budget?: number;
  failIfWorse?: boolean;
  tolerance: number;
  format: Format;
  progress: boolean;
}

/**
 * The candidate of a prompt file: the version of the prompt with the same content if there is one,
 * else the file's content pushed as a new version (no label moves, so it serves no one).
 */
async function candidateFromFile(api: ApiClient, promptId: string, file: string): Promise<{ version: number; pushed: boolean }> {
  const parsed = parsePromptFile(fs.readFileSync(file, 'utf8'), promptId);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => `${file}:${p.line}: ${p.message}`).join('\n'));
  const wanted = contentHash(versionContent(parsed.file));
  const versions = await api.request<{ data: Array<Parameters<typeof versionContent>[0] & { version: number; declared_variables: unknown }> }>(
    'GET',
    `/prompts/${encodeURIComponent(promptId)}/versions`,
  );
  // A version's `variables` are the names its templates use; what it declared is `declared_variables`.
  const same = versions.data.find((v) => contentHash(versionContent({ ...v, variables: v.declared_variables })) === wanted);
  if (same !== undefined) return { version: same.version, pushed: false };
  const { template, messages, model, params, fallbacks, variables } = parsed.file;
  const created = await api.request<{ version: number }>('POST', `/prompts/${encodeURIComponent(promptId)}/versions`, {
    body: { template, messages, model, params, fallbacks, variables },
  });
  return { version: created.version, pushed: true };
}

type Format = 'text' | 'markdown' | 'json';
const summaryIn = (format: Format, e: EvaluationView, gating: readonly string[]): string =>
  format === 'json' ? `${JSON.stringify(e, null, 2)}\n` : format === 'markdown' ? markdownSummary(e, gating) : textSummary(e, gating);
const evaluationPath = (id: string) => `/evaluations/${encodeURIComponent(id)}`;

/** `eval show`: one evaluation as it stands (running or ended), summarised as `eval run` prints it. */
export async function showEvaluation(api: ApiClient, id: string, format: Format, gating: readonly string[] = []): Promise<string> {
  const e = await api.request<EvaluationView>('GET', evaluationPath(id));
  return `${ENDED.has(e.status) || format === 'json' ? '' : `${progressLine(e)}\n\n`}${summaryIn(format, e, gating)}`;
}

/** `eval cancel`: stops it (items not started are skipped; calls in flight finish) and says where it stopped. */
export async function cancelEvaluation(api: ApiClient, id: string, format: Format): Promise<string> {
  const e = await api.request<EvaluationView>('POST', `${evaluationPath(id)}/cancel`);
  if (format === 'json') return `${JSON.stringify(e, null, 2)}\n`;
  return `${e.evaluation_id}: ${e.status}, ${e.progress.done}/${e.progress.total} items × versions done, cost $${e.progress.cost_usd.toFixed(4)}\n`;
}

async function run(api: ApiClient, opts: RunOptions): Promise<void> {
  if ((opts.candidate === undefined) === (opts.candidateFile === undefined)) throw new Error('give one of --candidate and --candidate-file');
  let candidate: number | string;
  if (opts.candidateFile !== undefined) {
    const found = await candidateFromFile(api, opts.prompt, opts.candidateFile);
    process.stderr.write(
      `${opts.candidateFile}: ${found.pushed ? `pushed as version ${found.version} (no label moved)` : `the content of version ${found.version}`}\n`,
    );
    candidate = found.version;
  } else {
    candidate = versionRef(opts.candidate!);
  }
  const created = await api.request<{ evaluation_id: string }>('POST', '/evaluations', {
    body: {
      prompt_id: opts.prompt,
      versions: [candidate, versionRef(opts.baseline)],
      dataset_id: opts.dataset,
      dataset_version: opts.datasetVersion,
      evaluators: opts.evaluator,
      concurrency: opts.concurrency,
      budget_usd: opts.budget,
    },
  });
  const path = `/evaluations/${created.evaluation_id}`;
  const bar = opts.progress && process.stderr.isTTY === true;
  let e = await api.request<EvaluationView>('GET', path);
  while (!ENDED.has(e.status)) {
    if (bar) process.stderr.write(`\r${progressLine(e)}\u001b[K`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    e = await api.request<EvaluationView>('GET', path);
  }
  if (bar) process.stderr.write(`\r${progressLine(e)}\u001b[K\n`);
  const gating = opts.gate ?? [];
  const unknownGate = gating.filter((g) => !opts.evaluator.includes(g));
  if (unknownGate.length > 0) throw new Error(`--gate names evaluators not in --evaluator: ${unknownGate.join(', ')}`);
  process.stdout.write(summaryIn(opts.format, e, gating));
  if (e.status !== 'completed') process.exitCode = EXIT_INCOMPLETE;
  else if (opts.failIfWorse === true) {
    const results = gate(e, gating, opts.tolerance);
    // JSON on standard output stays the API's answer: the gate's lines then go to standard error.
    (opts.format === 'json' ? process.stderr : process.stdout).write(gateLines(results, opts.tolerance, opts.format));
    if (results.length === 0 || results.some((r) => !r.pass)) process.exitCode = EXIT_WORSE;
  }
}

/** The gate's verdict and one line per gating evaluator. */
function gateLines(results: readonly GateResult[], tolerance: number, format: Format): string {
  const failed = results.filter((r) => !r.pass);
  const verdict =
    results.length === 0
      ? 'the gate FAILS: no gating evaluator'
      : failed.length === 0
        ? `the gate passes (tolerance ${tolerance})`
        : `the gate FAILS on ${failed.map((r) => r.evaluator).join(', ')} (tolerance ${tolerance})`;
  const lines = results.map((r) => `${r.pass ? 'pass' : 'FAIL'} ${r.evaluator}: ${r.reason}`);
  if (format === 'markdown') return `\n**Gate:** ${verdict}\n\n${lines.map((l) => `- ${l}`).join('\n')}\n`;
  return `\n${verdict}\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

/** `promptline eval run`: an evaluation started, followed to its end, summarised, and gated for CI. */
export function addEvalCommands(program: Command): Command {
  const evaluation = program.command('eval').description('evaluate prompt versions on a dataset (over HTTP too)');
  evaluation
    .command('run')
    .description(
      'compare a candidate version with a baseline on a dataset (as POST /evaluations), follow it to its end and print the comparison; exit 1 with --fail-if-worse unless every gating evaluator shows the candidate not worse than the baseline by more than the tolerance, 2 when the evaluation did not complete',
    )
    .option('--project <name>', PROJECT_HELP)
    .requiredOption('--prompt <prompt_id>', 'the prompt whose versions are compared')
    .option('--candidate <version>', 'the candidate: a version number or a label')
    .option(
      '--candidate-file <file>',
      'the candidate as a prompt file (prompts/<id>.prompt.yaml): a version with its content, else pushed as a new version with no label',
    )
    .option('--baseline <version>', 'the baseline: a version number or a label', 'production')
    .requiredOption('--dataset <dataset_id>', 'the dataset')
    .option('--dataset-version <n>', "the dataset's version (default its latest)", (v) => Math.trunc(positive(v)))
    .requiredOption('--evaluator <evaluator_id>', 'an evaluator (repeat for several)', collect)
    .option('--gate <evaluator_id>', 'an evaluator that gates --fail-if-worse (repeat; default: every --evaluator)', collect)
    .option('--concurrency <n>', 'model calls at once (default 4)', (v) => Math.trunc(positive(v)))
    .option('--budget <usd>', 'stop once the cost reaches this many US dollars', positive)
    .option(
      '--fail-if-worse',
      'exit 1 unless every gating evaluator shows (95% interval) the candidate not worse than the baseline by more than --tolerance; too few items to show it fail too, saying about how many would',
    )
    .option(
      '--tolerance <share>',
      `how much worse the candidate may be: points of pass rate (0.05: 5 points) or a share of the 1-5 scale's range (default ${DEFAULT_TOLERANCE})`,
      share,
      DEFAULT_TOLERANCE,
    )
    .addOption(formatOption())
    .option('--no-progress', 'no progress bar on standard error')
    .action((opts: RunOptions) => withApi(opts, (api) => run(api, opts)));
  evaluation
    .command('show <evaluation_id>')
    .description('print one evaluation as `eval run` does (a running one with its progress line first), without waiting for it')
    .option('--project <name>', PROJECT_HELP)
    .option('--gate <evaluator_id>', 'the evaluators the "worse on" verdict names (repeat; default: every evaluator)', collect)
    .addOption(formatOption())
    .action((id: string, opts: { project?: string; gate?: string[]; format: Format }) =>
      withApi(opts, async (api) => {
        process.stdout.write(await showEvaluation(api, id, opts.format, opts.gate ?? []));
      }),
    );
  evaluation
    .command('cancel <evaluation_id>')
    .description('cancel an evaluation (as POST /evaluations/{id}/cancel): items not started are skipped, calls in flight finish and are recorded')
    .option('--project <name>', PROJECT_HELP)
    .addOption(formatOption())
    .action((id: string, opts: { project?: string; format: Format }) =>
      withApi(opts, async (api) => {
        process.stdout.write(await cancelEvaluation(api, id, opts.format));
      }),
    );
  return program;
}
