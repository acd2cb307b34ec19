// Issue 29, lower items: what a dependency says reaches the log bounded (the Kubernetes API server's words are one
// line of at most 200 characters, lib/kube.ts boundedText; a member's answer that is not JSON is cut to 200
// characters, etcd.ts parse). An EtcdCluster's members run its author's image (spec.repository): a member that
// refuses a membership call with a JSON error chooses its `message`, up to the 64 KiB an etcd answer may have. The
// client keeps that text whole in its EtcdError, and the sync logs the error (message and stack) at warn for every
// failed call, every 10 s (ETCD_RETRY_SECONDS) per cluster: ~120 KiB of the tenant's text per line.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { EtcdError, HttpEtcdClient, type EtcdClient, type EtcdMember } from '../../hooks/etcdcommon/etcd.js';
import { clusterOf, memberPod, peerURL } from '../../hooks/etcdcluster/members.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { etcdClusterId, etcdParent, etcdSpec, upAs } from '../fixtures/etcd.js';
import { etcdSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';

/** The text a tenant's member answers with: etcd's JSON error shape, a message of 60,000 characters. */
const CHOSEN = 'tenant-chosen text '.repeat(3200).slice(0, 60_000);
/** Generous: five times what the API server's words may take in a log line. */
const BOUND = 1024;

/** A member (the tenant's image) that refuses every gateway call with a JSON error of its own words. */
async function refusingMember(t: { teardown(fn: () => unknown): void }): Promise<number> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'refused', code: 9, message: CHOSEN }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return (server.address() as AddressInfo).port;
}

async function rejectionOf(port: number): Promise<EtcdError> {
  const client = new HttpEtcdClient({ resolve: (url) => `http://127.0.0.1:${port}${new URL(url).pathname}` });
  try {
    await client.memberAdd(['http://e-0.e.ns.svc:2379'], 'http://e-1.e.ns.svc:2380', true);
  } catch (err) {
    return err as EtcdError;
  }
  throw new Error('the member refused, but the call succeeded');
}

t.test("a member's refusal is kept as a bounded text, not the member's 60,000 characters", async (t) => {
  const err = await rejectionOf(await refusingMember(t));
  t.type(err, EtcdError);
  t.equal(err.code, 'Rejected', "etcd's refusal, as the client reports it");
  t.ok(
    err.message.length <= BOUND,
    `the error's text is at most ${BOUND} characters (${err.message.length}: the member's own message, whole)`,
  );
});

t.test("a failed membership call logs the member's refusal bounded", async (t) => {
  const thrown = await rejectionOf(await refusingMember(t));
  const parent: ParentObject = { ...etcdParent({ size: 2 }, { lastMemberIndex: 0 }) };
  const c = clusterOf(parent, etcdSpec({ size: 2 }));
  const member: EtcdMember = {
    id: '1000',
    name: 'e-0',
    peerURLs: [peerURL(c, 'e-0')],
    clientURLs: ['http://e-0.e.ns.svc:2379'],
    isLearner: false,
  };
  // The real client's answers for a healthy one-member cluster, and its refusal of the addition as thrown above.
  const etcd: EtcdClient = {
    memberList: async () => ({ members: [member], clusterVersion: '3.5.0', clusterId: etcdClusterId(1) }),
    memberAdd: async () => {
      throw thrown;
    },
    memberRemove: async () => undefined,
    memberPromote: async () => undefined,
    health: async () => upAs(0, etcdClusterId(1)),
  };
  const pod: KubeObject = asObserved(
    memberPod({ parent, spec: etcdSpec({}), name: 'e-0', initialCluster: '', state: 'existing' }),
    { phase: 'Running' },
  );
  const lines: string[] = [];
  const asLogged = (obj: object, msg: string) =>
    JSON.stringify({ ...obj, msg }, (_k, v: unknown) =>
      v instanceof Error ? { type: v.name, message: v.message, stack: v.stack } : v,
    );
  const res = await etcdSync(
    { controller: {}, parent, children: objectMap([pod], 'v1', ['Pod.v1', 'Service.v1']) },
    {
      etcd,
      now: FIXED_NOW,
      log: { warn: (obj, msg) => lines.push(asLogged(obj, msg)), debug: (obj, msg) => lines.push(asLogged(obj, msg)) },
    },
  );
  const synced = (res.status as any).conditions.find((x: any) => x.type === 'Synced');
  t.match(synced, { status: 'False', reason: 'EtcdCallFailed' }, 'the addition failed');
  t.ok(synced.message.length <= BOUND, `the condition says it bounded (${synced.message.length} characters)`);
  const longest = Math.max(0, ...lines.map((l) => l.length));
  t.ok(lines.length > 0, 'the failure was logged');
  t.ok(
    longest <= 4 * BOUND,
    `every log line of the sync is at most ${4 * BOUND} bytes (the longest: ${longest}, the member's text ${lines.some((l) => l.includes(CHOSEN)) ? 'whole in it' : 'cut'})`,
  );
});
