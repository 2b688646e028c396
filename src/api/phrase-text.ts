/**
 * What a biasing phrase may not contain: the one rule for inline `phrases` (src/api/params.ts, 400
 * invalid_query_parameter) and custom-model phrases (src/store/custom-model-rules.ts, 400
 * INVALID_REQUEST); each door wraps the answer in its own error.
 *
 * - Whisper's special-token text, any `<|…|>` (`<|endoftext|>`, `<|0.00|>`, `<|en|>`): the tokenizer
 *   reads it as the control token itself, which would end or re-steer the decoder's prompt.
 * - Control characters (C0, DEL, C1): no spoken word holds one.
 * - Bidirectional formatting characters (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069):
 *   invisible, they make a phrase display as other text than it is (CVE-2021-42574), and Whisper
 *   never writes them. Letters of right-to-left scripts themselves are fine.
 * - U+2028/U+2029 (line and paragraph separators), U+FEFF (byte-order mark), noncharacters, and
 *   unpaired surrogates: not text of a phrase (a lone surrogate reaches the tokenizer as U+FFFD).
 * Zero-width joiners (U+200C, U+200D) are allowed: Persian, Indic scripts and emoji need them.
 */

const SPECIAL_TOKEN = /<\|[\s\S]*?\|>/;
const FORBIDDEN = /[\p{Cc}\p{Bidi_Control}\u2028\u2029\uFEFF\p{Noncharacter_Code_Point}\p{Cs}]/u;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

function kindOf(c: string): string {
  if (/\p{Cc}/u.test(c)) return 'the control character';
  if (/\p{Bidi_Control}/u.test(c)) return 'the bidirectional formatting character';
  if (/\p{Cs}/u.test(c)) return 'the unpaired surrogate';
  if (/\p{Noncharacter_Code_Point}/u.test(c)) return 'the noncharacter';
  return 'the invisible separator';
}

/** Why `phrase` may not be a biasing phrase ("contains …"), or null when it may. */
export function phraseTextProblem(phrase: string): string | null {
  const special = SPECIAL_TOKEN.exec(phrase);
  if (special) return `contains Whisper's special-token text ${JSON.stringify(special[0].slice(0, 40))}`;
  const bad = FORBIDDEN.exec(phrase);
  if (bad) return `contains ${kindOf(bad[0])} ${codePoint(bad[0])}`;
  return null;
}
