import type { ExperimentView } from '../modules/experiments/experiments.schemas.js';
import type { ImpactView } from '../modules/inputs/impact.schemas.js';
import type { ApiClient } from './api/client.js';

/**
 * What `experiments start` says before it starts (it starts anyway: the impact is advisory): for
 * each version a variant serves a share of users (weight and coverage above 0), the impact's warning
 * against production, and how many recent calls sent no external_user_id (refused with 422 while an
 * experiment runs). The same sentences as GET /prompts/{id}/versions/{v}/impact and the console.
 */
export async function startWarnings(api: ApiClient, experimentId: string): Promise<string[]> {
  const experiment = await api.request<ExperimentView>('GET', `/experiments/${encodeURIComponent(experimentId)}`);
  if (experiment.status === 'running' || experiment.coverage === 0) return [];
  const warnings: string[] = [];
  let withoutUserId: { calls: number; of: number; hours: number } | null = null;
  for (const variant of experiment.variants) {
    if (variant.weight === 0) continue;
    const impact = await api.request<ImpactView>('GET', `/prompts/${encodeURIComponent(experiment.prompt_id)}/versions/${variant.version}/impact`, {
      query: { label: 'production' },
    });
    if (impact.warning !== null) warnings.push(`variant ${variant.key} (version ${variant.version}): ${impact.warning}`);
    withoutUserId ??= { calls: impact.calls_without_user_id, of: impact.calls, hours: impact.window.hours };
  }
  if (withoutUserId !== null && withoutUserId.calls > 0) {
    warnings.push(
      `${withoutUserId.calls} of ${withoutUserId.of} calls in the last ${withoutUserId.hours} h sent no external_user_id: while the experiment runs, such calls answer 422`,
    );
  }
  return warnings;
}
