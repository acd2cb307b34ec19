// An admission policy that pins images by digest (Kyverno verifyImages with mutateDigest, Connaisseur, Ratify)
// rewrites every pod's images when it is created, the restore's check pod's too: its container `metaops:test` and
// its steps `quay.io/coreos/etcd:v3.5.0`, `busybox:1.28.0-glibc` are observed as `...@sha256:<64 hex>`, the same
// images. The check pod so observed is the one the restore made: its verdict is read (a passed check drops the old
// members and the restored ones start), not taken for a check "with other arguments" and dropped, made again, dropped
// at every other sync until the check's deadline. Each answer is fed back as the next observed state.
import t from 'tap';
import { pinAll, restoreObject, running, withDigest } from '../fixtures/etcd-loop.js';

t.test('a restore whose check pod is pinned by digest reads its check and goes on', async (t) => {
  const loop = await running({ size: 3 });
  pinAll(loop, withDigest, true);
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  t.match(loop.s().restore, { phase: 'Checking' }, 'the check runs first');
  t.ok(loop.checkPod(), 'the check pod answered');
  // The check passed (its pod Succeeded with the verdict in its termination message).
  const phases: string[] = [];
  for (let i = 0; i < 3; i++) {
    await loop.step();
    phases.push(String(loop.s().restore?.phase));
  }
  t.not(phases[0], 'Checking', `the passed check is read at the next sync (phases ${phases.join(', ')})`);
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members are made');
});
