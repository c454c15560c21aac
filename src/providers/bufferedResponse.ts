// The part of a WHATWG Response that the openai SDK reads, over a body already read in full.
// WHATWG's Response and Headers (Node's bundled undici) cost this gateway ~8 % of its CPU per
// /run_prompt (a body stream, header validation, brand checks): a chat completion is one small
// JSON document, so none of that buys anything. What the SDK (pinned in the lockfile) reads, and
// the provider tests drive through the real SDK: `status`, `ok`, `url`, `headers.get/entries`,
// `body` (only to cancel it), `text()` and `json()`.

/** Response headers as undici's `request` gives them: lower-case names, repeated ones as arrays. */
export type RawHeaders = Record<string, string | string[] | undefined>;

/** Read-only headers with the lookups the SDK and retry.ts use; names are case-insensitive. */
export class BufferedHeaders {
  readonly #values = new Map<string, string>();

  constructor(raw: RawHeaders) {
    for (const [name, value] of Object.entries(raw)) {
      if (value !== undefined) this.#values.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
    }
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  entries(): IterableIterator<[string, string]> {
    return this.#values.entries();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#values.entries();
  }
}

export class BufferedResponse {
  readonly ok: boolean;
  readonly headers: BufferedHeaders;
  /** Already read: there is no stream to cancel. */
  readonly body = null;

  constructor(
    readonly url: string,
    readonly status: number,
    headers: RawHeaders,
    private readonly bodyText: string,
  ) {
    this.ok = status >= 200 && status < 300;
    this.headers = new BufferedHeaders(headers);
  }

  async text(): Promise<string> {
    return this.bodyText;
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.bodyText);
  }
}

/**
 * A streamed answer (`text/event-stream`): its body is undici's Node stream, which the SDK iterates
 * as it is (it takes any async iterable of bytes), so each chunk reaches it as it arrives.
 */
export class StreamedResponse {
  readonly ok: boolean;
  readonly headers: BufferedHeaders;

  constructor(
    readonly url: string,
    readonly status: number,
    headers: RawHeaders,
    readonly body: AsyncIterable<Uint8Array> & { text(): Promise<string> },
  ) {
    this.ok = status >= 200 && status < 300;
    this.headers = new BufferedHeaders(headers);
  }

  text(): Promise<string> {
    return this.body.text();
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.body.text());
  }
}
