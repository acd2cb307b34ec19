// What etcd and the kubelet answer is observed data, read by type before it reaches status (hooks/etcdcluster/plan
// answered.ts memberReport, evidence.ts initFailure): a member's peer URL that is no string, or longer than
// MAX_PEER_URL, is left out of status.memberList; a restore step's termination reason or message that is an object
// is no text (its step named, 'Error' said), and reading it throws nothing.
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { initFailure } from '../../hooks/etcdcluster/plan/evidence.js';
import { MAX_PEER_URL } from '../../hooks/etcdcluster/plan/answered.js';
import { running } from '../fixtures/etcd-loop.js';

for (const [what, url] of [
  ['an object', { toString: 1 }],
  ['a number', 7],
  ['longer than MAX_PEER_URL', `http://e-2.e.ns.svc:2380/${'x'.repeat(MAX_PEER_URL)}`],
] as const)
  t.test(`a member whose peer URL is ${what} is reported without it`, async (t) => {
    const loop = await running({ size: 3 });
    // (etcd's member list says so; its health answers, by pod, are as before)
    const list = loop.etcd.memberList.bind(loop.etcd);
    loop.etcd.memberList = async (...a: Parameters<typeof list>) => {
      const r = await list(...a);
      r.members[2]!.peerURLs = [url as any];
      return r;
    };
    await loop.step();
    const m = loop.s().memberList.find((x: any) => x.id === '3');
    t.ok(m, 'the member is reported');
    t.notOk('peerURL' in m, `no peer URL: ${JSON.stringify(m)}`);
    const kept = loop.s().memberList.find((x: any) => x.id === '1');
    t.equal(kept.peerURL, 'http://e-0.e.ns.svc:2380', 'a string peer URL is reported as etcd gives it');
  });

t.test('a peer URL of exactly MAX_PEER_URL characters is reported', async (t) => {
  const loop = await running({ size: 3 });
  const url = `http://e-2.e.ns.svc:2380/`;
  const long = url + 'x'.repeat(MAX_PEER_URL - url.length);
  loop.etcd.members[2]!.peerURLs = [long];
  await loop.step();
  t.equal(loop.s().memberList.find((x: any) => x.id === '3')?.peerURL, long);
});

const failedStep = (terminated: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'e-0' },
    spec: { restartPolicy: 'Never' },
    status: {
      initContainerStatuses: [{ name: 'fetch-snapshot', state: { terminated: { exitCode: 1, ...terminated } } }],
    },
  }) as unknown as KubeObject;

t.test("a restore step's reason or message that is an object is no text", async (t) => {
  t.equal(initFailure(failedStep({ reason: { toString: 1 }, message: { toString: 1 } })), 'fetch-snapshot: Error');
  t.equal(initFailure(failedStep({ reason: ['a'], message: { reason: 'x' } })), 'fetch-snapshot: Error');
  t.equal(initFailure(failedStep({ reason: 'OOMKilled', message: 42 })), 'fetch-snapshot: OOMKilled');
  t.equal(initFailure(failedStep({ reason: 'Error', message: 'null' })), 'fetch-snapshot: Error');
  t.equal(initFailure(failedStep({ reason: 'Error', message: '{"reason":"NoSuchKey"}' })), 'fetch-snapshot: NoSuchKey');
  t.equal(initFailure(failedStep({ reason: 'Error', message: 'plain words' })), 'fetch-snapshot: plain words');
  t.equal(initFailure(failedStep({ message: '' })), 'fetch-snapshot: Error');
});
