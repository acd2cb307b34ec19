// Attack (issue 29, tenant A against tenant B): the body budget's reserve keeps B's syncs of up to half of it
// (512 KiB) answered beside A's large, slow syncs; docs/operating.md says what is left: "B's own requests over 512 KiB
// still wait in arrival order behind A's large ones, and may be told to retry while A keeps them coming". That reaches
// B: a PodSet's sync carries every observed pod (~5.7 KiB each with the managed fields the API server keeps), so any
// PodSet of B's past ~90 pods (its CRD allows 1,000) is over 512 KiB. A's EtcdCluster syncs, each just under the body
// limit (the namespace's EtcdRestores ride along with every one of them) and slow (its members, A's image, accept and
// never answer), keep the budget held by Metacontroller's five workers; B's PodSet of 150 pods (~850 KiB) is told to
// retry (429) for as long as A keeps them coming: measured 2026-11-29 on the loaded 2-core machine, 1 to 2 of B's 3
// tries in 9 s refused, three runs of three (the 80-pod PodSet of
// test/lib/body-budget-medium-syncs-answered-beside-another-namespaces-large-syncs.test.ts: none).
//
// Must hold: a namespace's syncs of any size the server takes are answered beside another namespace's large, slow
// syncs (the budget's turns shared between namespaces, not only its reserve's).
import t from 'tap';
import { serverBudget } from '../../lib/body-budget.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { testApp } from '../fixtures/app.js';
import { otherTenantPosts } from '../fixtures/other-tenant.js';
import { request } from '../fixtures/requests.js';
import { aWorker, largeSync, silentEtcd } from '../fixtures/slow-tenant-syncs.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TOKEN = 'body-budget-large-b-token-0123456789abcdef';
/** This session's port range (20000 + 100 * 21). */
const PORT = 22101;
const PODS = 150;

/** B's observed pod `i`, with the managed fields and status the API server keeps (~5.7 KiB as JSON). */
function observedPod(i: number): KubeObject {
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
  } as KubeObject;
}

t.test(
  "another namespace's large, slow syncs do not keep a namespace's syncs past half the reserve from being answered",
  async (t) => {
    const budget = serverBudget();
    const app = testApp({ auth: { bearer: TOKEN }, deps: { etcdClient: () => silentEtcd }, bodyBudget: budget });
    t.teardown(() => app.close());
    const base = await app.listen({ port: PORT, host: '127.0.0.1' });
    const podset = request('podset', { size: PODS });
    podset.parent.metadata = { ...podset.parent.metadata, name: 'ps', namespace: 'ns-b' };
    podset.children = {
      'Pod.v1': Object.fromEntries(Array.from({ length: PODS }, (_, i) => [`ps-${i}`, observedPod(i)])),
    };
    const body = JSON.stringify(podset);
    t.ok(
      body.length > budget.small && body.length < 2 * 1024 * 1024,
      `B's sync is ${body.length} bytes: over half the reserve (${budget.small}), a quarter of the body limit at most`,
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
