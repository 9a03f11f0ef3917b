/**
 * D29: requests that Node's HTTP parser or `@hono/node-server` refuse before the app sees them get
 * the D16 JSON body and a fitting 4xx, wherever the connection still allows an answer. `serve()`
 * wires these in; nothing here formats an error the app itself answers (that is
 * `respond-with-error.ts`).
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_TABLE, type ErrorBody, type ErrorCode } from '@fleet-hours/core';
import { RequestError } from '@hono/node-server';
import { JSON_CONTENT_TYPE } from '../respond/json-response.js';
import { redactSecrets } from '../respond/redact-secrets.js';

/** What is told about a request refused below the router: for the access log. */
export interface BelowRouterRefusal {
  readonly requestId: string;
  readonly method: string | null;
  readonly status: number;
  readonly code: ErrorCode;
  readonly clientAddress: string;
}

interface _Answer {
  readonly code: ErrorCode;
  readonly message: string;
}

/** The JSON body (D16) of a refusal, as text. */
function _bodyText({ code, message }: _Answer): string {
  const body: ErrorBody = { error: { status: ERROR_TABLE[code].status, code, message } };
  return JSON.stringify(body);
}

/** The headers every answer below the router carries: JSON, never cached, a request id (P16). */
function _headers(requestId: string, body: string, close: boolean): Record<string, string> {
  return {
    'Content-Type': JSON_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
    ...(close ? { Connection: 'close' } : {}),
  };
}

/**
 * What a parse error of Node's HTTP parser (`clientError`) is answered with, by its code. Node
 * answers 431, 413 and 408 for three of them and 400 for every other; so does this, with a body.
 * No parser code or internal detail reaches the client (D16).
 */
export function parserErrorAnswer(errorCode: string | undefined, maxHeaderBytes: number): _Answer {
  switch (errorCode) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large', message: `The request line and headers are larger than ${maxHeaderBytes} bytes` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', message: 'The chunk extensions of the request body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: ERROR_TABLE.request_timeout.message };
    case 'HPE_INVALID_METHOD':
      return { code: 'bad_request', message: 'The request line is malformed: unknown method' };
    case 'HPE_INVALID_URL':
      return { code: 'bad_request', message: 'The request line is malformed: invalid request target' };
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_STRICT':
      return { code: 'bad_request', message: 'The request line is malformed: send "METHOD /path HTTP/1.1"' };
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return { code: 'bad_request', message: 'A request header is malformed' };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { code: 'bad_request', message: 'The Content-Length header is invalid' };
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return { code: 'bad_request', message: 'The request body framing is invalid' };
    default:
      return { code: 'bad_request', message: ERROR_TABLE.bad_request.message };
  }
}

/**
 * The `clientError` listener: answers a parse error with a raw HTTP/1.1 response carrying the JSON
 * body, then closes the connection. Nothing is written when the socket is gone, or when a response
 * on it has already begun to a request whose bytes broke off (writing then would corrupt what the
 * client reads): as Node does, the connection is only closed.
 *
 * Bytes that are not a request after a complete one (pipelined garbage, a body longer than its
 * `Content-Length`) fail the parser while that request is still being answered: its own response
 * goes out first and the refusal after it (D37), instead of the refusal cutting it off.
 */
