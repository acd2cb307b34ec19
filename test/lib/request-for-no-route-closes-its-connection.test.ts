// A request for no route is answered 404 by the server-wide guard before its body is read (lib/guard.ts guardPlugin)
// and its connection is closed: a caller that sends requests nothing serves keeps no connection open, whether its
// request arrived whole (a GET, a body sent in full) or not. The refusal's shape and log line: app.test.ts.
import { connect } from 'node:net';
import t from 'tap';
import { buildApp } from '../../lib/app.js';

/** What the server answers to `request` on a keep-alive connection, and whether it closed that connection. */
function ask(port: number, request: string): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed: false });
    }, 3000);
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closed: true });
    });
  });
}

t.test('a request for no route that arrived whole is answered 404 and its connection closed', async (t) => {
  const app = buildApp({ operators: [] });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const body = '{"a":1}';
  for (const request of [
    'GET /nope HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n',
    `POST /nope HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  ]) {
    const { answer, closed } = await ask(port, request);
    t.match(answer, /^HTTP\/1.1 404 /, request.slice(0, request.indexOf(' HTTP')));
    t.match(answer, /\r\nconnection: close\r\n/i, 'told the connection closes');
    t.ok(closed, 'and closed by the server');
  }
});
