import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { promptFileJsonSchema } from '../../../src/promptFiles/schema.js';

const COMMITTED = path.resolve(import.meta.dirname, '../../../docs/prompt-file.schema.json');
const generated = `${JSON.stringify(promptFileJsonSchema(), null, 2)}\n`;

describe('docs/prompt-file.schema.json', () => {
  it('is the schema generated from the TypeBox one (regenerate: PROMPTLINE_WRITE_SCHEMA=1 npx vitest run test/unit/promptFiles/schema.test.ts)', () => {
    if (process.env.PROMPTLINE_WRITE_SCHEMA === '1') fs.writeFileSync(COMMITTED, generated);
    expect(fs.readFileSync(COMMITTED, 'utf8')).toBe(generated);
  });

  it('is a JSON Schema with a stable id, refusing unknown fields', () => {
    const schema = promptFileJsonSchema();
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:promptline:schema:prompt-file',
      type: 'object',
      additionalProperties: false,
      required: ['prompt_id'],
    });
  });
});
