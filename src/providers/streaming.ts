// A streamed answer in two halves. Opening it (openStream) is one attempt inside the gateway's
// retries: it ends at the first token, so a provider that fails before it is retried or replaced
// by a fallback like any failed call. Following it (followStream) is committed to that provider:
// each piece is passed on as it comes and kept for the run, and a failure or the caller leaving
// ends it with what came so far.
import type { AttemptContext } from './attempts.js';
import type { ChatAnswer, ChatChunk, ChatProvider, ChatRequest } from './chatProvider.js';
import type { ToolCall } from '../lib/modelConfig.js';
import type { ModelResult, ModelStream, ReportedUsage, StreamEnd, StreamEvent, StreamedToolCall, ToolCallDelta } from './types.js';

export interface OpenedStream {
  /** The chunks up to and including the first with text or a tool call (or every chunk, when none had). */
  head: ChatChunk[];
  /** The chunks after the head; null when the answer ended within it. */
  rest: AsyncIterator<ChatChunk> | null;
  /** performance.now() at the first token. */
  firstAt: number;
}

/** Reads a provider's stream up to its first token (a provider that cannot stream answers in one piece). */
export async function openStream(provider: ChatProvider, request: ChatRequest, signal: AbortSignal): Promise<OpenedStream> {
  if (!provider.stream) {
    const answer = await provider.call(request, signal);
    const whole: ChatChunk = { text: answer.output, toolCalls: callDeltas(answer.toolCalls), usage: answer.usage, reportedModel: answer.reportedModel };
    if (answer.usageEstimated !== undefined) whole.usageEstimated = answer.usageEstimated;
    return { head: [whole], rest: null, firstAt: performance.now() };
  }
  const iterator = provider.stream(request, signal)[Symbol.asyncIterator]();
  const head: ChatChunk[] = [];
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) {
        // The openai SDK ends a stream whose signal fired without an error: that is no answer.
        if (signal.aborted) throw new Error('the stream was aborted');
        return { head, rest: null, firstAt: performance.now() };
      }
      head.push(next.value);
      if (next.value.text !== '' || next.value.toolCalls !== null) return { head, rest: iterator, firstAt: performance.now() };
    }
  } catch (error) {
    await closeQuietly(iterator);
    throw error;
  }
}

interface FollowDeps {
  ctx: AttemptContext;
  /** The request's signal: the caller gone, the deadline, the server's shutdown. */
  stop: AbortSignal;
  /** What a provider's error means, in words without secrets. */
  classify(error: unknown): string;
  /** The answer as the gateway gives it: usage (or the tokenizer's count), price, cost, attempts. */
  result(answer: ChatAnswer): ModelResult;
  /** Frees the request's deadline timer and concurrency slot. */
  done(): void;
}

export function followStream(opened: OpenedStream, deps: FollowDeps): ModelStream {
  const ttftMs = Math.max(0, Math.round(opened.firstAt - deps.ctx.startedAt));
  let text = '';
  let usage: ReportedUsage | null = null;
  let usageEstimated = false;
  let reportedModel: string | null = null;
  const calls = new Map<number, StreamedToolCall>();
  let settle!: (end: StreamEnd) => void;
  const end = new Promise<StreamEnd>((resolve) => {
    settle = resolve;
  });

  /** Keeps what a chunk holds and says what to pass on. */
  function take(chunk: ChatChunk, out: StreamEvent[]): void {
    if (chunk.usage) {
      usage = chunk.usage;
      usageEstimated = chunk.usageEstimated ?? false;
    }
    if (chunk.reportedModel) reportedModel = chunk.reportedModel;
    if (chunk.text !== '') {
      text += chunk.text;
      out.push({ type: 'text', text: chunk.text });
    }
    for (const delta of chunk.toolCalls ?? []) {
      const call = calls.get(delta.index) ?? { index: delta.index, id: null, name: null, arguments: '' };
      if (delta.id !== undefined) call.id = delta.id;
      if (delta.name !== undefined) call.name = delta.name;
      if (delta.arguments !== undefined) call.arguments += delta.arguments;
      calls.set(delta.index, call);
      out.push({ type: 'tool_call', delta });
    }
  }

  /** How a stream whose signal fired ended: the caller left (cancelled), or the deadline or shutdown cut it (error). */
  function stopped(): Pick<StreamEnd, 'status' | 'error'> {
    const reason = deps.ctx.stopError();
    return reason.clientAborted ? { status: 'cancelled', error: null } : { status: 'error', error: reason.message };
  }

  async function* events(): AsyncGenerator<StreamEvent> {
    let ending: Pick<StreamEnd, 'status' | 'error'> | null = null;
    const out: StreamEvent[] = [];
    try {
      for (const chunk of opened.head) take(chunk, out);
      yield* out.splice(0);
      while (opened.rest) {
        const next = await opened.rest.next();
        if (next.done) break;
        take(next.value, out);
        yield* out.splice(0);
      }
      ending = deps.stop.aborted ? stopped() : { status: 'ok', error: null };
    } catch (error) {
      ending = deps.stop.aborted ? stopped() : { status: 'error', error: `Model provider error: ${deps.classify(error)}` };
    } finally {
      // Left early by the consumer: the upstream call is stopped (the SDK aborts it on return).
      if (ending === null) {
        ending = { status: 'cancelled', error: null };
        if (opened.rest) await closeQuietly(opened.rest);
      }
      deps.done();
      const toolCalls = [...calls.values()];
      const answer: ChatAnswer = { output: text, reportedModel, usage, usageEstimated, toolCalls: toolCalls.map(assembled) };
      settle({ ...ending, result: deps.result(answer), ttftMs, toolCalls });
    }
  }

  return { events: events(), end, deadlineAt: deps.ctx.startedAt + deps.ctx.settings.requestDeadlineMs };
}

/** A whole answer's tool calls as the pieces of one chunk (an answer that came in one piece); null: none. */
export function callDeltas(calls: readonly ToolCall[] | undefined): ToolCallDelta[] | null {
  if (calls === undefined || calls.length === 0) return null;
  return calls.map((c, index) => ({ index, id: c.id, name: c.function.name, arguments: c.function.arguments }));
}

/**
 * A streamed call as a run keeps it, the same shape as a whole answer's. A provider that never sent
 * its id or name (or a stream cut before them) leaves them empty, so the run still says what came.
 */
function assembled(call: StreamedToolCall): ToolCall {
  return { id: call.id ?? '', type: 'function', function: { name: call.name ?? '', arguments: call.arguments } };
}

async function closeQuietly(iterator: AsyncIterator<ChatChunk>): Promise<void> {
  try {
    await iterator.return?.();
  } catch {
    // The stream is being given up: how it failed to close changes nothing.
  }
}
