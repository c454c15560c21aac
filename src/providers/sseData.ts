// The `data` of each server-sent event in a byte stream (the WHATWG event-stream format, as
// OpenAI-compatible servers send chat-completion chunks): lines split on LF or CRLF, an event
// ended by a blank line, its `data:` lines joined by LF. Other fields (event, id, retry) and
// comments carry nothing a chat completion needs and are skipped.
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = '';
  let data: string[] = [];
  const take = function* (line: string): Generator<string> {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (text === '') {
      if (data.length > 0) yield data.join('\n');
      data = [];
    } else if (text.startsWith('data:')) {
      data.push(text.slice(text.startsWith('data: ') ? 6 : 5));
    }
  };
  for await (const bytes of body) {
    pending += decoder.decode(bytes, { stream: true });
    let start = 0;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n', start)) {
      yield* take(pending.slice(start, end));
      start = end + 1;
    }
    pending = pending.slice(start);
  }
  pending += decoder.decode();
  if (pending !== '') yield* take(pending);
  yield* take('');
}
