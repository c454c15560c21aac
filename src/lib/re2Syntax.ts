import { RegExpParser, type AST } from '@eslint-community/regexpp';
import { RE2JS } from 're2js';

/**
 * A JavaScript regular expression (the `u` flag's syntax, ECMAScript 2024) written again in RE2's
 * syntax, meaning the same: what linearPattern.ts hands the linear-time engine. Pure: the pattern
 * is parsed (regexpp), never run. What RE2 cannot express is refused with the reason: a
 * back-reference, a look-ahead or look-behind, a counted repetition above 1000.
 *
 * Where the two engines' shorthands differ, the JavaScript meaning is written out: `\s` (JavaScript
 * counts \v and the Unicode spaces, RE2 only [\t\n\f\r ]) and `.` (JavaScript stops at \r, U+2028
 * and U+2029 too). Every character is written as a code point (`\x{…}`), so no escape of one
 * syntax is read differently by the other. Groups become non-capturing: nothing reads captures.
 */

export interface Re2Flags {
  ignoreCase: boolean;
  multiline: boolean;
  dotAll: boolean;
}

/** RE2's largest counted repetition. */
const MAX_REPEAT = 1000;
const MAX_CODE_POINT = 0x10ffff;

type Ranges = ReadonlyArray<readonly [number, number]>;

/** JavaScript's \s: WhiteSpace and LineTerminator of ECMA-262 (U+0009–U+000D, space, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF). */
const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
/** What `.` leaves out without the s flag: the line terminators. */
const LINE_TERMINATORS: Ranges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

