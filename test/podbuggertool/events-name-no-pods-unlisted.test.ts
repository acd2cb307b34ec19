// "A tool that acts names pods (in skips, failures and Ready's message) only when its author may also list pods in
// its namespace ... an author who may debug but not list is told how many pods and why, never which"
// (docs/podbuggertool.md): the status is counted with the hook server's rights, and naming pods to such an author
// would be pods/list by proxy. The Events the injector writes on the tool for each failed pod name the pod (its note,
// and `related`), in the tool's namespace, where its author reads them (`kubectl describe pbt`): a tool whose
// container is refused on every pod it selects (a `general` tool in a Pod Security `baseline` namespace) lists, one
// Event per pod, the name of every pod its selector picks, to an author the status names none to.
import t from 'tap';
import { KubeError } from '../../lib/kube.js';
import { FakeApi, injectAll, pod, statusAndApply, tool } from '../fixtures/pbt.js';

t.test('the Events about a tool name no pod its author may not list, as its status names none', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (const name of ['payments-db-0', 'vault-0', 'web-1']) api.put(pod(name, { app: 'web' }));
  // alice may add ephemeral containers in dbg, and may not list its pods.
  api.allow = () => true;
  api.allowList = () => false;
  api.failPatch = new KubeError(403, 'violates PodSecurity "baseline:latest"', 'Forbidden');
  await injectAll(api, 'dbg');
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.same(
    (res.status as any).failures.map((f: any) => f.pod),
    ['', '', ''],
    'the status names no pod to her (the docs promise this)',
  );
  const named = api.events.flatMap((e) =>
    ['payments-db-0', 'vault-0', 'web-1'].filter((p) => e.note.includes(p) || e.related?.name === p),
  );
  t.same(named, [], `the Events on her tool name no pod either (they name: ${named.join(', ')})`);
});
