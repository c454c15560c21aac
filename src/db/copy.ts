import { createHash, type Hash } from 'node:crypto';
import { CopyError, type Endpoint, openEndpoint, type TableShape } from './copyEndpoints.js';

/**
 * `promptline db copy`: every row of one Promptline database into a new, empty one, between SQLite
 * and PostgreSQL in either direction (or the same backend twice). The two schemas have the same
 * tables and column names (migrations/postgres/0001_initial.sql), so rows move as value arrays in
 * the source's column order; schema_migrations is not copied (each backend numbers its own).
 */

/**
 * Every table, parents before children, so each INSERT finds the rows its foreign keys name. A
 * table the schema gains must be added here: the copy refuses a schema with a table it does not know
 * rather than silently leave it behind.
 */
export const COPY_TABLES = [
  'projects',
  'api_keys',
  'console_sessions',
  'prompts',
  'prompt_versions',
  'prompt_labels',
  'experiments',
  'assignments',
  'runs',
  'outcomes',
  'idempotency_keys',
  'audit_log',
  'webhooks',
  'webhook_deliveries',
  'experiment_signals',
  'experiment_schedule',
  'experiment_checks',
  'bandit_allocations',
  'storage_probe',
  'input_shapes',
  'datasets',
  'dataset_versions',
  'dataset_items',
  'dataset_uploads',
  'dataset_upload_items',
  'evaluators',
  'evaluator_versions',
  'online_evaluators',
  'run_scores',
  'evaluations',
  'evaluation_items',
] as const;

/** Rows per read and per INSERT: memory stays flat for a table of millions, and round trips stay few. */
const BATCH_ROWS = 1000;
/** PostgreSQL binds at most 65535 parameters per statement. */
const MAX_PARAMETERS = 65_535;

/** The source's tables in copy order; throws on one the copy does not know, or one it lacks. */
function tableOrder(schemaTables: Iterable<string>): string[] {
  const present = new Set(schemaTables);
  const known = new Set<string>(COPY_TABLES);
  const unknown = [...present].filter((t) => !known.has(t)).sort();
  if (unknown.length > 0) throw new CopyError(`the source has table(s) this Promptline's copy does not know: ${unknown.join(', ')}`);
  const missing = COPY_TABLES.filter((t) => !present.has(t));
  if (missing.length > 0) throw new CopyError(`the source lacks table(s): ${missing.join(', ')}`);
  return [...COPY_TABLES];
}

/**
 * One value as both backends give it back, so equal data hashes equal: BIGINT and INTEGER are both
 * JS numbers, BYTEA and BLOB both Buffers (hashed as base64), TEXT (JSON included) a string. Doubles
 * keep every bit through JSON's shortest round-trip form, except -0, which SQLite stores as 0 anyway;
 * the non-finite ones, which JSON would turn into null, are tagged.
 */
function canonicalValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : { number: String(value) };
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : { integer: value.toString() };
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw new CopyError(`cannot compare a value of type ${Object.prototype.toString.call(value)}`);
}

/** One row as one line of canonical JSON (the unit of the checksum). */
export function canonicalRow(values: readonly unknown[]): string {
  return `${JSON.stringify(values.map(canonicalValue))}\n`;
}

