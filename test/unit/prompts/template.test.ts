import { describe, expect, it } from 'vitest';
import Mustache from 'mustache';
import { compileTemplate, MAX_TEMPLATE_DEPTH, RenderBudget, renderTemplate, TemplateError } from '../../../src/modules/prompts/template.js';

const roomy = () => new RenderBudget({ maxBytes: 1_048_576, maxSteps: 100_000 });

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
    expect(renderTemplate(compileTemplate(source), inputs, roomy())).toEqual({ ok: true, text });
  });

  it.each([
    ['{{a}} {{b}} {{a}}', { b: 1 }, ['a']],
    ['{{a}} {{b}}', {}, ['a', 'b']],
    ['{{#items}}{{x}}{{/items}}', {}, ['items']],
    ['{{#items}}{{name}}{{/items}}', { items: [{ other: 1 }] }, ['name']],
    ['{{user.name}}', { user: {} }, ['user.name']],
    ['{{__proto__}} {{constructor}}', {}, ['__proto__', 'constructor']],
  ])('%j with %j reports missing %j', (source, inputs, missing) => {
    expect(renderTemplate(compileTemplate(source), inputs as Record<string, unknown>, roomy())).toEqual({ ok: false, missing });
  });
});

describe('renderTemplate: the budget is checked while rendering', () => {
  const grid = compileTemplate('{{#rows}}{{#cols}}.{{/cols}}{{/rows}}');
  const zeros = (n: number) => Array<number>(n).fill(0);

  it.each([
    // [template, inputs, limits, outcome]
    ['grid 10×10 fits', grid, { rows: zeros(10), cols: zeros(10) }, { maxBytes: 100, maxSteps: 1000 }, { ok: true, text: '.'.repeat(100) }],
    ['grid one byte over', grid, { rows: zeros(10), cols: zeros(10) }, { maxBytes: 99, maxSteps: 1000 }, { ok: false, exceeded: 'bytes' }],
    ['grid 12 000 × 12 000 stops on steps', grid, { rows: zeros(12_000), cols: zeros(12_000) }, { maxBytes: 1 << 30, maxSteps: 100_000 }, { ok: false, exceeded: 'steps' }],
    ['grid 12 000 × 12 000 stops on bytes first when they are tighter', grid, { rows: zeros(12_000), cols: zeros(12_000) }, { maxBytes: 1000, maxSteps: 100_000 }, { ok: false, exceeded: 'bytes' }],
    ['empty sections still cost steps', compileTemplate('{{#a}}{{#b}}{{/b}}{{/a}}'), { a: zeros(1000), b: zeros(1000) }, { maxBytes: 1 << 20, maxSteps: 10_000 }, { ok: false, exceeded: 'steps' }],
    ['one huge value multiplied', compileTemplate('{{#items}}{{user}}{{/items}}'), { items: zeros(1200), user: 'x'.repeat(400_000) }, { maxBytes: 1 << 20, maxSteps: 100_000 }, { ok: false, exceeded: 'bytes' }],
    ['objects count as the JSON they write', compileTemplate('{{#i}}{{o}}{{/i}}'), { i: zeros(100), o: { k: 'v'.repeat(100) } }, { maxBytes: 5000, maxSteps: 100_000 }, { ok: false, exceeded: 'bytes' }],
    ['bytes are UTF-8 bytes, not characters', compileTemplate('{{s}}'), { s: 'é'.repeat(60) }, { maxBytes: 100, maxSteps: 100 }, { ok: false, exceeded: 'bytes' }],
  ] as const)('%s', (_name, template, inputs, limits, outcome) => {
    expect(renderTemplate(template, inputs as Record<string, unknown>, new RenderBudget(limits))).toEqual(outcome);
  });

  it('stops the 40-level [1,1] bomb (2^40 steps) after the budget, not after 2^40', () => {
    const deep = compileTemplate(`${'{{#a}}'.repeat(30)}x${'{{/a}}'.repeat(30)}`);
    const budget = new RenderBudget({ maxBytes: 1 << 20, maxSteps: 100_000 });
    expect(renderTemplate(deep, { a: [1, 1] }, budget)).toEqual({ ok: false, exceeded: 'steps' });
    expect(budget.steps).toBe(100_001);
  });

  it('shares one budget between templates (the messages of a chat prompt add up)', () => {
    const budget = new RenderBudget({ maxBytes: 10, maxSteps: 100 });
    expect(renderTemplate(compileTemplate('{{a}}'), { a: '123456' }, budget)).toEqual({ ok: true, text: '123456' });
    expect(renderTemplate(compileTemplate('{{a}}'), { a: '123456' }, budget)).toEqual({ ok: false, exceeded: 'bytes' });
  });
});

describe('compileTemplate: shape limits', () => {
  it(`accepts ${MAX_TEMPLATE_DEPTH} nested sections and refuses one more, without recursing into the rest`, () => {
    const nest = (n: number) => `${'{{#a}}'.repeat(n)}x${'{{/a}}'.repeat(n)}`;
    expect(compileTemplate(nest(MAX_TEMPLATE_DEPTH)).variables).toEqual(['a']);
    expect(() => compileTemplate(nest(MAX_TEMPLATE_DEPTH + 1))).toThrow(`sections nest deeper than ${MAX_TEMPLATE_DEPTH} levels`);
    expect(() => compileTemplate(nest(3556))).toThrow(TemplateError);
  });

  it.each([
    ['plain text', 'héllo', 1, 6],
    ['text and a value', 'Hi {{name}}!', 3, 4],
    ['a section with children', '{{#a}}x{{b}}{{/a}}', 3, 1],
    ['comments cost nothing', '{{! note }}', 0, 0],
  ])('%s: %j has %d nodes and %d bytes of text', (_name, source, nodes, bytes) => {
    const t = compileTemplate(source);
    expect([t.nodeCount, t.textBytes]).toEqual([nodes, bytes]);
  });

  it('does not keep every template it parsed (mustache caches them forever by default)', () => {
    compileTemplate(`unique ${Math.random()} {{x}}`);
    expect(Mustache.templateCache).toBeUndefined();
  });
});
