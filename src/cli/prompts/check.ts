import { parsePromptFile, type FileProblem, type PathSegment } from '../../promptFiles/parse.js';
import type { PromptFile } from '../../promptFiles/schema.js';
import { Invalid, type Issue } from '../../lib/errors.js';
import { checkVersionContent } from '../../modules/prompts/versionContent.js';
import type { RenderLimits } from '../../modules/prompts/template.js';

/**
 * The server's default render limits (PROMPTLINE_RENDER_MAX_BYTES, PROMPTLINE_RENDER_MAX_STEPS): a
 * check offline cannot know the server's own; a push is checked again there.
 */
const DEFAULT_LIMITS: RenderLimits = { maxBytes: 1_048_576, maxSteps: 50_000 };

export type CheckedFile = { ok: true; file: PromptFile; lineOf: (path: readonly PathSegment[]) => number } | { ok: false; problems: FileProblem[] };

/**
 * Everything `promptline prompts check` can tell without a server: YAML, the schema, the name, the
 * content as the server checks a version (templates compile, params, sizes), and the declared
 * variables. Models are not checked: which providers are configured is the server's to say.
 */
export function checkPromptFile(text: string, expectedPromptId: string): CheckedFile {
  const parsed = parsePromptFile(text, expectedPromptId);
  if (!parsed.ok) return parsed;
  const { file, lineOf, lineAt } = parsed;
  const at = (path: readonly PathSegment[], reason: string): FileProblem => {
    // mustache says where in the template it stopped ("… at 13"): the file's own line, where it can tell.
    const offset = /^invalid template: .* at (\d+)$/.exec(reason)?.[1];
    const line = offset === undefined ? lineOf(path) : lineAt(path, Number(offset));
    return { line, message: path.length > 0 ? `${path.join('.')}: ${reason}` : reason };
  };
  let issues: readonly Issue[];
  try {
    // The server's own check of a version's content, declared variables included.
    checkVersionContent(file, () => true, DEFAULT_LIMITS);
    issues = [];
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    issues = error.issues;
  }
  return issues.length > 0 ? { ok: false, problems: issues.map((i) => at(i.path, i.reason)) } : { ok: true, file, lineOf };
}
