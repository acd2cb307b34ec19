// Image references the kubelet cannot parse (github.com/distribution/reference ParseNormalizedNamed, as the kubelet's
// image manager calls it: InvalidImageName, the pod never runs) while the API server accepts them: lib/values.ts
// imageProblem says it follows the kubelet, and a PodSet must not replace a running pod for one of them (issue 31,
// "a rollout never deletes a working member for a replacement that cannot be created").
// The digest must name an algorithm the kubelet knows, with exactly its length of lower-case hex (go-digest Parse);
// a repository name that is 64 hex characters is refused as an image ID.
import t from 'tap';
import { imageProblem } from '../../lib/values.js';
import { podsetSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const BAD = [
  `busybox@sha256:${'a'.repeat(32)}`, // sha256 is 64 hex characters
  `busybox@sha256:${'a'.repeat(63)}`,
  `busybox@sha256:${'A'.repeat(64)}`, // upper-case hex
  `busybox@md5:${'a'.repeat(32)}`, // an algorithm go-digest does not know
  'a'.repeat(64), // a 64-hex repository name: "cannot specify 64-byte hexadecimal strings"
];

t.test('imageProblem refuses the references the kubelet cannot parse', async (t) => {
  for (const image of BAD) t.not(imageProblem(image), undefined, image);
});

t.test('a PodSet edited to such an image replaces no running pod', async (t) => {
  const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
  const first = podsetSync(request('podset', { size: 2 }), FIXED_NOW);
  const observed = objectMap(first.children.map((c) => asObserved(c, readyPod)));
  for (const image of BAD) {
    const res = podsetSync(request('podset', { size: 2, image }, { children: observed }), FIXED_NOW);
    t.same(
      res.children.filter((c) => c.kind === 'Pod').map((c) => (c as any).spec.containers[0].image),
      ['busybox', 'busybox'],
      `${image}: both running pods kept as they are (${ready(res).reason})`,
    );
  }
});

t.test('imageProblem keeps accepting the digests the kubelet parses', async (t) => {
  for (const image of [
    `busybox@sha256:${'a'.repeat(64)}`,
    `busybox:1.36@sha384:${'0'.repeat(96)}`,
    `registry.example:5000/team/app@sha512:${'f'.repeat(128)}`,
    `team/${'a'.repeat(64)}`, // 64 hex as one path component of a longer name is a name
    `${'a'.repeat(63)}`,
  ])
    t.equal(imageProblem(image), undefined, image);
  t.match(imageProblem(`busybox@sha256:${'A'.repeat(64)}`), /sha256 digest .* 64 lower-case hex/);
  t.match(imageProblem(`busybox@md5:${'a'.repeat(32)}`), /algorithm "md5"/);
});
