// What the console knows of a version's impact on a label; pure (the unit tests import it), the fetch is fetchImpact.ts.

/** GET /prompts/{id}/versions/{v}/impact (the server's ImpactSchema is the reference). */
export interface Impact {
  prompt_id: string;
  version: number;
  label: string;
  served_version: number | null;
  required_variables: string[];
  new_required_variables: string[];
  window: { since: string; until: string; hours: number };
  calls: number;
  calls_missing_any: number;
  missing: Array<{ variable: string; calls: number }>;
  calls_without_user_id: number;
  calls_with_unrecorded_inputs: number;
  running_experiment: RunningExperiment | null;
  warning: string | null;
}

export interface RunningExperiment {
  experiment_id: string;
  status: 'running';
  coverage: number;
  variants: Array<{ key: string; version: number; weight: number }>;
}

export const LABEL_PATTERN = /^[a-z0-9_-]{1,64}$/;

/** Recent calls that lacked a variable the version needs: the change would answer them 422. */
export function callsThatWouldFail(impact: Impact): number {
  return impact.calls_missing_any;
}

/**
 * What happens to the traffic of an experiment running on the prompt when production moves (the
 * router: a user the experiment assigns, or has assigned, gets the variant's version; a user outside
 * its coverage gets production; a call without a user id is refused while it runs).
 */
export function experimentTrafficNote(experiment: RunningExperiment, version: number): string {
  const refused = 'Calls without external_user_id are refused (422) while it runs.';
  if (experiment.coverage >= 1) {
    return `Experiment ${experiment.experiment_id} is running on this prompt and covers every user: they keep getting their variant's version, so v${version} is served to nobody until the experiment is paused or stopped. ${refused}`;
  }
  const share = `${Math.round(experiment.coverage * 1000) / 10}%`;
  return `Experiment ${experiment.experiment_id} is running on this prompt: the users it covers (${share}) keep getting their variant's version; the other users get v${version}. ${refused}`;
}
