// lib/kube.ts as PodBuggerTool uses it, against an HTTP server that checks each request as the API server would
// (method, path, content type, body) and serves the re-read GETs.
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { collectionPath, errorReason, fromServiceAccount, HttpKubeApi, KubeError, objectPath } from '../../lib/kube.js';

interface Seen {
  method: string;
  path: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: string;
}

async function apiServer(t: { teardown(fn: () => unknown): void }, handle: (req: Seen, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const srv = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method!,
        path: req.url!,
        contentType: req.headers['content-type'],
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(s);
      handle(s, res);
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => srv.close(resolve)));
  return { seen, server: `http://127.0.0.1:${(srv.address() as { port: number }).port}` };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const status = (code: number, reason: string, message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  code,
  reason,
  message,
});

t.test('paths: core and named groups, names escaped', async (t) => {
  t.equal(objectPath('v1', 'pods', 'dbg', 'web-1'), '/api/v1/namespaces/dbg/pods/web-1');
  t.equal(
    objectPath('debug.metaops.dev/v1alpha1', 'podbuggertools', 'dbg', 'a'),
    '/apis/debug.metaops.dev/v1alpha1/namespaces/dbg/podbuggertools/a',
  );
  t.equal(objectPath('v1', 'pods', 'dbg', '../x'), '/api/v1/namespaces/dbg/pods/..%2Fx');
  t.equal(
    objectPath('admissionregistration.k8s.io/v1', 'mutatingadmissionpolicies', '', 'p'),
    '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies/p',
    'cluster-scoped: no namespace',
  );
  t.equal(collectionPath('v1', 'pods', 'a b'), '/api/v1/namespaces/a%20b/pods');
  t.equal(
    collectionPath('authorization.k8s.io/v1', 'subjectaccessreviews', ''),
    '/apis/authorization.k8s.io/v1/subjectaccessreviews',
  );
});

t.test('LIST: one page, its selector, limit and continue; anything but a list is the server’s failure', async (t) => {
  const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'dbg' } });
  const { seen, server } = await apiServer(t, (req, res) => {
    if (req.path.includes('continue=c1'))
      return json(res, 200, { kind: 'PodList', metadata: { continue: '' }, items: [pod('c')] });
    if (req.path.startsWith('/api/v1/namespaces/dbg/pods?'))
      return json(res, 200, {
        kind: 'PodList',
        metadata: { continue: 'c1' },
        items: [pod('a'), null, { metadata: {} }, 'x', pod('b')],
      });
    if (req.path.startsWith('/api/v1/namespaces/odd/pods?')) return json(res, 200, { kind: 'PodList', items: 'no' });
    if (req.path.startsWith('/api/v1/namespaces/null/pods?')) return json(res, 200, null);
    if (req.path.startsWith('/api/v1/namespaces/big/pods?')) return json(res, 200, { items: [pod('x'.repeat(500))] });
    return json(res, 403, status(403, 'Forbidden', 'pods is forbidden'));
  });
  const api = new HttpKubeApi(3000, { server, token: 'tok' });
  const first = await api.list('v1', 'pods', 'dbg', { labelSelector: 'app=web,tier in (a,b)', limit: 2.7 });
  t.same(first, { items: [pod('a'), pod('b')], continue: 'c1' }, 'objects with names only');
  const next = await api.list('v1', 'pods', 'dbg', { limit: 0, continue: 'c1' });
  t.same(next, { items: [pod('c')] }, 'an empty continue is the last page');
  t.same(
    seen.map((s) => [s.method, s.path]),
    [
      ['GET', '/api/v1/namespaces/dbg/pods?limit=2&labelSelector=app%3Dweb%2Ctier+in+%28a%2Cb%29'],
      ['GET', '/api/v1/namespaces/dbg/pods?limit=1&continue=c1'],
    ],
  );
  for (const ns of ['odd', 'null'])
    t.match(
      await api.list('v1', 'pods', ns, { limit: 1 }).catch((e: unknown) => e),
      { status: 502, reason: 'InvalidAnswer' },
      ns,
    );
  t.match(await api.list('v1', 'pods', 'other', { limit: 1 }).catch((e: unknown) => e), {
    status: 403,
    reason: 'Forbidden',
  });
  t.match(await api.list('v1', 'pods', 'big', { limit: 1, maxBytes: 100 }).catch((e: unknown) => e), {
    name: 'AnswerTooLargeError',
  });
});

