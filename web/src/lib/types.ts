/** The API's shapes the console reads (the server's TypeBox schemas are the reference). */
export interface Prompt {
  prompt_id: string;
  description: string | null;
  latest_version: number | null;
  labels: Record<string, number>;
  created_at: string;
  archived_at: string | null;
  /** Its versions are authored in a Git repository: the console warns before an edit made here. */
  managed_in_git: boolean;
}

/** Where a version was pushed from (`promptline prompts push`): the file, and the Git commit and author when known. */
interface VersionSource {
  path: string | null;
  commit: string | null;
  author: string | null;
}

/** A part of a message's content: text, or an image by URL (a run stores a data URL as `data:image/…;base64,…(N bytes)`). */
type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };

export interface ChatMessage {
  role: string;
  /** A template (or its rendering), or content parts. */
  content: string | ContentPart[];
}

/** A function the model may call (OpenAI's format); `parameters` is its arguments' JSON Schema. */
interface Tool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}
type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };
interface ResponseFormat {
  type: 'text' | 'json_object' | 'json_schema';
  json_schema?: { name: string; description?: string; schema: Record<string, unknown>; strict?: boolean | null };
}
/** A version's tools and structured output: each field present only when set (docs/tools-and-structured-output.md). */
export interface ModelConfig {
  tools?: Tool[];
  tool_choice?: ToolChoice;
  response_format?: ResponseFormat;
}

export interface Version extends ModelConfig {
  prompt_id: string;
  version: number;
  type: 'text' | 'chat';
  template: string | null;
  messages: ChatMessage[] | null;
  model: string | null;
  params: Record<string, unknown>;
  fallbacks: string[];
  variables: string[];
  commit_message: string | null;
  labels: string[];
  created_at: string;
  /** Null for a version not made from a file. */
  source: VersionSource | null;
}

export interface Experiment {
  experiment_id: string;
  prompt_id: string;
  name: string | null;
  /** rolled_back and shipped: a rollout that ended on its own. */
  status: 'draft' | 'running' | 'paused' | 'stopped' | 'rolled_back' | 'shipped';
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

// ---- Experiments and results (console-experiments) ----

export type ExperimentStatus = Experiment['status'];
export type MetricKind =
  | 'success_rate'
  | 'mean'
  | 'latency_ms'
  | 'ttft_ms'
  | 'cost_usd'
  | 'error_rate'
  | 'total_tokens'
  | 'schema_valid_rate'
  | 'mean_score'
  | 'pass_rate';
export type Direction = 'higher' | 'lower';

interface MetricDef {
  name: string;
  source: 'outcomes' | 'runs' | 'evaluator';
  event_type: string | null;
  evaluator?: string;
  kind: MetricKind;
  role: 'primary' | 'secondary' | 'guardrail';
  direction: Direction;
  cap: number | { percentile: number } | null;
}

interface RolloutStep {
  percent: number;
  min_users: number;
  min_minutes: number;
}

interface Rollout {
  candidate: string;
  steps: RolloutStep[];
  auto_ship: boolean;
  step: number;
  step_started_at: string | null;
  awaiting_approval: boolean;
  current_percent: number;
}

/** One check of a rollout (GET /experiments/{id}/checks): what it did, why, and the figures it read. */
export interface ExperimentCheck {
  id: string;
  checked_at: string;
  scheduled_at: string | null;
  trigger: 'scheduled' | 'manual';
  action: string;
  reason: string;
  step: number | null;
  percent: number | null;
  /** For a rollout: {users, guardrails: [...]}; read defensively (the schema says unknown). */
  figures: unknown;
}

export interface ExperimentDetail extends Experiment {
  type: 'ab' | 'rollout' | 'bandit';
  /** Why a rollout rolled back or shipped on its own. */
  reason: string | null;
  rollout: Rollout | null;
  hypothesis: string | null;
  variants: Array<{ key: string; version: number; weight: number }>;
  control: string;
  coverage: number;
  seed: string;
  metrics: MetricDef[];
  target_mde: number;
  cuped: boolean;
  cuped_days: number;
  winner: string | null;
  shipped_version: number | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  stopped_at: string | null;
  /** Bandits only (GET of one experiment): the weights each period's new users followed. */
  allocation_history?: AllocationPeriod[];
}

/** One period of a bandit's allocation history. */
export interface AllocationPeriod {
  period: number;
  started_at: string;
  weights: Record<string, number>;
  p_best: Record<string, number> | null;
  dropped: string[];
}

type Num = number | null;
/** An interval [low, high] as the API writes it (its schema says "array"), or null when the data leave it undefined. */
type Ci = readonly number[] | null;
type Verdict = 'not_enough_data' | 'no_detectable_difference' | 'better' | 'worse';

export interface Comparison {
  variant: string;
  control: string;
  absolute: { lift: Num; se: Num; ci: Ci; p_value: Num; df: Num };
  relative: { lift: Num; se: Num; ci: Ci; p_value: Num; df: Num };
  p_value_adjusted: Num;
  p_value_worse?: Num;
  bayes: { chance_to_win: Num; ci: Ci };
  sequential?: { ci: Ci; p_value: Num };
  enough_data: boolean;
  reason?: string;
  verdict: Verdict;
  verdict_text: string;
  unadjusted?: { relative: { lift: Num; ci: Ci } };
  /** The one p-value the verdict reads, and what it is. */
  verdict_p_value: Num;
  verdict_p_kind: 'holm_adjusted' | 'sequential_holm_adjusted' | 'one_sided_worse' | 'unadjusted' | 'sequential_unadjusted';
}

export interface MetricResult {
  name: string;
  source: 'outcomes' | 'runs' | 'evaluator';
  event_type: string | null;
  evaluator?: string;
  kind: MetricKind;
  role: 'primary' | 'secondary' | 'guardrail' | 'exploratory';
  direction: Direction;
  primary: boolean;
  cuped: { applied: boolean; variance_reduction: Num; users_with_pre_data: number; days: number } | null;
  variants: Array<{ key: string; users: number; users_with_event: number; value: Num; adjusted_value?: number; n: number; sum: Num }>;
  comparisons: Comparison[];
}

interface Decision {
  variant: string;
  decision: 'ship' | 'rollback' | 'keep_running' | 'unhealthy';
  reason: string;
  users_needed: number | null;
  days_needed: number | null;
}

interface ResultsOptions {
  sequential: boolean;
  prior: 'flat' | 'proper';
  alpha: number;
  explore: boolean;
  cuped: boolean;
  target_mde: number;
}

export interface TimeseriesPoint {
  date: string;
  /** The period's start (UTC): midnight of a daily point, the hour of an hourly one. */
  start: string;
  variants: Record<string, { exposures: number; cumulative_exposures: number; cumulative_value: number | null }>;
}

export interface ExperimentResults {
  experiment_id: string;
  prompt_id: string;
  status: ExperimentStatus;
  control: string;
  decisions: Decision[];
  generated_at: string;
  options: ResultsOptions;
  variants: Array<{ key: string; version: number; weight: number; users: number; runs: number; errored_runs: number; render_failures: number }>;
  metrics: MetricResult[];
  guardrails: MetricResult[];
  exploratory: MetricResult[];
  primary: { name: string; event_type: string | null; kind: MetricKind; mde_relative: Num } | null;
  health: {
    srm: { chi_square: number; df: number; p_value: number; checked: boolean; flagged: boolean };
    users_in_multiple_variants: number;
    unattributed_outcomes: number;
  };
  timeseries_granularity: 'hour' | 'day';
  timeseries: TimeseriesPoint[];
}
