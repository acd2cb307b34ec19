// An admission policy that resolves images to digests may take the tag off: Sigstore's policy-controller rewrites the
// StatefulSet's template and each member pod's `mysql:8.4.3` as `index.docker.io/library/mysql@sha256:<64 hex>`. The
// image text then names no version; the hook reads the one it gave from its own record (the version label it puts on
// the template, which each pod carries). So status.version records what ran and a downgrade is refused, whether the
// pods or only the record of what ran remain; an image pinned without its tag and without that record names no
// version.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { runningVersion } from '../../hooks/mysqlcluster/sync.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { parent, pinnedMember } from '../fixtures/mysql-versions.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';

const ready = (res: any) => ((res.status.conditions ?? []) as any[]).find((c) => c.type === 'Ready');
const PINNED = `index.docker.io/library/mysql@sha256:${'ab12'.repeat(16)}`;
const VERSION = { 'app.kubernetes.io/version': '8.4.3' };

/** Member `ordinal` of cluster db, running `image` (as the admission policy rewrote it), with `labels`. */
const member = (ordinal: number, image: string, labels: Record<string, string> = VERSION): KubeObject =>
  pinnedMember(ordinal, image, PINNED, labels);

/** Every image of an observed object's pod template as the policy writes it. */
function pinTemplate(o: KubeObject): KubeObject {
  const copy = structuredClone(o) as any;
  const spec = copy.spec?.template?.spec;
  for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])])
    if (typeof c.image === 'string' && c.image.startsWith('mysql:')) c.image = PINNED;
  return copy;
}

/** The cluster of two on 8.4.3, its StatefulSet and members pinned by digest without their tag: the second sync. */
function pinned(status?: Record<string, unknown>) {
  const first = mysqlSync(parent({ size: 2, version: '8.4.3' }, status), FIXED_NOW);
  const children = objectMap(first.children.map((c) => pinTemplate(asObserved(c))));
  const res = mysqlSync(
    {
      ...parent({ size: 2, version: '8.4.3' }, structuredClone(first.status) as Record<string, unknown>),
      children,
      related: objectMap([member(0, PINNED), member(1, PINNED)]),
    },
    FIXED_NOW,
  );
  return { res, children };
}

t.test('the version of members pinned without their tag is the one the hook gave them', async (t) => {
  t.equal(runningVersion([member(0, PINNED)]), '8.4.3', 'read from the pod’s version label');
  t.equal(runningVersion([member(0, PINNED, {})]), undefined, 'no record: no version');
  t.equal(
    runningVersion([member(0, `quay.io/other/mysql@sha256:${'ab12'.repeat(16)}`)]),
    undefined,
    'another repository: not the image given',
  );
  t.equal(runningVersion([member(0, 'mysql:8.0.40', VERSION)]), '8.0.40', 'a tag is read as written');
});

t.test('status.version records what ran; a downgrade is refused with the pods and without them', async (t) => {
  const { res, children } = pinned();
  t.not(ready(res).reason, 'InvalidSpec', `${ready(res).reason}: ${ready(res).message}`);
  t.equal((res.status as any).version, '8.4.3', 'status.version records 8.4.3');
  // spec.version set to 8.0.40 while the pinned StatefulSet and pods run.
  const now = mysqlSync(
    {
      ...parent({ size: 2, version: '8.0.40' }, structuredClone(res.status) as Record<string, unknown>),
      children,
      related: objectMap([member(0, PINNED), member(1, PINNED)]),
    },
    FIXED_NOW,
  );
  t.match(ready(now), { status: 'False', reason: 'InvalidSpec', message: /older than 8\.4\.3/ }, 'with the pods');
  // The StatefulSet and its pods deleted: the record of what ran refuses it.
  const later = mysqlSync(
    {
      ...parent({ size: 2, version: '8.0.40' }, structuredClone(res.status) as Record<string, unknown>),
      children: objectMap(Object.values(children['Secret.v1'] ?? {}) as KubeObject[]),
    },
    FIXED_NOW,
  );
  t.match(ready(later), { status: 'False', reason: 'InvalidSpec', message: /older than 8\.4\.3/ }, 'without them');
});

t.test('a downgrade is refused while only the pinned StatefulSet and pods say what runs', async (t) => {
  const { children } = pinned();
  const res = mysqlSync(
    {
      ...parent({ size: 2, version: '8.0.40' }),
      children,
      related: objectMap([member(0, PINNED), member(1, PINNED)]),
    },
    FIXED_NOW,
  );
  t.match(ready(res), { status: 'False', reason: 'InvalidSpec', message: /older than 8\.4\.3/ });
});
