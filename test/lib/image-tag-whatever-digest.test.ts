// What every kind reads of an image reference (lib/images.ts): its tag, whatever digest an admission policy pinned it
// to (Kyverno's mutateDigest writes `docker.io/mysql:8.4.3@sha256:<hex>` for `mysql:8.4.3`), and whether two
// references name the same repository at the same tag, the registry as the container runtime resolves it.
import t from 'tap';
import { imageTag, sameImageTag } from '../../lib/index.js';

const HEX = `12ab${'c'.repeat(60)}`;

t.test('the tag of a reference, never its digest', async (t) => {
  t.equal(imageTag('mysql:8.4.3'), '8.4.3');
  t.equal(imageTag(`mysql:8.4.3@sha256:${HEX}`), '8.4.3', 'the digest is no part of the tag');
  t.equal(imageTag(`registry.example:5000/db/mysql:8.0.40@sha256:${HEX}`), '8.0.40', 'a registry port is no tag');
  t.equal(imageTag('registry.example:5000/db/mysql'), undefined, 'no tag');
  t.equal(imageTag(`mysql@sha256:${HEX}`), undefined, 'pinned by digest alone: no tag');
  t.equal(imageTag('mysql:8.4.3 '), undefined, 'a reference the kubelet cannot pull names no version');
});

t.test('the same repository and tag, whatever digest either is pinned to', async (t) => {
  const target = 'quay.io/coreos/etcd:v3.5.0';
  t.ok(sameImageTag(`${target}@sha256:${HEX}`, target));
  t.ok(sameImageTag(`docker.io/library/mysql:8.4.3@sha256:${HEX}`, 'mysql:8.4.3'), 'Docker Hub, as the runtime');
  t.ok(sameImageTag(`docker.io/mysql:8.4.3@sha256:${HEX}`, 'mysql:8.4.3'));
  t.notOk(sameImageTag(`quay.io/coreos/etcd:v3.4.0@sha256:${HEX}`, target), 'another tag');
  t.notOk(sameImageTag(`gcr.io/etcd-development/etcd:v3.5.0@sha256:${HEX}`, target), 'another repository');
  t.notOk(sameImageTag(`quay.io/coreos/etcd@sha256:${HEX}`, target), 'no tag: not known to be the target');
  t.notOk(sameImageTag(undefined, target), 'no image');
  t.ok(sameImageTag(target, target));
});
