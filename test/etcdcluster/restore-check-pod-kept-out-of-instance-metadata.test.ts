// Every pod metaops makes that runs a tenant's image is selected by a NetworkPolicy that keeps it from the cloud's
// instance metadata service (the node's role, which every tenant's pods on that node share): the members
// (<name>-members), PodSet and Memcached pods. The restore check pod `<cluster>-restore-check` is not: it runs
// spec.pod.busyboxImage (`/bin/sh -c true`: whatever the image's /bin/sh does) and `<spec.repository>:v<spec.version>`
// (its /usr/local/bin/etcd and its restore tool) first, and carries none of the members' labels, so no policy selects
// it. Tenant A, allowed only to create custom resources, makes an EtcdCluster of its own image and an EtcdRestore
// naming it: the check pod's first step (its /bin/sh) reads 169.254.169.254/latest/meta-data/iam/security-credentials/
// and sends the node's role out, as often as A makes restores. (docs/etcdcluster.md names it "not covered".)
//
// Must hold: while a restore's check pod is answered, a NetworkPolicy the cluster answers selects it and keeps
// 169.254.169.254 out of its egress (S3 and STS, which the check dials, may stay in).
import t from 'tap';
import { matchesSelector } from '../../lib/labels.js';
import { restoreObject, running } from '../fixtures/etcd-loop.js';

t.test("a restore's check pod, running the tenant's images, cannot ask the instance metadata service", async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = {
    ...loop.spec,
    repository: 'attacker.example/etcd',
    pod: { ...(loop.spec.pod ?? {}), busyboxImage: 'attacker.example/busybox:1' },
  };
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  const check = loop.children.find((c: any) => c.kind === 'Pod' && c.metadata.name === 'e-restore-check') as any;
  t.ok(check, 'the check pod is answered');
  const images = [...(check?.spec.initContainers ?? []), ...(check?.spec.containers ?? [])].map((c: any) => c.image);
  t.ok(images.includes('attacker.example/busybox:1'), `it runs the tenant's images (${images.join(', ')})`);
  const labels = check?.metadata.labels ?? {};
  const keeping = loop.children.filter(
    (c: any) =>
      c.kind === 'NetworkPolicy' &&
      matchesSelector(labels, c.spec.podSelector) &&
      (c.spec.policyTypes ?? []).includes('Egress') &&
      !(c.spec.egress ?? []).some((rule: any) =>
        (rule.to ?? [{ ipBlock: { cidr: '0.0.0.0/0' } }]).some(
          (peer: any) =>
            peer.ipBlock?.cidr === '0.0.0.0/0' && !(peer.ipBlock.except ?? []).includes('169.254.169.254/32'),
        ),
      ),
  );
  t.ok(
    keeping.length > 0,
    `a NetworkPolicy keeps the check pod (labels ${JSON.stringify(labels)}) from 169.254.169.254; policies answered: ${loop.children
      .filter((c: any) => c.kind === 'NetworkPolicy')
      .map((c: any) => `${c.metadata.name} ${JSON.stringify(c.spec.podSelector)}`)
      .join('; ')}`,
  );
});
