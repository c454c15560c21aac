import { describe, expect, it } from 'vitest';
import { escapeFormula, unescapeFormula } from '../../../src/lib/csvFormulas.js';

/** What every CSV Promptline writes does with text a spreadsheet would run, and how an import reads it back. */
describe('escapeFormula: text a spreadsheet would run gets an apostrophe', () => {
  it.each<[string, string]>([
    ['=HYPERLINK("http://x","y")', `'=HYPERLINK("http://x","y")`],
    ['+1+cmd|/C calc!A0', `'+1+cmd|/C calc!A0`],
    ['-2+3', `'-2+3`],
    ['@SUM(A1:A2)', `'@SUM(A1:A2)`],
    ['\t=1', `'\t=1`],
    ['\r=1', `'\r=1`],
    ['-', `'-`],
    ['- a list item', `'- a list item`],
    ['-5', '-5'], // a number runs nothing: left as the number it is
    ['-1.5e-7', '-1.5e-7'],
    ['-0.25', '-0.25'],
    ['-Infinity', `'-Infinity`], // not JSON's spelling of a number
    ['-0x10', `'-0x10`],
    ['+5', `'+5`], // JSON never writes a plus sign: escaped as text
    ['5', '5'],
    ['plain text', 'plain text'],
    ['', ''],
    [' =not first', ' =not first'],
    ['a=b', 'a=b'],
    ["'hello", "'hello"], // an apostrophe before ordinary text needs nothing
    ["it's", "it's"],
    ["'=x", "''=x"], // …but before what an import would unescape, one more
    ["''", "'''"],
    ["'-5", "''-5"],
    ["'", "'"],
  ])('%j → %j', (text, cell) => {
    expect(escapeFormula(text)).toBe(cell);
    expect(unescapeFormula(cell)).toBe(text);
  });
});

describe('unescapeFormula: a cell read from a file', () => {
  it.each<[string, string]>([
    ["'=1+1", '=1+1'], // a spreadsheet's own text mark, written by hand, reads as the spreadsheet shows it
    ["'@x", '@x'],
    ["''", "'"],
    ["'hello", "'hello"],
    ["'", "'"],
    ['=1', '=1'], // an unescaped formula is text like any other: nothing runs it here
  ])('%j → %j', (cell, text) => {
    expect(unescapeFormula(cell)).toBe(text);
  });

  it('every text survives the round trip, and no written cell starts with a formula character unless it is a number', () => {
    const alphabet = ['=', '+', '-', '@', '\t', '\r', "'", 'a', '1', '.', 'e', ' '];
    const texts: string[] = [''];
    for (let length = 1; length <= 4; length++) {
      for (let n = 0; n < alphabet.length ** length; n++) {
        let text = '';
        for (let k = 0, m = n; k < length; k++, m = Math.floor(m / alphabet.length)) text += alphabet[m % alphabet.length];
        texts.push(text);
      }
    }
    const changed: string[] = [];
    const live: string[] = [];
    for (const text of texts) {
      const cell = escapeFormula(text);
      if (unescapeFormula(cell) !== text) changed.push(text);
      if (/^[=+\-@\t\r]/.test(cell) && !Number.isFinite(Number(cell))) live.push(cell);
    }
    expect(texts.length).toBe(22_621);
    expect(changed).toEqual([]);
    expect(live).toEqual([]);
  });
});
