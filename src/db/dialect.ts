/**
 * The SQL that differs between SQLite and PostgreSQL, as fragments a repository splices into its
 * statement. Everything else in a repository's SQL is written once, in the subset both speak
 * (placeholders are translated by the PostgreSQL adapter; SQLite's planner hints are dropped).
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** A set with one text column `value`: the elements of a JSON array held in `expression`. */
  jsonValues(expression: string): string;
  /** The text of one top-level field of the JSON object held in `expression`. */
  jsonField(expression: string, field: string): string;
  /** A physical row identity, for "delete the first N matching rows". */
  readonly rowId: string;
  /** A blob of `bytes` zero bytes. */
  zeroBlob(bytes: number): string;
  /**
   * A statement that tells the other processes on the database, once its transaction commits,
   * that management state changed (src/db/changeFeed.ts), with one parameter: what changed
   * (encodeChange). Null where they notice by themselves (SQLite: each process watches the file's
   * data_version, which says that something changed, never what).
   */
  readonly announceChange: string | null;
  /** A JSON array of `values`. */
  jsonArray(values: readonly string[]): string;
  /** A JSON value as its text (what a TEXT column stores and JSON.parse reads). */
  jsonText(expression: string): string;
  /** An aggregate: the JSON array of `expression` over the group's rows, in their order (`[]` for none). */
  jsonGroupArray(expression: string): string;
  /** A TEXT column that holds JSON, as a JSON value (to nest in jsonArray or jsonGroupArray). */
  jsonOf(expression: string): string;
  /**
   * The date (YYYY-MM-DD) `window` before the date `day` (both text): `window` is a parameter
   * holding SQLite's date modifier, `-N days`, which PostgreSQL reads as an interval.
   */
  dateShifted(day: string, window: string): string;
}

/** The channel PostgreSQL's NOTIFY carries management changes on. */
export const CHANGES_CHANNEL = 'promptline_changes';

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  jsonValues: (expression) => `json_each(${expression})`,
  jsonField: (expression, field) => `json_extract(${expression}, '$.${field}')`,
  rowId: 'rowid',
  zeroBlob: (bytes) => `zeroblob(${bytes})`,
  announceChange: null,
  jsonArray: (values) => `json_array(${values.join(', ')})`,
  jsonText: (expression) => expression,
  jsonGroupArray: (expression) => `json_group_array(${expression})`,
  jsonOf: (expression) => `json(${expression})`,
  dateShifted: (day, window) => `date(${day}, ${window})`,
};

export const postgresDialect: Dialect = {
  name: 'postgres',
  jsonValues: (expression) => `jsonb_array_elements_text(CAST(${expression} AS jsonb))`,
  jsonField: (expression, field) => `(CAST(${expression} AS jsonb) ->> '${field}')`,
  rowId: 'ctid',
  zeroBlob: (bytes) => `decode(repeat('00', ${bytes}), 'hex')`,
  announceChange: `SELECT pg_notify('${CHANGES_CHANNEL}', ?)`,
  jsonArray: (values) => `json_build_array(${values.join(', ')})`,
  jsonText: (expression) => `CAST(${expression} AS text)`,
  jsonGroupArray: (expression) => `coalesce(json_agg(${expression}), CAST('[]' AS json))`,
  jsonOf: (expression) => `CAST(${expression} AS json)`,
  dateShifted: (day, window) => `to_char(CAST(${day} AS date) + CAST(${window} AS interval), 'YYYY-MM-DD')`,
};
