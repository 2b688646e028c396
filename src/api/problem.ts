/**
 * ApiError -> Response, for the two error families of spec section 7.
 *
 * Transcription (7.2): application/problem+json (RFC 9457) with keys in the order
 * type, title, status, detail, code. `type` is "about:blank" (the code is the machine-readable
 * part), so `title` is the HTTP status phrase as the RFC asks. 413 never carries a code.
 * Custom models (7.1): application/json {code, message} with an uppercase code.
 * Codes of the other family are translated where an equivalent exists (UNAUTHORIZED <->
 * unauthorized, INTERNAL_ERROR <-> internal_server_error); otherwise the status decides.
 */
import { ApiError, type CustomModelErrorCode, type TranscriptionErrorCode } from './errors';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

const TRANSCRIPTION_CODES: ReadonlySet<string> = new Set<TranscriptionErrorCode>([
  'invalid_audio',
  'invalid_query_parameter',
  'session_rejected',
  'unauthorized',
  'internal_server_error',
]);
const CUSTOM_MODEL_CODES: ReadonlySet<string> = new Set<CustomModelErrorCode>([
  'INVALID_REQUEST',
  'UNAUTHORIZED',
  'NOT_FOUND',
  'INTERNAL_ERROR',
]);

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code?: TranscriptionErrorCode;
}

export interface CustomModelErrorBody {
  code: CustomModelErrorCode;
  message: string;
}

export const statusTitle = (status: number): string =>
  STATUS_TITLES[status] ?? (status >= 500 ? 'Server Error' : 'Client Error');

function transcriptionCode(err: ApiError): TranscriptionErrorCode | undefined {
  if (err.status === 413 || err.code === undefined) return undefined;
  if (TRANSCRIPTION_CODES.has(err.code)) return err.code as TranscriptionErrorCode;
  if (err.code === 'UNAUTHORIZED') return 'unauthorized';
  if (err.code === 'INTERNAL_ERROR') return 'internal_server_error';
  return undefined;
}

function customModelCode(err: ApiError): CustomModelErrorCode {
  if (err.code !== undefined && CUSTOM_MODEL_CODES.has(err.code)) return err.code as CustomModelErrorCode;
  if (err.status === 401) return 'UNAUTHORIZED';
  if (err.status === 404) return 'NOT_FOUND';
  if (err.status >= 400 && err.status < 500) return 'INVALID_REQUEST';
  return 'INTERNAL_ERROR';
}

export function problemBody(err: ApiError): ProblemBody {
  const body: ProblemBody = { type: 'about:blank', title: statusTitle(err.status), status: err.status, detail: err.detail };
  const code = transcriptionCode(err);
  if (code !== undefined) body.code = code;
  return body;
}

export function customModelErrorBody(err: ApiError): CustomModelErrorBody {
  return { code: customModelCode(err), message: err.detail };
}

function respond(status: number, contentType: string, body: unknown, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set('content-type', contentType);
  h.set('cache-control', 'no-store');
  return new Response(JSON.stringify(body), { status, headers: h });
}

/** A transcription error; `headers` adds e.g. WWW-Authenticate or Allow. */
export function problemResponse(err: unknown, headers?: HeadersInit): Response {
  const e = toApiError(err);
  return respond(e.status, PROBLEM_CONTENT_TYPE, problemBody(e), headers);
}

/** A custom-model (or auth token) error. */
export function customModelErrorResponse(err: unknown, headers?: HeadersInit): Response {
  const e = toApiError(err);
  return respond(e.status, 'application/json', customModelErrorBody(e), headers);
}

/**
 * Anything thrown becomes an ApiError. A plain {status, code, detail} object (an ApiError that
 * crossed postMessage, which keeps no class) is rebuilt when its status and code are valid.
 * Unexpected errors become 500 internal_server_error with a fixed detail: their messages and
 * stacks can hold paths, URLs or user data, so they are not echoed.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (typeof err === 'object' && err !== null) {
    const { status, code, detail } = err as { status?: unknown; code?: unknown; detail?: unknown };
    const knownCode =
      (code === undefined && status === 413) ||
      (typeof code === 'string' && (TRANSCRIPTION_CODES.has(code) || CUSTOM_MODEL_CODES.has(code)));
    if (Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599 && knownCode && typeof detail === 'string') {
      return new ApiError(status as number, code as ApiError['code'], detail);
    }
  }
  return new ApiError(500, 'internal_server_error', 'An unexpected error occurred while processing the request.');
}