/** The code points not in `ranges` (sorted, disjoint). */
function complement(ranges: Ranges): Ranges {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/** A code point as RE2 reads it literally, in or out of a class. */
const char = (cp: number): string => (/[A-Za-z0-9]/.test(String.fromCodePoint(cp)) && cp < 0x80 ? String.fromCodePoint(cp) : `\\x{${cp.toString(16)}}`);
const rangeText = (ranges: Ranges): string => ranges.map(([lo, hi]) => (lo === hi ? char(lo) : `${char(lo)}-${char(hi)}`)).join('');

/** JavaScript's General_Category values by their long names, as RE2 spells them (the short ones). */
const CATEGORY_ALIASES: Record<string, string> = {
  Letter: 'L',
  Cased_Letter: 'LC',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
};

/** Why a pattern cannot be written for RE2; `raw` is the part of the pattern at fault. */
export class Unsupported extends Error {}

const knownProperties = new Map<string, boolean>();
/** Whether RE2 knows `\p{name}` (its general categories and scripts). */
function re2Knows(name: string): boolean {
  let known = knownProperties.get(name);
  if (known === undefined) {
    try {
      RE2JS.compile(`\\p{${name}}`);
      known = true;
    } catch {
      known = false;
    }
    // Names come from patterns that parsed as JavaScript: a few hundred at most.
    knownProperties.set(name, known);
  }
  return known;
}

/** The name RE2 knows a property escape by, or null when it has no equivalent. */
function propertyName(key: string, value: string | null): string | null {
  let name: string | null = null;
  // A lone name is a General_Category value or a binary property (RE2 knows none of those but Any and ASCII, written out by the caller).
  if (value === null) name = CATEGORY_ALIASES[key] ?? key;
  else if (key === 'General_Category' || key === 'gc') name = CATEGORY_ALIASES[value] ?? value;
  // Scripts by their long names (Greek, Latin): the four-letter codes (Grek) are not RE2's.
  else if (key === 'Script' || key === 'sc') name = value;
  return name !== null && re2Knows(name) ? name : null;
}

class Writer {
  constructor(private readonly flags: Re2Flags) {}

  pattern(node: AST.Pattern): string {
    return this.alternatives(node.alternatives);
  }

  private alternatives(list: readonly AST.Alternative[]): string {
    return list.map((a) => a.elements.map((e) => this.element(e)).join('')).join('|');
  }

  private element(node: AST.Element): string {
    switch (node.type) {
      case 'Character':
        return char(node.value);
      case 'CharacterSet':
        return this.set(node);
      case 'CharacterClass':
        return this.characterClass(node);
      case 'CapturingGroup':
        return `(?:${this.alternatives(node.alternatives)})`;
      case 'Group':
        return `(?:${this.alternatives(node.alternatives)})`;
      case 'Quantifier':
        return this.quantifier(node);
      case 'Backreference':
        throw new Unsupported(`uses a back-reference (${node.raw}), which the linear-time engine does not support`);
      case 'Assertion':
        return this.assertion(node);
      case 'ExpressionCharacterClass':
        // Only the v flag writes these; patterns are read with u.
        throw new Unsupported(`uses set operations in a class (${node.raw}), which need the v flag`);
    }
  }

  private assertion(node: AST.Assertion): string {
    switch (node.kind) {
      case 'start':
        return '^';
      case 'end':
        return '$';
      case 'word':
        return node.negate ? '\\B' : '\\b';
      case 'lookahead':
        throw new Unsupported(`uses a look-ahead (${node.raw.slice(0, 3)}…), which the linear-time engine does not support`);
      case 'lookbehind':
        throw new Unsupported(`uses a look-behind (${node.raw.slice(0, 4)}…), which the linear-time engine does not support`);
    }
  }

  private quantifier(node: AST.Quantifier): string {
    const { min, max } = node;
    if (min > MAX_REPEAT || (max !== Number.POSITIVE_INFINITY && max > MAX_REPEAT)) {
      throw new Unsupported(
        `repeats more than ${MAX_REPEAT} times (${node.raw.slice(node.element.raw.length)}), which the linear-time engine does not support`,
      );
    }
    let q: string;
    if (min === 0 && max === Number.POSITIVE_INFINITY) q = '*';
    else if (min === 1 && max === Number.POSITIVE_INFINITY) q = '+';
    else if (min === 0 && max === 1) q = '?';
    else if (max === Number.POSITIVE_INFINITY) q = `{${min},}`;
    else if (min === max) q = `{${min}}`;
    else q = `{${min},${max}}`;
    // The element is one atom already (a character, a class or a group).
    return `${this.element(node.element)}${q}${node.greedy ? '' : '?'}`;
  }

  /** A shorthand on its own, outside a class. */
  private set(node: AST.CharacterSet): string {
    if (node.kind === 'any') return this.flags.dotAll ? `[${rangeText([[0, MAX_CODE_POINT]])}]` : `[${rangeText(complement(LINE_TERMINATORS))}]`;
    return `[${this.setInClass(node)}]`;
  }

  /** A shorthand as the inside of a class (`[…]` around it makes it whole). */
  private setInClass(node: AST.EscapeCharacterSet | AST.UnicodePropertyCharacterSet): string {
    switch (node.kind) {
      case 'digit':
        return node.negate ? '\\D' : '\\d';
      case 'word':
        return node.negate ? '\\W' : '\\w';
      case 'space':
        return rangeText(node.negate ? complement(SPACE) : SPACE);
      case 'property': {
        if (node.value === null && (node.key === 'Any' || node.key === 'ASCII')) {
          const ranges: Ranges = node.key === 'Any' ? [[0, MAX_CODE_POINT]] : [[0, 0x7f]];
          return rangeText(node.negate ? complement(ranges) : ranges);
        }
        const name = propertyName(node.key, node.value);
        if (name === null) {
          throw new Unsupported(
            `uses the Unicode property ${node.raw}, which the linear-time engine does not know (it knows general categories such as \\p{L} and scripts such as \\p{Script=Greek})`,
          );
        }
        return `${node.negate ? '\\P' : '\\p'}{${name}}`;
      }
    }
  }

  private characterClass(node: AST.CharacterClass): string {
    const inner = node.elements
      .map((e) => {
        switch (e.type) {
          case 'Character':
            return char(e.value);
          case 'CharacterClassRange':
            return `${char(e.min.value)}-${char(e.max.value)}`;
          case 'CharacterSet':
            return this.setInClass(e as AST.EscapeCharacterSet | AST.UnicodePropertyCharacterSet);
          default:
            throw new Unsupported(`uses set operations in a class (${node.raw}), which need the v flag`);
        }
      })
      .join('');
    // RE2 has no empty class: [] matches nothing, [^] anything.
    if (inner === '') return node.negate ? `[${rangeText([[0, MAX_CODE_POINT]])}]` : `[^${rangeText([[0, MAX_CODE_POINT]])}]`;
    return `[${node.negate ? '^' : ''}${inner}]`;
  }
}

// ECMAScript 2024: the syntax of Node.js 20's engine, which clients check patterns with too (2025's
// modifiers, `(?i:…)`, are not in it).
const parser = new RegExpParser({ ecmaVersion: 2024 });

/**
 * The pattern in RE2's syntax; throws SyntaxError (regexpp's, worded as V8's: "Invalid regular
 * expression: /…/u: …") when it is no JavaScript pattern, Unsupported when RE2 cannot express it.
 */
export function toRe2(pattern: string, flags: Re2Flags): string {
  const ast = parser.parsePattern(pattern, 0, pattern.length, { unicode: true });
  return new Writer(flags).pattern(ast);
}
