import type { ModelResult } from '../../providers/gateway.js';
import type { CompiledVersion } from '../prompts/versionContent.js';
import type { RunRecord } from './runs.repo.js';
import type { RunAnswer } from './runs.schemas.js';

/** The extension fields of a run (docs/tools-and-structured-output.md): each only when it has a value, so a run without them reads as before. */
export function toolExtras(
  run: Pick<RunRecord, 'tool_calls' | 'output_valid' | 'output_error'>,
): Pick<RunAnswer, 'tool_calls' | 'output_valid' | 'output_error'> {
  return {
    ...(run.tool_calls === null ? {} : { tool_calls: run.tool_calls }),
    ...(run.output_valid === null ? {} : { output_valid: run.output_valid }),
    ...(run.output_error === null ? {} : { output_error: run.output_error }),
  };
}

/**
 * Whether the output satisfied the version's json response_format. An answer made only of tool
 * calls has no output to check: null, as for a version without one (left out of schema_valid_rate).
 */
export function outputVerdict(version: CompiledVersion, result: ModelResult): Pick<RunRecord, 'output_valid' | 'output_error'> {
  if (version.outputCheck === null || (result.output === '' && result.toolCalls.length > 0)) return { output_valid: null, output_error: null };
  const verdict = version.outputCheck(result.output);
  return { output_valid: verdict.valid, output_error: verdict.error };
}
