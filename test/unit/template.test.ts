import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate, TemplateError } from '../../src/modules/prompts/template.js';

describe('compileTemplate: variables', () => {
  it.each([
    ['Hello {{name}}', ['name']],
    ['{{a}} {{b}} {{a}}', ['a', 'b']],
    ['{{{raw}}} {{&amp}}', ['raw', 'amp']],
    ['{{#items}}{{title}}{{/items}}', ['items']],
    ['{{^empty}}none{{/empty}} {{x}}', ['empty', 'x']],
    ['{{user.name}}', ['user']],
    ['{{! a comment }}plain', []],
    ['', []],
  ])('%j → %j', (source, variables) => {
    expect(compileTemplate(source).variables).toEqual(variables);
  });

  it.each([
    ['{{> partial}}', 'partials'],
    ['{{=<% %>=}}', 'delimiter changes'],
    ['{{#open}}x', 'Unclosed section'],
    ['{{/close}}', 'Unopened section'],
    ['{{name', 'Unclosed tag'],
  ])('rejects %j', (source, why) => {
    expect(() => compileTemplate(source)).toThrow(TemplateError);
    expect(() => compileTemplate(source)).toThrow(why);
  });
});

describe('renderTemplate', () => {
  it.each([
    ['Hi {{name}}', { name: '<b>&"' }, 'Hi <b>&"'],
    ['{{n}} {{f}} {{t}} {{z}}', { n: 3, f: 2.5, t: true, z: false }, '3 2.5 true false'],
    ['[{{nothing}}]', { nothing: null }, '[]'],
    ['{{obj}}', { obj: { a: [1, 'x'] } }, '{"a":[1,"x"]}'],
    ['{{#items}}<{{.}}>{{/items}}', { items: ['a', 'b'] }, '<a><b>'],
    ['{{#items}}{{name}}:{{outer}} {{/items}}', { items: [{ name: 'a' }, { name: 'b' }], outer: 'o' }, 'a:o b:o '],
    ['{{#flag}}yes{{/flag}}{{^flag}}no{{/flag}}', { flag: false }, 'no'],
    ['{{#flag}}yes{{/flag}}', { flag: 'x' }, 'yes'],
    ['{{^missing}}fallback{{/missing}}', {}, 'fallback'],
    ['{{#list}}x{{/list}}{{^list}}empty{{/list}}', { list: [] }, 'empty'],
    ['{{user.name}} {{user.age}}', { user: { name: 'Ann', age: 30 } }, 'Ann 30'],
    ['Olá {{nome}} 👋', { nome: 'Zoë' }, 'Olá Zoë 👋'],
  ])('%j with %j → %j', (source, inputs, text) => {
    expect(renderTemplate(compileTemplate(source), inputs)).toEqual({ ok: true, text });
  });

  it.each([
    ['{{a}} {{b}} {{a}}', { b: 1 }, ['a']],
    ['{{a}} {{b}}', {}, ['a', 'b']],
    ['{{#items}}{{x}}{{/items}}', {}, ['items']],
    ['{{#items}}{{name}}{{/items}}', { items: [{ other: 1 }] }, ['name']],
    ['{{user.name}}', { user: {} }, ['user.name']],
    ['{{__proto__}} {{constructor}}', {}, ['__proto__', 'constructor']],
  ])('%j with %j reports missing %j', (source, inputs, missing) => {
    expect(renderTemplate(compileTemplate(source), inputs as Record<string, unknown>)).toEqual({ ok: false, missing });
  });
});
