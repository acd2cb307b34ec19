// What a PodSet's pods bring back to every sync once they run: each pod as the API server stores it, which is what
// the hook answered twice over (the pod, and Metacontroller's last-applied copy of it in an annotation, escaped again)
// and what the API server and the kubelet add; and the pods customize asks for again by name. A spec whose pods would
// make syncs past the hook server's body limit is InvalidSpec before any pod is made (hooks/podset/sync.ts
// answerBudget.request), and customize asks again for no more pods than the room the others leave (askAgainBytes):
// whatever spec the hook accepts, with its pods running and whatever status the customize answer was asked with, each
// sync is within the body limit. And a pod whose last-applied copy is over the 256 KiB the API server allows an
// object's annotations cannot be made at all: that spec is InvalidSpec too.
import fc from 'fast-check';
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { longestImage } from '../fixtures/sizes.js';
import { podsetRounds, podsetSyncRequest, sentBytes } from '../fixtures/stored-objects.js';

const ready = (res: CompositeSyncResponse) =>
  ((res.status as any).conditions as Array<Record<string, unknown>>).find((c) => c['type'] === 'Ready');

/** The PodSet `name` of this spec and its pods running, stored; undefined if the hook refuses the spec. */
function running(spec: Record<string, unknown>, name = 'web') {
  const req = request('podset', spec);
  req.parent.metadata = { ...req.parent.metadata, name, namespace: 'shop' };
  // A large PodSet is made in batches (hooks/podset/sync.ts podsThatFit): each synced until it makes no more.
  const rounds = podsetRounds(req, FIXED_NOW);
  if (ready(rounds[0]!.res)?.['reason'] === 'InvalidSpec') return undefined;
  return { parent: req.parent, pods: rounds.at(-1)!.pods };
}

/** Each sync's request once the pods run, with the customize answer Metacontroller kept (asked with `asked`). */
function syncRequest(asked: ParentObject, now: ParentObject, pods: KubeObject[]) {
  const { body, related } = podsetSyncRequest(asked, now, pods);
  return { body, askedAgain: related.length };
}

/** The sync requests of every status the customize answer may have been asked with, and the status of now. */
function requests(parent: ParentObject, pods: KubeObject[]) {
  const nodes = pods.map((p) => p.metadata.name!);
  const listing = { ...parent, status: { nodes } } as ParentObject;
  const lost = { ...parent, status: {} } as ParentObject;
  return [
    { what: 'every pod listed', ...syncRequest(listing, listing, pods) },
    { what: 'the status lost, the answer asked then', ...syncRequest(lost, lost, pods) },
    { what: 'the answer asked when new, every pod listed now', ...syncRequest(lost, listing, pods) },
  ];
}

t.test('a 900-pod PodSet of the default command: within the body limit, and pods still asked for again', async (t) => {
  const { parent, pods } = running({ size: 900, image: 'busybox:1.36', command: ['sleep', '3600'] })!;
  t.equal(pods.length, 900);
  for (const { what, body, askedAgain } of requests(parent, pods)) {
    const bytes = sentBytes(body);
    t.ok(bytes <= DEFAULT_BODY_LIMIT, `${what}: ${bytes} bytes, ${askedAgain} pods asked for again`);
    if (what.startsWith('the status lost'))
      t.ok(askedAgain >= 80, `the status lost: ${askedAgain} pods asked for again, whose names are checked`);
  }
});

t.test('a PodSet of the longest image and name: accepted near 700 pods, within the body limit', async (t) => {
  // The largest size accepted (each pod carries `automountServiceAccountToken: false` since 2026-11-28, twice as
  // stored: ~990 pods of the longest image under a 40-character name, 1000 before; ~720 since the namespace's
  // NetworkPolicies are counted beside them).
  const spec = (size: number) => ({ size, image: longestImage('p'), command: ['sleep', '3600'] });
  let size = 800;
  while (size > 600 && !running(spec(size), 'n'.repeat(40))) size -= 5;
  t.ok(size >= 700, `${size} pods accepted`);
  const { parent, pods } = running(spec(size), 'n'.repeat(40))!;
  t.equal(pods.length, size);
  t.notOk(running(spec(size + 5), 'n'.repeat(40)) && size < 800, 'five more are refused');
  for (const { what, body } of requests(parent, pods)) {
    const bytes = sentBytes(body);
    t.ok(bytes <= DEFAULT_BODY_LIMIT, `${what}: ${bytes} bytes`);
  }
});

