// A cluster's mutating admission acts on the pods/ephemeralcontainers subresource as on any write of a pod: Kyverno's
// verifyImages with `mutateDigest` (and Connaisseur, Ratify) pins every image it verified by digest
// (`busybox:1.36` stored as `docker.io/library/busybox:1.36@sha256:<hex>`), and a namespace's "restricted defaults"
// mutate rule adds `allowPrivilegeEscalation: false` and dropped capabilities to every container, ephemeral ones
// included (kyverno/kyverno#4716). The container the injector added is then stored otherwise than it was sent, but
// it is the container the tool's current spec added, pulled at the tag the tool names: the status counts it injected
// (not `outdated`, which says "delete those pods to have the current one": a pod made again gets the same container,
// changed the same way, and is outdated again for ever).
import t from 'tap';
import { admitting, injectAll, pod, statusAndApply, tool } from '../fixtures/pbt.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

t.test('a debug container whose image admission pinned by digest is counted injected', async (t) => {
  const api = admitting((c) => {
    c.image = `${c.image}@${DIGEST}`;
  })
    .put(tool('a', { label: 'app=web', image: 'busybox:1.36' }))
    .put(pod('web-1', { app: 'web' }))
    .put(pod('web-2', { app: 'web' }));
  await injectAll(api, 'dbg');
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a'], 'the injector added it');
  t.equal(
    api.stored('Pod', 'dbg', 'web-1').spec.ephemeralContainers[0].image,
    `docker.io/library/busybox:1.36@${DIGEST}`,
  );
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.match(res.status, { matched: 2, injected: 2, outdated: 0 });
  t.match(res.status, { conditions: [{ type: 'Ready', status: 'True', reason: 'Injected' }] });
});

t.test('a debug container to which admission added restrictions is counted injected', async (t) => {
  const api = admitting((c) => {
    c.securityContext = {
      ...c.securityContext,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['NET_RAW'] },
    };
  })
    .put(tool('a', { label: 'app=web', image: 'busybox:1.36' }))
    .put(pod('web-1', { app: 'web' }));
  await injectAll(api, 'dbg');
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a'], 'the injector added it');
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.match(res.status, { matched: 1, injected: 1, outdated: 0 });
  t.match(res.status, { conditions: [{ type: 'Ready', status: 'True', reason: 'Injected' }] });
});
