/** Parses a JSON column that the service itself wrote; a corrupt value is a bug, so it throws. */
export function parseJsonColumn<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
