/**
 * List pages bounded in bytes: in a list, a column that can be large is read only when it holds at
 * most LIST_FIELD_BYTES (its stored UTF-8); a larger one is not read at all (its size alone is,
 * which neither SQLite nor PostgreSQL needs the value's pages for) and is named as left out, so the
 * client knows to GET the row itself. The SQL decides, so large values never reach this process.
 */
export const LIST_FIELD_BYTES = 8192;

/** The select-list items that read `column` in a list: the value or NULL, and `<column>_left_out` 1 or 0. */
export function boundedColumn(column: string): string {
  const large = `octet_length(${column}) > ${LIST_FIELD_BYTES}`;
  return `CASE WHEN ${large} THEN NULL ELSE ${column} END AS ${column}, CASE WHEN ${large} THEN 1 ELSE 0 END AS ${column}_left_out`;
}
