#!/usr/bin/env node
// The floor of the live-stream benchmark (scripts/bench-live.ts): a bare server that relays, with no work of
// its own, what TARS's stream does per AMI event, to the same clients:
//   node scripts/bench-live-floor.mjs --frame-bytes N
// prints "source port PORT2" and then "listening on http://127.0.0.1:PORT" once both ports accept connections.
// - HTTP (node:http): GET /stream answers 200 text/event-stream and keeps the response;
// - the source port (node:net): the benchmark writes AMI event messages (text ending in a blank line) to it;
//   for each, the floor writes one event of N bytes carrying the message's PausedReason to every stream.
// No authentication, no parsing beyond the blank line and one regular expression, no state, no JSON.
import { createServer as createHttp } from 'node:http';
import { createServer as createNet } from 'node:net';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({ options: { 'frame-bytes': { type: 'string', default: '2000' } } });
const FRAME = Number(opts['frame-bytes']);
const clients = new Set();
let seq = 0;

const http = createHttp((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store' });
  req.socket.setNoDelay(true);
  clients.add(res);
  res.on('close', () => clients.delete(res));
  res.write('retry: 2000\n\n');
});

const source = createNet((socket) => {
  socket.setNoDelay(true);
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    pending += chunk;
    let end;
    while ((end = pending.indexOf('\r\n\r\n')) >= 0) {
      const message = pending.slice(0, end);
      pending = pending.slice(end + 4);
      const marker = /PausedReason: (.*)/.exec(message)?.[1] ?? '';
      const head = `id: ${seq++}\nevent: queue\ndata: {"pauseReason":"${marker}","pad":"`;
      const frame = `${head}${'x'.repeat(Math.max(0, FRAME - head.length - 4))}"}\n\n`;
      for (const res of clients) res.write(frame);
    }
  });
});

http.listen(0, '127.0.0.1', () =>
  source.listen(0, '127.0.0.1', () =>
    process.stdout.write(`source port ${source.address().port}\nlistening on http://127.0.0.1:${http.address().port}\n`),
  ),
);
process.on('SIGTERM', () => process.exit(0));
