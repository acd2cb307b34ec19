// The pods' NetworkPolicy decorator (hooks/podpolicy) holds a deleted policy while pods it selects are observed, at
// most POLICY_KEPT_AT_DELETION_SECONDS after its deletion. Its finalize request carries every pod the policy selects:
// past the body limit (a Memcached of 1000 pods with sidecars) it is refused unread, at every retry, and the bound
// would never apply. Such a request is answered from the start of its body (lib/hook-routes.ts, lib/body-head.ts:
// the policy's deletionTimestamp): released past the bound, held before it (called again), refused (413) when its
// start says no deletion. Over a real socket, the body larger than the limit and never read past its start.
import t from 'tap';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../lib/app.js';
import { Metrics } from '../../lib/metrics.js';
import { KEEPING_RESYNC_SECONDS, POLICY_KEPT_AT_DELETION_SECONDS } from '../../lib/policy-at-deletion.js';
import { podNetworkPolicy } from '../../hooks/podpolicy/index.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOKEN = 'a-token-of-some-length-for-tests';
const LIMIT = 256 * 1024;

/** The policy as Metacontroller sends it (metadata keys sorted), deleted `ago` seconds before FIXED_NOW (or not). */
function policy(ago: number | undefined) {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      annotations: { 'metacontroller.k8s.io/last-applied-configuration': '{"kind":"NetworkPolicy"}' },
      creationTimestamp: '2025-12-31T00:00:00Z',
      ...(ago === undefined
        ? {}
        : { deletionTimestamp: new Date(FIXED_NOW.getTime() - ago * 1000).toISOString().replace(/\.\d+Z$/, 'Z') }),
      finalizers: ['metacontroller.io/decoratorcontroller-metaops-pod-network-policy'],
      labels: { 'app.kubernetes.io/component': 'network-policy', 'app.kubernetes.io/managed-by': 'metaops' },
      name: 'cache-memcached',
      namespace: 'team-a',
      uid: 'uid-policy',
    },
    spec: { podSelector: { matchLabels: { 'app.kubernetes.io/instance': 'cache' } }, policyTypes: ['Egress'] },
  };
}

/** A finalize request of the decorator, its related pods making it about `bytes` long. */
function body(object: unknown, bytes: number): Buffer {
  const pods: Record<string, unknown> = {};
  const filler = 'x'.repeat(4000);
  for (let i = 0; i * 4200 < bytes; i++)
    pods[`team-a/cache-${i}`] = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `cache-${i}`, namespace: 'team-a', annotations: { filler } },
    };
  return Buffer.from(
    JSON.stringify({
      controller: { kind: 'DecoratorController', metadata: { name: 'metaops-pod-network-policy' } },
      object,
      attachments: {},
      related: { 'Pod.v1': pods },
      finalizing: true,
    }),
  );
}

/** POSTs `payload` over a socket, written in pieces, and reads the answer (whether or not the body was read whole). */
function post(port: number, path: string, payload: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(payload.length),
          authorization: `Bearer ${TOKEN}`,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: text });
          req.destroy();
        });
      },
    );
    // The server may answer (and stop reading) before the body is written whole.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    const piece = 64 * 1024;
    let at = 0;
    const write = (): void => {
      while (at < payload.length) {
        const more = req.write(payload.subarray(at, at + piece));
        at += piece;
        if (!more) {
          req.once('drain', write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

t.test('a pods-policy finalize over the body limit is answered from its deletionTimestamp', async (t) => {
  const app = buildApp({
    operators: [podNetworkPolicy],
    metrics: new Metrics(false),
    auth: { bearer: TOKEN },
    bodyLimit: LIMIT,
    services: { now: () => FIXED_NOW },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const port = (app.server.address() as AddressInfo).port;
  const finalize = '/hooks/pod-network-policy/finalize';

  const past = body(policy(POLICY_KEPT_AT_DELETION_SECONDS + 10), 4 * LIMIT);
  t.ok(past.length > LIMIT, `a request of ${past.length} bytes, over the ${LIMIT} limit`);
  const released = await post(port, finalize, past);
  t.equal(released.status, 200, 'answered', { body: released.body.slice(0, 300) });
  t.same(JSON.parse(released.body), { attachments: [], finalized: true }, 'released past the bound');

  const within = await post(port, finalize, body(policy(10), 4 * LIMIT));
  t.equal(within.status, 200, 'answered within the bound');
  t.same(
    JSON.parse(within.body),
    { attachments: [], finalized: false, resyncAfterSeconds: KEEPING_RESYNC_SECONDS },
    'held, and called again',
  );
  const late = await post(port, finalize, body(policy(POLICY_KEPT_AT_DELETION_SECONDS - 2), 4 * LIMIT));
  t.match(JSON.parse(late.body), { finalized: false, resyncAfterSeconds: 2 }, 'called again at the bound');

  const living = await post(port, finalize, body(policy(undefined), 4 * LIMIT));
  t.equal(living.status, 413, 'a policy its start says is not deleted: refused unread, as before');
  const sync = await post(port, '/hooks/pod-network-policy/sync', body(policy(130), 4 * LIMIT));
  t.equal(sync.status, 413, 'a sync over the limit: refused unread, as before');

  const small = await post(port, finalize, body(policy(10), 0));
  t.same(JSON.parse(small.body), { attachments: [], finalized: true }, 'within the limit: read, no pod left');
});
