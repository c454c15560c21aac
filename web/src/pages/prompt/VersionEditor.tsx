import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { api } from '../../lib/api';
import { ApiError } from '../../lib/errors';
import { messageText } from '../../lib/runView';
import type { ChatMessage, Version } from '../../lib/types';
import { templateVariables } from '../../lib/variables';
import { FieldError, GeneralErrors } from '../parts';
import { GitConfirm } from './ManagedInGit';

const ROLES = ['system', 'user', 'assistant'];
const FIELDS = [
  'prompt_id',
  'description',
  'template',
  'messages',
  'model',
  'params',
  'fallbacks',
  'tools',
  'tool_choice',
  'response_format',
  'commit_message',
];

/** The base version's tools and response format as the JSON the editor shows ('' when it has none). */
function modelConfigJson(base: Version | undefined): string {
  const config = { tools: base?.tools, tool_choice: base?.tool_choice, response_format: base?.response_format };
  return Object.values(config).every((v) => v === undefined) ? '' : JSON.stringify(config);
}

/**
 * A new version (admin), starting from the newest one: text or chat, variables detected as you type.
 * Without `promptId` it makes a new prompt instead (its id, description, and version 1, labelled
 * production if asked): the same fields, one request, so a prompt never exists without its content.
 */
export function VersionEditor({ promptId, base, managedInGit = false }: { promptId?: string; base?: Version; managedInGit?: boolean }) {
  const isNewPrompt = promptId === undefined;
  const [newId, setNewId] = useState('');
  const [description, setDescription] = useState('');
  const [production, setProduction] = useState(true);
  const [type, setType] = useState<'text' | 'chat'>(base?.type ?? 'text');
  const [template, setTemplate] = useState(base?.template ?? '');
  const [messages, setMessages] = useState<ChatMessage[]>(base?.messages ?? [{ role: 'system', content: '' }]);
  const [model, setModel] = useState(base?.model ?? '');
  const [params, setParams] = useState(JSON.stringify(base?.params ?? {}));
  const [fallbacks, setFallbacks] = useState((base?.fallbacks ?? []).join(', '));
  const [modelConfig, setModelConfig] = useState(modelConfigJson(base));
  const [modelConfigError, setModelConfigError] = useState<string | null>(null);
  const [commitMessage, setCommitMessage] = useState('');
  const [paramsError, setParamsError] = useState<string | null>(null);
  // On a prompt managed in Git the version waits here until the warning is confirmed.
  const [held, setHeld] = useState<Record<string, unknown> | null>(null);
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const live = templateVariables(type === 'text' ? [template] : messages.map((m) => messageText(m.content)));

  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      isNewPrompt
        ? api<unknown>('POST', '/prompts', {
            prompt_id: newId,
            description: description.trim() === '' ? null : description,
            labels: production ? ['production'] : [],
            ...body,
          })
        : api<Version>('POST', `/prompts/${encodeURIComponent(promptId)}/versions`, body),
    onSuccess: async (created) => {
      if (isNewPrompt) {
        await queryClient.invalidateQueries({ queryKey: ['prompts'] });
        navigate(`/prompts/${encodeURIComponent(newId)}`);
        return;
      }
      await queryClient.invalidateQueries({ queryKey: ['versions', promptId] });
      await queryClient.invalidateQueries({ queryKey: ['prompt', promptId] });
      navigate(`/prompts/${encodeURIComponent(promptId)}/versions/${(created as Version).version}`);
    },
  });
  const error = create.error instanceof ApiError ? create.error : null;

  function submit(event: FormEvent) {
    event.preventDefault();
    // Errors follow the latest submit only: the API's answer to an earlier one (about a field fixed
    // since) goes, even when this submit stops at a problem found here, before any request.
    create.reset();
    let parsedParams: unknown;
    try {
      parsedParams = JSON.parse(params === '' ? '{}' : params);
      setParamsError(null);
    } catch {
      setParamsError('Parameters must be a JSON object, e.g. {"temperature": 0.2}');
      return;
    }
    let config: unknown = {};
    try {
      config = JSON.parse(modelConfig.trim() === '' ? '{}' : modelConfig);
      if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new Error('not an object');
      setModelConfigError(null);
    } catch {
      setModelConfigError('Tools and response format must be a JSON object, e.g. {"response_format": {"type": "json_object"}}');
      return;
    }
    const body = {
      ...(type === 'text' ? { template } : { messages }),
      model: model.trim() === '' ? null : model.trim(),
      params: parsedParams,
      fallbacks: fallbacks
        .split(',')
        .map((f) => f.trim())
        .filter((f) => f !== ''),
      ...(config as Record<string, unknown>),
      commit_message: commitMessage.trim() === '' ? null : commitMessage,
    };
    if (managedInGit) setHeld(body);
    else create.mutate(body);
  }

  const setMessage = (i: number, change: Partial<ChatMessage>) => setMessages(messages.map((m, j) => (j === i ? { ...m, ...change } : m)));
  return (
    <section aria-labelledby="editor-title">
      <h2 id="editor-title">{isNewPrompt ? 'New prompt' : 'New version'}</h2>
      <form onSubmit={submit} noValidate>
        {isNewPrompt && (
          <>
            <label htmlFor="new-prompt-id">Prompt id</label>
            <input id="new-prompt-id" value={newId} onChange={(e) => setNewId(e.target.value)} placeholder="letters, digits, _ . -" />
            <FieldError message={error?.forField('prompt_id')} />
            <label htmlFor="new-prompt-description">Description</label>
            <input id="new-prompt-description" value={description} onChange={(e) => setDescription(e.target.value)} />
            <FieldError message={error?.forField('description')} />
            <label className="inline">
              <input type="checkbox" checked={production} onChange={(e) => setProduction(e.target.checked)} /> Label version 1 production (callers are served
              it)
            </label>
          </>
        )}
        <fieldset className="inline">
          <legend>Kind</legend>
          {(['text', 'chat'] as const).map((kind) => (
            <label key={kind} className="inline">
              <input type="radio" name="kind" value={kind} checked={type === kind} onChange={() => setType(kind)} />{' '}
              {kind === 'text' ? 'Text' : 'Chat messages'}
            </label>
          ))}
        </fieldset>
        {type === 'text' ? (
          <>
            <label htmlFor="template">Template</label>
            <textarea id="template" rows={6} value={template} onChange={(e) => setTemplate(e.target.value)} />
            <FieldError message={error?.forField('template')} />
          </>
        ) : (
          <fieldset>
            <legend>Messages</legend>
            {messages.map((m, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a message's place is its identity while editing
              <div key={i} className="message-row">
                <label htmlFor={`role-${i}`}>Role of message {i + 1}</label>
                <select id={`role-${i}`} value={m.role} onChange={(e) => setMessage(i, { role: e.target.value })}>
                  {ROLES.map((r) => (
                    <option key={r}>{r}</option>
                  ))}
                </select>
                <label htmlFor={`content-${i}`}>Content of message {i + 1}</label>
                {typeof m.content === 'string' ? (
                  <textarea id={`content-${i}`} rows={3} value={m.content} onChange={(e) => setMessage(i, { content: e.target.value })} />
                ) : (
                  // Content parts (text and images) are kept as they are: the API edits them.
                  <pre id={`content-${i}`} className="message-content">
                    {messageText(m.content)}
                  </pre>
                )}
                <FieldError message={error?.forField(`messages.${i}`)} />
                {messages.length > 1 && (
                  <button type="button" onClick={() => setMessages(messages.filter((_, j) => j !== i))}>
                    Remove message {i + 1}
                  </button>
                )}
              </div>
            ))}
            <button type="button" onClick={() => setMessages([...messages, { role: 'user', content: '' }])}>
              Add a message
            </button>
            <FieldError message={error?.problems.find((p) => p.field === 'messages')?.message} />
          </fieldset>
        )}
        <p aria-live="polite" className={live.error === null ? 'muted' : 'error'}>
          {live.error !== null ? `Template problem: ${live.error}` : live.variables.length === 0 ? 'No variables.' : `Variables: ${live.variables.join(', ')}`}
        </p>
        <label htmlFor="model">Model</label>
        <input id="model" value={model} onChange={(e) => setModel(e.target.value)} placeholder="provider/model, empty for the server default" />
        <FieldError message={error?.forField('model')} />
        <label htmlFor="params">Parameters (JSON)</label>
        <input id="params" value={params} onChange={(e) => setParams(e.target.value)} />
        <FieldError message={paramsError ?? error?.forField('params')} />
        <label htmlFor="fallbacks">Fallback models (comma-separated)</label>
        <input id="fallbacks" value={fallbacks} onChange={(e) => setFallbacks(e.target.value)} />
        <FieldError message={error?.forField('fallbacks')} />
        <label htmlFor="model-config">Tools and response format (JSON: tools, tool_choice, response_format)</label>
        <textarea id="model-config" rows={3} value={modelConfig} onChange={(e) => setModelConfig(e.target.value)} />
        <FieldError message={modelConfigError ?? error?.forField('tools') ?? error?.forField('tool_choice') ?? error?.forField('response_format')} />
        <label htmlFor="commit-message">Commit message</label>
        <input id="commit-message" value={commitMessage} onChange={(e) => setCommitMessage(e.target.value)} />
        <FieldError message={error?.forField('commit_message')} />
        <GeneralErrors error={create.error} fields={FIELDS} />
        <button type="submit" disabled={create.isPending || held !== null}>
          {isNewPrompt ? 'Create prompt' : 'Create version'}
        </button>
        {held !== null && (
          <GitConfirm
            action="Create the version"
            onCancel={() => setHeld(null)}
            onConfirm={() => {
              create.mutate(held);
              setHeld(null);
            }}
          />
        )}
      </form>
    </section>
  );
}
