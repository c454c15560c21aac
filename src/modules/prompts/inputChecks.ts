import { conflict, Invalid, type Issue } from '../../lib/errors.js';
import { checkString, compilePattern, type Declarations, type StringRules } from './variableDeclarations.js';

/**
 * The runtime side of typed variables: a version's declarations compiled once (patterns included,
 * when the version is compiled for serving), then run on every call's inputs before the render.
 */
export interface InputChecks {
  /**
   * The inputs with each absent optional variable's default filled in (no default: ""), or the
   * 422 listing every problem in declaration order: a required variable absent (the same `missing`
   * item as a template variable missing today), a value that is not a string or breaks a rule.
   * Inputs not declared pass through untouched.
   */
  apply(inputs: Record<string, unknown>): Record<string, unknown>;
}

interface CompiledDeclaration extends StringRules {
  name: string;
  required: boolean;
  fallback: string;
  /** Why a stored pattern cannot be run (one stored before the linear-time engine, which refuses it); null: it runs. */
  refused: string | null;
}

/** `version`: how a 409 names it ("Prompt 'greet' version 3"). */
export function compileInputChecks(declarations: Declarations, version = 'This version'): InputChecks {
  const compiled: CompiledDeclaration[] = Object.entries(declarations).map(([name, d]) => {
    // A pattern stored before the linear-time engine may be one it refuses: it is never run on
    // JavaScript's backtracking engine instead; a value sent for it is answered with why.
    const compiled = d.pattern === undefined ? null : compilePattern(d.pattern);
    const refused = typeof compiled === 'string' ? compiled : null;
    const re = typeof compiled === 'string' ? null : compiled;
    return { name, required: d.required, fallback: d.default ?? '', enum: d.enum, re, pattern: d.pattern, min: d.min_length, max: d.max_length, refused };
  });
  return {
    apply(inputs) {
      const issues: Issue[] = [];
      let filled: Record<string, unknown> | null = null;
      for (const d of compiled) {
        if (!Object.hasOwn(inputs, d.name)) {
          if (d.required) issues.push({ part: 'body', path: ['inputs', d.name], kind: 'missing', reason: 'required by the template' });
          else {
            // Copied once, only when a default is filled in: the caller's object is never changed.
            filled ??= { ...inputs };
            filled[d.name] = d.fallback;
          }
          continue;
        }
        const value = inputs[d.name];
        if (d.refused !== null) {
          throw conflict(`${version} cannot check variable '${d.name}' (${d.refused}): create a new version`);
        }
        const failure = typeof value === 'string' ? checkString(d, value) : { type: 'string_type', msg: 'Input should be a valid string', ctx: undefined };
        if (failure !== null) {
          issues.push({
            part: 'body',
            path: ['inputs', d.name],
            kind: 'constraint',
            reason: failure.msg,
            type: failure.type,
            ...(failure.ctx === undefined ? {} : { ctx: failure.ctx }),
          });
        }
      }
      if (issues.length > 0) throw new Invalid(issues);
      return filled ?? inputs;
    },
  };
}
