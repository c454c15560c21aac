/** A database URL fit for a log line or an error: its password, if any, replaced. */
export function redactPassword(raw: string): string {
  return raw.replace(/^([a-z]+:\/\/[^:/@]*:).*@/i, '$1***@');
}
