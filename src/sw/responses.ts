/** Success bodies. Errors go through src/api/problem.ts (see error-responses.ts). */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return jsonTextResponse(status, JSON.stringify(body), headers);
}

export const JSON_HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

export function jsonTextResponse(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { ...JSON_HEADERS, ...headers } });
}
