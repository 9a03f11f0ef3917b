/**
 * What went wrong with an outgoing request that got no answer, for a person (an AEMP poll's
 * record, a webhook attempt's error): the kind of failure, never a secret, a stack or an address
 * the caller did not give.
 *
 * @param error What the request failed with.
 * @param timeoutMs How long the request could take, named when it took longer.
 * @returns A short phrase, e.g. `no answer within 15000 ms`, `connection refused`.
 */
export function describeConnectionFailure(error: unknown, timeoutMs: number): string {
  const code = (error as { code?: unknown } | null)?.code;
  const name = (error as { name?: unknown } | null)?.name;
  if (code === 'ETIMEDOUT' || name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'no such host';
  if (typeof code === 'string') return `connection failed (${code})`;
  return 'connection failed';
}
