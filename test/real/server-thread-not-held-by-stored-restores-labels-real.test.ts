// The same as test/lib/server-thread-not-held-by-related-objects-labels.test.ts, with the EtcdRestores as a real
// kube-apiserver (1.36) stores them: tenant A, allowed only to write EtcdRestores in its namespace (RBAC), creates five
// with ~1.3 MiB of labels each, many short keys of their own (`{"a-0":"","b-0":"",...}`); the API server takes them
// (it bounds each label key and value, and the annotations in all, but not the labels in all), and they are listed as
// Metacontroller's informers read them. An EtcdCluster sync of A's namespace carries them (its customize asks for every
// EtcdRestore of its namespace); their managedFields are cut before the parse, their labels are not: the server's one
// thread parses ~600,000 keys in one go. Expected: no single JSON.parse of that sync makes more than
// MAX_MEMBERS_PER_PARSE members (counted, not timed; the /healthz figures are a comment only).
import t from 'tap';
import { startApiServer } from '../fixtures/apiserver.js';
import { unreachableEtcd } from '../fixtures/etcd.js';
import { PROBE_TIMEOUT_MS } from '../fixtures/keyed-managed-fields.js';
import {
  listening,
  manyKeys,
  MAX_MEMBERS_PER_PARSE,
  postHook,
  probing,
  RESTORES,
  syncOfA,
  tenantRestoresOn,
  watchParses,
} from '../fixtures/parsed-members.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const api = startApiServer(t, 'restores-labels', ['tenant-a'], {
  authorization: 'RBAC',
  tokens: ['tenant-a-token,tenant-a-user,uid-tenant-a,tenants'],
  // A create of ~1.3 MiB of keys of its own can outlast the server's default 1m here (a 504 for r3 of 5 in a quiet
  // rehearsal, 2026-11-29; another at load ~40): not what the test is about.
  requestTimeout: '4m',
});
const TOKEN = 'restores-labels-token-0123456789';

t.test("a namespace's stored EtcdRestores' labels are not parsed in one go with its cluster's sync", async (t) => {
  const { asTenant, listed } = tenantRestoresOn(t, api);

  for (let n = 0; n < 5; n++) {
    const made = await asTenant(RESTORES, 'POST', {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdRestore',
      metadata: { name: `r${n}`, labels: manyKeys(1.3 * 1024 * 1024, n) },
      spec: { etcdCluster: { name: 'other' }, s3: { path: 'backups/tenant-a/snap.db', awsSecret: 'aws' } },
    });
    t.equal(
      made.status,
      201,
      `tenant A creates EtcdRestore r${n} with its labels${made.status === 201 ? '' : `: ${made.text.slice(0, 300)}`}`,
    );
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
  const watched = watchParses(t);
  const status = await postHook(`${base}/hooks/etcdcluster/sync`, TOKEN, body);
  const seen = await probed;
  const parses = watched.counts();
  t.comment(
    `A's sync (${(body.length / 1048576).toFixed(1)} MiB, its EtcdRestores as stored) answered ${status}; the ` +
      `server's parses of it made ${JSON.stringify(parses)} members; /healthz probed ${seen.length} times, ` +
      `${seen.filter((ms) => ms >= PROBE_TIMEOUT_MS).length} after the probe timeout, the slowest in ` +
      `${Math.max(...seen)} ms (not asserted)`,
  );
  t.equal(status, 200, "A's sync is answered");
  const most = Math.max(0, ...parses);
  t.ok(
    most <= MAX_MEMBERS_PER_PARSE,
    `no parse of A's sync on the server's thread makes more than ${MAX_MEMBERS_PER_PARSE} members (the most: ${most})`,
  );
});
