// The PodBuggerTool injector decorates every pod, and each of its syncs carries every PodBuggerTool of the pod's
// namespace. The tools' managedFields are cut out of the request before it is parsed (lib/json.ts withoutManagedFields),
// but their labels are parsed whole: the API server bounds no object's labels in all (each key and value at most 63
// characters, any number of them, up to what etcd stores of the object, ~1.5 MiB). Tenant A's five tools of ~1.4 MiB
// of labels of their own (`{"a-0":"","b-0":"",...}`, the costliest shape to parse per byte with the keyed
// managedFields) make the sync of every pod of A's namespace a ~7 MiB body of ~630,000 keys that JSON.parse reads in
// one go, holding the server's one thread for seconds; one edit of one tool syncs every pod of A's namespace.
// Expected: no single JSON.parse the server makes of such a sync makes more than MAX_MEMBERS_PER_PARSE members
// (counted, not timed; the /healthz figures are a comment only).
import t from 'tap';
import { PROBE_TIMEOUT_MS } from '../fixtures/keyed-managed-fields.js';
import {
  injectorSyncOfA,
  listening,
  manyKeys,
  MAX_MEMBERS_PER_PARSE,
  postHook,
  probing,
  tenantTool,
  watchParses,
} from '../fixtures/parsed-members.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOKEN = 'injector-labels-token-0123456789';

/** Tool `n` of A's namespace, with ~1.4 MiB of labels (what the API server stores of one object). */
const tool = (n: number) => tenantTool(n, { labels: manyKeys(1.4 * 1024 * 1024, n) });

t.test("the injector's sync of a pod does not parse its namespace's tools' labels in one go", async (t) => {
  const base = await listening(t, TOKEN, { services: { now: () => FIXED_NOW } });
  const tools = [0, 1, 2, 3, 4].map(tool);
  const body = injectorSyncOfA(tools);
  const { probed } = await probing(t, base, 8000);
  const watched = watchParses(t);
  const status = await postHook(`${base}/hooks/podbuggertool-injector/sync`, TOKEN, body);
  const seen = await probed;
  const parses = watched.counts();
  t.comment(
    `the injector's sync of A's pod (${(body.length / 1048576).toFixed(1)} MiB) answered ${status}; the server's ` +
      `parses of it made ${JSON.stringify(parses)} members; /healthz probed ${seen.length} times, ` +
      `${seen.filter((ms) => ms >= PROBE_TIMEOUT_MS).length} after the probe timeout, the slowest in ` +
      `${Math.max(...seen)} ms (not asserted)`,
  );
  t.equal(status, 200, "the pod's sync is answered");
  const most = Math.max(0, ...parses);
  t.ok(
    most <= MAX_MEMBERS_PER_PARSE,
    `no parse of the pod's sync on the server's thread makes more than ${MAX_MEMBERS_PER_PARSE} members (the most: ${most})`,
  );
});
