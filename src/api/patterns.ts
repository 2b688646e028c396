/**
 * The `patterns` syntax of vendor-notes.md: short alphanumeric tokens such as order codes or plates.
 *
 * Grammar (whitespace is significant; positions in errors are 1-based):
 *   pattern    := element+                    not starting or ending with a separator
 *   element    := atom quantifier?
 *   atom       := class | literal | separator | group
 *   class      := '[' item+ ']'               item: a digit, an uppercase letter, or a range X-Y of
 *                                             two digits or two uppercase letters with X <= Y,
 *                                             so [0-9], [A-Z], [A-Z0-9] and [A-F] are all classes
 *   literal    := [A-Za-z0-9]                 e.g. the prefix AMZ
 *   separator  := ' ' | '-'
 *   group      := '(' element+ ')'            usually optional: (...)?
 *   quantifier := '{' n '}' | '{' m ',' n '}' | '?'     0 <= m <= n, 1 <= n; '?' is {0,1}
 *
 * A pattern expands to at most MAX_PATTERN_LENGTH characters and must not match the empty string.
 * In a comma-separated list, a comma inside {m,n} belongs to the pattern; any other comma separates.
 *
 * Bounded by construction (vendor-notes.md: "a pattern expands to at most 32 characters"): every
 * repetition has an upper bound, so '*', '+' and '{m,}' are rejected as unbounded (400
 * invalid_query_parameter naming the pattern), as is any pattern whose longest expansion exceeds 32
 * characters. With at most 32 characters, MAX_GROUP_DEPTH nested groups and MAX_PATTERN_SOURCE_LENGTH
 * source characters, reading a spoken run against a pattern (engine/biasing/patterns/spoken-patterns.ts,
 * memoised on node × position) costs at most nodes × 33² per repetition, however ambiguous the
 * pattern; the unrolled matcher (pattern-matcher.ts) has at most 32 character nodes per pattern.
 */
import { invalidParam } from './errors';

export type PatternNode =
  | { kind: 'sequence'; items: PatternNode[] }
  | { kind: 'class'; ranges: Array<[from: string, to: string]> }
  | { kind: 'literal'; char: string }
  | { kind: 'separator'; char: ' ' | '-' }
  | { kind: 'repeat'; node: PatternNode; min: number; max: number };

export interface CompiledPattern {
  source: string;
  ast: PatternNode;
  /** Anchored: matches a whole token, case-sensitively. */
  regex: RegExp;
  minLength: number;
  maxLength: number;
  test(s: string): boolean;
}

export const MAX_PATTERN_LENGTH = 32;
/** Guards against pathological inputs before parsing; a valid pattern is far shorter. */
export const MAX_PATTERN_SOURCE_LENGTH = 256;
export const MAX_GROUP_DEPTH = 8;

/** Splits a comma-separated list, keeping commas inside {m,n}; items are trimmed, empty ones kept. */
export function splitPatterns(raw: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '{') depth++;
    else if (c === '}' && depth > 0) depth--;
    else if (c === ',' && depth === 0) {
      items.push(raw.slice(start, i).trim());
      start = i + 1;
    }
  }
  items.push(raw.slice(start).trim());
  return items;
}

const isDigit = (c: string) => c >= '0' && c <= '9';
const isUpper = (c: string) => c >= 'A' && c <= 'Z';
const isLiteral = (c: string) => isDigit(c) || isUpper(c) || (c >= 'a' && c <= 'z');

class Parser {
  private i = 0;
  private depth = 0;

  constructor(private readonly src: string) {}

  parse(): PatternNode {
    const root = this.sequence();
    if (this.i < this.src.length) this.fail(`unmatched ')'`, this.i);
    if (root.items.length === 0) this.fail('empty pattern', 0);
    const first = root.items[0];
    const last = root.items[root.items.length - 1];
    if (first?.kind === 'separator') this.fail('a pattern cannot start with a separator', 0);
    if (last?.kind === 'separator') this.fail('a pattern cannot end with a separator', this.src.length - 1);
    return root;
  }

  private sequence(): { kind: 'sequence'; items: PatternNode[] } {
    const items: PatternNode[] = [];
    while (this.i < this.src.length && this.src[this.i] !== ')') {
      items.push(this.quantified(this.atom()));
    }
    return { kind: 'sequence', items };
  }

  private atom(): PatternNode {
    const at = this.i;
    const c = this.src[this.i] as string;
    if (c === '[') return this.charClass();
    if (c === '(') {
      if (++this.depth > MAX_GROUP_DEPTH) this.fail(`groups nested deeper than ${MAX_GROUP_DEPTH}`, at);
      this.i++;
      const body = this.sequence();
      if (this.src[this.i] !== ')') this.fail(`unclosed '('`, at);
      if (body.items.length === 0) this.fail('empty group', at);
      this.i++;
      this.depth--;
      return body;
    }
    this.i++;
    if (c === ' ' || c === '-') return { kind: 'separator', char: c };
    if (isLiteral(c)) return { kind: 'literal', char: c };
    if (c === '*' || c === '+') this.fail(`'${c}' repeats without bound; write {m,n} (a pattern expands to at most ${MAX_PATTERN_LENGTH} characters)`, at);
    if (c === '{' || c === '?') this.fail(`quantifier '${c}' must follow an element`, at);
    if (c === ']' || c === '}') this.fail(`unmatched '${c}'`, at);
    return this.fail(`unsupported character ${JSON.stringify(c)}`, at);
  }

