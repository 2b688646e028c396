/**
 * The one error type both doors (JS API and /v1) throw and serialize.
 * Transcription errors use lowercase codes (problem+json); custom-model errors uppercase codes.
 */
export type TranscriptionErrorCode =
  | 'invalid_audio'
  | 'invalid_query_parameter'
  | 'session_rejected'
  | 'unauthorized'
  | 'internal_server_error';

export type CustomModelErrorCode = 'INVALID_REQUEST' | 'UNAUTHORIZED' | 'NOT_FOUND' | 'INTERNAL_ERROR';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** Absent only for 413, which the spec sends without a code. */
    readonly code: TranscriptionErrorCode | CustomModelErrorCode | undefined,
    readonly detail: string,
  ) {
    super(`${status}${code ? ` ${code}` : ''}: ${detail}`);
    this.name = 'ApiError';
  }
}

export const invalidAudio = (detail: string) => new ApiError(400, 'invalid_audio', detail);
export const invalidParam = (detail: string) => new ApiError(400, 'invalid_query_parameter', detail);
/** 400: unknown custom model or a forbidden combination; 402: credit exhausted; 429: too many at once. */
export const sessionRejected = (detail: string, status: 400 | 402 | 429 = 400) =>
  new ApiError(status, 'session_rejected', detail);
export const unauthorized = (detail: string) => new ApiError(401, 'unauthorized', detail);
/** 413 carries no code (spec 7.2). */
export const payloadTooLarge = (detail: string) => new ApiError(413, undefined, detail);
export const internalError = (detail: string) => new ApiError(500, 'internal_server_error', detail);
