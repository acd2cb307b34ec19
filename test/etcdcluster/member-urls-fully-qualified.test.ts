// An etcd member dials its peers at the URLs the EtcdCluster hook writes into its pod (--initial-cluster,
// --initial-advertise-peer-urls, --advertise-client-urls). Without spec.pod.clusterDomain these are relative names,
// `<pod>.<cluster>.<namespace>.svc`, which the member's resolver tries under each search domain first (ndots:5):
// `<pod>.<cluster>.<namespace>.svc.svc.cluster.local` comes before `....svc.cluster.local`. CoreDNS reads that name
// as `<port>.<protocol>.<service>.<namespace svc>`: for a cluster named `tcp` in namespace team-a,
// `tcp-1.tcp.team-a.svc.svc.cluster.local` is the port named `tcp-1` (TCP) of Service `team-a` in namespace `svc`.
// The tenant of namespace `svc` then receives team-a's raft traffic (the whole key space, replicated to "tcp-1").
// Every URL a member dials must be the fully qualified name in the server's cluster domain.
import t from 'tap';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { quietEtcd } from '../fixtures/etcd.js';

function request(name: string) {
  return {
    controller: {},
    parent: {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdCluster',
      metadata: { name, namespace: 'team-a', uid: 'u-a', generation: 1 },
      spec: { size: 3, version: '3.5.21' },
    },
    children: { 'Pod.v1': {}, 'Service.v1': {}, 'PersistentVolumeClaim.v1': {} },
    related: {},
    finalizing: false,
  } as any;
}

t.test('every URL a member pod advertises or dials names its host fully qualified in the cluster domain', async (t) => {
  const res = await etcdSync(request('tcp'), { etcd: quietEtcd as never, now: FIXED_NOW });
  const pods = res.children.filter((c) => c.kind === 'Pod') as any[];
  t.ok(pods.length > 0, 'the bootstrap makes member pods');
  for (const pod of pods) {
    const words: string[] = pod.spec.containers.flatMap((c: any) => [...(c.command ?? []), ...(c.args ?? [])]);
    const urls = words
      .filter((w) => /^--(initial-cluster|initial-advertise-peer-urls|advertise-client-urls)=/.test(w))
      .flatMap((w) => w.slice(w.indexOf('=') + 1).split(','))
      .map((item) => item.replace(/^[^=:/]+=/, '')); // --initial-cluster items are <name>=<url>
    t.ok(urls.length > 0, `${pod.metadata.name}: its URLs are found`);
    for (const url of urls) {
      const host = new URL(url).hostname;
      t.ok(
        host.endsWith('.svc.cluster.local'),
        `${pod.metadata.name}: ${url} is fully qualified (a relative "....svc" is answered by namespace "svc" first)`,
      );
    }
  }
});
