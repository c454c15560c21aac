import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Writes `value` as JSON to `name` in a fresh temporary directory and returns the file's path. */
export function writeTempJson(value: unknown, name = 'prices.json'): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-json-')), name);
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
}
