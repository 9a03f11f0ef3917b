import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessLogEntry } from '../middleware/access-log/index.js';
import { createFixture } from '../testing/fixture.js';
import { serve, type RunningServer } from './serve.js';

/** Sends raw bytes on a fresh connection and reads until the server closes it. */
function exchange(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

function parse(raw: string): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  expect(split, raw).toBeGreaterThan(0);
  const [statusLine, ...headerLines] = raw.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const text = raw.slice(split + 4);
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine!)?.[1]), headers, body: text === '' ? null : JSON.parse(text) };
}

describe('serve() below the router (D29, P28)', () => {
  let server: RunningServer;
  const refused: AccessLogEntry[] = [];
  beforeAll(async () => {
    const { app } = await createFixture();
    server = await serve({ app, port: 0, handleSignals: false, maxHeaderBytes: 2_048, logger: (entry) => refused.push(entry) });
  });
  afterAll(() => server?.close());

  const expectJsonError = (response: RawResponse, status: number, code: string) => {
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(response.body)));
    expect(response.body).toEqual({ error: { status, code, message: expect.stringMatching(/^[A-Z].*[^.]$/) } });
    return (response.body as { error: { message: string } }).error.message;
  };

  it('answers a malformed request line with 400 bad_request and a JSON body, then closes', async () => {
    const response = parse(await exchange(server.port, 'GET /api/v1/devices HTTP/9.9x\r\nHost: x\r\n\r\n'));
    expect(expectJsonError(response, 400, 'bad_request')).toContain('request line');
    expect(response.headers.connection).toBe('close');
    expect(refused.at(-1)).toMatchObject({ status: 400, error_code: 'bad_request', route: null, client_address: '127.0.0.1' });
  });

  it('answers a header that is not a token with 400 bad_request', async () => {
    const response = parse(await exchange(server.port, 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'));
    expect(expectJsonError(response, 400, 'bad_request')).toBe('A request header is malformed');
  });

  it('answers headers larger than maxHeaderBytes with 431 headers_too_large, naming the limit', async () => {
    const response = parse(await exchange(server.port, `GET / HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(4_000)}\r\n\r\n`));
    expect(expectJsonError(response, 431, 'headers_too_large')).toBe('The request line and headers are larger than 2048 bytes');
  });

  it('answers an HTTP/1.1 request without Host with 400 bad_request', async () => {
    const response = parse(await exchange(server.port, 'GET /api/v1/devices HTTP/1.1\r\n\r\n'));
    expect(expectJsonError(response, 400, 'bad_request')).toBe('The Host header is missing: HTTP/1.1 requests must send one');
    expect(refused.at(-1)).toMatchObject({ method: 'GET', status: 400 });
  });

  it('answers an invalid Host with 400 bad_request, quoting it', async () => {
    const response = parse(await exchange(server.port, 'GET /api/v1/devices HTTP/1.1\r\nHost: exa mple@evil\r\n\r\n'));
    expect(expectJsonError(response, 400, 'bad_request')).toBe('The Host header "exa mple@evil" is invalid');
    expect(response.headers.connection).toBe('close');
  });

  it('answers a backslash in the path with 400 bad_request', async () => {
    const response = parse(await exchange(server.port, 'GET /api\\v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
    expect(expectJsonError(response, 400, 'bad_request')).toBe('The request path "/api\\\\v1/devices" holds a backslash: use "/"');
  });

  it('answers OPTIONS * with 400 bad_request', async () => {
    const response = parse(await exchange(server.port, 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
    expect(expectJsonError(response, 400, 'bad_request')).toBe('The request target "*" is invalid: send a path that starts with "/"');
  });

  it('answers an Expect other than 100-continue with 417 expectation_failed, and 100-continue goes through', async () => {
    const response = parse(await exchange(server.port, 'GET /api/v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 200-ok\r\n\r\n'));
    expect(expectJsonError(response, 417, 'expectation_failed')).toBe('Expect "200-ok" is not supported: only "100-continue" is');
    expect(response.headers.connection).toBe('close');

    const continued = await exchange(
      server.port,
      'GET /api/v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
    );
    expect(continued).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 401 /);
  });

  it('still serves a well-formed request on the same server, through the app', async () => {
    const response = parse(await exchange(server.port, 'GET /api/v2 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
    expect(response.status).toBe(404);
    expect(response.headers['x-ratelimit-limit']).toBe('30');
    expect(response.body).toMatchObject({ error: { code: 'not_found' } });
  });

  it('answers garbage after a finished response on a kept-alive connection with its own JSON 400', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write('GET /api/v2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        const first = text === '';
        text += chunk;
        if (first) socket.write('NOT HTTP\r\n\r\n');
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    const responses = raw.split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(responses.map((each) => /^HTTP\/1\.1 (\d{3})/.exec(each)?.[1])).toEqual(['404', '400']);
    expect(parse(responses[1]!).body).toMatchObject({ error: { code: 'bad_request' } });
  });
});
