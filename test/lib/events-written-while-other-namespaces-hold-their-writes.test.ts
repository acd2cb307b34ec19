// The Event writes under way (MAX_EVENTS_IN_FLIGHT, 64) are shared by every namespace, and each namespace may have up
// to its own share of them under way (NAMESPACE_EVENTS.inFlight, 8). Against an API server that never finishes some
// namespaces' writes (slow, or made so), eight namespaces with failing objects took all 64, and every Event of any
// other namespace was dropped while they kept them. Now a namespace takes of the server's writes at most as much as
// it leaves free (lib/shares.ts fairTake): the eighth finds less than its share, and a ninth still finds some.
import t from 'tap';
import { KubeEventRecorder, MAX_EVENTS_IN_FLIGHT, NAMESPACE_EVENTS, type EventSpec } from '../../lib/events.js';
import type { KubeApi, KubeEvent } from '../../lib/kube.js';
import type { ParentObject } from '../../lib/metacontroller.js';
import { FIXED_NOW } from '../fixtures/requests.js';

/** An API server whose Event writes in `hanging` namespaces never finish; the others are written at once. */
class Kube implements KubeApi {
  readonly written: KubeEvent[] = [];
  constructor(private readonly hanging: (namespace: string) => boolean) {}
  async get() {
    return undefined;
  }
  async addEphemeralContainers() {}
  createEvent(event: KubeEvent): Promise<'created'> {
    if (this.hanging(event.namespace)) return new Promise(() => undefined);
    this.written.push(event);
    return Promise.resolve('created');
  }
}

const parent = (namespace: string, name: string): ParentObject => ({
  apiVersion: 'x.example/v1',
  kind: 'Thing',
  metadata: { name, namespace, uid: `uid-${namespace}-${name}` },
  spec: {},
});
const warning: EventSpec = { type: 'Warning', reason: 'Down', action: 'Reconcile', note: 'down' };

t.test("a namespace's Event is written while eight other namespaces hold all the writes they may", async (t) => {
  t.ok(8 * NAMESPACE_EVENTS.inFlight >= MAX_EVENTS_IN_FLIGHT, "eight namespaces' shares are all the server's writes");
  const kube = new Kube((namespace) => namespace.startsWith('team-a'));
  const recorder = new KubeEventRecorder(
    () => kube,
    () => 0,
  );
  const dropped: string[] = [];
  const log = { info: () => undefined, warn: (_o: unknown, m: string) => void dropped.push(m) };
  // Eight namespaces, each with more failing objects than its share, every write hanging.
  for (let n = 0; n < 8; n++)
    for (let i = 0; i < 2 * NAMESPACE_EVENTS.inFlight; i++)
      void recorder.record(parent(`team-a${n}`, `a${i}`), [warning], FIXED_NOW, log);
  await new Promise((r) => setImmediate(r));
  t.ok(dropped.length > 0, `past what they may take, their Events are dropped (${dropped.length})`);
  // Namespace B, whose writes the API server finishes.
  await recorder.record(parent('team-b', 'b'), [warning], FIXED_NOW, log);
  t.same(
    kube.written.map((e) => `${e.namespace}/${e.regarding.name}`),
    ['team-b/b'],
    "B's Event is written",
  );
  await recorder.record(parent('team-c', 'c'), [warning], FIXED_NOW, log);
  t.equal(kube.written.length, 2, 'and so is a third namespace’s');
});
