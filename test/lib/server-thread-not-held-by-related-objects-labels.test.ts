// Issue 29 (one object must not exhaust the shared server): the server parses each hook request on its one JavaScript
// thread. The managedFields of every object a request carries are now cut out of its text before it is parsed
// (lib/json.ts withoutManagedFields), because a tenant's EtcdRestores with ~1.4 MiB of many small keyed objects each
// made every sync of its EtcdClusters (which carry every EtcdRestore of the namespace) hold the thread for seconds.
// The same objects' labels and annotations are theirs to write too, and are parsed whole: the API server bounds an
// object's annotations to 256 KiB in all, but not its labels (each key and value at most 63 characters, any number of
// them, up to what etcd stores of the object, ~1.5 MiB), and not the number of EtcdRestores a namespace holds. A map
// of many short keys of their own is the same costly shape to parse as the keyed managedFields: tenant A's five
// EtcdRestores of ~1.4 MiB of labels (`{"a-0":"","b-0":"",...}`) make each sync of any of A's EtcdClusters a ~7 MiB
// body of ~600,000 keys that JSON.parse reads in one go (on this machine ~1.7-2.2 s; /healthz answered after 1.7 s,
// four probes past the kubelet's 1 s timeout, one of A's syncs told to retry). Twenty-eight EtcdRestores of 250 KiB of
// annotations each (within the API server's bound) do the same. Nothing else is answered meanwhile: the kubelet's
// probes fail, and with A's clusters' syncs queued back to back every tenant's hooks wait.
//
// Expected: the server's thread is not given a namespace's observed objects' labels or annotations to parse in one
// go, beyond a bound: no single JSON.parse the server makes of such a sync creates more than MAX_MEMBERS_PER_PARSE
// object members (the parent and the objects the hook reads, of ordinary size, are far below it). Counted, not timed
// (the house has no timing assertions); the /healthz figures are a comment only.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { unreachableEtcd } from '../fixtures/etcd.js';
import { PROBE_TIMEOUT_MS } from '../fixtures/keyed-managed-fields.js';
import {
  listening,
  manyKeys,
  MAX_MEMBERS_PER_PARSE,
  postHook,
  probing,
  syncOfA,
  tenantRestore as restore,
  watchParses,
} from '../fixtures/parsed-members.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOKEN = 'related-labels-token-0123456789';
/** What the API server stores of one object (etcd's request limit, 1.5 MiB), less room for the rest of it. */
const OBJECT_BYTES = 1.4 * 1024 * 1024;
/** The API server's bound on an object's annotations (TotalAnnotationSizeLimitB, 256 KiB), less some room. */
const ANNOTATION_BYTES = 250 * 1024;

async function syncsOfA(t: Test, restores: KubeObject[]): Promise<{ parses: number[]; answers: number[] }> {
  const base = await listening(t, TOKEN, {
    services: { now: () => FIXED_NOW },
    clients: { etcdcluster: { etcd: () => unreachableEtcd } },
  });
  const body = syncOfA(restores);
  const { probed } = await probing(t, base, 12_000);
  const watched = watchParses(t);
  // A's clusters' syncs as Metacontroller's workers send them (5 per controller), each carrying the namespace's
  // EtcdRestores.
  const answers = await Promise.all([0, 1, 2, 3, 4].map(() => postHook(`${base}/hooks/etcdcluster/sync`, TOKEN, body)));
  const seen = await probed;
  const parses = watched.counts();
  t.comment(
    `A's syncs (${(body.length / 1048576).toFixed(1)} MiB each) answered ${JSON.stringify(answers)}; the server's ` +
      `parses of them made ${JSON.stringify(parses)} object members; /healthz probed ${seen.length} times, ` +
      `${seen.filter((ms) => ms >= PROBE_TIMEOUT_MS).length} answered after the probe timeout, the slowest in ` +
      `${Math.max(...seen)} ms (not asserted)`,
  );
  return { parses, answers };
}

t.test("a namespace's EtcdRestores' labels are not parsed in one go with each of its clusters' syncs", async (t) => {
  const { parses, answers } = await syncsOfA(
    t,
    [0, 1, 2, 3, 4].map((n) => restore(n, { labels: manyKeys(OBJECT_BYTES, n) })),
  );
  t.ok(answers.includes(200), "A's syncs are answered");
  const most = Math.max(0, ...parses);
  t.ok(
    most <= MAX_MEMBERS_PER_PARSE,
    `no parse of A's sync on the server's thread makes more than ${MAX_MEMBERS_PER_PARSE} members (the most: ${most})`,
  );
});

t.test(
  "a namespace's many EtcdRestores' annotations are not parsed in one go with each of its clusters' syncs",
  async (t) => {
    const { parses, answers } = await syncsOfA(
      t,
      Array.from({ length: 28 }, (_, n) => restore(n, { annotations: manyKeys(ANNOTATION_BYTES, n) })),
    );
    t.ok(answers.includes(200), "A's syncs are answered");
    const most = Math.max(0, ...parses);
    t.ok(
      most <= MAX_MEMBERS_PER_PARSE,
      `no parse of A's sync on the server's thread makes more than ${MAX_MEMBERS_PER_PARSE} members (the most: ${most})`,
    );
  },
);
