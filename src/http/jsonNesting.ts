/**
 * How deep a request body's JSON may nest (arrays and objects, the body itself being level 1).
 * Nothing the service reads goes near it: `metadata` may nest 10 levels, and the deepest input a
 * template can use is a section nested 32 levels over lists of objects, two JSON levels each, inside
 * `inputs` inside the body: 67. FastAPI's own limit is Python's recursion limit (about 970 levels,
 * reached only after the body is decoded); 100 keeps every later step (validation, an error's
 * echo, storage) shallow, and the check below makes refusing a deeper body cost one pass over its bytes.
 */
export const MAX_BODY_NESTING = 100;

/**
 * Whether the JSON text in `bytes` opens more than `max` arrays or objects at once, counting
 * brackets outside strings. One pass over the bytes with no allocation, run before the body is
 * decoded or parsed, so a hostile `[[[[…` costs about a millisecond per MiB to refuse however it
 * would parse. UTF-8 never uses the bytes of `"`, `\`, brackets or braces inside a multi-byte
 * character, so bytes can be scanned as characters.
 *
 * The text need not be valid JSON. A closing bracket without an opening one lets the count go
 * below zero: the parser stops at that bracket anyway, so nothing after it can nest for real.
 */
export function nestsDeeperThan(bytes: Uint8Array, max: number): boolean {
  const n = bytes.length;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0x22 /* " */) {
      // Skip the string to its closing quote; `\` escapes the next byte (`\"`, `\\`). An
      // unterminated string runs to the end: the parser reports it.
      for (i++; i < n; i++) {
        const c = bytes[i]!;
        if (c === 0x5c) i++;
        else if (c === 0x22) break;
      }
    } else if (b === 0x5b /* [ */ || b === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (b === 0x5d /* ] */ || b === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}
