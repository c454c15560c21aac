/**
 * Text a spreadsheet would run as a formula, made inert in every CSV Promptline writes (the results
 * CSV, the dataset export) and read back in every CSV it imports (src/lib/datasetCsv.ts): OWASP's
 * advice on CSV injection. Item text can come from end users and model outputs (a dataset made
 * `from_runs`), so a cell of `=HYPERLINK(…)` must not become a live link in whoever opens the file.
 * Pure, shared by the server, the CLI and the web console.
 *
 * - A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading apostrophe,
 *   the mark spreadsheets read as "this is text" and do not show.
 * - A number (`-5`, `-1.5e-7`, JSON's spelling) is left as it is: it runs nothing, and a
 *   spreadsheet reads it as the number it is.
 * - A cell that already starts with an apostrophe followed by one of those characters, or by
 *   another apostrophe, gets one more, so that reading back is exact: `unescapeFormula` removes a
 *   leading apostrophe only there. Every text survives `unescapeFormula(escapeFormula(text))`,
 *   and text that needed no escape (`'hello`, `it's`) reads back as written.
 */

const TRIGGER = /^[=+\-@\t\r]/;
const ESCAPED = /^'[=+\-@\t\r']/;
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** The cell as written to a CSV file. */
export function escapeFormula(text: string): string {
  if (TRIGGER.test(text)) return JSON_NUMBER.test(text) ? text : `'${text}`;
  return ESCAPED.test(text) ? `'${text}` : text;
}

/** The text of a cell read from a CSV file: the apostrophe `escapeFormula` added, removed. */
export function unescapeFormula(cell: string): string {
  return ESCAPED.test(cell) ? cell.slice(1) : cell;
}
