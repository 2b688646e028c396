import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { WHISPER_LANGUAGES } from '../../src/api/languages';
import { parseTranscriptionParams } from '../../src/api/params';
import { compilePattern, parsePattern, splitPatterns } from '../../src/api/patterns';

/** The 400 invalid_query_parameter that `f` throws. */
function refusal(f: () => unknown): ApiError {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(400);
  expect((err as ApiError).code).toBe('invalid_query_parameter');
  return err as ApiError;
}

describe('splitPatterns', () => {
  it.each<[string, string[]]>([
    ['AMZ[0-9]{3}', ['AMZ[0-9]{3}']],
    ['[0-9]{2,4},[A-Z]{3}', ['[0-9]{2,4}', '[A-Z]{3}']],
    ['[A-Z]{1,2}-[0-9]{1,4}, [0-9]{6} ,X', ['[A-Z]{1,2}-[0-9]{1,4}', '[0-9]{6}', 'X']],
    ['a,,b', ['a', '', 'b']],
    ['', ['']],
    ['[0-9]{2,', ['[0-9]{2,']],
  ])('%s', (raw, expected) => {
    expect(splitPatterns(raw)).toEqual(expected);
  });
});

describe('compilePattern: valid patterns', () => {
  it.each<[string, string[], string[], number]>([
    ['[0-9]', ['0', '9'], ['', 'a', '10'], 1],
    ['[A-Z]{3}', ['ABC', 'ZZZ'], ['AB', 'abc', 'AB1'], 3],
    ['AMZ[0-9]{3,5}', ['AMZ123', 'AMZ12345'], ['AMZ12', 'AMZ123456', 'amz123'], 8],
    ['[A-Z]{2} [0-9]{3}', ['AB 123'], ['AB123', 'AB-123'], 6],
    ['[A-Z]{1,3}-[0-9]{1,4}', ['B-1', 'ABC-1234'], ['ABCD-1', 'B1'], 8],
    ['[0-9]{4}(-[0-9]{2})?', ['2024', '2024-05'], ['2024-5', '2024-'], 7],
    ['[A-Z0-9]{6}', ['A1B2C3'], ['A1B2C'], 6],
    ['[A-F]{2}', ['AF'], ['AG'], 2],
    ['X{0,2}Y', ['Y', 'XY', 'XXY'], ['XXXY'], 3],
    ['[0-9]{32}', ['1'.repeat(32)], ['1'.repeat(31)], 32],
    ['((AB)?C)?D', ['D', 'CD', 'ABCD'], ['ABD'], 4],
  ])('%s', (p, matches, rejects, maxLength) => {
    const c = compilePattern(p);
    expect(c.maxLength).toBe(maxLength);
    for (const s of matches) expect(c.test(s), s).toBe(true);
    for (const s of rejects) expect(c.test(s), s).toBe(false);
  });

  it('exposes an AST for decoding', () => {
    expect(parsePattern('A[0-9]{2,3}(-B)?')).toEqual({
      kind: 'sequence',
      items: [
        { kind: 'literal', char: 'A' },
        { kind: 'repeat', node: { kind: 'class', ranges: [['0', '9']] }, min: 2, max: 3 },
        {
          kind: 'repeat',
          node: { kind: 'sequence', items: [{ kind: 'separator', char: '-' }, { kind: 'literal', char: 'B' }] },
          min: 0,
          max: 1,
        },
      ],
    });
  });
});

describe('parsePattern: malformed patterns', () => {
  it.each<[string, RegExp]>([
    ['', /empty pattern/],
    ['[0-9]{33}', /exceeds 32 at position 6/],
    ['[0-9]{20}[A-Z]{13}', /expands to up to 33 characters; at most 32/],
    ['([0-9]{4}-){8}', /expands to up to 40/],
    ['[0-9', /unclosed '\[' at position 1/],
    ['[]', /empty character class at position 1/],
    ['[a-z]', /only digits and uppercase letters, got "a" at position 2/],
    ['[9-0]', /invalid range '9-0' at position 2/],
    ['[A-9]', /invalid range 'A-9'/],
    ['[0-]', /incomplete range/],
    ['(AB', /unclosed '\(' at position 1/],
    ['AB)', /unmatched '\)' at position 3/],
    ['()', /empty group at position 1/],
    ['{3}', /quantifier '\{' must follow an element at position 1/],
    ['?', /quantifier '\?' must follow an element/],
    ['A{3', /unclosed '\{' at position 2/],
    ['A{}', /quantifier must be \{n\} or \{m,n\}/],
    ['A{,3}', /quantifier must be/],
    ['A{3,}', /quantifier \{3,\} repeats without bound; .* at position 2/],
    ['A{1000}', /quantifier \{1000\} exceeds 32/],
    ['A{-1}', /quantifier must be/],
    ['A{0x3}', /quantifier must be/],
    ['A{ 3}', /quantifier must be/],
    ['A{0}', /allows no repetition/],
    ['A{4,2}', /minimum above its maximum/],
    ['A{2}{3}', /at most one quantifier at position 5/],
    ['A??', /at most one quantifier/],
    ['A.B', /unsupported character "\." at position 2/],
    ['A_B', /unsupported character "_"/],
    ['A*', /'\*' repeats without bound; write \{m,n\} .* at position 2/],
    ['A+', /'\+' repeats without bound/],
    ['A]', /unmatched '\]'/],
    ['-AB', /cannot start with a separator/],
    ['AB ', /cannot end with a separator/],
    ['(A)?', /can match an empty string/],
    ['A{0,2}', /can match an empty string/],
    ['((((((((((A))))))))))', /nested deeper than 8/],
    ['A'.repeat(300), /300 characters long/],
  ])('%s', (p, detail) => {
    const err = refusal(() => parsePattern(p));
    expect(err.detail).toMatch(/^patterns: /);
    expect(err.detail).toMatch(detail);
  });
});

describe('patterns whose expansion has no bound', () => {
  // the spec's bound: a pattern expands to at most 32 characters (vendor-notes.md)
  it.each([
    '[0-9]+',
    'AMZ[0-9]*',
    'AMZ[0-9]{3,}',
    '([A-Z]+[0-9]){2}',
    '(([0-9]{4}){4}){4}',
    '([0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]){5}',
  ])('%s is refused with a detail that names it', (p) => {
    const err = refusal(() => parsePattern(p));
    expect(err.detail).toContain(JSON.stringify(p));
    expect(err.detail).toMatch(/without bound|expands to up to \d+ characters; at most 32/);
  });

  it('in a list, the detail names the pattern that has no bound', () => {
    const query = new URLSearchParams({ patterns: 'AMZ[0-9]{3},[A-Z]{2}[0-9]{2,4},TK-[0-9]+' });
    const err = refusal(() => parseTranscriptionParams(query, { supportedLanguages: WHISPER_LANGUAGES }));
    expect(err.detail).toBe(`patterns: '+' repeats without bound; write {m,n} (a pattern expands to at most 32 characters) at position 9 in "TK-[0-9]+"`);
  });

  it('accepts the most ambiguous pattern within the bound', () => {
    expect(compilePattern('([0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]){4}').maxLength).toBe(32);
  });
});