  private charClass(): PatternNode {
    const open = this.i++;
    const ranges: Array<[string, string]> = [];
    while (this.i < this.src.length && this.src[this.i] !== ']') {
      const at = this.i;
      const from = this.src[this.i++] as string;
      if (!isDigit(from) && !isUpper(from)) {
        this.fail(`character class may hold only digits and uppercase letters, got ${JSON.stringify(from)}`, at);
      }
      let to = from;
      if (this.src[this.i] === '-') {
        const next = this.src[this.i + 1];
        if (next === undefined || next === ']') this.fail(`incomplete range in character class`, at);
        to = next;
        const sameKind = (isDigit(from) && isDigit(to)) || (isUpper(from) && isUpper(to));
        if (!sameKind || to < from) this.fail(`invalid range '${from}-${to}'`, at);
        this.i += 2;
      }
      ranges.push([from, to]);
    }
    if (this.i >= this.src.length) this.fail(`unclosed '['`, open);
    if (ranges.length === 0) this.fail('empty character class', open);
    this.i++;
    return { kind: 'class', ranges };
  }

  private quantified(node: PatternNode): PatternNode {
    const at = this.i;
    const c = this.src[this.i];
    let min: number;
    let max: number;
    if (c === '?') {
      this.i++;
      [min, max] = [0, 1];
    } else if (c === '{') {
      const close = this.src.indexOf('}', at);
      if (close < 0) this.fail(`unclosed '{'`, at);
      const body = this.src.slice(at + 1, close);
      if (/^\d+,$/.test(body)) this.fail(`quantifier {${body}} repeats without bound; write {m,n} (a pattern expands to at most ${MAX_PATTERN_LENGTH} characters)`, at);
      const m = /^(\d+)(?:,(\d+))?$/.exec(body);
      if (!m) this.fail(`quantifier must be {n} or {m,n} with decimal numbers, got {${body}}`, at);
      min = Number(m[1]);
      max = m[2] === undefined ? min : Number(m[2]);
      if (max < 1) this.fail(`quantifier {${body}} allows no repetition`, at);
      if (min > max) this.fail(`quantifier {${body}} has its minimum above its maximum`, at);
      if (max > MAX_PATTERN_LENGTH) this.fail(`quantifier {${body}} exceeds ${MAX_PATTERN_LENGTH}`, at);
      this.i = close + 1;
    } else {
      return node;
    }
    const after = this.src[this.i];
    if (after === '?' || after === '{') this.fail('an element takes at most one quantifier', this.i);
    return { kind: 'repeat', node, min, max };
  }

  fail(message: string, at: number): never {
    throw invalidParam(`patterns: ${message} at position ${at + 1} in ${JSON.stringify(this.src)}`);
  }
}

function lengthBounds(node: PatternNode): [min: number, max: number] {
  switch (node.kind) {
    case 'class':
    case 'literal':
    case 'separator':
      return [1, 1];
    case 'repeat': {
      const [lo, hi] = lengthBounds(node.node);
      return [lo * node.min, hi * node.max];
    }
    case 'sequence':
      return node.items.reduce<[number, number]>(
        ([lo, hi], item) => {
          const [a, b] = lengthBounds(item);
          return [lo + a, hi + b];
        },
        [0, 0],
      );
  }
}

/** Parses and validates one pattern; throws ApiError 400 invalid_query_parameter naming the position. */
export function parsePattern(p: string): PatternNode {
  if (p.length > MAX_PATTERN_SOURCE_LENGTH) {
    throw invalidParam(`patterns: a pattern is ${p.length} characters long; at most ${MAX_PATTERN_SOURCE_LENGTH}`);
  }
  const ast = new Parser(p).parse();
  const [min, max] = lengthBounds(ast);
  if (max > MAX_PATTERN_LENGTH) {
    throw invalidParam(
      `patterns: ${JSON.stringify(p)} expands to up to ${max} characters; at most ${MAX_PATTERN_LENGTH}`,
    );
  }
  if (min === 0) throw invalidParam(`patterns: ${JSON.stringify(p)} can match an empty string`);
  return ast;
}

function toRegexSource(node: PatternNode): string {
  switch (node.kind) {
    case 'class':
      return `[${node.ranges.map(([a, b]) => (a === b ? a : `${a}-${b}`)).join('')}]`;
    case 'literal':
    case 'separator':
      return node.char;
    case 'sequence':
      return node.items.map(toRegexSource).join('');
    case 'repeat': {
      const inner = `(?:${toRegexSource(node.node)})`;
      if (node.min === 0 && node.max === 1) return `${inner}?`;
      return node.min === node.max ? `${inner}{${node.min}}` : `${inner}{${node.min},${node.max}}`;
    }
  }
}

export function compilePattern(p: string): CompiledPattern {
  const ast = parsePattern(p);
  const [minLength, maxLength] = lengthBounds(ast);
  const regex = new RegExp(`^${toRegexSource(ast)}$`);
  return { source: p, ast, regex, minLength, maxLength, test: (s) => regex.test(s) };
}
