// The tool's status counts a pod `pending` when it lacks the container and can take it: the injector will add it
// (docs/podbuggertool.md, Status: "pending (not carrying it yet, neither failed nor skipped)"; Ready `Injecting`).
// The injector only acts on a pod Metacontroller can send it: a request is the pod (as JSON, written by Go's
// encoding/json, which writes `<`, `>` and `&` in six bytes each, as the API server does) and the tools of its
// namespace, and the hook server refuses a body past its limit (8 MiB by default: 413, Metacontroller's SyncError on
// the pod). The status reads a pod up to MAX_OBJECT_READ_BYTES (about 9.06 MiB), and calls only those past that
// TooLargeToRead ("Metacontroller cannot send such a pod either"). A pod between the two (etcd stores it: 1.45 MB
// stored, 8.7 MB as JSON) is read by the count and never sent to the injector: it must not be counted pending for
// ever (Ready `Injecting` for a container that is never added) but said why, as a pod too large is.
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import { MAX_OBJECT_READ_BYTES } from '../../lib/kube.js';
import { goJsonBytes } from '../../lib/go-json.js';
import { FakeApi, injectorRequest, pod, status, tool } from '../fixtures/pbt.js';

t.test('a pod too large for any injector request is not counted pending', async (t) => {
  // 1.45 MB of `<` in one env value of the pod's own container: below etcd's 1.5 MiB, 8.7 MB as JSON.
  const big = pod(
    'big',
    { app: 'web' },
    {
      containers: [{ name: 'app', image: 'nginx', env: [{ name: 'NOTE', value: '<'.repeat(1_450_000) }] }],
    },
  );
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(big);
  const request = goJsonBytes(injectorRequest(api, 'dbg', 'big'));
  t.ok(request > DEFAULT_BODY_LIMIT, `the injector's request for it is ${request} bytes: refused (413)`);
  t.ok(goJsonBytes(api.stored('Pod', 'dbg', 'big')) < MAX_OBJECT_READ_BYTES, 'the count reads it whole');

  const res = await status(api, ['dbg', 'a']);
  const s = res.status as any;
  t.match(s, { matched: 1, pending: 0 }, 'not pending: the injector is never sent it');
  t.not(s.conditions.find((c: any) => c.type === 'Ready').reason, 'Injecting');
});
