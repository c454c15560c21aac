import fs from 'node:fs';

/**
 * Text files the CLI imports (dataset items, prompts from other tools), read as UTF-8 the same way
 * in every format: a byte-order mark at the start is skipped (editors on Windows write one), and
 * bytes that are not UTF-8 (a file saved as Latin-1 or Windows-1252) are refused with the line they
 * are on, rather than read as U+FFFD and imported as such.
 */

export const NOT_UTF8 = 'not UTF-8 text: save the file as UTF-8 (its bytes here are another encoding, such as Latin-1)';

const LF = 0x0a;
const isBom = (bytes: Buffer) => bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

/** One line's bytes as text, or null when they are not UTF-8. A line can be decoded alone: no multi-byte character holds the byte LF. */
function decodeLine(bytes: Buffer): string | null {
  // ignoreBOM: only the file's own mark, at its very start, is skipped (by the callers).
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * A file's lines as they are read (a stream: memory holds one line), each with its number and its
 * text including its line end (`\n`, `\r\n`), or null for text when the line is not UTF-8.
 */
export async function* utf8Lines(file: string): AsyncGenerator<{ line: number; text: string | null }> {
  let pending: Buffer[] = [];
  let line = 0;
  let first = true;
  const take = (end: Buffer[]): { line: number; text: string | null } => {
    let bytes = Buffer.concat(end);
    if (first) {
      first = false;
      if (isBom(bytes)) bytes = bytes.subarray(3);
    }
    line += 1;
    return { line, text: decodeLine(bytes) };
  };
  for await (const chunk of fs.createReadStream(file)) {
    const bytes = chunk as Buffer;
    let start = 0;
    for (let end = bytes.indexOf(LF); end !== -1; end = bytes.indexOf(LF, start)) {
      pending.push(bytes.subarray(start, end + 1));
      yield take(pending);
      pending = [];
      start = end + 1;
    }
    if (start < bytes.length) pending.push(bytes.subarray(start));
  }
  if (pending.length > 0) yield take(pending);
}

/** A whole (small) file as text, its byte-order mark skipped; `file:line: not UTF-8…` thrown at its first line that is not. */
export function readUtf8File(file: string): string {
  let bytes = fs.readFileSync(file);
  if (isBom(bytes)) bytes = bytes.subarray(3);
  const whole = decodeLine(bytes);
  if (whole !== null) return whole;
  let line = 1;
  for (let start = 0, end = bytes.indexOf(LF); end !== -1 && decodeLine(bytes.subarray(start, end)) !== null; end = bytes.indexOf(LF, start)) {
    start = end + 1;
    line += 1;
  }
  throw new Error(`${file}:${line}: ${NOT_UTF8}`);
}

/** The line (1-based) of a character index in a text. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
