// Whether a failed-looking member of an upgrade is respec's to end (plan/upgrade-hold.ts respecPending, called
// directly): the upgrade waits for it instead of failing only when plan/respec.ts would make the member pod again with
// the spec's spec.pod: with storage, its claim observed and not being deleted (or the claims not told), no restore
// replacing the members, the pod made from another spec.pod, its etcd in a crash loop of short runs. Without storage a
// member that started keeps its data in its pod and is never made again: the upgrade's failure rules decide.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { POD_SPEC, podSpecFingerprint } from '../../hooks/etcdcluster/members.js';
import type { Observation } from '../../hooks/etcdcluster/plan/types.js';
import { respecPending } from '../../hooks/etcdcluster/plan/upgrade-hold.js';
import type { EtcdClusterSpec } from '../../hooks/etcdcluster/schema.js';
import { etcdParent, etcdSpec } from '../fixtures/etcd.js';
import { PVC } from '../fixtures/etcd-loop.js';

const FIXED = { resources: { limits: { memory: '2Gi' } } };
const spec = (pod: Record<string, unknown> = { ...FIXED, persistentVolumeClaimSpec: PVC }) =>
  etcdSpec({ size: 3, version: '3.6.0', pod }) as EtcdClusterSpec;
const OLD = podSpecFingerprint(spec({ resources: { limits: { memory: '256Mi' } }, persistentVolumeClaimSpec: PVC }));

/** A member pod in a crash loop, its last run `ms` long, made from the spec.pod of fingerprint `made`. */
function looping(name: string, made: string | null = OLD, ms = 2_000): KubeObject {
  const started = Date.parse('2026-11-29T10:00:00Z');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', ...(made === null ? {} : { annotations: { [POD_SPEC]: made } }) },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'etcd',
          restartCount: 1,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: {
            terminated: {
              startedAt: new Date(started).toISOString(),
              finishedAt: new Date(started + ms).toISOString(),
            },
          },
        },
      ],
    },
  } as unknown as KubeObject;
}

const obs = (o: Partial<Observation> = {}) => ({ pods: [], health: {}, ...o }) as unknown as Observation;

t.test(
  'a short crash loop on an old spec.pod with its claim there: respec makes it again, the upgrade waits',
  async (t) => {
    const pending = respecPending(etcdParent({}), spec(), obs({ claims: ['e-0', 'e-1'] }));
    t.equal(pending(looping('e-1')), true);
    t.equal(respecPending(etcdParent({}), spec(), obs())(looping('e-1')), true, 'the claims not told: assumed there');
  },
);

t.test('respec makes no member again without storage, while a restore replaces the members', async (t) => {
  t.equal(respecPending(etcdParent({}), spec(FIXED), obs())(looping('e-1')), false, 'no storage');
  t.equal(respecPending(etcdParent({}), spec(undefined), obs())(looping('e-1')), true, 'the default pod');
  const noPod = etcdSpec({ size: 3, version: '3.6.0' }) as EtcdClusterSpec;
  t.equal(respecPending(etcdParent({}), noPod, obs())(looping('e-1')), false, 'no spec.pod: no storage');
  for (const phase of ['Replacing', 'Restoring'])
    t.equal(
      respecPending(etcdParent({}, { restore: { phase } }), spec(), obs())(looping('e-1')),
      false,
      `a restore ${phase}`,
    );
  t.equal(
    respecPending(etcdParent({}, { restore: { phase: 'Checking' } }), spec(), obs())(looping('e-1')),
    true,
    'a restore still checking replaces nothing',
  );
});

t.test('only a member whose claim is observed and not being deleted', async (t) => {
  const pending = respecPending(etcdParent({}), spec(), obs({ claims: ['e-0', 'e-2'], terminatingClaims: ['e-2'] }));
  t.equal(pending(looping('e-0')), true, 'its claim there');
  t.equal(pending(looping('e-1')), false, 'its claim not observed');
  t.equal(pending(looping('e-2')), false, 'its claim being deleted');
  const none = respecPending(etcdParent({}), spec(), obs({ claims: [] }));
  t.equal(none(looping('e-0')), false, 'no claim observed');
});

t.test('only a pod made from another spec.pod, in a crash loop of short runs', async (t) => {
  const pending = respecPending(etcdParent({}), spec(), obs());
  t.equal(pending(looping('e-1', podSpecFingerprint(spec()))), false, "made from the spec's spec.pod");
  t.equal(pending(looping('e-1', null)), false, 'no record of its spec.pod');
  t.equal(pending(looping('e-1', OLD, 90_000)), false, 'a crash loop of long runs: it served, then was killed');
  t.equal(pending(looping('e-1', OLD, 30_000)), true, 'a run of 30 s');
});
