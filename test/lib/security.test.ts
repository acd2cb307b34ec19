// Authentication, deadlines, metrics and log redaction of the hook service.
import t from 'tap';
import { testApp as buildApp } from '../fixtures/app.js';
import {
  authorizationProblem,
  authorized,
  certificateNames,
  clientCertificateProblem,
  safeEqual,
} from '../../lib/auth.js';
import { settingsFromEnv } from '../../lib/config.js';
import { Metrics } from '../../lib/metrics.js';
import { captureLogs } from '../fixtures/logs.js';
import { example, FIXED_NOW } from '../fixtures/requests.js';

t.test('constant-time comparison and the accepted schemes', async (t) => {
  t.ok(safeEqual('abc', 'abc'));
  t.notOk(safeEqual('abc', 'abd'));
  t.notOk(safeEqual('abc', 'abcd'));
  const auth = { bearer: 's3cret', basic: { user: 'mc', password: 'pw' } };
  t.ok(authorized('Bearer s3cret', auth));
  t.notOk(authorized('Bearer wrong', auth));
  t.ok(authorized(`Basic ${Buffer.from('mc:pw').toString('base64')}`, auth));
  t.notOk(authorized(`Basic ${Buffer.from('mc:no').toString('base64')}`, auth));
  t.notOk(authorized(`Basic ${Buffer.from('nocolon').toString('base64')}`, auth));
  t.notOk(authorized(undefined, auth));
  t.notOk(authorized('Bearer s3cret', {}), 'no credentials configured: no header authorizes anyone');
  t.notOk(authorized('Bearer', auth), 'a scheme without a value');
  t.notOk(authorized(`Token s3cret`, auth), 'another scheme');
  t.same(settingsFromEnv({ METAOPS_AUTH_TOKEN: ' tok-0123456789abcdef ', METAOPS_BASIC_AUTH: 'u:p:q' }).auth, {
    bearer: 'tok-0123456789abcdef',
    basic: { user: 'u', password: 'p:q' },
  });
  t.throws(() => settingsFromEnv({ METAOPS_BASIC_AUTH: 'nouser' }));
});

t.test('with a token, hooks refuse strangers; health, readiness and metrics stay open', async (t) => {
  const app = buildApp({ auth: { bearer: 'tok' }, services: { now: () => FIXED_NOW } });
  t.teardown(() => app.close());
  const payload = example('memcached-sync');
  const none = await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload });
  t.equal(none.statusCode, 401);
  t.equal(none.headers['www-authenticate'], 'Bearer realm="metaops"');
  const wrong = await app.inject({
    method: 'POST',
    url: '/hooks/memcached/sync',
    payload,
    headers: { authorization: 'Bearer nope' },
  });
  t.equal(wrong.statusCode, 401);
  const right = await app.inject({
    method: 'POST',
    url: '/hooks/memcached/sync',
    payload,
    headers: { authorization: 'Bearer tok' },
  });
  t.equal(right.statusCode, 200);
  for (const url of ['/healthz', '/readyz', '/metrics'])
    t.equal((await app.inject({ url })).statusCode, 200, `${url} open`);
  const text = (await app.inject({ url: '/metrics' })).body;
  t.match(
    text,
    /metaops_hook_requests_total\{hook="memcached\/sync",outcome="client_error"\} 2/,
    'refusals are counted',
  );
  t.match(text, /metaops_hook_requests_total\{hook="memcached\/sync",outcome="ok"\} 1/);
});

t.test('metrics count hook calls by outcome and dependency calls', async (t) => {
  const app = buildApp({ services: { now: () => FIXED_NOW } });
  t.teardown(() => app.close());
  await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload: example('memcached-sync') });
  const full = await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload: example('memcached-sync') });
  await app.inject({
    method: 'POST',
    url: '/hooks/memcached/sync',
    payload: example('memcached-sync'),
    headers: { 'if-none-match': full.headers['etag'] as string },
  });
  await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload: { controller: {} } });
  await app.inject({ method: 'POST', url: '/hooks/nosuch/sync', payload: {} });
  const text = (await app.inject({ url: '/metrics' })).body;
  t.match(text, /metaops_hook_requests_total\{hook="memcached\/sync",outcome="not_modified"\} 1/);
  t.notMatch(text, /nosuch/, 'no route, no series');
  t.match(text, /metaops_hook_requests_total\{hook="memcached\/sync",outcome="ok"\} 2/);
  t.match(text, /metaops_hook_requests_total\{hook="memcached\/sync",outcome="client_error"\} 1/);
  t.match(text, /metaops_hook_duration_seconds_bucket\{le="0.05",hook="memcached\/sync",outcome="ok"\}/);
  t.match(text, /metaops_dependency_calls_total/);
});

