/**
 * How Python writes text, for the messages pydantic would give: len() in code points, repr() of a
 * str, and the list of expected literals. Shared by the FastAPI edge (src/http/fastapi/) and the
 * typed variables of the prompts module, which word their 422s the same way.
 */

/** Code points, as Python's len(). */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Python's repr() of a str: the quote it picks, and the characters it escapes. */
export function pythonStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i] as string;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c < 0x20 || (c >= 0x7f && c <= 0xa0) || c === 0xad) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff && !isPairAt(s, i)) out += `\\u${c.toString(16)}`;
    else out += ch;
    if (c >= 0xd800 && c <= 0xdbff && isPairAt(s, i)) out += s[++i] as string;
  }
  return out + quote;
}

function isPairAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff;
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const b = s.charCodeAt(i - 1);
    return b >= 0xd800 && b <= 0xdbff;
  }
  return false;
}

/** pydantic's "'a', 'b' or 'c'" list of expected literals. */
export function expectedList(reprs: string[]): string {
  if (reprs.length <= 1) return reprs.join('');
  return `${reprs.slice(0, -1).join(', ')} or ${reprs[reprs.length - 1]}`;
}
