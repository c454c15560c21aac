/**
 * How deep a request body's JSON may nest (arrays and objects, the body itself being level 1).
 * Nothing the service reads goes near it: `metadata` may nest 10 levels, and the deepest input a
 * template can use is a section nested 32 levels over lists of objects, two JSON levels each, inside
 * `inputs` inside the body: 67. FastAPI's own limit is Python's recursion limit (about 970 levels,
 * reached only after the body is decoded); 100 keeps every later step (validation, an error's
 * echo, storage) shallow, and the pre-scan below makes refusing a deeper body cost one pass over its bytes.
 */
export const MAX_BODY_NESTING = 100;

export interface Prescan {
  /** Arrays and objects open at once somewhere exceed `maxDepth`; the scan stopped there. */
  tooDeep: boolean;
  /** Some run of digits outside strings is longer than `maxDigits` (perhaps an integer Python refuses). */
  longDigitRun: boolean;
}

/**
 * One pass over a JSON body's bytes, before it is decoded or parsed (and before its key is looked
 * at), for the two things that make parsing costly or fail in Python: nesting and integer length.
 * A hostile `[[[[…` costs about a millisecond per MiB to refuse however it would parse. Strings are
 * skipped with `indexOf` (brackets and digits inside them do not count; `\` escapes are followed),
 * and UTF-8 never uses the bytes of `"`, `\`, brackets, braces or digits inside a multi-byte
 * character, so bytes can be scanned as characters.
 *
 * The text need not be valid JSON. An unterminated string runs to the end. A closing bracket
 * without an opening one lets the depth go below zero: the parser stops at that bracket anyway,
 * so nothing after it can nest for real.
 */
export function prescanJson(bytes: Uint8Array, maxDepth: number, maxDigits: number): Prescan {
  const n = bytes.length;
  let depth = 0;
  let digits = 0;
  let longDigitRun = false;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b >= 0x30 && b <= 0x39) {
      if (++digits > maxDigits) longDigitRun = true;
      continue;
    }
    digits = 0;
    if (b === 0x22 /* " */) i = closingQuote(bytes, i);
    else if (b === 0x5b /* [ */ || b === 0x7b /* { */) {
      if (++depth > maxDepth) return { tooDeep: true, longDigitRun };
    } else if (b === 0x5d /* ] */ || b === 0x7d /* } */) depth--;
  }
  return { tooDeep: false, longDigitRun };
}

/** The index of the quote that closes the string opened at `open`, or the end of the bytes. */
function closingQuote(bytes: Uint8Array, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = bytes.indexOf(0x22, from);
    if (quote === -1) return bytes.length;
    // The quote is escaped when an odd number of backslashes stands right before it. Each run of
    // backslashes is counted once, by the one quote that follows it: linear overall.
    let k = quote - 1;
    while (k > open && bytes[k] === 0x5c) k--;
    if ((quote - 1 - k) % 2 === 0) return quote;
    from = quote + 1;
  }
}