t.test('whatever spec is accepted, its syncs once its pods run are within the body limit', async (t) => {
  // Characters Go writes longer than JSON.stringify (`<`, `&`, U+2028: six bytes), escaped twice in the annotation
  // (`"`, `\`), and of several UTF-8 lengths.
  const char = fc.constantFrom('x', '"', '\\', '<', '&', '\n', 'é', '\u2028', '😀');
  const arg = fc
    .tuple(char, fc.integer({ min: 0, max: 4096 }), fc.string({ maxLength: 8 }))
    .map(([c, n, rest]) => c.repeat(Math.floor(n / c.length)) + rest);
  const specs = fc.record({
    size: fc.oneof(fc.constantFrom(1, 1000), fc.integer({ min: 1, max: 1000 })),
    image: fc.constantFrom('busybox:1.36', longestImage('p')),
    command: fc.array(arg, { minLength: 1, maxLength: 3 }),
  });
  let accepted = 0;
  fc.assert(
    fc.property(specs, fc.constantFrom('web', 'n'.repeat(40)), (spec, name) => {
      const made = running(spec, name);
      if (!made) return;
      accepted++;
      for (const { what, body } of requests(made.parent, made.pods)) {
        const bytes = sentBytes(body);
        if (bytes > DEFAULT_BODY_LIMIT) throw new Error(`${what}: ${bytes} bytes, over ${DEFAULT_BODY_LIMIT}`);
      }
    }),
    { numRuns: 40, seed: 31 },
  );
  t.ok(accepted >= 10, `${accepted} of 40 specs accepted and measured`);
});

t.test('a spec whose syncs would be over the body limit is InvalidSpec, and nothing is made', async (t) => {
  const req = request('podset', { size: 1000, image: 'busybox:1.36', command: ['sh', '-c', 'x'.repeat(2000)] });
  const res = podsetSync(req, FIXED_NOW);
  t.match(ready(res), {
    status: 'False',
    reason: 'InvalidSpec',
    message:
      /^spec\.size 1000 pods of ~\d+ KiB each as the API server stores them make sync requests of ~\d+\.\d MiB once they exist .*more than the 8\.0 MiB a request to the hooks may have: shorten spec\.command or lower spec\.size$/,
  });
  t.same(res.children, [], 'no pod made');
  t.equal(running({ size: 100, image: 'busybox:1.36', command: ['sh', '-c', 'x'.repeat(2000)] })?.pods.length, 100);
});

t.test(
  'a pod whose last-applied copy is over the 256 KiB of annotations the API server allows is InvalidSpec',
  async (t) => {
    // 64 arguments of 4096 characters (the CRD's bounds): each pod 256 KiB as JSON, and Metacontroller keeps it whole in
    // the pod's annotations, which the API server holds to 262,144 bytes: the pod could never be created.
    const long = Array.from({ length: 64 }, () => 'x'.repeat(4096));
    const res = podsetSync(request('podset', { size: 1, image: 'busybox:1.36', command: long }), FIXED_NOW);
    t.match(ready(res), {
      status: 'False',
      reason: 'InvalidSpec',
      message:
        /^spec\.command makes each pod \d+ KiB as JSON, and Metacontroller keeps a copy of it in the pod's annotations, which the API server holds to 256 KiB/,
    });
    t.same(res.children, [], 'no pod asked for');
    // Within it: made.
    const fits = long.slice(0, 62);
    t.equal(running({ size: 1, image: 'busybox:1.36', command: fits })?.pods.length, 1);
  },
);
