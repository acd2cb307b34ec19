// The PodBuggerTool injector decorates every pod of every namespace (manifests/controllers: a DecoratorController on
// pods, no selector), and each of its syncs carries every PodBuggerTool of the pod's namespace (its customize: the
// tools of the namespace, the same answer for every pod). A tool's managedFields are its writer's to set, and only the
// managedFields of the object a request is about (here the pod) are cut out before the body is parsed (lib/json.ts):
// tenant A's five tools of ~1.4 MiB each, their managedFields many small objects each with a field name of its own
// (test/fixtures/keyed-managed-fields.ts), make the sync of every pod of A's namespace a ~7 MiB body whose parse holds
// the server's one thread for seconds. Metacontroller syncs every pod a related object selects when it changes: one
// edit of one tool syncs every pod of A's namespace (a PodSet of 1,000 pods is A's to make), each of them seconds of
// the thread. Meanwhile nothing else is answered: the kubelet's probes (timeoutSeconds 1) of /healthz and /readyz
// fail. Expected: the managedFields of every object the injector's sync carries are cut out of its text before it is
// parsed (lib/json.ts withoutManagedFields, lib/app.ts): what JSON.parse is given holds none of the tools', a small
// fraction of the body. Asserted in bytes, not time (the /healthz probe's figures are reported as a comment only).
import t from 'tap';
import { keyedManagedFields, parsedWhile, PROBE_TIMEOUT_MS } from '../fixtures/keyed-managed-fields.js';
import { injectorSyncOfA, listening, postHook, probing, tenantTool, TOOL_API } from '../fixtures/parsed-members.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOKEN = 'injector-managed-fields-token-0123456789';

/** Tool `n` of A's namespace, its managedFields of ~1.4 MiB (what the API server stores of one object). */
const tool = (n: number) => tenantTool(n, { managedFields: [keyedManagedFields(TOOL_API, 1.4 * 1024 * 1024, n)] });

t.test("the injector's sync of a namespace's pod is parsed without its tools' managedFields", async (t) => {
  const base = await listening(t, TOKEN, { services: { now: () => FIXED_NOW } });
  const tools = [0, 1, 2, 3, 4].map(tool);
  const body = injectorSyncOfA(tools);
  const { probed } = await probing(t, base, 8000);
  const began = Date.now();
  const { result: status, texts } = await parsedWhile(() =>
    postHook(`${base}/hooks/podbuggertool-injector/sync`, TOKEN, body),
  );
  const took = Date.now() - began;
  const seen = await probed;
  const syncs = texts.filter((x) => x.includes(`"PodBuggerTool.${TOOL_API}"`));
  const largest = Math.max(0, ...syncs.map((x) => x.length));
  t.comment(
    `the injector's sync of A's pod (${(body.length / 1048576).toFixed(1)} MiB) answered ${status} in ${took} ms, ` +
      `parsed as ${syncs.length} text(s) of at most ${largest} characters; /healthz probed ${seen.length} times, the ` +
      `slowest answered in ${Math.max(...seen)} ms (the kubelet's probe timeout: ${PROBE_TIMEOUT_MS} ms)`,
  );
  t.equal(status, 200, "the pod's sync is answered");
  t.equal(syncs.length, 1, 'the sync is parsed once, in this process');
  t.notOk(
    syncs.some((x) => x.includes('"managedFields"')),
    "no text parsed for the pod's sync holds a managedFields key (the tools' are cut before the parse)",
  );
  t.ok(
    largest < body.length / 100,
    `what is parsed of the sync (${largest} characters) is under 1% of its body (${body.length})`,
  );
});
