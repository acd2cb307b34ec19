// A backup Job dials its cluster's client Service by its fully qualified name (`<c>-client.<ns>.svc.<domain>`),
// never the relative one its pod would first look up under other namespaces. The certificates users already have
// name the Service as etcd-operator's guide says (`<c>-client.<ns>.svc`): the Job takes a certificate for either
// name of the same Service, signed by the cluster's CA, and no other.
import { X509Certificate } from 'node:crypto';
import t from 'tap';
import type { PeerCertificate } from 'node:tls';
import { inClusterIdentity } from '../../hooks/etcdbackup/backup.js';
import { Pki } from '../fixtures/pki.js';

const pki = new Pki('backup-names-ca');
const certFor = (file: string, san: string): PeerCertificate =>
  new X509Certificate(pki.issue(file, 'etcd', { san }).cert).toLegacyObject() as unknown as PeerCertificate;

t.test("the backup takes a certificate for the client Service's fully qualified or its .svc name", async (t) => {
  const short = certFor('short', 'DNS:web-client.team-a.svc,DNS:*.web.team-a.svc');
  const full = certFor('full', 'DNS:web-client.team-a.svc.cluster.local');
  const host = 'web-client.team-a.svc.cluster.local';
  t.equal(inClusterIdentity(host, full), undefined, 'the name dialled');
  t.equal(inClusterIdentity(host, short), undefined, 'the name up to .svc: the same Service in the same namespace');
  t.equal(inClusterIdentity('WEB-CLIENT.team-a.svc.cluster.local', short), undefined, 'in any case');
  t.equal(inClusterIdentity('web-client.team-a.svc', short), undefined, 'a relative name as it is');
});

t.test('a certificate for another Service, namespace or name is refused', async (t) => {
  const host = 'web-client.team-a.svc.cluster.local';
  for (const [what, san] of [
    ['another namespace', 'DNS:web-client.team-b.svc'],
    ['another Service', 'DNS:db-client.team-a.svc'],
    ['the namespace svc (a relative name looked up under svc.cluster.local)', 'DNS:web-client.team-a.svc.svc'],
    ['a name without .svc', 'DNS:web-client.team-a'],
    ['a wildcard of the namespace', 'DNS:*.team-a.svc.cluster.local.example'],
  ] as const) {
    t.type(inClusterIdentity(host, certFor(what.replace(/\W/g, '-'), san)), Error, what);
  }
  // Namespace `svc`: the name up to its last `.svc` is the Service's own (`x-client.svc.svc`), not `x-client.svc`.
  const inSvc = 'x-client.svc.svc.cluster.local';
  t.type(inClusterIdentity(inSvc, certFor('svc-ns', 'DNS:x-client.svc')), Error);
  t.equal(inClusterIdentity(inSvc, certFor('svc-ns-own', 'DNS:x-client.svc.svc')), undefined);
  // A host that is no in-cluster name is checked as it is, only.
  t.type(inClusterIdentity('etcd.example.net', certFor('ext', 'DNS:etcd.example')), Error);
});
