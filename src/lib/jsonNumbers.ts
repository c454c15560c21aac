/**
 * Numbers JSON can write and no double holds (`1e309`, an integer beyond ±1.8e308): a JSON parser
 * reads them as ±Infinity, and JSON.stringify then writes `null`, so a file importing them would
 * store null without a word. The API refuses them (docs/management-api.md); a file reader
 * finds them in the text first, to name the line. Pure: shared by the CLI's imports and the CSV
 * columns of dataset items (src/lib/datasetCsv.ts).
 */

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** A number's text as a message shows it: a long run of digits is cut. */
function shown(literal: string): string {
  return literal.length <= 24 ? literal : `${literal.slice(0, 12)}…${literal.slice(-6)} (${literal.length} characters)`;
}

/** Why a number of this JSON text cannot be read as written, with where it starts; null when every number fits a double. */
export function outOfRangeNumber(json: string): { index: number; problem: string } | null {
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string: its digits are text.
      for (i++; i < json.length && json.charCodeAt(i) !== 0x22; i++) if (json.charCodeAt(i) === 0x5c /* \ */) i++;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const literal = NUMBER.exec(json)?.[0];
      if (literal === undefined) continue;
      if (!Number.isFinite(Number(literal))) {
        return { index: i, problem: `the number ${shown(literal)} is out of range (a number is at most ±1.7976931348623157e308)` };
      }
      i += literal.length - 1;
    }
  }
  return null;
}
