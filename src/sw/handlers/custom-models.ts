import { invalidRequest, parsePageQuery } from '../../store/custom-model-rules';
import {
  addPhrases,
  createCustomModel,
  customModelNotFound,
  deletePhrases,
  getCustomModel,
  listCustomModels,
  listPhrases,
} from '../../store/custom-models';
import { BodyTooLarge, readBodyWithLimit } from '../read-body';
import { jsonResponse } from '../responses';
import type { Handler, HandlerContext } from './context';
import { requireAuth } from './require-auth';

/** JSON bodies of the custom-model endpoints: room for 10,000 phrases of 200 characters, escaped. */
export const CUSTOM_MODEL_BODY_MAX = 8 * 1024 * 1024;

async function readJson(request: Request): Promise<unknown> {
  let bytes: ArrayBuffer;
  try {
    bytes = await readBodyWithLimit(request, CUSTOM_MODEL_BODY_MAX);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw invalidRequest(`the JSON body is larger than ${CUSTOM_MODEL_BODY_MAX} bytes`);
    throw err;
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  } catch {
    throw invalidRequest('the body is not valid JSON');
  }
}

function phrasesField(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('the body must be a JSON object with a "phrases" array');
  }
  return (body as Record<string, unknown>).phrases;
}

const modelId = (ctx: HandlerContext) => ctx.params[0] ?? '';

export const createModel: Handler = async (ctx) => {
  await requireAuth(ctx.request, 'custom-model');
  const model = await createCustomModel(await readJson(ctx.request));
  return jsonResponse(201, model);
};

export const listModels: Handler = async (ctx) => {
  await requireAuth(ctx.request, 'custom-model');
  return jsonResponse(200, await listCustomModels());
};

export const getModel: Handler = async (ctx) => {
  await requireAuth(ctx.request, 'custom-model');
  const model = await getCustomModel(modelId(ctx));
  if (!model) throw customModelNotFound(modelId(ctx));
  return jsonResponse(200, model);
};

export const listModelPhrases: Handler = async (ctx) => {
  await requireAuth(ctx.request, 'custom-model');
  const { page, size } = parsePageQuery(ctx.url.searchParams);
  const result = await listPhrases(modelId(ctx), page, size);
  if (!result) throw customModelNotFound(modelId(ctx));
  return jsonResponse(200, result);
};

export const addModelPhrases: Handler = async (ctx) => {
  await requireAuth(ctx.request, 'custom-model');
  const body = await readJson(ctx.request);
  return jsonResponse(200, await addPhrases(modelId(ctx), phrasesField(body)));
};

export const deleteModelPhrases: Handler = async (ctx) => {
  await requireAuth(ctx.request, 'custom-model');
  const body = await readJson(ctx.request);
  return jsonResponse(200, await deletePhrases(modelId(ctx), phrasesField(body)));
};

