import t from 'tap';
import { testApp as buildApp } from '../fixtures/app.js';
import { operators } from '../../main/operators.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { podsetSync } from '../fixtures/hooks.js';
import { example, FIXED_NOW } from '../fixtures/requests.js';

function build(t: { teardown(fn: () => unknown): void }) {
  const app = buildApp({ services: { now: () => FIXED_NOW, randomSecret: () => 'fixed-password' } });
  t.teardown(() => app.close());
  return app;
}

t.test('GET /hooks lists every hook served', async (t) => {
  const app = build(t);
  const res = await app.inject({ method: 'GET', url: '/hooks' });
  t.equal(res.statusCode, 200);
  const paths = res.json().hooks.map((h: any) => h.path);
  // Every operator of the list, each with the hooks its definition has, in the list's order.
  const expected = operators.flatMap((def) =>
    ['sync', ...(def.finalize ? ['finalize'] : []), ...(def.customize ? ['customize'] : [])].map(
      (hook) => `/hooks/${def.name}/${hook}`,
    ),
  );
  t.same(paths, expected);
  // Anchors, so that a definition losing a hook is noticed here too.
  for (const path of [
    '/hooks/memcached/customize',
    '/hooks/etcdcluster/finalize',
    '/hooks/s3/finalize',
    '/hooks/podbuggertool/sync',
    '/hooks/podbuggertool-injector/sync',
    '/hooks/podbuggertool-injector/customize',
  ]) {
    t.ok(paths.includes(path), path);
  }
});

t.test('health and readiness', async (t) => {
  const app = build(t);
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
  t.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
});

t.test('POST /hooks/memcached/sync answers with every field of every child', async (t) => {
  const app = build(t);
  const res = await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload: example('memcached-sync') });
  t.equal(res.statusCode, 200);
  const body = res.json();
  const deploy = body.children.find((c: any) => c.kind === 'Deployment');
  t.equal(deploy.spec.replicas, 3);
  t.same(deploy.spec.template.spec.containers[0].command, [
    'memcached',
    '-m',
    '64',
    '-o',
    'modern',
    '-v',
    '-p',
    '11211',
  ]);
  t.equal(body.status.conditions[0].lastTransitionTime, '2026-01-02T03:04:05Z');
  t.notOk('finalized' in body, 'no fields Metacontroller does not know');
});

t.test('the three hooks answer their example requests', async (t) => {
  const app = build(t);
  for (const [url, file, kinds] of [
    ['/hooks/podset/sync', 'podset-sync', ['Pod', 'Pod', 'NetworkPolicy']],
    ['/hooks/mysqlcluster/sync', 'mysqlcluster-sync', ['Secret', 'StatefulSet', 'Service', 'Service', 'Service']],
  ] as const) {
    const res = await app.inject({ method: 'POST', url, payload: example(file) });
    t.equal(res.statusCode, 200, url);
    t.same(
      res.json().children.map((c: any) => c.kind),
      kinds,
    );
  }
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/memcached/customize',
    payload: example('memcached-customize'),
  });
  t.equal(res.json().relatedResources[0].resource, 'pods');
});

t.test(
  "the body sent is the hook's answer exactly as JSON.stringify writes it: no field dropped, none reordered",
  async (t) => {
    const app = build(t);
    for (const [url, file, sync] of [
      ['/hooks/memcached/sync', 'memcached-sync', (r: any) => memcachedSync(r, FIXED_NOW)],
      ['/hooks/podset/sync', 'podset-sync', (r: any) => podsetSync(r, FIXED_NOW)],
      ['/hooks/mysqlcluster/sync', 'mysqlcluster-sync', (r: any) => mysqlSync(r, FIXED_NOW, () => 'fixed-password')],
    ] as const) {
      const res = await app.inject({ method: 'POST', url, payload: example(file) });
      t.equal(res.statusCode, 200, url);
      t.equal(res.body, JSON.stringify(sync(example(file))), url);
    }
    // Commands with characters JSON escapes: the same bytes as JSON.stringify (a new PodSet: every pod answered).
    for (const command of [
      ['sleep', '3600'],
      ['echo', '<metaops name>', '"quoted"'],
    ]) {
      const req = example('podset-sync');
      (req.parent.spec as { command: string[] }).command = command;
      req.children = { 'Pod.v1': {} };
      const res = await app.inject({ method: 'POST', url: '/hooks/podset/sync', payload: req });
      t.equal(res.body, JSON.stringify(podsetSync(req, FIXED_NOW)), command.join(' '));
      t.same(res.json().children[1].spec.containers[0].command, command);
    }
  },
);

