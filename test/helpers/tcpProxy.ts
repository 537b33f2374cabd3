/**
 * A TCP proxy on loopback in front of a test service, whose connections can be made silent: what a
 * network change does to an open WebSocket (the old connection neither answers nor closes) while new
 * connections get through.
 */
import net from 'node:net';

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Connections made through it so far. */
  connections(): number;
  /** Every connection open now goes silent: nothing forwarded either way, nothing closed. New ones pass. */
  silenceOpen(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<{ a: net.Socket; b: net.Socket; silent: boolean }>();
  let count = 0;
  const server = net.createServer((a) => {
    count++;
    const b = net.connect(targetPort, '127.0.0.1');
    const pair = { a, b, silent: false };
    pairs.add(pair);
    a.on('data', (d) => {
      if (!pair.silent) b.write(d);
    });
    b.on('data', (d) => {
      if (!pair.silent) a.write(d);
    });
    const end = (): void => {
      pairs.delete(pair);
      a.destroy();
      b.destroy();
    };
    a.on('close', () => {
      if (!pair.silent) end();
    });
    b.on('close', () => {
      if (!pair.silent) end();
    });
    a.on('error', () => undefined);
    b.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    silenceOpen: () => {
      for (const p of pairs) p.silent = true;
    },
    close: async () => {
      for (const p of pairs) {
        p.a.destroy();
        p.b.destroy();
      }
      pairs.clear();
      await new Promise((r) => server.close(r));
    },
  };
}
