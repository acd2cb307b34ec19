// The framework's last line of defence (lib/operator.ts withinNamespace, attachedWithin): an answer of a namespaced
// parent that names a child in another namespace is not given, whatever built it (the hook's answer, a failure's
// children, an InvalidSpec answer). Metacontroller (v4.17.2 applyNamespaceDefaults) fills only an empty namespace and
// creates a desired child in the namespace the answer names, with its own rights (*/*/*): tenant A's parent must never
// make an object in tenant B's namespace. The stored status and every observed child are kept, Ready=False
// ChildOutsideNamespace says which child, and the sync is tried again. A child with no namespace, or its parent's, is
// answered as built.
import { Type } from '@sinclair/typebox';
import t from 'tap';
import { TemporaryError } from '../../lib/errors.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { childrenElsewhere, defineComposite, defineDecorator, runHook } from '../../lib/operator.js';
import { specParser } from '../../lib/spec.js';
import { resource as podsetResource } from '../../hooks/podset/schema.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const cm = (name: string, namespace?: unknown): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  }) as KubeObject;

const toy = defineComposite({
  name: 'toy',
  resource: { ...podsetResource, kind: 'Toy', plural: 'toys', singular: 'toy' },
  spec: specParser(Type.Object({ namespace: Type.Optional(Type.Any()), fail: Type.Optional(Type.Boolean()) })),
  childResources: [],
  sync: ({ spec }) => {
    const child = cm('made', spec.namespace);
    if (spec.fail) throw new TemporaryError('Down', 'down for now', { children: [child] });
    return { status: { made: true }, children: [child] };
  },
});

const request = (spec: Record<string, unknown>, namespace: string | null = 'team-a') =>
  ({
    controller: {},
    parent: {
      apiVersion: 'x/v1',
      kind: 'Toy',
      metadata: { name: 't', generation: 2, ...(namespace ? { namespace } : {}) },
      spec,
      status: { kept: 'yes', observedGeneration: 1 },
    },
    children: { 'ConfigMap.v1': { old: cm('old', namespace ?? undefined) } },
  }) as never;

t.test("a child answered in another namespace than its parent's is not given: the answer is held", async (t) => {
  for (const [what, spec] of [
    ["the hook's answer", { namespace: 'team-b' }],
    ["a failure's children", { namespace: 'kube-system', fail: true }],
  ] as const) {
    const res = await runHook(toy, 'sync', request(spec), { now: FIXED_NOW });
    const status = res.status as any;
    t.match(
      status.conditions[0],
      {
        type: 'Ready',
        status: 'False',
        reason: 'ChildOutsideNamespace',
        message: /ConfigMap (team-b|kube-system)\/made/,
      },
      `${what}: said`,
    );
    t.equal(status.kept, 'yes', `${what}: the stored status kept`);
    t.same(
      res.children.map((c) => `${c.metadata.namespace}/${c.metadata.name}`),
      ['team-a/old'],
      `${what}: every observed child kept, nothing made elsewhere`,
    );
    t.ok(res.resyncAfterSeconds, `${what}: tried again`);
  }
});

t.test("a child with no namespace, an empty one, or its parent's, is answered as built", async (t) => {
  for (const namespace of [undefined, '', null, 'team-a']) {
    const res = await runHook(toy, 'sync', request({ namespace }), { now: FIXED_NOW });
    t.same(
      res.children.map((c) => c.metadata.name),
      ['made'],
      `namespace ${JSON.stringify(namespace)}`,
    );
  }
  // A cluster-scoped parent has no namespace to hold its children to.
  const res = await runHook(toy, 'sync', request({ namespace: 'team-b' }, null), { now: FIXED_NOW });
  t.same(
    res.children.map((c) => c.metadata.name),
    ['made'],
  );
});

t.test('childrenElsewhere names at most a few, of any value type', async (t) => {
  const parent = { metadata: { namespace: 'a' } };
  t.same(childrenElsewhere(parent, [cm('x', 'a'), cm('y', 'b'), cm('z', 7)]), ['ConfigMap b/y', 'ConfigMap 7/z']);
  t.same(
    childrenElsewhere(
      parent,
      Array.from({ length: 10 }, (_, i) => cm(`c${i}`, 'b')),
    ).length,
    3,
  );
  t.same(childrenElsewhere({ metadata: {} }, [cm('y', 'b')]), []);
  t.same(childrenElsewhere(parent, undefined), []);
});

t.test("a decorator's attachment in another namespace than its object's is not given", async (t) => {
  const decorator = defineDecorator({
    name: 'toy-decorator',
    resources: [{ apiVersion: 'v1', resource: 'pods' }],
    attachments: [],
    sync: ({ request }) => ({ attachments: [cm('made', (request.object.spec as any)?.to)] }),
  });
  const decorated = (to: string) =>
    ({
      controller: {},
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'team-a' }, spec: { to } },
      attachments: { 'ConfigMap.v1': { old: cm('old', 'team-a') } },
    }) as never;
  const held = await runHook(decorator, 'sync', decorated('team-b'));
  t.same(
    held.attachments.map((c) => `${c.metadata.namespace}/${c.metadata.name}`),
    ['team-a/old'],
    'every observed attachment kept',
  );
  t.ok(held.resyncAfterSeconds);
  const given = await runHook(decorator, 'sync', decorated('team-a'));
  t.same(
    given.attachments.map((c) => c.metadata.name),
    ['made'],
  );
});
