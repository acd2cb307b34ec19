// An admission policy that pins images by digest (Kyverno verifyImages with mutateDigest, its default; Connaisseur,
// Ratify...) rewrites each pod's image as it is created: the StatefulSet's `mysql:8.4.3` becomes
// `mysql:8.4.3@sha256:<64 hex>` on the member pods. The version a member runs is still the tag, 8.4.3: the digest
// names the same image. What the hook reads as the members' version (status.version, the downgrade guard's floor)
// must be the tag, not the digest's hex: read as a version, a digest starting `12ab...` is MySQL "12", newer than
// every spec.version (the cluster's own 8.4.3 refused as a downgrade, recorded, refused for good), and one starting
// with a letter is no version at all (the record of what ran is lost: no floor once the StatefulSet is gone).
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { parent, pinnedMember } from '../fixtures/mysql-versions.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';

const ready = (res: any) => ((res.status.conditions ?? []) as any[]).find((c) => c.type === 'Ready');

/** Member `ordinal` of cluster db, running `image` (as the admission policy rewrote it). */
const member = (ordinal: number, image: string): KubeObject =>
  pinnedMember(ordinal, image, `docker.io/library/mysql@sha256:${'a'.repeat(64)}`);

/** The cluster of `size` on 8.4.3, its members' images pinned to `digest`: the second sync's answer. */
function pinned(size: number, digest: string, status?: Record<string, unknown>) {
  const first = mysqlSync(parent({ size, version: '8.4.3' }, status), FIXED_NOW);
  const children = objectMap(first.children.map((c) => asObserved(c)));
  const pods = Array.from({ length: size }, (_, i) => member(i, `mysql:8.4.3@sha256:${digest}`));
  const res = mysqlSync(
    {
      ...parent({ size, version: '8.4.3' }, structuredClone(first.status) as Record<string, unknown>),
      children,
      related: objectMap(pods),
    },
    FIXED_NOW,
  );
  return { res, children };
}

t.test('a digest starting with digits is not read as a MySQL version newer than the one the members run', async (t) => {
  const { res } = pinned(2, `12ab${'c'.repeat(60)}`);
  t.not(
    ready(res).reason,
    'InvalidSpec',
    `the cluster's own version is not refused (${ready(res).reason}: ${ready(res).message})`,
  );
  t.equal((res.status as any).version, '8.4.3', 'status.version records the tag the members run');
});

t.test('a digest starting with a letter: the version the members ran is still recorded', async (t) => {
  const { res, children } = pinned(2, `ab12${'c'.repeat(60)}`);
  t.equal((res.status as any).version, '8.4.3', 'status.version records 8.4.3 (the floor of a later spec.version)');
  // The StatefulSet is deleted (kubectl delete sts --cascade=orphan to change its claims, or by mistake) and the pods
  // with it; spec.version is set to 8.0.40: the record of what ran refuses it.
  const later = mysqlSync(
    {
      ...parent({ size: 2, version: '8.0.40' }, structuredClone(res.status) as Record<string, unknown>),
      children: objectMap(Object.values(children['Secret.v1'] ?? {}) as KubeObject[]),
    },
    FIXED_NOW,
  );
  t.match(
    ready(later),
    { status: 'False', reason: 'InvalidSpec', message: /older than 8\.4\.3/ },
    'a downgrade from what ran is refused',
  );
});
