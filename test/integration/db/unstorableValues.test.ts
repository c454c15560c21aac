import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type Store } from '../../../src/db/store.js';
import { installErrorHandler } from '../../../src/http/errorHandler.js';
import { memoryLogger } from '../../support/fakeOpenAI.js';
import { createTestDatabase } from '../../support/postgres.js';

// Request validation refuses what PostgreSQL cannot hold (test/integration/http/unstorableInput.test.ts);
// should a value slip past it (a new field, data written before), the database's refusal is the
// client's 422 with one warning line, not a 500 with a stack trace per request. Always on
// PostgreSQL: these are its errors (SQLite stores all of these values).
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let store: Store;
let app: FastifyInstance;
const log = memoryLogger();

/** Statements PostgreSQL refuses for their value, each with its SQLSTATE. */
const REFUSED: Record<string, { sql: string; args: unknown[] }> = {
  '22021': { sql: 'SELECT CAST(? AS text) AS v', args: ['a\u0000b'] },
  '22P05': { sql: 'SELECT CAST(? AS jsonb) AS v', args: ['{"a":"\\u0000"}'] },
  '22003': { sql: 'SELECT CAST(? AS bigint) AS v', args: ['99999999999999999999'] },
  '22P02': { sql: 'SELECT CAST(? AS bigint) AS v', args: ['1e+308'] },
};

beforeAll(async () => {
  database = await createTestDatabase();
  store = await openPostgresStore(database.url);
  app = Fastify({ loggerInstance: log.logger as FastifyBaseLogger });
  installErrorHandler(app);
  app.get('/refused/:code', async (req) => {
    const { sql, args } = REFUSED[(req.params as { code: string }).code]!;
    return store.writer.write((db) => db.get(sql, args));
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await store?.close();
  await database?.drop();
});

describe("PostgreSQL's refusal of a value", () => {
  it.each(Object.keys(REFUSED))('%s → 422 {"detail": …}, one warning without a stack, and the store goes on', async (code) => {
    log.records.length = 0;
    const res = await app.inject({ method: 'GET', url: `/refused/${code}` });
    expect([res.statusCode, res.json()]).toEqual([422, { detail: 'A value in this request cannot be stored (the database refused it); nothing was stored' }]);
    const lines = log.records.filter((r) => (r.level as number) >= 40);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, code, msg: 'value refused by the database' });
    expect(JSON.stringify(lines[0])).not.toContain('stack');
    expect(await store.writer.write((db) => db.value('SELECT 1'))).toBe(1);
  });
});
