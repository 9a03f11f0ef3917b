/**
 * A TCP proxy on 127.0.0.1 whose link can stall (D28): while stalled it keeps every connection
 * open and accepts new ones, but forwards nothing, in either direction — the bytes are dropped, as
 * on a network path that lost its route. Connections that lived through a stall stay broken after
 * `resume()` (their protocol stream lost bytes), so only a client that discards them recovers.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface StallingProxy {
  /** The port it listens on, at 127.0.0.1. */
  readonly port: number;
  /** `target` with host and port replaced by this proxy's. */
  url(target: string): string;
  /** Stops forwarding; connections stay open. */
  stall(): void;
  /** Forwards again, for connections opened from now on. */
  resume(): void;
  /** Closes every connection and the listener. */
  stop(): Promise<void>;
}

/**
 * Starts a proxy to `host:port`.
 *
 * @param host The target host.
 * @param port The target port.
 * @returns The proxy, forwarding.
 */
export async function startStallingProxy(host: string, port: number): Promise<StallingProxy> {
  const sockets = new Set<Socket>();
  let stalled = false;
  const server = createServer((client) => {
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    // A connection that saw a stall never forwards again: bytes of its stream were lost.
    let broken = stalled;
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (stalled) broken = true;
      if (!broken) to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const proxyPort = _port(server);
  return {
    port: proxyPort,
    url(target) {
      const url = new URL(target);
      url.hostname = '127.0.0.1';
      url.port = String(proxyPort);
      return url.toString();
    },
    stall() {
      stalled = true;
    },
    resume() {
      stalled = false;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function _port(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('Not listening on TCP');
  return address.port;
}
