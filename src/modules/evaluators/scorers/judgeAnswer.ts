import type { Score } from './types.js';

export type JudgeScale = 'pass_fail' | '1-5';

/** What a judge's answer says: its score (with its reasoning when given), or why none could be read. */
export type JudgeVerdict = (Score & { reasoning?: string }) | { error: string };

const PASS_WORDS = new Map<string, boolean>([
  ['pass', true],
  ['passed', true],
  ['yes', true],
  ['true', true],
  ['fail', false],
  ['failed', false],
  ['no', false],
  ['false', false],
]);

function scoreOf(value: unknown, scale: JudgeScale): Score | { error: string } {
  if (scale === 'pass_fail') {
    let ok: boolean | undefined;
    if (typeof value === 'boolean') ok = value;
    else if (value === 1 || value === 0) ok = value === 1;
    else if (typeof value === 'string') ok = PASS_WORDS.get(value.trim().toLowerCase());
    return ok === undefined ? { error: `the score ${JSON.stringify(value)} is not pass or fail` } : { score: ok ? 1 : 0, passed: ok };
  }
  const n = typeof value === 'string' && /^\s*[1-5]\s*$/u.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 5) return { error: `the score ${JSON.stringify(value)} is not a whole number from 1 to 5` };
  return { score: n, passed: null };
}

/** The JSON object the answer holds: all of it, in a ``` fence, or from its first { to its last }. */
function jsonObjectIn(text: string): Record<string, unknown> | undefined {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/iu.exec(text)?.[1];
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  for (const candidate of [text, fenced, start >= 0 && end > start ? text.slice(start, end + 1) : undefined]) {
    if (candidate === undefined) continue;
    try {
      const value: unknown = JSON.parse(candidate.trim());
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** A plain answer: the score alone, or after "score:", as its first word ("PASS", "4", "4/5", "Score: fail — …"). */
function plainScore(text: string): unknown {
  const m = /^\s*(?:\**\s*(?:score|verdict|grade)\s*\**\s*[:=-]\s*)?\**\s*([A-Za-z]+|[0-9]+)\b/iu.exec(text);
  return m?.[1];
}

/**
 * Reads a judge model's answer into a score. The judge prompt asks for JSON `{"score": …,
 * "reasoning": "…"}` (structured output where the model supports it); a model that ignores that
 * and answers in words is read from its first word. pass_fail takes pass/fail, yes/no, true/false
 * or 1/0; 1-5 takes a whole number from 1 to 5. Anything else is a parse error, which scoring
 * records as a `judge_error` for that item.
 */
export function parseJudgeAnswer(text: string, scale: JudgeScale): JudgeVerdict {
  const object = jsonObjectIn(text);
  if (object !== undefined) {
    if (!('score' in object)) return { error: 'the JSON answer has no "score"' };
    const score = scoreOf(object.score, scale);
    if ('error' in score) return score;
    return typeof object.reasoning === 'string' ? { ...score, reasoning: object.reasoning } : score;
  }
  const word = plainScore(text);
  if (word === undefined) return { error: 'no score found in the answer' };
  const score = scoreOf(scale === '1-5' && typeof word === 'string' && /^[0-9]+$/u.test(word) ? Number(word) : word, scale);
  if ('error' in score) return score;
  const rest = text.trim();
  return rest.length > String(word).length ? { ...score, reasoning: rest } : score;
}