t.test('bad requests get a 4xx that says what is wrong', async (t) => {
  const app = build(t);
  const noParent = await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload: { controller: {} } });
  t.equal(noParent.statusCode, 400);
  t.match(noParent.json().message, /must have required property 'parent'/);

  const badChildren = example('memcached-sync') as any;
  badChildren.children = { 'Deployment.apps/v1': { x: { kind: 'Deployment' } } };
  const res = await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload: badChildren });
  t.equal(res.statusCode, 400);
  t.match(res.json().message, /children/);

  const malformed = await app.inject({
    method: 'POST',
    url: '/hooks/memcached/sync',
    headers: { 'content-type': 'application/json' },
    payload: '{"controller":',
  });
  t.equal(malformed.statusCode, 400);
  t.match(malformed.json().message, /JSON/i);

  const wrongType = await app.inject({
    method: 'POST',
    url: '/hooks/memcached/sync',
    headers: { 'content-type': 'text/plain' },
    payload: 'hello',
  });
  t.equal(wrongType.statusCode, 415);

  const unknown = await app.inject({ method: 'POST', url: '/hooks/nosuchkind/sync', payload: {} });
  t.equal(unknown.statusCode, 404);
  t.match(unknown.json().message, /GET \/hooks lists/);
});

t.test('an invalid spec is a 200 with a condition, not an error', async (t) => {
  const app = build(t);
  const req = example('memcached-sync') as any;
  req.parent.spec.size = -1;
  const res = await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload: req });
  t.equal(res.statusCode, 200);
  t.match(res.json().status.conditions[0], { type: 'Ready', status: 'False', reason: 'InvalidSpec' });
});

t.test('a hook that throws is a 500 that hides the details', async (t) => {
  const app = buildApp({
    operators: [
      {
        type: 'composite',
        name: 'broken',
        resource: {} as any,
        childResources: [],
        sync: () => {
          throw new Error('secret internals');
        },
      },
    ],
  });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/hooks/broken/sync', payload: example('memcached-sync') });
  t.equal(res.statusCode, 500);
  t.notMatch(res.body, /secret internals/);
  t.match(res.json().message, /see the metaops log for request/);
});

t.test('over a real socket', async (t) => {
  const app = build(t);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const res = await fetch(`${address}/hooks/podset/sync`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(example('podset-sync')),
  });
  t.equal(res.status, 200);
  const body = (await res.json()) as any;
  t.same(
    body.children.map((c: any) => c.metadata.name),
    ['podset-sample-0', 'podset-sample-1', 'podset-sample-podset'],
  );
});

t.test('ETag: a strong tag from the body, 304 when the caller has this very answer', async (t) => {
  const app = build(t);
  const payload = example('memcached-sync');
  const first = await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload });
  const etag = first.headers['etag'] as string;
  t.match(etag, /^"[A-Za-z0-9_-]{27}"$/);
  const again = await app.inject({
    method: 'POST',
    url: '/hooks/memcached/sync',
    payload,
    headers: { 'if-none-match': etag },
  });
  t.equal(again.statusCode, 304);
  t.equal(again.body, '');
  const other = await app.inject({
    method: 'POST',
    url: '/hooks/memcached/sync',
    payload,
    headers: { 'if-none-match': '"stale"' },
  });
  t.equal(other.statusCode, 200);
  t.equal(other.headers['etag'], etag, 'same answer, same tag');
  const changed = example('memcached-sync') as any;
  changed.parent.spec.size = 5;
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/memcached/sync',
    payload: changed,
    headers: { 'if-none-match': etag },
  });
  t.equal(res.statusCode, 200, 'a different answer is sent in full');
  t.not(res.headers['etag'], etag);
});

t.test('ETag follows the answer, not the request: another request with the same answer is a 304', async (t) => {
  const { createHash } = await import('node:crypto');
  const app = build(t);
  const first = await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload: example('memcached-sync') });
  const etag = first.headers['etag'] as string;
  t.equal(
    etag,
    `"${createHash('sha1').update(first.body).digest('base64url')}"`,
    'the tag is the digest of the body sent',
  );
  // A resync after an unrelated change: new resourceVersion and labels on the parent, the same answer.
  const other = example('memcached-sync') as any;
  other.parent.metadata.resourceVersion = '999999';
  other.parent.metadata.labels = { ...(other.parent.metadata.labels ?? {}), resync: '7' };
  other.controller = { ...(other.controller ?? {}), note: 'another request' };
  const again = await app.inject({
    method: 'POST',
    url: '/hooks/memcached/sync',
    payload: other,
    headers: { 'if-none-match': etag },
  });
  t.equal(again.statusCode, 304, 'same answer to a different request: 304');
  const multi = await app.inject({
    method: 'POST',
    url: '/hooks/memcached/sync',
    payload: other,
    headers: { 'if-none-match': `"x", ${etag}` },
  });
  t.equal(multi.statusCode, 304, 'a list of tags, one of them this one');
});
