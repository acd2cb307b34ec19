// The PodSet answer budget (hooks/podset/sync.ts answerBudget, 4 MiB of children) accepts a spec by the size of what the
// hook answers. What comes back is larger: each pod as the API server stores it carries its command in its spec, in
// Metacontroller's last-applied annotation (every child Metacontroller creates or updates has it, the answered object
// as JSON: docs/metacontroller.md), and ~4.5 KiB of defaults, status and managedFields; and customize asks for up to
// ASK_ALL_BYTES of the PodSet's own pods again. A spec the hook accepts must make syncs within the body limit once its
// pods run: a sync over it is refused (413) at every resync, no status is written again, no pod deleted since is made
// again and no rollout goes on. Issue 31: "every fan-out/answer/field bounded"; "10,000 pods in one request".
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { podsetRounds, podsetSyncRequest, storedPodLight } from '../fixtures/stored-objects.js';

const SIZE = 900;
const CREATED = '2026-01-02T03:00:00Z';

function syncBody(asked: ParentObject, now: ParentObject, pods: KubeObject[]): string {
  return JSON.stringify(podsetSyncRequest(asked, now, pods).body);
}

/** A 900-pod PodSet of `sh -c <script>`, the script of `length` characters, new. */
function parentRequest(length: number) {
  const spec = { size: SIZE, image: 'busybox:1.36', command: ['sh', '-c', `${'x'.repeat(length - 5)}; wait`] };
  const req = request('podset', spec);
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'shop', creationTimestamp: CREATED };
  return req;
}

/** Whether the hook makes pods for that PodSet (it refuses a spec whose syncs would be too large: none made). */
function accepted(length: number): boolean {
  return podsetSync(parentRequest(length), FIXED_NOW).children.length > 0;
}

/** That PodSet running; undefined if the hook refuses it. */
function running(length: number, lastApplied: boolean) {
  if (!accepted(length)) return undefined;
  // Made in batches (hooks/podset/sync.ts podsThatFit): synced until it makes no more.
  const req = parentRequest(length);
  const rounds = podsetRounds(req, FIXED_NOW, (p, parent, i) => storedPodLight(p, parent, i, lastApplied));
  const pods = rounds.at(-1)!.pods;
  if (pods.length !== SIZE) throw new Error(`${pods.length} of ${SIZE} pods made`);
  return { parent: req.parent, pods };
}

/** The longest script the hook answers 900 pods for (it refuses longer ones: InvalidSpec, no pod answered). */
function longestAccepted(): number {
  let [lo, hi] = [16, 4096];
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (accepted(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const LONGEST = longestAccepted();

t.test('the longest command a 900-pod PodSet is accepted with is one the hook answers (a guard)', async (t) => {
  t.ok(LONGEST > 256, `a script of ${LONGEST} characters is accepted for 900 pods`);
  t.notOk(accepted(LONGEST + 64), 'a longer one is refused');
});

t.test('a 900-pod PodSet of the longest command it accepts: its sync is within the body limit', async (t) => {
  const { parent, pods } = running(LONGEST, true)!;
  const nodes = pods.map((p) => p.metadata.name!);
  const listing = { ...parent, status: { nodes } } as ParentObject;
  // Its status lists every pod: customize asks for none of them again (each pod is sent once).
  const settled = syncBody(listing, listing, pods);
  t.ok(
    settled.length <= DEFAULT_BODY_LIMIT,
    `every pod listed: the sync request is ${settled.length} bytes, within the ${DEFAULT_BODY_LIMIT}-byte body limit`,
  );
});

t.test(
  'a 900-pod PodSet of the longest command it accepts, its status lost: its sync is within the body limit',
  async (t) => {
    // Without Metacontroller's last-applied annotation: only what the other body-limit test counts.
    const { parent, pods } = running(LONGEST, false)!;
    const lost = { ...parent, status: {} } as ParentObject;
    const body = syncBody(lost, lost, pods);
    t.ok(
      body.length <= DEFAULT_BODY_LIMIT,
      `status lost: the sync request is ${body.length} bytes, within the ${DEFAULT_BODY_LIMIT}-byte body limit`,
    );
  },
);
