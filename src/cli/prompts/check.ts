import { parsePromptFile, type FileProblem, type PathSegment } from '../../promptFiles/parse.js';
import type { PromptFile } from '../../promptFiles/schema.js';
import { Invalid, invalidIssue, type Issue } from '../../lib/errors.js';
import { checkVersionContent } from '../../modules/prompts/versionContent.js';
import type { RenderLimits } from '../../modules/prompts/template.js';

/**
 * The server's default render limits (PROMPTLINE_RENDER_MAX_BYTES, PROMPTLINE_RENDER_MAX_STEPS): a
 * check offline cannot know the server's own; a push is checked again there.
 */
const DEFAULT_LIMITS: RenderLimits = { maxBytes: 1_048_576, maxSteps: 50_000 };

/**
 * Declared variables against the names the templates read. The one place this rule lives in the
 * CLI: a placeholder until the server's own check of declarations is shared, then that check.
 */
export function checkDeclarations(declared: Record<string, unknown>, usedNames: readonly string[]): Issue[] {
  const issues: Issue[] = [];
  for (const name of usedNames) {
    if (!(name in declared)) issues.push(invalidIssue('body', ['variables'], `the templates read '${name}', which variables does not declare`));
  }
  for (const name of Object.keys(declared)) {
    if (!usedNames.includes(name)) issues.push(invalidIssue('body', ['variables', name], `'${name}' is declared but no template reads it`));
  }
  return issues;
}

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
    const { variables } = checkVersionContent(file, () => true, DEFAULT_LIMITS);
    issues = file.variables === undefined ? [] : checkDeclarations(file.variables, variables);
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    issues = error.issues;
  }
  return issues.length > 0 ? { ok: false, problems: issues.map((i) => at(i.path, i.reason)) } : { ok: true, file, lineOf };
}
