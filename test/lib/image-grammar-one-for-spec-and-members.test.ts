// One image grammar (lib/images.ts readImage) for what a spec may name (lib/values.ts imageProblem) and what the hooks
// read of a member's image (parseImage: its registry, repository and tag; imageTag, sameImageTag): a reference a spec
// is let through with is always one whose tag the hooks can read, and a reference the hooks cannot read is refused as
// InvalidSpec before anything runs it. Both follow the kubelet's reader (github.com/distribution/reference
// ParseNormalizedNamed): a first component that is not all in lower case is a registry host (`Registry/etcd` is host
// Registry's etcd), and the repository name is at most 255 characters as the kubelet reads it, registry included
// (`docker.io/library/<name>` for a Docker Hub name of one component).
import t from 'tap';
import { imageTag, parseImage, resolvedImage, sameImageTag } from '../../lib/index.js';
import { imageProblem } from '../../lib/values.js';

const HEX = 'c'.repeat(64);

const REFERENCES = [
  'busybox',
  'busybox:1.36',
  'Registry/etcd:v3.5.1',
  'REGISTRY/etcd',
  'Registry:5000/etcd:v3.5.1',
  `Registry/etcd:v3.5.1@sha256:${HEX}`,
  'Registry.Example.com/app',
  'localhost/app',
  '[::1]:5000/app',
  'quay.io/coreos/etcd:v3.5.0',
  'Quay.io/CoreOS/etcd',
  'registry/etcd',
  'Registry/Etcd',
  'Registry_x/etcd',
  'a_b.c/d',
  'reg:abc/app',
  'BusyBox',
  'busy box',
  'busybox ',
  '',
  'a//b',
  'busybox/',
  `busybox@sha256:${'A'.repeat(64)}`,
  `busybox@md5:${'a'.repeat(32)}`,
  `x@sha256+b64u:${'A'.repeat(43)}`,
  'a'.repeat(64),
  `team/${'a'.repeat(64)}`,
  `${'a'.repeat(237)}:tag`,
  `${'a'.repeat(238)}:tag`,
  `registry.example/${'a'.repeat(238)}`,
  `registry.example/${'a'.repeat(239)}`,
  'busybox:.x',
  `busybox:${'w'.repeat(129)}`,
];

t.test('imageProblem accepts exactly the references parseImage reads', async (t) => {
  for (const image of REFERENCES)
    t.equal(
      imageProblem(image) === undefined,
      parseImage(image) !== undefined,
      `${JSON.stringify(image.slice(0, 40))}: ${imageProblem(image) ?? 'accepted'}`,
    );
});

t.test('a registry host of one label in capitals is a host, and stays one', async (t) => {
  t.equal(imageProblem('Registry/etcd:v3.5.1'), undefined, 'accepted, as the kubelet pulls it');
  t.strictSame(parseImage('Registry/etcd:v3.5.1'), { registry: 'Registry', repository: 'etcd', tag: 'v3.5.1' });
  t.equal(imageTag('Registry/etcd:v3.5.1'), 'v3.5.1', 'its tag read');
  t.equal(imageTag(`Registry/etcd:v3.5.1@sha256:${HEX}`), 'v3.5.1', 'its tag read when pinned by digest');
  t.ok(sameImageTag(`Registry/etcd:v3.5.1@sha256:${HEX}`, 'Registry/etcd:v3.5.1'), 'pinned by digest: the same image');
  t.notOk(sameImageTag('Registry/etcd:v3.5.1', 'Registry/etcd:v3.5.0'), 'another tag');
  // In lower case `registry/etcd` is Docker Hub's registry/etcd: another image, never the same one.
  t.strictSame(parseImage('registry/etcd:v3.5.1'), {
    registry: 'docker.io',
    repository: 'registry/etcd',
    tag: 'v3.5.1',
  });
  t.notOk(sameImageTag('Registry/etcd:v3.5.1', 'registry/etcd:v3.5.1'), 'not the Docker Hub path of that name');
  t.equal(resolvedImage('Registry/etcd:v3.5.1'), 'Registry/etcd:v3.5.1', 'written out as a host still');
  // A host with a dot or a port is compared in lower case, as host names are.
  t.ok(sameImageTag('Quay.IO/coreos/etcd:v3.5.1', 'quay.io/coreos/etcd:v3.5.1'));
  t.match(imageProblem('Registry/Etcd'), /not an image reference/, 'a path in capitals is refused');
  t.match(imageProblem('Registry_x/etcd'), /not an image reference: its registry host "Registry_x"/);
  t.match(imageProblem('a_b.c/d'), /not an image reference: its registry host "a_b\.c"/);
});
