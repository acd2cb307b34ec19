// Whether a container observed on an image was given another (lib/images.ts asGiven): an admission policy that pins
// images by digest adds one with the tag kept (Kyverno's mutateDigest, Connaisseur, Ratify: `repo:tag@sha256:<hex>`)
// or puts it in place of the tag (Sigstore's policy-controller: `repo@sha256:<hex>`), the registry spelled out or
// not. A reference whose tag was taken off is read as the one given only by an owner that says it holds its own
// record of what it gave; and the reference given is rebuilt from such a record of its tag (imageAtTag). A reference
// without a tag is the image at `latest`, as the kubelet pulls it.
import t from 'tap';
import { asGiven, imageAtTag } from '../../lib/index.js';

const HEX = `12ab${'c'.repeat(60)}`;
const OTHER = `34cd${'e'.repeat(60)}`;
const given = 'quay.io/coreos/etcd:v3.5.0';

t.test('the image given, pinned by digest with its tag kept', async (t) => {
  t.ok(asGiven(given, given), 'written alike');
  t.ok(asGiven(`${given}@sha256:${HEX}`, given), 'a digest added');
  t.ok(asGiven(`docker.io/library/busybox:1.36@sha256:${HEX}`, 'busybox:1.36'), 'Docker Hub spelled out');
  t.ok(asGiven('docker.io/library/busybox:1.36', 'busybox:1.36'), 'spelled out, no digest');
  t.notOk(asGiven(`quay.io/coreos/etcd:v3.4.0@sha256:${HEX}`, given), 'another tag');
  t.notOk(asGiven(`gcr.io/etcd-development/etcd:v3.5.0@sha256:${HEX}`, given), 'another repository');
  t.notOk(asGiven(undefined, given), 'no image');
  t.notOk(asGiven(given, undefined), 'nothing given');
  t.notOk(asGiven('quay.io/coreos/etcd:v3.5.0 ', given), 'not a reference');
});

t.test('the tag taken off: the image given only for an owner holding its own record', async (t) => {
  const pinned = `quay.io/coreos/etcd@sha256:${HEX}`;
  t.notOk(asGiven(pinned, given), 'no tag: not known to be the one given');
  t.ok(asGiven(pinned, given, true), 'the owner records it gave this image');
  t.notOk(asGiven(`gcr.io/etcd-development/etcd@sha256:${HEX}`, given, true), 'another repository');
  t.notOk(asGiven('quay.io/coreos/etcd', given, true), 'no tag and no digest: the latest, not the one given');
  t.notOk(asGiven(`busybox@sha256:${HEX}`, 'busybox'), 'given without a tag: a digest alone may be any tag’s');
  t.ok(asGiven(`docker.io/library/busybox@sha256:${HEX}`, 'busybox', true), 'the latest, by the owner’s record');
  t.ok(asGiven('docker.io/library/busybox', 'busybox'), 'the latest, spelled out');
});

t.test('a reference without a tag is the image at latest', async (t) => {
  t.ok(asGiven(`docker.io/library/busybox:latest@sha256:${HEX}`, 'busybox'), 'pinned, latest spelled out');
  t.ok(asGiven('docker.io/library/busybox:latest', 'busybox'), 'latest spelled out');
  t.ok(asGiven('busybox', 'busybox:latest'), 'given at latest, observed without a tag');
  t.ok(asGiven(`quay.io/coreos/etcd:latest@sha256:${HEX}`, 'quay.io/coreos/etcd'), 'another registry alike');
  t.notOk(asGiven(`docker.io/library/busybox:1.36@sha256:${HEX}`, 'busybox'), 'another tag is another image');
  t.notOk(asGiven('busybox:1.36', 'busybox'), 'another tag, no digest');
  t.notOk(asGiven('busybox', 'busybox:1.36'), 'no tag for a tag given: latest, not the one given');
  t.notOk(asGiven('quay.io/coreos/etcd:latest', given, true), 'latest is no version the owner gave');
  t.notOk(asGiven(`docker.io/library/alpine:latest@sha256:${HEX}`, 'busybox'), 'another repository');
});

t.test('an image given pinned itself is observed at its digest', async (t) => {
  const pinnedGiven = `quay.io/coreos/etcd@sha256:${HEX}`;
  t.ok(asGiven(`quay.io/coreos/etcd:v3.5.0@sha256:${HEX}`, pinnedGiven), 'the same digest, a tag named');
  t.notOk(asGiven(`quay.io/coreos/etcd@sha256:${OTHER}`, pinnedGiven, true), 'another digest');
  t.notOk(asGiven('quay.io/coreos/etcd:v3.5.0', pinnedGiven, true), 'no digest');
  t.notOk(
    asGiven(`quay.io/coreos/etcd:v3.4.0@sha256:${HEX}`, `quay.io/coreos/etcd:v3.5.0@sha256:${HEX}`),
    'the same digest under another tag is not what was written',
  );
});

t.test('the reference at a tag: the repository as written, its tag or digest replaced', async (t) => {
  t.equal(imageAtTag(`quay.io/coreos/etcd@sha256:${HEX}`, 'v3.5.0'), given);
  t.equal(imageAtTag(`quay.io/coreos/etcd:v3.4.0@sha256:${HEX}`, 'v3.5.0'), given);
  t.equal(imageAtTag(`registry.example:5000/etcd@sha256:${HEX}`, 'v3.5.0'), 'registry.example:5000/etcd:v3.5.0');
  t.equal(imageAtTag('quay.io/coreos/etcd', 'v3.5.0'), given);
  t.equal(imageAtTag('quay.io/coreos/etcd@sha256:short', 'v3.5.0'), undefined, 'not a reference');
  t.equal(imageAtTag(`quay.io/coreos/etcd@sha256:${HEX}`, 'v3.5.0 x'), undefined, 'not a tag');
});
