// The injector's request for a pod carries the pod and every PodBuggerTool of its namespace (Metacontroller v4 sends
// related objects whole), and the hook server refuses a body past its limit (413): the injector never acts on a pod
// whose request passes it. The tool's status says so for a pod too large with the tool alone (TooLargeToSend); a pod
// that fits with this tool but not with the other tools of its namespace is refused just the same, and must not be
// counted pending for ever (Ready `Injecting` for a container that is never added).
import t from 'tap';
import { goJsonBytes } from '../../lib/go-json.js';
import { FakeApi, injectorRequest, pod, status, tool } from '../fixtures/pbt.js';

const LIMIT = 512 * 1024;

t.test('a pod that fits with its tool but not with the tools of its namespace is not counted pending', async (t) => {
  // Another tool of the namespace, within the CRD's bounds (16 args of 384 characters, `<`, six bytes each as
  // Metacontroller's Go encoder writes them): about 37 KB as sent.
  const other = tool('other', { label: 'app=db', image: 'busybox', args: Array(16).fill('<'.repeat(384)) });
  const big = pod(
    'big',
    { app: 'web' },
    { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'NOTE', value: 'x'.repeat(500_000) }] }] },
  );
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(other)
    .put(big);
  const alone = goJsonBytes(injectorRequest(api, 'dbg', 'big', [api.stored('PodBuggerTool', 'dbg', 'a')]));
  const whole = goJsonBytes(injectorRequest(api, 'dbg', 'big'));
  t.ok(alone < LIMIT, `with tool a alone the request would be ${alone} bytes`);
  t.ok(whole > LIMIT, `Metacontroller's request carries both tools: ${whole} bytes, past the limit of ${LIMIT} (413)`);

  const res = await status(api, ['dbg', 'a'], { bodyLimit: LIMIT });
  const s = res.status as any;
  t.match(s, { matched: 1, pending: 0 }, 'not pending: the injector is never sent it');
  t.not(s.conditions.find((c: any) => c.type === 'Ready').reason, 'Injecting');
});
