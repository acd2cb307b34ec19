// "A pod that has the container is left alone" and the container is "never added twice: by us, by hand, or a request
// that lagged" (docs/podbuggertool.md, How it works; inject.ts decidedAgain). A container that was added and does
// not run (the kubelet cannot pull its image, refused it as root, or it exited with an error) is counted `failed` by
// the tool's status, and the injector takes `failed` for "the PATCH failed before, try again": it reads the pod and
// the tool again, asks about the author, and PATCHes the same container into the pod that carries it, at every call
// about the pod (each pod event, each change of a tool of the namespace). The API server takes the same ephemeral
// container again as a no-op (measured on kube-apiserver 1.36: the PATCH succeeds and the resourceVersion does not
// move; test/real/podbuggertool-stopped-containers-quiet-real.test.ts): nothing can come of those calls.
import t from 'tap';
import { containerName, ephemeralContainer, parser } from '../../hooks/podbuggertool/match.js';
import { FakeApi, inject, pod, tool } from '../fixtures/pbt.js';

/** The fake API server, taking a repeat of a container the pod carries as the real one does: a no-op. */
function repeatsAreNoOps(api: FakeApi): FakeApi {
  api.addEphemeralContainers = async (ns, name, containers, precondition) => {
    api.patches.push({ ns, pod: name, containers, precondition });
    const have = api.stored('Pod', ns, name).spec.ephemeralContainers ?? [];
    for (const c of containers) {
      const same = have.find((x: any) => x.name === c['name']);
      if (!same || JSON.stringify(same) !== JSON.stringify(c)) throw new Error('the fake takes only a repeat');
    }
  };
  return api;
}

const spec = { label: 'app=web', image: 'busybox' };
const states: Array<[string, Record<string, unknown>]> = [
  ['exited with an error (ContainerExited)', { terminated: { exitCode: 1, reason: 'Error' } }],
  ['cannot have its image pulled (ImagePullFailed)', { waiting: { reason: 'ImagePullBackOff' } }],
  [
    'was refused by the kubelet as root (RunsAsRoot)',
    {
      waiting: {
        reason: 'CreateContainerConfigError',
        message: 'container has runAsNonRoot and image will run as root',
      },
    },
  ],
];

for (const [what, state] of states) {
  t.test(`a pod whose debug container ${what} is left alone`, async (t) => {
    const parsed = parser.parse(spec);
    if (!parsed.ok) throw new Error('spec');
    const api = repeatsAreNoOps(new FakeApi().put(tool('a', spec)));
    const p = pod('web-1', { app: 'web' });
    p.spec.ephemeralContainers = [ephemeralContainer('a', parsed.spec, p)];
    p.status = {
      phase: 'Running',
      ephemeralContainerStatuses: [{ name: containerName('a'), state, ready: false, restartCount: 0 }],
    };
    api.put(p);
    const res = await inject(api, ['dbg', 'web-1']);
    t.same(
      api.patches.map((x) => x.containers.map((c) => c['name'])),
      [],
      'no second PATCH of the container the pod carries',
    );
    t.same(api.gets, [], `no API call: the request says the pod has the container (answer: ${JSON.stringify(res)})`);
  });
}

// A tenant's two tools whose command fails at once
// (`command: ["false"]`) then keep every pod they select called about, and PATCHed, every second.
t.test('two tools whose containers exited on a pod: at rest, no PATCH and no call back every second', async (t) => {
  const failing = { label: 'app=web', image: 'busybox', command: ['false'] };
  const parsed = parser.parse(failing);
  if (!parsed.ok) throw new Error('spec');
  const api = repeatsAreNoOps(new FakeApi().put(tool('a', failing)).put(tool('b', failing)));
  const p = pod('web-1', { app: 'web' });
  p.spec.ephemeralContainers = ['a', 'b'].map((n) => ephemeralContainer(n, parsed.spec, p));
  p.status = {
    phase: 'Running',
    ephemeralContainerStatuses: ['a', 'b'].map((n) => ({
      name: containerName(n),
      state: { terminated: { exitCode: 1, reason: 'Error' } },
      ready: false,
      restartCount: 0,
    })),
  };
  api.put(p);
  const resyncs: Array<number | undefined> = [];
  for (let call = 0; call < 5; call++) {
    const res = await inject(api, ['dbg', 'web-1']);
    api.annotate('dbg', 'web-1', res.annotations ?? undefined);
    resyncs.push(res.resyncAfterSeconds);
  }
  t.equal(api.patches.length, 0, 'no PATCH of the containers the pod carries');
  t.same(resyncs, [undefined, undefined, undefined, undefined, undefined], 'not called back every second');
});
