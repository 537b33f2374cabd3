/** One short session before the soak's baseline: 2 s of the loop, then `stop`, waiting for the close. */
import WebSocket from 'ws';
import { SESSION_CONFIG, frameAt } from './audio';

export async function warmUpSession(wsUrl: string, key: { key: string }): Promise<void> {
  const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${key.key}` }, perMessageDeflate: false });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => ws.send(JSON.stringify({ type: 'configure', config: SESSION_CONFIG })));
    ws.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type?: string }).type === 'configured') resolve();
    });
    void closed.then((code) => reject(new Error(`warm-up session closed (${code}) before configured`)));
  });
  for (let k = 0; k < 20; k++) ws.send(frameAt(k));
  ws.send(JSON.stringify({ type: 'control', action: 'stop' }));
  const code = await closed;
  if (code !== 1000) throw new Error(`warm-up session closed with ${code}`);
}
