import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got, verified with the reference library of Standard Webhooks. */
export interface ReceivedWebhook {
  readonly path: string;
  readonly id: string;
  readonly type: string;
  /** Epoch ms when it arrived. */
  readonly at: number;
  /** Whether the endpoint's secret verifies it. */
  readonly verified: boolean;
  /** Whether a wrong secret verifies it (it must not). */
  readonly verifiedWithWrongSecret: boolean;
}

/** What a path answers: a status and headers, or `null` to never answer. */
export type WebhookAnswer = (request: ReceivedWebhook, seenBefore: number) => { status: number; headers?: Record<string, string> } | null;

const WRONG_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

/**
 * A webhook receiver for the tests: verifies every request with the `standardwebhooks` library
 * (the endpoint's secret by path, and a wrong one), records it, answers what its path says, and
 * notes any request that arrives while another of the same id is being answered (one event sent
 * twice at once).
 */
export async function startWebhookReceiver(options: { readonly port?: number; readonly answers: Readonly<Record<string, WebhookAnswer>> }) {
  const secrets = new Map<string, string>();
  const received: ReceivedWebhook[] = [];
  const inFlight = new Set<string>();
  const overlaps: string[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      const path = (request.url ?? '/').split('?')[0]!;
      const headers = request.headers as Record<string, string>;
      const verify = (secret: string | undefined) => {
        try {
          if (!secret) return false;
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      };
      const id = headers['webhook-id'] ?? '';
      if (inFlight.has(id)) overlaps.push(id);
      inFlight.add(id);
      const entry: ReceivedWebhook = {
        path,
        id,
        type: (JSON.parse(body) as { type: string }).type,
        at: Date.now(),
        verified: verify(secrets.get(path)),
        verifiedWithWrongSecret: verify(WRONG_SECRET),
      };
      const seenBefore = received.filter((one) => one.id === id && one.path === path).length;
      received.push(entry);
      const notFound: WebhookAnswer = () => ({ status: 404 });
      const answer = (options.answers[path] ?? notFound)(entry, seenBefore);
      if (answer === null) {
        inFlight.delete(id);
        hanging.push(response);
        return;
      }
      // A short pause, so that a second sender of the same event would overlap.
      setTimeout(() => {
        inFlight.delete(id);
        response.writeHead(answer.status, answer.headers ?? {}).end();
      }, 2);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    overlaps,
    /** The secret that verifies the requests to `path`. */
    trust(path: string, secret: string) {
      secrets.set(path, secret);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits until `done()` holds, checking every 50 ms; fails after `timeoutMs` with `what`. */
export async function waitFor(done: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
