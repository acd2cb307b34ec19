// An answer that changes nothing (a spec refused InvalidSpec, an answer the framework holds: ChildOutsideNamespace,
// AnswerTooLarge, ChildTooLarge, StatusTooLarge) says why in Ready and keeps every other condition of the stored
// status as it is (lib/hook.ts conditionsKeepingOthers): the children are kept running, so what the last answer said of
// them (Available while they serve, Upgrading) still holds, and `kubectl wait --for=condition=Available` does not flip.
import { Type } from '@sinclair/typebox';
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { defineComposite, runHook } from '../../lib/operator.js';
import { specParser } from '../../lib/spec.js';
import { resource as podsetResource } from '../../hooks/podset/schema.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const cm = (name: string, namespace: string): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } }) as KubeObject;

const toy = defineComposite({
  name: 'toy',
  resource: { ...podsetResource, kind: 'Toy', plural: 'toys', singular: 'toy' },
  spec: specParser(Type.Object({ namespace: Type.String(), size: Type.Integer({ maximum: 3 }) })),
  childResources: [],
  sync: ({ spec, now }) => ({
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'Serving', lastTransitionTime: now.toISOString() }],
    },
    children: [cm('made', spec.namespace)],
  }),
});

const available = {
  type: 'Available',
  status: 'True',
  reason: 'MembersServing',
  message: '3 of 3 serve',
  lastTransitionTime: '2026-01-01T00:00:00Z',
  observedGeneration: 1,
};
const upgrading = { type: 'Upgrading', status: 'False', reason: 'Done', lastTransitionTime: '2026-01-02T00:00:00Z' };

const request = (spec: Record<string, unknown>) =>
  ({
    controller: {},
    parent: {
      apiVersion: 'x/v1',
      kind: 'Toy',
      metadata: { name: 't', namespace: 'team-a', generation: 2 },
      spec,
      status: {
        observedGeneration: 1,
        conditions: [
          { type: 'Ready', status: 'True', reason: 'Serving', lastTransitionTime: '2026-01-01T00:00:00Z' },
          available,
          upgrading,
          { ...available, reason: 'a second Available is not kept' },
        ],
      },
    },
    children: { 'ConfigMap.v1': { old: cm('old', 'team-a') } },
  }) as never;

t.test('a refused or held answer says why in Ready and keeps every other condition as it was', async (t) => {
  for (const [what, spec, reason] of [
    ['a spec the schema refuses', { namespace: 'team-a', size: 9 }, 'InvalidSpec'],
    ['an answer naming a child in another namespace', { namespace: 'team-b', size: 1 }, 'ChildOutsideNamespace'],
  ] as const) {
    const res = await runHook(toy, 'sync', request(spec), { now: FIXED_NOW });
    const conditions = (res.status as { conditions: Array<Record<string, unknown>> }).conditions;
    t.match(conditions[0], { type: 'Ready', status: 'False', reason }, `${what}: Ready says why`);
    t.same(
      conditions.slice(1),
      [available, upgrading],
      `${what}: Available and Upgrading kept as they were, once each`,
    );
    t.same(
      res.children.map((c) => c.metadata.name),
      ['old'],
      `${what}: the observed child kept`,
    );
  }
});

t.test('fed back, a refused answer is the same answer (quiet at rest)', async (t) => {
  const first = await runHook(toy, 'sync', request({ namespace: 'team-a', size: 9 }), { now: FIXED_NOW });
  const again = request({ namespace: 'team-a', size: 9 }) as { parent: { status: unknown } };
  again.parent.status = first.status;
  const second = await runHook(toy, 'sync', again as never, { now: new Date(FIXED_NOW.getTime() + 60_000) });
  t.same(second.status, first.status);
});
