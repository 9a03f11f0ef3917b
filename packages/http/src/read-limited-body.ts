import { FleetHoursError } from '@fleet-hours/core';

/** The bounds of {@link readLimitedBody}. */
export interface BodyLimits {
  /** Bytes at most; a body that grows past it is refused with 413 `payload_too_large` as soon as it does. */
  readonly maxBytes: number;
  /** Milliseconds the whole body may take to arrive; past it, 408 `request_timeout`. */
  readonly timeoutMs: number;
}

/**
 * Reads a request body as text without ever holding more than `maxBytes` of it, within a deadline
 * (ingestion, `ingestion-api.md`): a `Content-Length` over the limit is refused before a byte is
 * read, a body that grows past it while streaming is refused the moment it does, and a client that
 * stops sending mid-body is answered 408 once `timeoutMs` has passed instead of holding the request
 * forever. Either way the rest of the body is cancelled and the answer asks to close the
 * connection (`Connection: close`), so that nothing more is read from it.
 *
 * @param request The request.
 * @param limits The byte limit and the deadline.
 * @returns The body decoded as UTF-8 (`''` when there is none).
 * @throws {FleetHoursError} 413 `payload_too_large`, 408 `request_timeout`, or 400 `invalid_body`
 *   for bytes that are not UTF-8 or a body that breaks off (the client closed the connection).
 */
export async function readLimitedBody(request: Request, limits: BodyLimits): Promise<string> {
  const declared = request.headers.get('Content-Length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > limits.maxBytes) throw _tooLarge(limits.maxBytes);
  if (request.body === null) return '';

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, limits.timeoutMs);
  try {
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (error) {
        if (timedOut) throw _timedOut(limits.timeoutMs);
        // The client closed the connection mid-body: a refusal of its request, not a server failure.
        throw new FleetHoursError('invalid_body', { message: 'The request body could not be read to its end', headers: { Connection: 'close' }, cause: error });
      }
      if (timedOut) throw _timedOut(limits.timeoutMs);
      if (step.done) break;
      size += step.value.byteLength;
      if (size > limits.maxBytes) {
        reader.cancel().catch(() => {});
        throw _tooLarge(limits.maxBytes);
      }
      chunks.push(step.value);
    }
  } finally {
    clearTimeout(timer);
  }

  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new FleetHoursError('invalid_body', { message: 'The body is not UTF-8 text' });
  }
}

function _tooLarge(maxBytes: number): FleetHoursError {
  return new FleetHoursError('payload_too_large', {
    message: `The request body is larger than ${maxBytes} bytes: send fewer points per request`,
    headers: { Connection: 'close' },
  });
}

function _timedOut(timeoutMs: number): FleetHoursError {
  return new FleetHoursError('request_timeout', {
    message: `The request body did not arrive within ${timeoutMs / 1000} s`,
    headers: { Connection: 'close' },
  });
}