export function answerClientError(
  error: Error & { readonly code?: string },
  socket: Duplex,
  maxHeaderBytes: number,
  onRefused?: (refusal: BelowRouterRefusal) => void,
): void {
  // The parser reports the same error again for every later chunk: the connection is answered once.
  if (_refusedSockets.has(socket)) return;
  _refusedSockets.add(socket);
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const inFlight = _responseOf(socket);
  if (inFlight !== null && inFlight.req?.complete === true) {
    _afterResponses(socket, () => _writeParseErrorAnswer(error, socket, maxHeaderBytes, onRefused));
    return;
  }
  if (inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  _writeParseErrorAnswer(error, socket, maxHeaderBytes, onRefused);
}

/** Sockets whose parse error has been (or is about to be) answered. */
const _refusedSockets = new WeakSet<Duplex>();

/** The response Node is writing on a connection, if any (requests pipelined behind it wait their turn). */
function _responseOf(socket: Duplex): ServerResponse | null {
  return (socket as { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

/**
 * Runs `then` once every response of a connection has finished: Node hands the connection to the
 * next pipelined request's response as one finishes, so this waits for each in turn (D37).
 */
function _afterResponses(socket: Duplex, then: () => void): void {
  const response = _responseOf(socket);
  if (response === null) {
    then();
    return;
  }
  // Node's own `finish` listener (added first) runs before this one and hands the socket on.
  const next = () => {
    response.off('finish', next);
    response.off('close', next);
    _afterResponses(socket, then);
  };
  response.once('finish', next);
  response.once('close', next);
}

function _writeParseErrorAnswer(
  error: Error & { readonly code?: string },
  socket: Duplex,
  maxHeaderBytes: number,
  onRefused?: (refusal: BelowRouterRefusal) => void,
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const answer = parserErrorAnswer(error.code, maxHeaderBytes);
  const status = ERROR_TABLE[answer.code].status;
  const requestId = randomUUID();
  const body = _bodyText(answer);
  const head = Object.entries(_headers(requestId, body, true))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}\r\n${body}`);
  onRefused?.({
    requestId,
    method: null,
    status,
    code: answer.code,
    clientAddress: (socket as { remoteAddress?: string }).remoteAddress ?? 'unknown',
  });
}

/** Writes a refusal on a parsed request's response (a missing Host, an unsupported `Expect`). */
function _refuse(
  request: IncomingMessage,
  response: ServerResponse,
  answer: _Answer,
  onRefused?: (refusal: BelowRouterRefusal) => void,
): void {
  const status = ERROR_TABLE[answer.code].status;
  const requestId = randomUUID();
  const body = _bodyText(answer);
  // The body of the request, if any, is not read: the connection ends with this answer.
  response.writeHead(status, _headers(requestId, body, true));
  response.end(request.method === 'HEAD' ? undefined : body);
  onRefused?.({
    requestId,
    method: request.method ?? null,
    status,
    code: answer.code,
    clientAddress: request.socket.remoteAddress ?? 'unknown',
  });
}

/** Whether an HTTP/1.1 request lacks the Host header it must carry (RFC 9112 §3.2). */
export function lacksHost(request: IncomingMessage): boolean {
  return request.headers.host === undefined && request.httpVersionMajor === 1 && request.httpVersionMinor >= 1;
}

/** Answers an HTTP/1.1 request without a Host header: 400 `bad_request`. */
export function answerMissingHost(
  request: IncomingMessage,
  response: ServerResponse,
  onRefused?: (refusal: BelowRouterRefusal) => void,
): void {
  _refuse(request, response, { code: 'bad_request', message: 'The Host header is missing: HTTP/1.1 requests must send one' }, onRefused);
}

/** The `checkExpectation` listener: an `Expect` other than `100-continue` is 417 `expectation_failed`. */
export function answerExpectation(
  request: IncomingMessage,
  response: ServerResponse,
  onRefused?: (refusal: BelowRouterRefusal) => void,
): void {
  const expectation = String(request.headers.expect ?? '').slice(0, 100);
  _refuse(
    request,
    response,
    { code: 'expectation_failed', message: `Expect "${expectation}" is not supported: only "100-continue" is` },
    onRefused,
  );
}

/**
 * The `errorHandler` of `@hono/node-server`'s request listener: a request Node parsed but the
 * adapter cannot turn into a URL (an invalid Host, a backslash in the path, `OPTIONS *`) is 400
 * `bad_request`; a failure of the app's fetch itself (the app answers its own errors, so this is
 * a last resort) is 500 `internal_error`, with nothing internal in the body (D16).
 */
export function answerAdapterError(
  error: unknown,
  request: IncomingMessage | undefined,
  onRefused?: (refusal: BelowRouterRefusal) => void,
): Response {
  const answer: _Answer =
    error instanceof RequestError
      ? { code: 'bad_request', message: _requestErrorMessage(error, request) }
      : { code: 'internal_error', message: ERROR_TABLE.internal_error.message };
  const status = ERROR_TABLE[answer.code].status;
  const requestId = randomUUID();
  const body = _bodyText(answer);
  onRefused?.({
    requestId,
    method: request?.method ?? null,
    status,
    code: answer.code,
    clientAddress: request?.socket.remoteAddress ?? 'unknown',
  });
  const { 'Content-Length': _length, ...headers } = _headers(requestId, body, true);
  return new Response(request?.method === 'HEAD' ? null : body, { status, headers });
}

function _requestErrorMessage(error: RequestError, request: IncomingMessage | undefined): string {
  const url = request?.url ?? '';
  // D37: an OsmAnd token travels in the path; the target is shown without it.
  const target = _quoted(redactSecrets(url));
  if (!url.startsWith('/') && !/^https?:\/\//i.test(url))
    return `The request target ${target} is invalid: send a path that starts with "/"`;
  if (error.message === 'Invalid host header') return `The Host header ${_quoted(request?.headers.host ?? '')} is invalid`;
  if (error.message === 'Missing host header') return 'The Host header is missing';
  if (error.message === 'Backslash in request path') return `The request path ${target} holds a backslash: use "/"`;
  return `The request target ${target} is invalid: send a path that starts with "/"`;
}

/** A client's text quoted for a message: at most 100 characters, control characters escaped. */
function _quoted(text: string): string {
  const shown = text.length > 100 ? `${text.slice(0, 100)}…` : text;
  return JSON.stringify(shown);
}
