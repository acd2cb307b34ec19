// The same as test/lib/server-thread-not-held-by-related-managed-fields.test.ts, with the EtcdRestores as a real
// kube-apiserver (1.36) stores them: tenant A, allowed only to write EtcdRestores in its namespace (RBAC), sets their
// metadata.managedFields to an entry whose fieldsV1 is ~1.3 MiB of small objects each with a field name of its own
// (`{"f:spec":{"f:k1":{"f:x1":{}}, ...}}`); the API server keeps it (a client may write managedFields), and the
// objects are listed as Metacontroller's informers read them. An EtcdCluster sync of A's namespace carries them (its
// customize asks for every EtcdRestore of its namespace), and only the parent's managedFields are cut before the
// parse: the server's one thread is held seconds, and the kubelet's /healthz probe (timeoutSeconds 1) goes unanswered.
// Expected: every object's managedFields are cut out of the text before it is parsed (lib/json.ts withoutManagedFields,
// lib/app.ts): what JSON.parse is given holds none of them, a small fraction of the body. Asserted in bytes, not time
// (the /healthz probe's figures are reported as a comment only).
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { startApiServer } from '../fixtures/apiserver.js';
import { unreachableEtcd } from '../fixtures/etcd.js';
import { keyedFieldsV1, parsedWhile, PROBE_TIMEOUT_MS } from '../fixtures/keyed-managed-fields.js';
import { listening, postHook, probing, RESTORES, syncOfA, tenantRestoresOn } from '../fixtures/parsed-members.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const api = startApiServer(t, 'restores-managed-fields', ['tenant-a'], {
  authorization: 'RBAC',
  tokens: ['tenant-a-token,tenant-a-user,uid-tenant-a,tenants'],
  // A create of ~1.3 MiB of keys of its own can outlast the server's default 1m here (a 504 for r3 of 5 in a quiet
  // rehearsal, 2026-11-29; another at load ~40): not what the test is about.
  requestTimeout: '4m',
});
const TOKEN = 'restores-managed-fields-token-0123456789';

t.test("a namespace's sync is parsed without its stored EtcdRestores' managedFields", async (t) => {
  const { asTenant, listed } = tenantRestoresOn(t, api);

  for (let n = 0; n < 5; n++) {
    const made = await asTenant(RESTORES, 'POST', {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdRestore',
      metadata: { name: `r${n}` },
      spec: { etcdCluster: { name: 'other' }, s3: { path: 'backups/tenant-a/snap.db', awsSecret: 'aws' } },
    });
    t.equal(made.status, 201, `tenant A creates EtcdRestore r${n}`);
    const obj = JSON.parse(made.text) as KubeObject & { metadata: { managedFields?: unknown[] } };
    obj.metadata.managedFields = [
      ...(obj.metadata.managedFields ?? []),
      {
        manager: 'tenant',
        operation: 'Update',
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: keyedFieldsV1(1.3 * 1024 * 1024, n),
      },
    ];
    const put = await asTenant(`${RESTORES}/r${n}`, 'PUT', obj);
    t.equal(put.status, 200, `tenant A writes r${n}'s managedFields`);
  }
  // What Metacontroller's informer holds of them (a list, as the API server answers it).
  const restores = await listed();
  t.equal(restores.length, 5);

  const base = await listening(t, TOKEN, {
    services: { now: () => FIXED_NOW },
    clients: { etcdcluster: { etcd: () => unreachableEtcd } },
  });
  const body = syncOfA(restores);
  const { probed } = await probing(t, base, 8000);
  const began = Date.now();
  const { result: status, texts } = await parsedWhile(() => postHook(`${base}/hooks/etcdcluster/sync`, TOKEN, body));
  const took = Date.now() - began;
  const seen = await probed;
  const syncs = texts.filter((x) => x.includes('"EtcdRestore.etcd.database.coreos.com/v1beta2"'));
  const largest = Math.max(0, ...syncs.map((x) => x.length));
  t.comment(
    `A's sync (${(body.length / 1048576).toFixed(1)} MiB, its EtcdRestores as stored) answered ${status} in ` +
      `${took} ms, parsed as ${syncs.length} text(s) of at most ${largest} characters; /healthz probed ` +
      `${seen.length} times, the slowest answered in ${Math.max(...seen)} ms (the kubelet's probe timeout: ` +
      `${PROBE_TIMEOUT_MS} ms)`,
  );
  t.equal(status, 200, "A's sync is answered");
  t.ok(
    restores.every((r) => JSON.stringify(r).includes('"managedFields"')),
    'the EtcdRestores as stored carry managedFields',
  );
  t.equal(syncs.length, 1, 'the sync is parsed once, in this process');
  t.notOk(
    syncs.some((x) => x.includes('"managedFields"')),
    "no text parsed for A's sync holds a managedFields key (the EtcdRestores' are cut before the parse)",
  );
  t.ok(
    largest < body.length / 100,
    `what is parsed of the sync (${largest} characters) is under 1% of its body (${body.length})`,
  );
});