/** Row count and sha256 over the canonical rows, fed in primary-key order. */
class TableChecksum {
  rows = 0;
  private readonly hash: Hash = createHash('sha256');
  add(rows: readonly (readonly unknown[])[]): void {
    for (const row of rows) this.hash.update(canonicalRow(row));
    this.rows += rows.length;
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}

interface TableReport {
  table: string;
  rows: number;
  checksum: string;
  targetRows: number;
  targetChecksum: string;
  ok: boolean;
}

export interface CopyResult {
  /** Both labels are safe to print: postgres URLs have their password replaced. */
  from: string;
  to: string;
  tables: TableReport[];
  /** Every table matched, and the copy was committed; false: it was rolled back, the target is empty. */
  ok: boolean;
  milliseconds: number;
}

export interface CopyOptions {
  batchRows?: number;
  /** Called as each table is copied (the CLI shows progress on a terminal). */
  onTable?: (table: string, rows: number) => void;
}

function checkVersion(side: Endpoint, role: string, { version, known }: { version: number; known: number }): void {
  if (version === known) return;
  const hint =
    role === 'source'
      ? version < known
        ? 'start this Promptline on it once (it migrates on start), then copy'
        : 'copy it with the Promptline that wrote it'
      : 'copy into a database this Promptline can migrate';
  throw new CopyError(`${role} ${side.label} has schema version ${version}, this Promptline's is ${known}: ${hint}`);
}

/** The target's tables must have the source's columns (any order: inserts name them). */
function checkShapes(source: Map<string, TableShape>, target: Map<string, TableShape>, tables: string[], label: string): void {
  for (const table of tables) {
    const want = [...source.get(table)!.columns].sort().join(', ');
    const have = [...(target.get(table)?.columns ?? [])].sort().join(', ');
    if (want !== have) throw new CopyError(`${label} table ${table} has columns (${have}), the source has (${want})`);
  }
}

/**
 * Copies, verifies and commits. The target gets one transaction for all tables, verified before
 * COMMIT: a copy that fails or does not match is rolled back, leaving the target with its (migrated)
 * schema and no rows. The source is read in one snapshot, so a server may keep writing to it.
 */
export async function copyDatabase(from: string, to: string, options: CopyOptions = {}): Promise<CopyResult> {
  const started = performance.now();
  if (from === to) throw new CopyError('--from and --to name the same database');
  const source = await openEndpoint(from, 'source');
  try {
    checkVersion(source, 'source', await source.schemaVersion());
    const shapes = await source.tables();
    const tables = tableOrder(shapes.keys());
    const target = await openEndpoint(to, 'target');
    try {
      const refuse = (table: string) => new CopyError(`${target.label} is not empty (table ${table} has rows): copy only into a new, empty database`);
      // Before migrating: a refused target is left exactly as it was.
      const occupied = await target.firstNonEmptyTable();
      if (occupied !== null) throw refuse(occupied);
      await target.migrate();
      checkVersion(target, 'target', await target.schemaVersion());
      checkShapes(shapes, await target.tables(), tables, target.label);

      await source.begin('read');
      await target.begin('write');
      try {
        // Again under the write lock: a server may have written since the first look.
        const late = await target.firstNonEmptyTable();
        if (late !== null) throw refuse(late);
        const reports = await copyTables(source, target, shapes, tables, options);
        const ok = reports.every((r) => r.ok);
        await (ok ? target.commit() : target.rollback());
        return { from: source.label, to: target.label, tables: reports, ok, milliseconds: Math.round(performance.now() - started) };
      } catch (error) {
        await target.rollback();
        throw error;
      } finally {
        await source.rollback();
      }
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function copyTables(source: Endpoint, target: Endpoint, shapes: Map<string, TableShape>, tables: string[], options: CopyOptions) {
  const sums = new Map<string, TableChecksum>();
  for (const table of tables) {
    const { columns, primaryKey } = shapes.get(table)!;
    // Key order is the same on both sides: PostgreSQL's text is COLLATE "C", SQLite's BINARY (both byte order).
    const orderBy = primaryKey.length > 0 ? primaryKey : columns;
    const batch = Math.min(options.batchRows ?? BATCH_ROWS, Math.floor(MAX_PARAMETERS / columns.length));
    const sum = new TableChecksum();
    try {
      // One INSERT in flight while the next batch is read and hashed: the copy waits on the slower side only.
      let inFlight: Promise<void> = Promise.resolve();
      for await (const rows of source.rows(table, columns, orderBy, batch)) {
        sum.add(rows);
        await inFlight;
        inFlight = target.insert(table, columns, rows);
        inFlight.catch(() => undefined); // awaited above or below; this only keeps it from counting as unhandled
      }
      await inFlight;
    } catch (error) {
      if (error instanceof CopyError) throw error;
      throw new CopyError(`copying ${table} failed, nothing was written to the target: ${(error as Error).message}`, { cause: error });
    }
    sums.set(table, sum);
    options.onTable?.(table, sum.rows);
  }
  // Read back what the target now holds, in the same order, hashed the same way.
  const reports: TableReport[] = [];
  for (const table of tables) {
    const { columns, primaryKey } = shapes.get(table)!;
    const readBack = new TableChecksum();
    for await (const rows of target.rows(table, columns, primaryKey.length > 0 ? primaryKey : columns, BATCH_ROWS)) readBack.add(rows);
    const copied = sums.get(table)!;
    const checksum = copied.digest();
    const targetChecksum = readBack.digest();
    reports.push({
      table,
      rows: copied.rows,
      checksum,
      targetRows: readBack.rows,
      targetChecksum,
      ok: copied.rows === readBack.rows && checksum === targetChecksum,
    });
  }
  return reports;
}