t.test('CREATE: a review posted to its collection, the answer returned', async (t) => {
  const { seen, server } = await apiServer(t, (req, res) => {
    if (req.path === '/apis/authorization.k8s.io/v1/subjectaccessreviews')
      return json(res, 201, { ...JSON.parse(req.body), status: { allowed: true } });
    if (req.path === '/api/v1/namespaces/dbg/configmaps') return json(res, 201, 'a string');
    return json(res, 403, status(403, 'Forbidden', 'no'));
  });
  const api = new HttpKubeApi(3000, { server, token: 'tok' });
  const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'alice' } };
  t.same(await api.create('authorization.k8s.io/v1', 'subjectaccessreviews', '', review), {
    ...review,
    status: { allowed: true },
  });
  t.same([seen[0]!.method, seen[0]!.contentType, JSON.parse(seen[0]!.body)], ['POST', 'application/json', review]);
  t.match(await api.create('v1', 'configmaps', 'dbg', {}).catch((e: unknown) => e), {
    status: 502,
    reason: 'InvalidAnswer',
  });
  t.match(await api.create('v1', 'secrets', 'dbg', {}).catch((e: unknown) => e), { status: 403, reason: 'Forbidden' });
});

t.test('GET reads an object, 404 is undefined, other failures throw with the reason', async (t) => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'dbg', uid: 'u1', resourceVersion: '7' },
  };
  const { seen, server } = await apiServer(t, (req, res) => {
    if (req.path === '/api/v1/namespaces/dbg/pods/web-1') return json(res, 200, pod);
    if (req.path === '/api/v1/namespaces/dbg/pods/secret')
      return json(
        res,
        403,
        status(
          403,
          'Forbidden',
          'pods "secret" is forbidden: User "system:serviceaccount:metaops:metaops" cannot get resource "pods"',
        ),
      );
    if (req.path === '/api/v1/namespaces/dbg/pods/broken') {
      res.writeHead(500);
      return res.end('<html>oops</html>');
    }
    return json(res, 404, status(404, 'NotFound', 'not found'));
  });
  const api = new HttpKubeApi(3000, { server, token: 'tok' });
  t.same(await api.get('v1', 'pods', 'dbg', 'web-1'), pod);
  t.equal(await api.get('debug.metaops.dev/v1alpha1', 'podbuggertools', 'dbg', 'gone'), undefined);
  const forbidden = await api.get('v1', 'pods', 'dbg', 'secret').catch((e: unknown) => e);
  t.ok(forbidden instanceof KubeError);
  t.match(forbidden, {
    status: 403,
    reason: 'Forbidden',
    message: /GET \/api\/v1\/namespaces\/dbg\/pods\/secret: 403 pods "secret" is forbidden/,
  });
  t.equal(errorReason(forbidden), 'Forbidden');
  const broken = await api.get('v1', 'pods', 'dbg', 'broken').catch((e: unknown) => e);
  t.match(broken, { status: 500, reason: 'ServerError' });
  t.same(
    seen.map((s) => [s.method, s.path, s.contentType, s.authorization, s.body]),
    [
      ['GET', '/api/v1/namespaces/dbg/pods/web-1', undefined, 'Bearer tok', ''],
      ['GET', '/apis/debug.metaops.dev/v1alpha1/namespaces/dbg/podbuggertools/gone', undefined, 'Bearer tok', ''],
      ['GET', '/api/v1/namespaces/dbg/pods/secret', undefined, 'Bearer tok', ''],
      ['GET', '/api/v1/namespaces/dbg/pods/broken', undefined, 'Bearer tok', ''],
    ],
  );
  const down = new HttpKubeApi(3000, { server: 'http://127.0.0.1:1' });
  t.equal(errorReason(await down.get('v1', 'pods', 'dbg', 'x').catch((e: unknown) => e)), 'Unreachable');
});

t.test('the ephemeral-container PATCH: subresource, strategic merge, precondition in the body', async (t) => {
  const { seen, server } = await apiServer(t, (req, res) => {
    const body = JSON.parse(req.body);
    if (body.metadata?.resourceVersion === 'stale')
      return json(res, 409, status(409, 'Conflict', 'the object has been modified'));
    return json(res, 200, { kind: 'Pod', metadata: { name: 'web-1' } });
  });
  const api = new HttpKubeApi(3000, { server, token: 'tok' });
  const container = { name: 'debug-a', image: 'busybox', stdin: true, tty: true };
  await api.addEphemeralContainers('dbg', 'web-1', [container], { uid: 'u1', resourceVersion: '7' });
  t.equal(seen[0]!.method, 'PATCH');
  t.equal(seen[0]!.path, '/api/v1/namespaces/dbg/pods/web-1/ephemeralcontainers');
  t.equal(seen[0]!.contentType, 'application/strategic-merge-patch+json');
  t.same(JSON.parse(seen[0]!.body), {
    metadata: { uid: 'u1', resourceVersion: '7' },
    spec: { ephemeralContainers: [container] },
  });
  await api.addEphemeralContainers('dbg', 'web-1', [container]);
  t.same(JSON.parse(seen[1]!.body), { spec: { ephemeralContainers: [container] } }, 'no precondition, no metadata');
  const conflict = await api
    .addEphemeralContainers('dbg', 'web-1', [container], { resourceVersion: 'stale' })
    .catch((e: unknown) => e);
  t.match(conflict, { status: 409, reason: 'Conflict' });
});

