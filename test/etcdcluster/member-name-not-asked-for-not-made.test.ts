// Metacontroller keeps a parent's customize answer until its generation changes (v1.5.20; v4.17.2 up to 20 minutes),
// and a status write does not change it. An EtcdCluster's customize asks for its member names by ordinal past
// status.lastMemberIndex, and ordinals only grow (a member replaced takes a new one): a cluster that replaces members
// without a spec change comes to want a name the answer in use never asked for. Another owner's pod of that name is
// then not among the related objects, the collision check (issue 31) cannot see it, and the cluster would add an etcd
// member for a pod Metacontroller cannot create. Such a name is not made and no member is added for it
// (Ready=False MemberNameNotChecked) until the generation changes and the name is asked for.
import t from 'tap';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import type { CompositeSyncResponse, KubeObject, ParentObject, RelatedResourceRule } from '../../lib/metacontroller.js';
import { running, type Loop } from '../fixtures/etcd-loop.js';
import { replicaSetPod } from '../fixtures/pod-name-holders.js';

const customize = (parent: ParentObject) =>
  (etcdcluster.customize as any)({ controller: {}, parent }, {}).relatedResources as RelatedResourceRule[];

/** The objects of `cluster` that `rules` ask for by name (what Metacontroller hands sync as related). */
function relatedFor(rules: RelatedResourceRule[], cluster: KubeObject[]): KubeObject[] {
  const resource: Record<string, string> = { Pod: 'pods', PersistentVolumeClaim: 'persistentvolumeclaims' };
  return cluster.filter((o) =>
    rules.some(
      (r) =>
        r.apiVersion === o.apiVersion &&
        r.resource === resource[o.kind] &&
        r.namespace === o.metadata.namespace &&
        (r.names ?? []).includes(o.metadata.name!),
    ),
  );
}

/** The first member ordinal whose pod name the rules do not ask for. */
function firstNotAsked(rules: RelatedResourceRule[]): number {
  const pods = new Set(rules.filter((r) => r.resource === 'pods').flatMap((r) => r.names ?? []));
  let i = 0;
  while (pods.has(`e-${i}`)) i++;
  return i;
}

const ready = (res: CompositeSyncResponse) =>
  ((res.status as any).conditions as Array<Record<string, unknown>>).find((c) => c['type'] === 'Ready');

/** The parent at `generation` from now on (a spec change). */
function atGeneration(loop: Loop, generation: number): void {
  const base = Loop_parent(loop);
  loop.parent = () => {
    const p = base();
    p.metadata = { ...p.metadata, generation };
    return p;
  };
}
function Loop_parent(loop: Loop): () => ParentObject {
  return Object.getPrototypeOf(loop).parent.bind(loop);
}

/** One member replaced: the last member's pod and etcd member lost, and syncs until a member is added for it. */
async function replaceOne(loop: Loop): Promise<Array<{ res: CompositeSyncResponse; before: Set<string> }>> {
  const byOrdinal = (a: string, b: string) => Number(a.slice(2)) - Number(b.slice(2));
  const victim = loop.pods().sort(byOrdinal).at(-1)!;
  loop.lose(victim);
  loop.etcd.members = loop.etcd.members.filter((m) => !m.peerURLs[0]!.includes(`//${victim}.`));
  const answers: Array<{ res: CompositeSyncResponse; before: Set<string> }> = [];
  for (let i = 0; i < 3; i++) {
    const before = new Set(loop.observed().map((o) => `${o.kind} ${o.metadata.name}`));
    answers.push({ res: await loop.step(), before });
    for (const p of loop.pods()) loop.etcd.up.add(p);
  }
  return answers;
}

