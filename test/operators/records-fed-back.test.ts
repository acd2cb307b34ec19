// Attacks on the restore record of EtcdCluster (hooks/etcdcluster/plan.ts), MySQLCluster's password and claim
// templates (hooks/mysqlcluster/sync.ts) and S3 tags and finalize (hooks/s3/sync.ts): each answer fed back as the
// next observed state, as Metacontroller does, with status lost, objects deleted and recreated, pods vanishing.
import t from 'tap';
import { EtcdError } from '../../hooks/etcdcommon/etcd.js';
import { parser as etcdParser } from '../../hooks/etcdcluster/sync.js';
import { mysqlSync, s3Sync } from '../fixtures/hooks.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { parseJsonBody } from '../../lib/json.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { Loop, PVC, restoreObject, running } from '../fixtures/etcd-loop.js';

/** A restore requested, its EtcdRestore deleted before Metacontroller dropped the old members (they keep running). */
async function cancelledBeforeReplaced(spec: Record<string, unknown>): Promise<Loop> {
  const loop = await running(spec);
  const before = loop.children;
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step(); // Checking: the snapshot is there
  await loop.step(); // Replacing: no pod, no claim answered
  loop.children = before; // that answer was not applied yet
  loop.related = [];
  return loop;
}

t.test(
  'a restore cancelled before its old members were dropped: all their pods lost later, their claims are kept and they come back',
  async (t) => {
    const loop = await cancelledBeforeReplaced({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
    t.match(loop.s().restore, { phase: 'Replacing' });
    await loop.step();
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the old members kept');
    loop.lose('e-0', 'e-1', 'e-2');
    for (let i = 0; i < 3; i++) {
      await loop.step();
      t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: no member claim deleted`);
      t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: the members come back on their claims`);
      t.not(loop.s().restore.phase, 'Restored');
    }
  },
);

t.test(
  'a restore cancelled before its old members were dropped: either record of them (the member list or a live claim) keeps them',
  async (t) => {
    const lostAll = async (change: (loop: Loop) => void) => {
      const loop = await cancelledBeforeReplaced({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
      await loop.step();
      loop.lose('e-0', 'e-1', 'e-2');
      change(loop);
      await loop.step();
      return loop;
    };
    // The status's member list lost too: the claims still in place say the old members hold data.
    const byClaims = await lostAll((loop) => {
      loop.status = { ...loop.status, memberList: [] };
    });
    t.same(byClaims.claims(), ['e-0', 'e-1', 'e-2'], 'claims kept');
    t.same(byClaims.pods(), ['e-0', 'e-1', 'e-2'], 'the members come back on them');
    // The claims gone (deleted by hand), the member list still there: not a failed restore.
    const byList = await lostAll((loop) => {
      loop.children = loop.children.filter((c) => c.kind !== 'PersistentVolumeClaim');
    });
    t.not(byList.s().reason, 'RestoreFailed', 'the member list says the old members ran');
    // Neither: the members went with the restore, past its point of no return: it carries on from the snapshot it
    // checked (recorded in status.restore.s3), and nothing is bootstrapped empty.
    for (const [why, change] of [
      [
        'no claim',
        (loop: Loop) => {
          loop.status = { ...loop.status, memberList: [] };
          loop.children = loop.children.filter((c) => c.kind !== 'PersistentVolumeClaim');
        },
      ],
      [
        'every claim being deleted',
        (loop: Loop) => {
          loop.status = { ...loop.status, memberList: [] };
          for (const c of loop.children)
            if (c.kind === 'PersistentVolumeClaim') c.metadata.deletionTimestamp = '2026-07-01T00:00:10Z';
        },
      ],
      [
        "only another cluster's claims",
        (loop: Loop) => {
          loop.status = { ...loop.status, memberList: [] };
          for (const c of loop.children)
            if (c.kind === 'PersistentVolumeClaim') c.metadata.name = `other-${c.metadata.name!.split('-')[1]}`;
        },
      ],
    ] as const) {
      const gone = await lostAll(change);
      t.match(gone.s(), { phase: 'Creating', reason: 'Restoring', restore: { phase: 'Restoring' } }, why);
      // Their claims first, their pods once the claims are observed as the cluster's (the next sync).
      t.same(
        gone.claims().filter((c) => /^e-\d+$/.test(c)),
        ['e-3', 'e-4', 'e-5'],
        `${why}: the restored members' claims`,
      );
      await gone.step();
      t.match(gone.s(), { phase: 'Creating', reason: 'Restoring', restore: { phase: 'Restoring' } }, why);
      t.same(gone.pods(), ['e-3', 'e-4', 'e-5'], `${why}: the restored members start`);
      t.ok(
        gone.children
          .filter((c) => c.kind === 'Pod')
          .every((p: any) =>
            p.spec.initContainers.some((i: any) => i.name === 'fetch-snapshot' && i.args.includes('bucket/ns/snap.db')),
          ),
        `${why}: nothing bootstrapped empty: each starts from the checked snapshot`,
      );
    }
  },
);

t.test(
  'a restore cancelled before its old members were dropped, etcd silent: a crashed or lost member is no failed bootstrap',
  async (t) => {
    for (const change of ['crashed', 'lost', 'upgrade'] as const) {
      const loop = await cancelledBeforeReplaced({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
      loop.etcd.listError = new EtcdError('no quorum', 'Unreachable');
      if (change === 'crashed') loop.phase.set('e-2', 'Failed');
      if (change === 'lost') loop.lose('e-2');
      if (change === 'upgrade') loop.spec = { ...loop.spec, version: '3.5.1' };
      for (let i = 0; i < 3; i++) {
        await loop.step();
        t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], `${change}, sync ${i + 1}: no member claim deleted`);
        t.ok(loop.pods().includes('e-0') && loop.pods().includes('e-1'), `${change}, sync ${i + 1}: members kept`);
        t.not(loop.s().phase, 'Failed', `${change}, sync ${i + 1}: not failed`);
      }
    }
  },
);

t.test(
  'a stored claim template whose size is not a quantity string cannot be read: kept, no StorageResized',
  async (t) => {
    for (const storage of [{}, [], true, null, { value: '1Gi' }]) {
      const data = { metadata: { name: 'data' }, spec: { resources: { requests: { storage } } } };
      const sts = {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'my-mysql', namespace: 'default' },
        spec: { replicas: 1, volumeClaimTemplates: [data] },
      };
      const res = mysqlSync(
        request('mysqlcluster', { size: 1, version: '8.0' }, { children: objectMap([sts]) }),
        FIXED_NOW,
        () => 'x',
      );
      const resized = (res.status as any).conditions.find((c: any) => c.type === 'StorageResized');
      t.equal(resized, undefined, `storage ${JSON.stringify(storage)}: not said to differ (${resized?.message})`);
      const answered = res.children.find((c) => c.kind === 'StatefulSet') as any;
      t.same(answered.spec.volumeClaimTemplates, [data], 'kept as stored');
    }
  },
);

t.test('S3: a tag whose key holds a line break gets no non-string value past the spec check to AWS', async (t) => {
  for (const tags of [
    '{"team\\n":1}',
    '{"a\\rb":{"x":"y"}}',
    '{"\\u2028":null}',
    '{"\\n":["v"]}',
    '{"ok":"yes","x\\n":true}',
  ]) {
    const aws = new FakeAws();
    // Raw JSON as Metacontroller sends it, parsed as the service parses a body.
    const request = parseJsonBody(
      `{"controller":{},"parent":{"apiVersion":"systek.no/v1","kind":"S3","metadata":{"name":"app","namespace":"ns","uid":"uid-app","generation":1},` +
        `"spec":{"bucketName":"attack-tags","tags":${tags}}},"children":{"Secret.v1":{}}}`,
    ) as any;
    const res = await s3Sync(request, aws, aws.now);
    const values = [...aws.buckets.values()].flatMap((b) => [...b.tags.values()]);
    t.ok(
      values.every((v) => typeof v === 'string'),
      `tags ${tags}: every tag value AWS got is a string (${JSON.stringify(values)})`,
    );
    t.match(
      (res.status as any).conditions,
      [{ type: 'Ready', status: 'False', reason: 'InvalidSpec' }],
      `tags ${tags}: refused`,
    );
  }
});

t.test(
  'EtcdCluster: a pod label, annotation or node selector under a key with a line break is checked too',
  async (t) => {
    for (const field of ['labels', 'annotations', 'nodeSelector']) {
      const number = etcdParser.parse(parseJsonBody(`{"size":3,"pod":{"${field}":{"a\\n":1}}}`));
      t.equal(number.ok, false, `${field}: a number refused`);
      const text = etcdParser.parse(parseJsonBody(`{"size":3,"pod":{"${field}":{"a\\n":"b"}}}`));
      t.equal(text.ok, true, `${field}: a string under the same key accepted`);
    }
  },
);
