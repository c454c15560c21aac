const FLOAT_MARK = '\u0000pyfloat:';
const FLOAT_MARKED = /"\\u0000pyfloat:(-?\d+)"/g;

/**
 * pydantic writes a `float` field with a fraction even when it is whole (`0.0`, not `0`); JSON.stringify
 * cannot, so whole values of the named keys are marked, then rewritten in the text.
 */
export function stringifyWithFloats(body: unknown, floatKeys: ReadonlySet<string>): string {
  let marked = false;
  const text = JSON.stringify(body, (key, value: unknown) => {
    if (typeof value === 'number' && Number.isInteger(value) && floatKeys.has(key) && Math.abs(value) < 1e16) {
      marked = true;
      return `${FLOAT_MARK}${value}`;
    }
    return value;
  });
  return marked ? text.replace(FLOAT_MARKED, '$1.0') : text;
}