t.test('a dependency kept for the life of the server is instrumented once, and its calls still counted', async (t) => {
  const metrics = new Metrics(false);
  const client = { ping: async () => 'pong' };
  const view = metrics.instrument(client, 'etcd');
  t.equal(metrics.instrument(client, 'etcd'), view, 'the same view for the same object');
  t.not(metrics.instrument({ ping: async () => 'pong' }, 'etcd'), view, 'another object, another view');
  t.equal(await view.ping(), 'pong');
  t.match(
    await metrics.registry.metrics(),
    /metaops_dependency_calls_total\{dependency="etcd",operation="ping",outcome="ok"\} 1/,
  );
});

t.test(
  'a hook that overruns its deadline answers 429 with Retry-After (what Metacontroller v4.17 honours), in time',
  async (t) => {
    const app = buildApp({
      hookDeadlineMs: 200,
      operators: [
        {
          type: 'composite',
          name: 'slow',
          resource: {} as any,
          childResources: [],
          sync: () => new Promise((r) => setTimeout(() => r({ status: {}, children: [] }), 2000)),
        },
      ],
    });
    t.teardown(() => app.close());
    const started = Date.now();
    const res = await app.inject({ method: 'POST', url: '/hooks/slow/sync', payload: example('memcached-sync') });
    t.ok(Date.now() - started < 1500);
    t.equal(res.statusCode, 429);
    t.equal(res.headers['retry-after'], '5');
    t.match(res.json().message, /did not answer within 200 ms/);
    t.match(
      (await app.inject({ url: '/metrics' })).body,
      /metaops_hook_requests_total\{hook="slow\/sync",outcome="deadline"\} 1/,
    );
  },
);

t.test('credentials never reach the log', async (t) => {
  const logs = captureLogs();
  const app = buildApp({
    logger: { level: 'trace', stream: logs.stream } as any,
    auth: { bearer: 'super-secret-token' },
    services: { now: () => FIXED_NOW },
  });
  t.teardown(() => app.close());
  // A body full of credentials, and a request that fails so that it is logged with its details.
  const payload = example('mysqlcluster-sync') as any;
  payload.children['Secret.v1'] = {
    'my-mysql-mysql': {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'my-mysql-mysql', namespace: 'default' },
      data: { 'root-password': Buffer.from('hunter2-root-password').toString('base64') },
    },
  };
  await app.inject({
    method: 'POST',
    url: '/hooks/mysqlcluster/sync',
    payload,
    headers: { authorization: 'Bearer super-secret-token' },
  });
  await app.inject({
    method: 'POST',
    url: '/hooks/mysqlcluster/sync',
    payload,
    headers: { authorization: 'Bearer wrong-token-value' },
  });
  app.log.info(
    { headers: { authorization: 'Bearer super-secret-token' }, data: { AWS_SECRET_ACCESS_KEY: 'x' } },
    'probe',
  );
  t.ok(logs.text().length > 0, 'something was logged');
  t.notMatch(logs.text(), /super-secret-token/);
  t.notMatch(logs.text(), /wrong-token-value/);
  t.notMatch(logs.text(), /aHVudGVyMi1yb290LXBhc3N3b3Jk|hunter2/);
  t.match(logs.text(), /\[REDACTED\]/);
});

