import { describe, expect, it } from 'vitest';
import { mapLabels, modelParams, nonVariableTags, toModel, toPromptId, toRole } from '../../../../src/cli/import/mapCommon.js';

describe('toPromptId', () => {
  it.each([
    ['welcome', 'welcome'],
    ['movie-critic_2.0', 'movie-critic_2.0'],
    ['support/triage', 'support.triage'],
    ['Hello World!', 'Hello-World'],
    ['  spaced  ', 'spaced'],
    ['///', '...'],
    ['!!!', null],
    ['', null],
    ['x'.repeat(130), 'x'.repeat(128)],
  ])('%j → %j', (name, id) => expect(toPromptId(name)).toBe(id));
});

describe('mapLabels', () => {
  it.each([
    [['production', 'latest'], { kept: ['production'], dropped: [] }],
    [['staging', 'canary-2'], { kept: ['staging', 'canary-2'], dropped: [] }],
    [['Staging Env'], { kept: [], dropped: ["label 'Staging Env' does not fit Promptline's labels (a-z 0-9 _ -, up to 64): not moved"] }],
    [[7], { kept: [], dropped: ['label 7 is not a string'] }],
    [['l'.repeat(65)], { kept: [], dropped: [`label '${'l'.repeat(65)}' does not fit Promptline's labels (a-z 0-9 _ -, up to 64): not moved`] }],
  ])('%j', (labels, expected) => expect(mapLabels(labels, ['latest'])).toEqual(expected));
});

describe('toModel', () => {
  it.each([
    [undefined, undefined, { model: null, problem: null }],
    ['gpt-4o', undefined, { model: 'openai/gpt-4o', problem: null }],
    ['o3-mini', undefined, { model: 'openai/o3-mini', problem: null }],
    ['claude-3-5-sonnet-20241022', undefined, { model: 'anthropic/claude-3-5-sonnet-20241022', problem: null }],
    ['gemini-1.5-pro', undefined, { model: 'google/gemini-1.5-pro', problem: null }],
    ['mistral-large-latest', undefined, { model: 'mistral/mistral-large-latest', problem: null }],
    ['gpt-4o', 'azure', { model: 'azure/gpt-4o', problem: null }],
    ['openrouter/meta-llama-3', undefined, { model: 'openrouter/meta-llama-3', problem: null }],
    ['llama3:8b', undefined, { model: null, problem: "model 'llama3:8b': unknown provider (give --provider): left unset, the server's default model serves it" }],
    ['llama3:8b', 'local', { model: 'local/llama3:8b', problem: null }],
    ['two words', undefined, { model: null, problem: "model 'two words' is not a model name: left unset" }],
    [42, undefined, { model: null, problem: 'model 42 is not a string: left unset' }],
  ])('%j with provider %j', (model, provider, expected) => expect(toModel(model, provider)).toEqual(expected));
});

describe('modelParams', () => {
  it.each([
    [{ model: 'x', temperature: 0.2 }, { params: { temperature: 0.2 }, left: [] }],
    [{ max_tokens: 10, stop: ['\n'], supported_languages: ['en'] }, { params: { max_tokens: 10, stop: ['\n'] }, left: ['supported_languages'] }],
    [{ stream: true, n: 2 }, { params: {}, left: ['stream', 'n'] }],
  ])('%j', (config, expected) => expect(modelParams(config, ['model'])).toEqual(expected));
});

describe('nonVariableTags: what a plain {{variable}} template would not mean in Mustache', () => {
  it.each([
    ['Hi {{name}}', []],
    ['Hi {{ name }} and {{other_1}} {{a-b}}', []],
    ['{{#vip}}x{{/vip}}', ['{{#vip}}', '{{/vip}}']],
    ['{{^none}}', ['{{^none}}']],
    ['{{> partial}}', ['{{> partial}}']],
    ['{{! comment }}', ['{{! comment }}']],
    ['{{{raw}}}', ['{{{raw}}}']],
    ['{{&raw}}', ['{{&raw}}']],
    ['{{a.b}}', ['{{a.b}}']],
    ['{{ two words }}', ['{{ two words }}']],
    ['no tags { single }', []],
  ])('%j → %j', (template, expected) => expect(nonVariableTags(template)).toEqual(expected));
});

describe('toRole', () => {
  it.each([
    ['system', 'system'],
    ['user', 'user'],
    ['assistant', 'assistant'],
    ['developer', 'system'],
    ['tool', null],
    [undefined, null],
  ])('%j → %j', (role, expected) => expect(toRole(role)).toBe(expected));
});
