import { ApiError } from '../api/errors';
import { phraseTextProblem } from '../api/phrase-text';
import { openStore, type ModelRecord } from './db';
import { committed } from './storage-errors';
import {
  invalidRequest,
  PHRASES_PER_MODEL_MAX,
  validateNewCustomModel,
  validatePhraseList,
} from './custom-model-rules';

/** A custom model as the API returns it (spec 2.1). */
export interface CustomModel {
  id: string;
  name: string;
  description: string;
  phraseCount: number;
}

export interface PhrasePage {
  phrases: { value: string }[];
  page: number;
  size: number;
  total: number;
}

const notFound = (id: string) => new ApiError(404, 'NOT_FOUND', `custom model "${id}" does not exist`);

const toApi = (m: ModelRecord): CustomModel => ({
  id: m.id,
  name: m.name,
  description: m.description,
  phraseCount: m.phraseCount,
});

const modelRange = (id: string) => IDBKeyRange.bound([id, -Infinity], [id, Infinity]);

/**
 * Validates and stores a new custom model with its phrases in one transaction, so a crash mid-write
 * leaves either the whole model or nothing. Throws ApiError 400 INVALID_REQUEST.
 */
export async function createCustomModel(body: unknown): Promise<CustomModel> {
  const input = validateNewCustomModel(body);
  const record: ModelRecord = {
    id: crypto.randomUUID(),
    name: input.name,
    description: input.description,
    phraseCount: input.phrases.length,
    createdAt: Date.now(),
  };
  const db = await openStore();
  const tx = db.transaction(['models', 'phrases'], 'readwrite');
  const phrases = tx.objectStore('phrases');
  const writes: Promise<unknown>[] = [tx.objectStore('models').add(record)];
  for (const value of input.phrases) writes.push(phrases.add({ modelId: record.id, value }));
  await committed(tx, writes, 'storing the custom model');
  return toApi(record);
}

/** All models in creation order. */
export async function listCustomModels(): Promise<CustomModel[]> {
  const db = await openStore();
  return (await db.getAll('models')).map(toApi);
}

export async function getCustomModel(id: string): Promise<CustomModel | null> {
  const db = await openStore();
  const record = await db.getFromIndex('models', 'byId', id);
  return record ? toApi(record) : null;
}

/** One page of a model's phrases in insertion order; null when the model does not exist. */
export async function listPhrases(id: string, page: number, size: number): Promise<PhrasePage | null> {
  const db = await openStore();
  const tx = db.transaction(['models', 'phrases'], 'readonly');
  const model = await tx.objectStore('models').index('byId').get(id);
  if (!model) return null;
  const offset = page * size;
  let values: string[] = [];
  if (offset < model.phraseCount) {
    const index = tx.objectStore('phrases').index('byModel');
    let cursor = await index.openKeyCursor(modelRange(id));
    if (cursor && offset > 0) cursor = await cursor.advance(offset);
    if (cursor) {
      const [, firstSeq] = cursor.key;
      const rows = await index.getAll(IDBKeyRange.bound([id, firstSeq], [id, Infinity]), size);
      values = rows.map((r) => r.value);
    }
  }
  await tx.done;
  return { phrases: values.map((value) => ({ value })), page, size, total: model.phraseCount };
}

/** One read-write transaction over a model and its phrases; throws NOT_FOUND (nothing written) for an unknown id. */
async function openModelForWrite(id: string) {
  const db = await openStore();
  const tx = db.transaction(['models', 'phrases'], 'readwrite');
  const models = tx.objectStore('models');
  const store = tx.objectStore('phrases');
  const model = await models.index('byId').get(id);
  if (!model) {
    tx.abort();
    await tx.done.catch(() => undefined);
    throw notFound(id);
  }
  return { tx, models, store, model };
}

/**
 * Adds phrases not yet in the model (idempotent: a phrase already present is skipped, as is a repeat
 * within the request). All or nothing: if the result would exceed the per-model limit nothing is added.
 */
export async function addPhrases(id: string, raw: unknown): Promise<{ added: number; skipped: number }> {
  const phrases = validatePhraseList(raw);
  const submitted = Array.isArray(raw) ? raw.length : phrases.length;
  const { tx, models, store, model } = await openModelForWrite(id);
  const present = await Promise.all(phrases.map((v) => store.index('byModelValue').getKey([id, v])));
  const fresh = phrases.filter((_, i) => present[i] === undefined);
  if (model.phraseCount + fresh.length > PHRASES_PER_MODEL_MAX) {
    tx.abort();
    await tx.done.catch(() => undefined);
    throw invalidRequest(
      `a custom model holds at most ${PHRASES_PER_MODEL_MAX} phrases; it has ${model.phraseCount} and ${fresh.length} would be added`,
    );
  }
  const writes: Promise<unknown>[] = fresh.map((value) => store.add({ modelId: id, value }));
  if (fresh.length > 0) writes.push(models.put({ ...model, phraseCount: model.phraseCount + fresh.length }));
  await committed(tx, writes, 'adding phrases');
  return { added: fresh.length, skipped: submitted - fresh.length };
}

/** Deletes the given phrases; a phrase the model does not hold (or a repeat) counts as skipped. */
export async function deletePhrases(id: string, raw: unknown): Promise<{ deleted: number; skipped: number }> {
  const phrases = validatePhraseList(raw, { toStore: false });
  const submitted = Array.isArray(raw) ? raw.length : phrases.length;
  const { tx, models, store, model } = await openModelForWrite(id);
  const keys = await Promise.all(phrases.map((v) => store.index('byModelValue').getKey([id, v])));
  const found = keys.filter((k): k is number => k !== undefined);
  const writes: Promise<unknown>[] = found.map((k) => store.delete(k));
  if (found.length > 0) writes.push(models.put({ ...model, phraseCount: model.phraseCount - found.length }));
  await committed(tx, writes, 'deleting phrases');
  return { deleted: found.length, skipped: submitted - found.length };
}

/** Every phrase of a model in insertion order, for biasing; null when the id is unknown. */
export async function getPhrasesForBiasing(id: string): Promise<string[] | null> {
  const db = await openStore();
  const tx = db.transaction(['models', 'phrases'], 'readonly');
  const model = await tx.objectStore('models').index('byId').get(id);
  if (!model) return null;
  const rows = await tx.objectStore('phrases').index('byModel').getAll(modelRange(id));
  // phrases stored before the text rule (phrase-text.ts) are left out, not sent to the engine
  return rows.map((r) => r.value).filter((v) => phraseTextProblem(v) === null);
}

export { notFound as customModelNotFound };
