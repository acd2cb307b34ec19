// A PATCH refused for good is retried with a backoff, from 30 s to an hour. When Metacontroller cannot write the
// pod's record (the tenant's pod holds annotations up to the API server's 256 KiB, an admission policy refuses
// updates of pods), the hook server remembers the record it answered last for the pod (UnwrittenRecords), "and
// while the pod's annotation is exactly as it was ... that record decides the retry ... A PATCH refused for good whose
// record is never written costs 7 or 8 attempts an hour, not 121" (docs/podbuggertool.md, Failures). That memory
// holds MAX_UNWRITTEN_RECORDS pods, the least recently answered forgotten first: in a namespace of more pods than
// that, failing alike, each pod's record is forgotten before its next call (every other pod was answered since), so
// every pod is PATCHed again every 30 s, for as long as it lives: a load on the API server that grows with the pods
// (4,200 pods: some 140 PATCHes a second, each with its reads and review, where the backoff sends fewer than 10).
import t from 'tap';
import { MAX_UNWRITTEN_RECORDS } from '../../hooks/podbuggertool/inject.js';
import { FAILURES_ANNOTATION } from '../../hooks/podbuggertool/match.js';
import { KubeError } from '../../lib/kube.js';
import { FakeApi, inject, injectorRequest, pod, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

t.test(
  'a failing PATCH whose record cannot be written backs off in a namespace of more pods than the memory holds',
  async (t) => {
    const a = tool('a', { label: 'app=web', image: 'busybox' });
    const api = new FakeApi().put(a);
    const names = Array.from({ length: MAX_UNWRITTEN_RECORDS + 104 }, (_, i) => `web-${String(i).padStart(5, '0')}`);
    for (const name of names) api.put(pod(name, { app: 'web' }));
    api.failPatch = new KubeError(403, 'violates PodSecurity "restricted:latest"', 'Forbidden');
    const stored = api.stored('PodBuggerTool', 'dbg', 'a');
    // Metacontroller: every pod called about at 0 s, then again when the injector asks (30 s later); the answers'
    // annotation is never written.
    const round = async (s: number) => {
      const answers = new Map<string, Awaited<ReturnType<typeof inject>>>();
      for (const name of names)
        answers.set(
          name,
          await inject(api, ['dbg', name], { now: at(s) }, injectorRequest(api, 'dbg', name, [stored])),
        );
      return answers;
    };
    const first = await round(0);
    t.equal(first.get(names[0]!)!.resyncAfterSeconds, 30, 'the first failure: retried in 30 s');
    const second = await round(30);
    const again = second.get(names[0]!)!;
    t.match(
      again.annotations?.[FAILURES_ANNOTATION],
      /"debug-a":"Forbidden;n=2;/,
      'the second failure in a row is counted as such',
    );
    t.equal(again.resyncAfterSeconds, 60, 'the second failure in a row: retried in 60 s, not 30');
    const patchesBefore = api.patches.length;
    await round(60);
    t.equal(api.patches.length - patchesBefore, 0, 'no pod PATCHed again 30 s after its second failure');
  },
);
