/**
 * Test helper: a real WebSocket listener (RFC 6455) on node:http's upgrade, without the `ws`
 * package: it accepts any client, collects the text messages it receives, and answers a close
 * frame with one. Enough to see what a `gctx` process actually delivered before it exited.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';

export interface WsListener {
  url: string;
  messages: string[];
  close: () => Promise<void>;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** Reads the client's (masked) frames out of `buf`; returns what is left of an incomplete one. */
function frames(buf: Buffer, onText: (t: string) => void, onClose: () => void): Buffer {
  for (;;) {
    if (buf.length < 2) return buf;
    const opcode = buf[0]! & 0x0f;
    let len = buf[1]! & 0x7f;
    let at = 2;
    if (len === 126) {
      if (buf.length < 4) return buf;
      len = buf.readUInt16BE(2);
      at = 4;
    } else if (len === 127) {
      if (buf.length < 10) return buf;
      len = Number(buf.readBigUInt64BE(2));
      at = 10;
    }
    const masked = (buf[1]! & 0x80) !== 0;
    const mask = masked ? buf.subarray(at, at + 4) : null;
    if (masked) at += 4;
    if (buf.length < at + len) return buf;
    const payload = Buffer.from(buf.subarray(at, at + len));
    if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
    if (opcode === 1) onText(payload.toString('utf8'));
    if (opcode === 8) onClose();
    buf = buf.subarray(at + len);
  }
}

export async function wsListener(): Promise<WsListener> {
  const messages: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => res.writeHead(426).end());
  server.on('upgrade', (req, socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}${GUID}`).digest('base64');
    const head = [
      'HTTP/1.1 101 Switching Protocols',
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Accept: ${accept}`,
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    let rest: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      rest = frames(
        Buffer.concat([rest, chunk]),
        (t) => messages.push(t),
        () => socket.end(Buffer.from([0x88, 0x00])),
      );
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `ws://127.0.0.1:${port}`,
    messages,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
