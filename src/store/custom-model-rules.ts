import { ApiError } from '../api/errors';
import { phraseTextProblem } from '../api/phrase-text';

/**
 * Validation rules for custom models (the spec leaves the limits "not shown"; these are ours).
 *
 * - name: string, 1..128 characters after trimming; description: string, 1..1024 characters after trimming.
 *   Both are stored trimmed. Names need not be unique (ids identify models).
 * - phrases: a non-empty array of strings. Each phrase is NFC-normalized, trimmed, and inner runs of
 *   whitespace collapse to one space; a phrase that is empty after that is rejected, as is one longer
 *   than 200 characters or one with special-token text, control, bidirectional-formatting or other
 *   invisible characters (src/api/phrase-text.ts, the rule inline phrases share). A list of phrases to
 *   delete skips that last rule, so that phrases stored before it can still be removed. Duplicates
 *   (exact, case-sensitive, after normalization) are stored once.
 * - A model holds at most 10,000 phrases (the largest page the list endpoint serves).
 */
export const NAME_MAX = 128;
export const DESCRIPTION_MAX = 1024;
export const PHRASE_MAX_CHARS = 200;
export const PHRASES_PER_MODEL_MAX = 10_000;

export const invalidRequest = (detail: string) => new ApiError(400, 'INVALID_REQUEST', detail);

export function normalizePhrase(raw: string): string {
  return raw.normalize('NFC').trim().replace(/\s+/gu, ' ');
}

function requireText(body: Record<string, unknown>, field: string, max: number): string {
  const value = body[field];
  if (value === undefined || value === null) throw invalidRequest(`"${field}" is required`);
  if (typeof value !== 'string') throw invalidRequest(`"${field}" must be a string`);
  const text = value.trim();
  if (text === '') throw invalidRequest(`"${field}" must not be empty`);
  if (text.length > max) throw invalidRequest(`"${field}" is longer than ${max} characters`);
  return text;
}

/**
 * Validates and normalizes a phrase list; returns the distinct phrases in first-seen order. `toStore`
 * false: phrases only to be looked up (deleted), where the text rule is not applied.
 */
export function validatePhraseList(value: unknown, { toStore = true } = {}): string[] {
  if (value === undefined || value === null) throw invalidRequest('"phrases" is required');
  if (!Array.isArray(value)) throw invalidRequest('"phrases" must be an array of strings');
  if (value.length === 0) throw invalidRequest('"phrases" must not be empty');
  const distinct = new Set<string>();
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string') throw invalidRequest(`"phrases[${i}]" must be a string`);
    const phrase = normalizePhrase(item);
    if (phrase === '') throw invalidRequest(`"phrases[${i}]" is empty`);
    if (phrase.length > PHRASE_MAX_CHARS) {
      throw invalidRequest(`"phrases[${i}]" is longer than ${PHRASE_MAX_CHARS} characters`);
    }
    const problem = toStore ? phraseTextProblem(phrase) : null;
    if (problem) throw invalidRequest(`"phrases[${i}]" ${problem}`);
    distinct.add(phrase);
  });
  return [...distinct];
}

export interface NewCustomModel {
  name: string;
  description: string;
  phrases: string[];
}

export function validateNewCustomModel(body: unknown): NewCustomModel {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('the body must be a JSON object with name, description and phrases');
  }
  const record = body as Record<string, unknown>;
  const name = requireText(record, 'name', NAME_MAX);
  const description = requireText(record, 'description', DESCRIPTION_MAX);
  const phrases = validatePhraseList(record.phrases);
  if (phrases.length > PHRASES_PER_MODEL_MAX) {
    throw invalidRequest(`a custom model holds at most ${PHRASES_PER_MODEL_MAX} phrases (got ${phrases.length} distinct)`);
  }
  return { name, description, phrases };
}

/** Parses `page` (integer >= 0, default 0) and `size` (1..10000, default 100) of the phrase listing. */
export function parsePageQuery(query: URLSearchParams): { page: number; size: number } {
  return {
    page: parseIntParam(query, 'page', 0, 0, Number.MAX_SAFE_INTEGER),
    size: parseIntParam(query, 'size', 100, 1, 10_000),
  };
}

function parseIntParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const all = query.getAll(name);
  if (all.length === 0) return fallback;
  if (all.length > 1) throw invalidRequest(`"${name}" is given more than once`);
  const raw = all[0] ?? '';
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    throw invalidRequest(`"${name}" must be ${range} (got "${raw}")`);
  }
  return value;
}