t.test('credential parsing: schemes are not interchangeable, white space is tolerated, nothing else', async (t) => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const basic = { basic: { user: 'mc', password: 'pw' } };
  const bearer = { bearer: 's3cret' };
  t.ok(authorized('Bearer  s3cret', bearer), 'extra spaces between scheme and token');
  t.ok(authorized('bearer s3cret', bearer), 'the scheme is case-insensitive');
  t.notOk(authorized('Basic ' + b64('mc:pw'), bearer), 'Basic credentials when only a token is configured');
  t.notOk(authorized('Token ' + b64('mc:pw'), basic), 'the right Basic credentials under another scheme');
  t.notOk(authorized('Bearer ' + b64('mc:pw'), basic), 'nor under Bearer');
  t.ok(authorized('Basic ' + b64('mc:pw'), basic));
  t.ok(authorized('Basic  ' + b64('mc:pw') + ' ', basic), 'white space around the Basic value');
  t.notOk(authorized('Basic ' + b64('mc:pw:x'), basic), 'a password with more after it');
  t.notOk(authorized('Basic ' + b64('mcpw'), basic), 'no colon');
  t.notOk(authorized('s3cret', bearer), 'a bare token without a scheme');
  t.notOk(authorized(' s3cret', bearer));
  t.notOk(authorized('Bearer1', { bearer: 'Bearer1' }), 'no space: no scheme, whatever the rest says');
  t.notOk(
    authorized('Basic ' + b64('abc'), { basic: { user: 'ab', password: 'abc' } }),
    'no colon: not a user and a password',
  );
});

/** A TLS socket as the server sees it: verified or not, with this peer certificate. */
const socket = (authorized: boolean, cert: Record<string, unknown>) => ({ authorized, getPeerCertificate: () => cert });

t.test('client certificate names: CN and every DNS SAN, nothing else', async (t) => {
  t.same(
    certificateNames(
      socket(true, {
        subject: { CN: 'metacontroller' },
        subjectaltname: 'DNS:a.example, IP Address:127.0.0.1, DNS:b.example',
      }) as any,
    ),
    ['metacontroller', 'a.example', 'b.example'],
  );
  t.same(certificateNames(socket(true, { subject: { CN: ['x', 'y'] } }) as any), ['x', 'y'], 'several CNs');
  t.same(
    certificateNames(socket(true, { subject: {}, subjectaltname: 'URI:spiffe://a, email:DNS:x' }) as any),
    [],
    'URI and e-mail SANs are not names',
  );
  t.same(certificateNames(socket(true, {}) as any), [], 'no certificate');
});

t.test('client certificate check: verified by the CA, and one of the allowed names when names are set', async (t) => {
  const mc = { subject: { CN: 'metacontroller' }, subjectaltname: 'DNS:mc.metacontroller.svc' };
  t.match(clientCertificateProblem(undefined, undefined), /required/);
  t.match(clientCertificateProblem({}, undefined), /^a client certificate is required/, 'a plain TCP socket');
  t.match(clientCertificateProblem(socket(false, mc), undefined), /signed by the configured CA/);
  t.equal(clientCertificateProblem(socket(true, mc), undefined), undefined, 'verified, no names configured');
  t.equal(clientCertificateProblem(socket(true, mc), []), undefined, 'an empty list restricts nothing');
  t.equal(clientCertificateProblem(socket(true, mc), ['metacontroller']), undefined, 'by CN');
  t.equal(clientCertificateProblem(socket(true, mc), ['mc.metacontroller.svc']), undefined, 'by DNS SAN');
  t.match(clientCertificateProblem(socket(true, mc), ['other']), /not allowed/);
  t.equal(
    clientCertificateProblem(socket(true, { subject: { CN: 'other' }, subjectaltname: 'DNS:metacontroller' }), [
      'metacontroller',
      'x',
    ]),
    undefined,
  );
  t.equal(
    clientCertificateProblem(socket(true, { subject: { CN: 'metacontroller' }, subjectaltname: 'DNS:evil' }), [
      'metacontroller',
    ]),
    undefined,
    'one allowed name is enough',
  );
});

t.test('Authorization headers: one is read, two or more are refused, whatever their case or place', async (t) => {
  t.equal(authorizationProblem([]), undefined);
  t.equal(authorizationProblem(['Host', 'x', 'Authorization', 'Bearer a']), undefined);
  t.equal(
    authorizationProblem(['authorization', 'Bearer a', 'accept', 'authorization']),
    undefined,
    'a value is no name',
  );
  const two = 'more than one Authorization header: send one';
  t.equal(authorizationProblem(['Authorization', 'Bearer a', 'authorization', 'Bearer b']), two);
  t.equal(authorizationProblem(['AUTHORIZATION', 'Bearer a', 'Host', 'x', 'Authorization', '']), two);
  t.equal(authorizationProblem(['authorization', 'a', 'authorization', 'b', 'authorization', 'c']), two);
  t.equal(authorizationProblem(['Proxy-Authorization', 'a', 'Authorization', 'b']), undefined);
});