t.test('the service-account token is read again when it changes (bound tokens rotate)', async (t) => {
  const { seen, server } = await apiServer(t, (_req, res) => json(res, 404, status(404, 'NotFound', 'x')));
  const dir = mkdtempSync(join(tmpdir(), 'metaops-sa-'));
  writeFileSync(join(dir, 'ca.crt'), 'not used over http');
  writeFileSync(join(dir, 'token'), 'first-token\n');
  t.equal(fromServiceAccount(dir, {}), undefined, 'not in a cluster');
  const conn = fromServiceAccount(dir, { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' })!;
  t.match(conn, { server: 'https://10.0.0.1:443', tokenFile: join(dir, 'token') });
  t.notOk('token' in conn, 'the token is not copied once and kept');
  t.equal(
    fromServiceAccount(dir, { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' })!.server,
    'https://[fd00::1]:443',
  );

  const api = new HttpKubeApi(3000, { ...conn, server });
  await api.get('v1', 'pods', 'dbg', 'a');
  await api.get('v1', 'pods', 'dbg', 'a');
  // The kubelet replaces the file (a new inode through a rename).
  writeFileSync(join(dir, 'token.new'), 'second-token\n');
  renameSync(join(dir, 'token.new'), join(dir, 'token'));
  await api.get('v1', 'pods', 'dbg', 'a');
  // Rewritten in place, another length.
  writeFileSync(join(dir, 'token'), 'third-token-longer\n');
  await api.get('v1', 'pods', 'dbg', 'a');
  t.same(
    seen.map((s) => s.authorization),
    ['Bearer first-token', 'Bearer first-token', 'Bearer second-token', 'Bearer third-token-longer'],
  );
  // A token file that went away: a failure with a reason, not a crash.
  const gone = new HttpKubeApi(3000, { server, tokenFile: join(dir, 'missing') });
  t.match(await gone.get('v1', 'pods', 'dbg', 'a').catch((e: unknown) => e), { reason: 'Unauthorized' });
});

t.test(
  'events: POSTed to events.k8s.io/v1 as reportingController metaops; one that exists already is no error',
  async (t) => {
    let existing = false;
    const { seen, server } = await apiServer(t, (req, res) => {
      if (existing) return json(res, 409, status(409, 'AlreadyExists', 'events "a.x" already exists'));
      existing = true;
      return json(res, 201, JSON.parse(req.body));
    });
    const api = new HttpKubeApi(3000, { server, token: 'tok' });
    const event = {
      namespace: 'dbg',
      name: 'a.0123456789abcdef',
      eventTime: new Date('2026-01-02T03:04:05.678Z'),
      type: 'Warning' as const,
      reason: 'InjectionFailed',
      action: 'AddEphemeralContainer',
      note: 'could not add debug-a to pod dbg/web-1: Forbidden',
      regarding: {
        apiVersion: 'debug.metaops.dev/v1alpha1',
        kind: 'PodBuggerTool',
        namespace: 'dbg',
        name: 'a',
        uid: 'u',
      },
      related: { apiVersion: 'v1', kind: 'Pod', namespace: 'dbg', name: 'web-1' },
    };
    await api.createEvent(event);
    await api.createEvent(event);
    t.equal(seen.length, 2);
    t.equal(seen[0]!.method, 'POST');
    t.equal(seen[0]!.path, '/apis/events.k8s.io/v1/namespaces/dbg/events');
    t.equal(seen[0]!.contentType, 'application/json');
    const body = JSON.parse(seen[0]!.body);
    t.match(body, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'a.0123456789abcdef', namespace: 'dbg' },
      eventTime: '2026-01-02T03:04:05.678000Z',
      reportingController: 'metaops',
      reportingInstance: /^metaops-/,
      action: 'AddEphemeralContainer',
      reason: 'InjectionFailed',
      type: 'Warning',
      note: 'could not add debug-a to pod dbg/web-1: Forbidden',
      regarding: event.regarding,
      related: event.related,
    });
  },
);

t.test('a kubeconfig user with a tokenFile: the file is kept, to be read again when it changes', async (t) => {
  const { fromKubeconfig } = await import('../../lib/kube.js');
  const dir = mkdtempSync(join(tmpdir(), 'metaops-kc-'));
  const path = join(dir, 'config');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]',
      `users: [{name: u, user: {tokenFile: "${join(dir, 'tok')}"}}]`,
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
      '',
    ].join('\n'),
  );
  t.same(await fromKubeconfig(path), { server: 'https://127.0.0.1:6443', tokenFile: join(dir, 'tok') });
});