t.test('a member name past what the answer in use asked for is not made, and no member is added for it', async (t) => {
  // The answer of the cluster's generation, asked when it was made (no status yet): Metacontroller keeps it.
  const loop = await running({ size: 3 });
  const rules = customize({ ...loop.parent(), status: {} } as ParentObject);
  const k = firstNotAsked(rules);
  t.ok(k > 3, `the answer asks for the first ordinals (up to e-${k - 1})`);
  // Another owner's pod under the first member name the answer does not ask for: in the cluster, not in related.
  const cluster = [replicaSetPod(`e-${k}`)];
  let held: CompositeSyncResponse | undefined;
  const unasked: string[] = [];
  for (let round = 0; round < k + 2 && !held; round++) {
    loop.related = relatedFor(rules, cluster);
    for (const { res, before } of await replaceOne(loop)) {
      for (const c of res.children)
        if (
          (c.kind === 'Pod' || c.kind === 'PersistentVolumeClaim') &&
          !rules.some((r) => (r.names ?? []).includes(c.metadata.name!)) &&
          !before.has(`${c.kind} ${c.metadata.name}`)
        )
          unasked.push(`${c.kind} ${c.metadata.name}`);
      if (ready(res)?.['reason'] === 'MemberNameNotChecked') held = res;
    }
  }
  t.same(unasked, [], "every pod and claim answered was asked for or already the cluster's");
  t.ok(held, 'the cluster says it cannot check the name');
  t.notOk(loop.etcd.calls.includes(`add e-${k}`), `no etcd member added for e-${k}`);
  t.notOk(loop.pods().includes(`e-${k}`), `no pod e-${k} answered`);
  t.match(String(ready(held!)?.['message']), new RegExp(`Pod e-${k}`), 'the condition names the pod');
  t.equal(loop.pods().length, 2, 'the running members kept');
  // Nothing changes while the generation is the same: still held, still no member added.
  const again = await loop.step();
  t.equal(ready(again)?.['reason'], 'MemberNameNotChecked', 'still held');
  t.notOk(loop.etcd.calls.includes(`add e-${k}`), 'still no member added');

  // A spec change: Metacontroller asks customize again with the status of now, and the holder is seen.
  atGeneration(loop, 2);
  const fresh = customize(loop.parent());
  t.ok(
    fresh.some((r) => r.resource === 'pods' && (r.names ?? []).includes(`e-${k}`)),
    'the new answer asks for it',
  );
  loop.related = relatedFor(fresh, cluster);
  const res = await loop.step();
  // (A member's name need only be new: the name another owner holds is skipped, and said so, rather than holding the
  // cluster: test/etcdcluster/member-added-past-taken-names-says-so.test.ts.)
  const said = ((res.status as any).conditions as Array<Record<string, unknown>>).map((c) => String(c['message']));
  t.ok(
    said.some((m) => new RegExp(`Pod e-${k} belongs to ReplicaSet other`).test(m)),
    'the holder is seen and named',
  );
  t.notOk(loop.etcd.calls.includes(`add e-${k}`), 'and no member is added for it');
  t.ok(loop.etcd.calls.includes(`add e-${k + 1}`), 'the member takes the next name nobody holds');
});

t.test('the holder gone: after a spec change the member is added under the name', async (t) => {
  const loop = await running({ size: 3 });
  const rules = customize({ ...loop.parent(), status: {} } as ParentObject);
  const k = firstNotAsked(rules);
  for (let round = 0; round < k + 2 && ready(loop.last)?.['reason'] !== 'MemberNameNotChecked'; round++)
    await replaceOne(loop);
  t.equal(ready(loop.last)?.['reason'], 'MemberNameNotChecked', 'held at the first name not asked for');
  atGeneration(loop, 2);
  loop.related = [];
  await loop.step();
  for (const p of loop.pods()) loop.etcd.up.add(p);
  t.ok(loop.etcd.calls.includes(`add e-${k}`), `the member e-${k} is added`);
  t.ok(loop.pods().includes(`e-${k}`), 'its pod answered');
  t.same(loop.s().namesAskedWith.generation, 2, 'the record is of the new generation');
});

t.test('the record is what the first sync of a generation saw, and survives held and later answers', async (t) => {
  const loop = await running({ size: 3 });
  t.same(loop.s().namesAskedWith, { generation: 1, lastMemberIndex: -1, members: [] }, 'asked at creation');
  atGeneration(loop, 2);
  await loop.step();
  t.same(
    loop.s().namesAskedWith,
    { generation: 2, lastMemberIndex: 2, members: ['e-0', 'e-1', 'e-2'] },
    'a new generation: the status it was first synced with',
  );
  await replaceOne(loop);
  t.equal(loop.s().lastMemberIndex, 3, 'a member replaced');
  t.same(loop.s().namesAskedWith.lastMemberIndex, 2, 'the record kept');
});
