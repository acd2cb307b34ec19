// The hook server keeps one etcd client per TLS identity (hooks/etcdcommon/index.ts etcdClients, at most 64): the
// client remembers each member's TLS session (a resumed handshake costs no signature with the client key) and each
// endpoint's gateway prefix (else two more calls a sync for etcd 3.2). The identity is the cluster's
// TLS.static.operatorSecret (ca, cert, key), which its tenant writes: tenant A's 64 EtcdClusters, each with its own
// operatorSecret (or one Secret whose `ca` A edits 64 times: any change of its text is another identity), make 64
// clients, and the 65th identity pushes out the oldest client, whoever's it is and however recently it was used
// (the map is in order of creation; a use does not refresh it). Tenant B's client is forgotten with its sessions
// and prefixes: B's next sync handshakes in full with every member, and learns every prefix again, for as long as A
// keeps making identities.
import t from 'tap';
import type { HttpEtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { etcdClients } from '../../hooks/etcdcommon/index.js';
import { tlsHealthMember } from '../fixtures/net.js';
import { Pki } from '../fixtures/pki.js';

t.test("a namespace's etcd client and its TLS sessions are kept whatever TLS identities another uses", async (t) => {
  const pkiB = new Pki();
  const server = pkiB.issue('srv', 'etcd', { san: 'DNS:localhost,IP:127.0.0.1' });
  const tlsB = pkiB.operatorTls();
  const port = await tlsHealthMember(t, { key: server.key, cert: server.cert, ca: pkiB.read('ca.crt') });
  const url = `https://127.0.0.1:${port}`;
  const clients = etcdClients();

  // B's first sync: a full handshake, the member's session remembered.
  const first = clients.etcd(tlsB, 'tenant-b') as HttpEtcdClient;
  t.equal((await first.health(url)).healthy, true, "B's member answered");
  // B's clusters sync all along: its client is used again and resumes the session.
  t.equal(
    (await (clients.etcd(tlsB, 'tenant-b') as HttpEtcdClient).health(url)).healthy,
    true,
    "B's member answered again",
  );
  t.ok(first.handshakes.resumed >= 1, `B's second sync resumed its session (${JSON.stringify(first.handshakes)})`);

  // A's clusters, each with an operatorSecret of its own (the same key and certificate, the CA text edited).
  const pkiA = new Pki('tenant-a-ca');
  const tlsA = pkiA.operatorTls();
  for (let i = 1; i <= 64; i++) clients.etcd({ ...tlsA, ca: `${tlsA.ca}${'\n'.repeat(i)}` }, 'tenant-a');

  // B's next sync.
  const next = clients.etcd(tlsB, 'tenant-b') as HttpEtcdClient;
  const before = { ...next.handshakes };
  t.equal((await next.health(url)).healthy, true, "B's member answered");
  t.equal(next, first, "B's client is the one that remembers B's sessions and prefixes");
  t.equal(
    next.handshakes.full,
    before.full,
    `B's next sync made no full handshake (${JSON.stringify(next.handshakes)})`,
  );
});
