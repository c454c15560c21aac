/** One problem the API reported, with the request field it is about (null: the request as a whole). */
export interface FieldProblem {
  field: string | null;
  message: string;
}

/**
 * The API's error `detail` as the console shows it: FastAPI's string, or its list of validation
 * items (`loc` like ["body", "variants", 0, "version"] becomes the field "variants.0.version").
 */
export function problemsOf(detail: unknown, status: number): FieldProblem[] {
  if (typeof detail === 'string') return [{ field: null, message: detail }];
  if (Array.isArray(detail)) {
    return detail.map((item: { loc?: unknown[]; msg?: string }) => {
      const loc = Array.isArray(item.loc) ? item.loc : [];
      const path = loc[0] === 'body' || loc[0] === 'query' || loc[0] === 'path' ? loc.slice(1) : loc;
      return { field: path.length === 0 ? null : path.join('.'), message: item.msg ?? 'invalid' };
    });
  }
  return [{ field: null, message: `The server answered ${status}` }];
}

export class ApiError extends Error {
  readonly problems: FieldProblem[];
  constructor(
    readonly status: number,
    detail: unknown,
  ) {
    const problems = problemsOf(detail, status);
    super(problems.map((p) => (p.field === null ? p.message : `${p.field}: ${p.message}`)).join('; '));
    this.problems = problems;
  }

  /** The message about one field (shown next to its control), or undefined. */
  forField(field: string): string | undefined {
    return this.problems.find((p) => p.field === field || p.field?.startsWith(`${field}.`))?.message;
  }

  /** The messages no control shows. */
  general(fields: readonly string[]): string[] {
    return this.problems.filter((p) => p.field === null || !fields.some((f) => p.field === f || p.field?.startsWith(`${f}.`))).map((p) => p.message);
  }
}
