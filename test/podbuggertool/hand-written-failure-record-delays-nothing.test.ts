// The injector's failure record is an annotation on the pod, and "anyone who may edit the pod may edit that annotation
// too: it only changes what the tool's status says of that pod (never what is injected: the injector decides on the
// container itself, and tries again)" (docs/podbuggertool.md, How it works). The record also carries the retry's
// backoff (`<Reason>;n=<attempts>;at=<epoch seconds>;k=<key>`), and its key is a hash of what anyone who may read
// the tool and the pod sees (the tool's uid and spec, the pod's uid). A record written by hand with that key, dated
// now, keeps the tool's container out of the pod for an hour, and written again every hour, for as long as the pod
// lives, while the tool's status counts the pod failed for a reason of the writer's choosing. Whoever may edit a pod
// (and not its labels' selection) must not be able to keep a tool that selects it away: the injector acts on a record
// only when it is one the injector wrote.
import t from 'tap';
import { attemptKey, containerName, parser } from '../../hooks/podbuggertool/match.js';
import { FakeApi, inject, pod, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('a failure record written by hand on the pod keeps no container out of it', async (t) => {
  const spec = { label: 'app=web', image: 'busybox' };
  const api = new FakeApi().put(tool('a', spec)).put(pod('web-1', { app: 'web' }));
  const stored = api.stored('Pod', 'dbg', 'web-1');
  const parsed = parser.parse(api.stored('PodBuggerTool', 'dbg', 'a').spec);
  if (!parsed.ok) throw new Error(parsed.message);
  // What the pod's editor can compute: the tool's uid and spec and the pod's uid are theirs to read.
  const key = attemptKey('a', 'uid-tool-a', parsed.spec, stored);
  const now = Math.floor(FIXED_NOW.getTime() / 1000);
  stored.metadata.annotations = {
    'debug.metaops.dev/failures': JSON.stringify({ [containerName('a')]: `Forbidden;n=20;at=${now};k=${key}` }),
  };
  api.put(stored);

  const res = await inject(api, ['dbg', 'web-1']);
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a'], 'the container is added now');
  t.not(res.resyncAfterSeconds, 3600, 'not put off for the hour the record claims');
});