t.test(
  "an answer that is not the object asked for is the server's failure (InvalidAnswer), never a crash",
  async (t) => {
    const { server } = await apiServer(t, (req, res) => {
      if (req.path.endsWith('/empty')) return json(res, 200, {});
      if (req.path.endsWith('/text')) return json(res, 200, 'hello');
      if (req.path.endsWith('/array')) return json(res, 200, [1, 2]);
      if (req.path.endsWith('/other')) return json(res, 200, { metadata: { name: 'someone-else', namespace: 'dbg' } });
      if (req.path.endsWith('/elsewhere'))
        return json(res, 200, { metadata: { name: 'elsewhere', namespace: 'kube-system' } });
      return json(res, 200, { metadata: { name: 'web-1', namespace: 'dbg' } });
    });
    const api = new HttpKubeApi(3000, { server });
    for (const name of ['empty', 'text', 'array', 'other', 'elsewhere']) {
      const err = await api.get('v1', 'pods', 'dbg', name).catch((e: unknown) => e);
      t.ok(err instanceof KubeError, `${name}: an error`);
      t.equal(errorReason(err), 'InvalidAnswer', `${name}: InvalidAnswer`);
    }
    t.match(await api.get('v1', 'pods', 'dbg', 'web-1'), { metadata: { name: 'web-1' } });
    t.equal(errorReason(Object.assign(new Error('x'), { code: 'ECONNRESET' })), 'Unreachable', 'a network failure');
    t.equal(
      errorReason(new TypeError("Cannot read properties of undefined (reading 'x')")),
      'InvalidAnswer',
      'a programming error is not a network failure',
    );
  },
);

t.test('an event write reads at most EVENT_ANSWER_BYTES of the answer', async (t) => {
  const { EVENT_ANSWER_BYTES } = await import('../../lib/kube.js');
  const { server } = await apiServer(t, (req, res) => {
    res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
    const pad = 'x'.repeat(EVENT_ANSWER_BYTES + 1);
    res.end(
      JSON.stringify(
        req.method === 'GET'
          ? { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'dbg' }, pad }
          : { kind: 'Event', pad },
      ),
    );
  });
  const api = new HttpKubeApi(3000, { server, token: 'tok' });
  const event = {
    namespace: 'dbg',
    name: 'e1',
    eventTime: new Date(),
    type: 'Warning' as const,
    reason: 'X',
    action: 'Y',
    note: 'n',
    regarding: { apiVersion: 'v1', kind: 'Pod', namespace: 'dbg', name: 'p' },
  };
  await t.rejects(api.createEvent(event), 'a huge answer fails the write');
  await t.rejects(api.patchEventSeries('dbg', 'e1', { count: 2, lastObservedTime: new Date() }));
  // A pod read is not held to that limit.
  t.ok(await api.get('v1', 'pods', 'dbg', 'p'));
});

t.test(
  'withSignal: a call in flight stops when the signal aborts; the client itself and other views go on',
  async (t) => {
    const { seen, server } = await apiServer(t, (req, res) => {
      if (req.path.endsWith('/slow')) return; // never answered
      json(res, 200, { kind: 'Pod', metadata: { name: 'a', namespace: 'dbg' } });
    });
    const api = new HttpKubeApi(10_000, { server, token: 'tok' });
    const controller = new AbortController();
    const view = api.withSignal(controller.signal);
    const began = Date.now();
    const pending = view.get('v1', 'pods', 'dbg', 'slow').catch((e: unknown) => e);
    setTimeout(() => controller.abort(new Error('the hook call is over')), 50);
    const err = await pending;
    t.match(err, { message: 'the hook call is over' });
    t.ok(Date.now() - began < 5000, `abandoned at the abort, not at the 10 s limit (${Date.now() - began} ms)`);
    // The view answers like the client while its signal has not aborted; the client never had a signal.
    const other = api.withSignal(new AbortController().signal);
    t.match(await other.get('v1', 'pods', 'dbg', 'a'), { metadata: { name: 'a' } });
    t.match(await api.get('v1', 'pods', 'dbg', 'a'), { metadata: { name: 'a' } });
    // An aborted view makes no call at all.
    const before = seen.length;
    t.match(await view.get('v1', 'pods', 'dbg', 'a').catch((e: unknown) => e), { message: 'the hook call is over' });
    await new Promise((r) => setTimeout(r, 50));
    t.equal(seen.length, before, 'nothing sent');
    t.same(
      seen.map((s) => s.authorization),
      ['Bearer tok', 'Bearer tok', 'Bearer tok'],
    );
  },
);
