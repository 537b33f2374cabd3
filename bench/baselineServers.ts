/**
 * The bare `ws` servers the server bench measures the service against, each started as a node process of its
 * own (`node -e SOURCE`) that prints `listening on http://127.0.0.1:PORT`.
 *
 * - The **echo** sends every frame back: no work per frame, but a 3,200-byte reply to each (10 a
 *   session-second), and each reply carries the TCP acknowledgement of the frame it answers.
 * - The **sink** reads every frame and answers one in {@link SINK_EVERY} with a text message the size of
 *   a typical event of the service ({@link SINK_EVENT}): the service's traffic (2.5 events a
 *   session-second against its 2.75) with none of its work, so the service over the sink is what the
 *   service's own work costs (docs/reliability.md).
 */

/** The sink answers every SINK_EVERY-th frame of a connection (the 4th, 8th, …). */
export const SINK_EVERY = 4;

/** What the sink sends: a `transcript` event of the service's usual size (188 bytes; the service's are about 200). */
export const SINK_EVENT = JSON.stringify({
  type: 'transcript',
  status: 'streaming',
  text: 'the left ventricle is normal in size with an estimated',
  id: '5f0c9a7e3b1d4c2a8e6f0b9d7c5a3e1f',
  index: 3,
  seq: 17,
  start: 2.84,
  end: 5.1,
});

const wsModule = (): string => JSON.stringify(require.resolve('ws'));

/** The echo server's source for `node -e`. */
export function echoSource(): string {
  return `
    const { WebSocketServer } = require(${wsModule()});
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
    wss.on('connection', (ws) => ws.on('message', (d, b) => ws.send(d, { binary: b })));
    wss.on('listening', () => console.log('listening on http://127.0.0.1:' + wss.address().port));`;
}

/** The sink server's source for `node -e`. */
export function sinkSource(): string {
  return `
    const { WebSocketServer } = require(${wsModule()});
    const EVENT = ${JSON.stringify(SINK_EVENT)};
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
    wss.on('connection', (ws) => {
      let frames = 0;
      ws.on('message', () => {
        if (++frames % ${SINK_EVERY} === 0) ws.send(EVENT);
      });
    });
    wss.on('listening', () => console.log('listening on http://127.0.0.1:' + wss.address().port));`;
}

/** For each of `n` frames, how many messages the sink sends after it (1 for every SINK_EVERY-th, else 0). */
export function sinkEventsPerFrame(n: number): number[] {
  return Array.from({ length: n }, (_, i) => ((i + 1) % SINK_EVERY === 0 ? 1 : 0));
}
