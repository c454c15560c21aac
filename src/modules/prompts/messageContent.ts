import type { ChatMessage, ChatRole, ContentPart } from '../../lib/chatMessage.js';
import { invalid, invalidIssue, type Issue } from '../../lib/errors.js';
import type { CompiledTemplate } from './template.js';

/**
 * A chat message's content as a version compiles it: one template, or content parts (text and
 * images) whose text and URLs are templates (docs/tools-and-structured-output.md, "Images").
 */
export type CompiledPart =
  | { readonly type: 'text'; readonly template: CompiledTemplate }
  | { readonly type: 'image_url'; readonly url: CompiledTemplate; readonly detail: 'auto' | 'low' | 'high' | undefined };

export interface CompiledMessage {
  readonly role: ChatRole;
  /** A message whose content is one string; null when it has parts. */
  readonly template: CompiledTemplate | null;
  readonly parts: readonly CompiledPart[] | null;
}

/** Every template of a message, in order (text, then each part's text or URL). */
export function messageTemplates(message: CompiledMessage): CompiledTemplate[] {
  if (message.template !== null) return [message.template];
  return (message.parts ?? []).map((p) => (p.type === 'text' ? p.template : p.url));
}

/**
 * A data URL may hold at most this many characters once rendered (5 MiB of base64, about 3.75 MiB
 * of image): above it, the render is a 422 naming the input. OpenAI's own limit is 20 MB per image.
 */
const MAX_DATA_URL_CHARS = 5 * 1024 * 1024;
const SCHEMES = ['https://', 'http://', 'data:image/'];

/** A message's content with nothing in it to send. */
export function isBlank(content: ChatMessage['content']): boolean {
  if (typeof content === 'string') return content.trim() === '';
  return content.every((p) => p.type === 'text' && p.text.trim() === '');
}

/**
 * At creation: an image URL whose literal beginning (before any variable) already rules out
 * http(s) and data:image/ is refused where it stands.
 */
export function checkImageUrls(messages: readonly ChatMessage[]): Issue[] {
  const issues: Issue[] = [];
  messages.forEach((m, i) => {
    if (typeof m.content === 'string') return;
    m.content.forEach((part: ContentPart, j) => {
      if (part.type !== 'image_url') return;
      const url = part.image_url.url;
      const literal = url.split('{{', 1)[0]!.toLowerCase();
      const whole = !url.includes('{{');
      const fits = SCHEMES.some((s) => (whole ? literal.startsWith(s) : literal.startsWith(s) || s.startsWith(literal)));
      if (!fits) issues.push(invalidIssue('body', ['messages', i, 'content', j, 'image_url', 'url'], 'an image URL is http(s) or a data URL (data:image/…)'));
    });
  });
  return issues;
}

/**
 * A rendered image URL, checked before anything is sent: http(s), or a data URL of an image within
 * MAX_DATA_URL_CHARS. The 422 names the URL's first input (the one that gave it), else `inputs`.
 */
export function checkRenderedUrl(url: string, template: CompiledTemplate): void {
  const lower = url.slice(0, 16).toLowerCase();
  const where = template.variables.length > 0 ? ['inputs', template.variables[0]!] : ['inputs'];
  if (lower.startsWith('data:')) {
    if (!lower.startsWith('data:image/')) throw invalid('body', where, 'a data URL of an image part must be data:image/…');
    if (url.length > MAX_DATA_URL_CHARS) {
      throw invalid('body', where, `the image's data URL has ${url.length} characters, more than the ${MAX_DATA_URL_CHARS} allowed (5 MiB of base64)`);
    }
    return;
  }
  if (!lower.startsWith('https://') && !lower.startsWith('http://')) throw invalid('body', where, 'an image URL is http(s) or a data URL (data:image/…)');
}

/**
 * What a run stores in place of a data URL (the image itself is never stored nor logged):
 * `data:image/png;base64,…(123456 bytes)`, the size being that of the URL.
 */
export function dataUrlPlaceholder(url: string): string {
  const comma = url.indexOf(',');
  const head = comma > 0 && comma < 200 ? url.slice(0, comma + 1) : 'data:';
  return `${head}…(${url.length} bytes)`;
}

/** Long data URLs in a value replaced by their placeholder; anything else as it is. */
export function withoutDataUrls<T>(value: T): T {
  if (typeof value === 'string') return (value.startsWith('data:') && value.length > 256 ? dataUrlPlaceholder(value) : value) as T;
  if (Array.isArray(value)) return value.map(withoutDataUrls) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, withoutDataUrls(v)])) as T;
  }
  return value;
}
