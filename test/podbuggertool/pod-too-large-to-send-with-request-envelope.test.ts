// The injector's request is more than the pod and the tools of its namespace: Metacontroller v4 wraps them in
// `{"controller":...,"object":<pod>,"attachments":{},"related":{"PodBuggerTool.debug.metaops.dev/v1alpha1":
// {"<tool name>":<tool>,...}},"finalizing":false}` (pkg/controller/decorator/api/v1/hooks.go DecoratorHookRequest;
// related objects keyed by name, pkg/controller/common/api/v1/common.go relativeName), and `controller` is the whole
// DecoratorController as its informer holds it. The hook server's body limit counts all of it. A pod that fits with the
// namespace's tools by the count's measure, but not once the request's own keys are added, is refused (413) at every
// call just the same, and must not be counted pending for ever (Ready `Injecting` for a container never added).
import t from 'tap';
import { asGoWritesIt, goJsonBytes } from '../../lib/go-json.js';
import { FakeApi, injectorRequest, pod, status, tool } from '../fixtures/pbt.js';
import { postToInjector } from '../fixtures/pbt-app.js';

const LIMIT = 256 * 1024;

t.test(
  'a pod that fits with the namespace tools but not in the request that carries them is not counted pending',
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
    // 31 other tools of the namespace, small, with names at their longest (253 characters, a DNS subdomain): each is
    // keyed by its name in the request's `related` map, 257 bytes apiece that no object holds.
    for (let i = 0; i < 31; i++) api.put(tool(`t${i}-`.padEnd(253, 'x'), { label: 'app=db', image: 'busybox' }));
    const tools = [...api.objects.values()].filter((o) => o.kind === 'PodBuggerTool');
    const toolBytes = tools.reduce((n, o) => n + goJsonBytes(o), 0);

    // web-1, padded (an annotation of its owner's) so that it and the tools, each measured alone, are about 64 bytes
    // short of the limit (the API server's resourceVersion may add a byte).
    const web = pod('web-1', { app: 'web' });
    web.metadata.annotations = { pad: '' };
    web.metadata.annotations.pad = 'x'.repeat(LIMIT - 64 - toolBytes - goJsonBytes(web));
    api.put(web);
    const stored = api.stored('Pod', 'dbg', 'web-1');
    const measured = goJsonBytes(stored) + toolBytes;
    t.ok(measured < LIMIT, `the pod and the tools, each measured alone, are ${measured} bytes: within the limit`);

    // The request Metacontroller sends for web-1 (with an empty controller, the least it can be): past the limit.
    const payload = asGoWritesIt(JSON.stringify({ ...injectorRequest(api, 'dbg', 'web-1'), finalizing: false }));
    const res = await postToInjector(t, api, payload, LIMIT);
    t.equal(res.statusCode, 413, `the injector's request of ${Buffer.byteLength(payload)} bytes is refused`);
    t.same(api.ephemeralNames('dbg', 'web-1'), [], 'nothing is added to web-1');

    // The status: web-1 can never be sent to the injector, so it is not pending, and Ready does not say Injecting.
    const s = (await status(api, ['dbg', 'a'], { bodyLimit: LIMIT })).status as any;
    t.match(s, { matched: 1, pending: 0, skipped: 1 }, 'web-1 is skipped, not pending for ever');
    t.not(s.conditions.find((c: any) => c.type === 'Ready').reason, 'Injecting');
  },
);
