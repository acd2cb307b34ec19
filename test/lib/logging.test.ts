// The request logger is built lazily (lib/logging.ts); what it writes must be what pino's eager child wrote.
import { Writable } from 'node:stream';
import t from 'tap';
import { testApp as buildApp } from '../fixtures/app.js';
import { example } from '../fixtures/requests.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      cb();
    },
  });
  return { lines, stream };
}

t.test('at debug, each hook call logs one line bound to its request id and parent', async (t) => {
  const { lines, stream } = capture();
  const app = buildApp({ logger: { level: 'debug', stream } as any });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload: example('memcached-sync') });
  t.equal(res.statusCode, 200);
  const answered = lines.filter((l) => l['msg'] === 'hook answered');
  t.equal(answered.length, 1);
  t.match(answered[0], {
    level: 20,
    reqId: String,
    hook: 'memcached/sync',
    name: 'memcached-sample',
    namespace: 'default',
  });
});

t.test('at warn, a successful call logs nothing; a failing one logs with its request id', async (t) => {
  const { lines, stream } = capture();
  const app = buildApp({
    logger: { level: 'warn', stream } as any,
    operators: [
      {
        name: 'broken',
        type: 'composite',
        resource: (await import('../../hooks/memcached/index.js')).memcached.resource,
        sync: () => {
          throw new Error('boom');
        },
      } as any,
    ],
  });
  t.teardown(() => app.close());
  await app.inject({ method: 'POST', url: '/hooks/broken/sync', payload: example('memcached-sync') });
  const failed = lines.filter((l) => l['msg'] === 'hook failed');
  t.equal(failed.length, 1);
  t.match(failed[0], { level: 50, reqId: String, err: { message: 'boom' } });
  t.equal(lines.filter((l) => (l['level'] as number) < 40).length, 0, 'nothing below warn');
});
