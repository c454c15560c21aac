import { Type, type Static } from '@sinclair/typebox';

/** One message of a chat prompt: what a version stores (as a template), renders and sends to a model. */
export const ChatMessageSchema = Type.Object({
  role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
  content: Type.String({ maxLength: 100_000 }),
});

export type ChatMessage = Static<typeof ChatMessageSchema>;
export type ChatRole = ChatMessage['role'];

/** The text form of a chat prompt: `"{role}: {content}"` blocks separated by a blank line (/get_prompt's `prompt_text`). */
export function joinMessages(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `${m.role}: ${m.content}`).join('\n\n');
}
