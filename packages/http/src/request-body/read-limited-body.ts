import type { Readable } from 'node:stream';
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
 * (ingestion, `docs/ingestion.md`): a `Content-Length` over the limit is refused before a byte is
 * read, a body that grows past it while streaming is refused the moment it does, and a client that
 * stops sending mid-body is answered 408 once `timeoutMs` has passed instead of holding the request
 * forever. Either way the rest of the body is left unread and the answer asks to close the
 * connection (`Connection: close`), so that nothing more is read from it.
 *
 * @param request The request.
 * @param limits The byte limit and the deadline.
 * @param incoming Under Node (`serve`), the request's own stream (`c.env.incoming`): read directly,
 *   it spares building the web `Request` and its body stream, a third of the time a small
 *   ingestion request spends in the server's own code. Without it, `request.body` is read.
 * @returns The body decoded as UTF-8 (`''` when there is none).
 * @throws {FleetHoursError} 413 `payload_too_large`, 408 `request_timeout`, or 400 `invalid_body`
 *   for bytes that are not UTF-8 or a body that breaks off (the client closed the connection).
 */
export async function readLimitedBody(request: Request, limits: BodyLimits, incoming?: Readable): Promise<string> {
  const declared = request.headers.get('Content-Length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > limits.maxBytes) throw _tooLarge(limits.maxBytes);
  const bytes = incoming ? await _readNodeStream(incoming, limits) : await _readWebStream(request, limits);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new FleetHoursError('invalid_body', { message: 'The body is not UTF-8 text' });
  }
}

/** The chunks of a body as they arrive, refused the moment they pass the limit. */
class _Collected {
  readonly #maxBytes: number;
  readonly #chunks: Uint8Array[] = [];
  #size = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** @throws {FleetHoursError} 413 once the body passes the limit. */
  add(chunk: Uint8Array): void {
    this.#size += chunk.byteLength;
    if (this.#size > this.#maxBytes) throw _tooLarge(this.#maxBytes);
    this.#chunks.push(chunk);
  }

  bytes(): Uint8Array {
    if (this.#chunks.length === 1) return this.#chunks[0]!;
    const bytes = new Uint8Array(this.#size);
    let offset = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return bytes;
  }
}

/** The client closed the connection mid-body: a refusal of its request, not a server failure. */
function _brokenOff(cause: unknown): FleetHoursError {
  return new FleetHoursError('invalid_body', {
    message: 'The request body could not be read to its end',
    headers: { Connection: 'close' },
    cause,
  });
}

async function _readWebStream(request: Request, limits: BodyLimits): Promise<Uint8Array> {
  const collected = new _Collected(limits.maxBytes);
  if (request.body === null) return collected.bytes();
  const reader = request.body.getReader();
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
        throw _brokenOff(error);
      }
      if (timedOut) throw _timedOut(limits.timeoutMs);
      if (step.done) break;
      try {
        collected.add(step.value);
      } catch (error) {
        reader.cancel().catch(() => {});
        throw error;
      }
    }
  } finally {
    clearTimeout(timer);
  }
  return collected.bytes();
}

/**
 * The same from a Node stream: on a refusal it stops reading (`pause`) and lets the response close
 * the connection, rather than destroy the stream, which would take the socket (and the answer)
 * with it.
 */
function _readNodeStream(incoming: Readable, limits: BodyLimits): Promise<Uint8Array> {
  const collected = new _Collected(limits.maxBytes);
  if (incoming.readableEnded) return Promise.resolve(collected.bytes());
  return new Promise((resolve, reject) => {
    const settle = (outcome: () => void) => {
      clearTimeout(timer);
      incoming.off('data', onData).off('end', onEnd).off('error', onBroken).off('close', onClose);
      outcome();
    };
    const refuse = (error: unknown) => {
      incoming.pause();
      settle(() => reject(error));
    };
    const onData = (chunk: Uint8Array) => {
      try {
        collected.add(chunk);
      } catch (error) {
        refuse(error);
      }
    };
    const onEnd = () => settle(() => resolve(collected.bytes()));
    const onBroken = (error: unknown) => refuse(_brokenOff(error));
    const onClose = () => refuse(_brokenOff(new Error('The connection closed before the body ended')));
    const timer = setTimeout(() => refuse(_timedOut(limits.timeoutMs)), limits.timeoutMs);
    incoming.on('data', onData).on('end', onEnd).on('error', onBroken).on('close', onClose);
  });
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
