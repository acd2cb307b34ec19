// The body budget's reserve (lib/body-budget.ts) keeps tenant B's small syncs (256 KiB at most) answered while
// tenant A's large, slow syncs hold the whole budget; B's syncs above that size still take their turns in arrival
// order behind A's. A's EtcdCluster syncs are each 64 bytes under the body limit (the namespace's EtcdRestores are
// related to every one of them) and slow (its members, running A's image, accept and never answer): Metacontroller's
// five workers of the EtcdCluster controller keep four of them waiting at any time. B's PodSet of 80 pods, whose
// sync (every observed pod in it, ~5.7 KiB each with its managed fields) is ~450 KiB, waits behind them and
// is answered 429 after half the hook deadline, for as long as A keeps its syncs coming: B's PodSet is never synced.
// A request of up to half the reserve now takes its turn from it (a namespace holds at most half of it once read).
import t from 'tap';
import { serverBudget } from '../../lib/body-budget.js';
import type { ObservedObject } from '../../lib/metacontroller.js';
import { testApp } from '../fixtures/app.js';
import { otherTenantPosts } from '../fixtures/other-tenant.js';
import { request } from '../fixtures/requests.js';
import { aWorker, largeSync, silentEtcd } from '../fixtures/slow-tenant-syncs.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TOKEN = 'body-budget-medium-token-0123456789abcdef';

/** B's observed pod `i`, with the managed fields and status the API server keeps (~5.7 KiB as JSON). */
function observedPod(i: number): ObservedObject {
  const fieldsV1 = Object.fromEntries(
    Array.from({ length: 40 }, (_, k) => [`f:field-${k}`.padEnd(40, 'x'), { '.': {}, 'f:value': {} }]),
  );
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `ps-${i}`,
      namespace: 'ns-b',
      uid: `0b9f5a57-4a77-4f59-9a8a-${String(i).padStart(12, '0')}`,
      resourceVersion: '123456',
      labels: { app: 'ps' },
      managedFields: [
        { manager: 'metacontroller', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1 },
        {
          manager: 'kubelet',
          operation: 'Update',
          apiVersion: 'v1',
          subresource: 'status',
          fieldsType: 'FieldsV1',
          fieldsV1,
        },
      ],
    },
    spec: { containers: [{ name: 'busybox', image: 'busybox', command: ['sleep', '3600'] }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as ObservedObject;
}

t.test(
  "another namespace's large, slow syncs do not keep a namespace's medium-sized syncs from being answered",
  async (t) => {
    const budget = serverBudget();
    const app = testApp({
      auth: { bearer: TOKEN },
      clients: { etcdcluster: { etcd: () => silentEtcd } },
      bodyBudget: budget,
    });
    t.teardown(() => app.close());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const podset = request('podset', { size: 80 });
    podset.parent.metadata = { ...podset.parent.metadata, name: 'ps', namespace: 'ns-b' };
    podset.children = {
      'Pod.v1': Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`ps-${i}`, observedPod(i)])),
    };
    const body = JSON.stringify(podset);
    t.ok(
      body.length > 256 * 1024 && body.length <= budget.small,
      `B's sync is ${body.length} bytes: over 256 KiB (a quarter of the reserve), within half of it`,
    );
    const file = join(mkdtempSync(join(tmpdir(), 'metaops-b-')), 'podset.json');
    writeFileSync(file, body);

    // B's sync alone is answered.
    const alone = await fetch(`${base}/hooks/podset/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body,
    });
    t.equal(alone.status, 200, "B's sync alone is answered");

    let probing = true;
    const b = otherTenantPosts(t, `${base}/hooks/podset/sync`, TOKEN, `@${file}`, 9000).finally(
      () => (probing = false),
    );
    const a: Record<string, number> = {};
    const large = largeSync('ns-a');
    await Promise.all(
      Array.from(
        { length: 5 },
        aWorker(base, TOKEN, large, 'large', a, () => probing),
      ),
    );
    const { statuses } = await b;
    t.comment(`A's syncs: ${JSON.stringify(a)}; B's syncs: ${JSON.stringify(statuses)}`);
    t.same(Object.keys(statuses), ['200'], "every one of B's syncs is answered, none told to retry");
    t.equal(budget.used, 0, 'every turn given back');
  },
);
