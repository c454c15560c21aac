import { Type, type Static } from '@sinclair/typebox';

/**
 * One part of a message's content (OpenAI's content parts): text, or an image by URL
 * (docs/tools-and-structured-output.md, "Images"). In a version both are templates.
 */
const TextPartSchema = Type.Object({ type: Type.Literal('text'), text: Type.String({ maxLength: 100_000 }) });
const ImagePartSchema = Type.Object({
  type: Type.Literal('image_url'),
  image_url: Type.Object({
    url: Type.String({
      maxLength: 100_000,
      description: 'http(s) or a data URL (data:image/…;base64,…, at most 5 MB of base64 once rendered); may hold {{variables}}',
    }),
    detail: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('low'), Type.Literal('high')])),
  }),
});
export type ContentPart = Static<typeof TextPartSchema> | Static<typeof ImagePartSchema>;

/** The request validator tells the parts apart by `type` (a discriminated union): see http/fastapi/pydanticValidator.ts. */
const ContentPartSchema = Type.Union([TextPartSchema, ImagePartSchema], { description: 'a text part or an image part' });

/** One message of a chat prompt: what a version stores (as a template), renders and sends to a model. */
export const ChatMessageSchema = Type.Object({
  role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
  content: Type.Union([Type.String({ maxLength: 100_000 }), Type.Array(ContentPartSchema, { minItems: 1, maxItems: 50 })], {
    description: 'a template, or a list of content parts (text, image_url) whose text and URLs are templates',
  }),
});

export type ChatMessage = Static<typeof ChatMessageSchema>;
export type ChatRole = ChatMessage['role'];

/** A message's content as text: its text parts one after another, each image as `[image]` (a data URL can be megabytes). */
export function contentText(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' ? p.text : '[image]')).join('\n');
}

/** The text form of a chat prompt: `"{role}: {content}"` blocks separated by a blank line (/get_prompt's `prompt_text`). */
export function joinMessages(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `${m.role}: ${contentText(m.content)}`).join('\n\n');
}
