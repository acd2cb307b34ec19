// The status budget (lib/budget.ts MAX_STATUS_BYTES): a status is written with its object to the API server and
// comes back in every request. A hook bounds what it reports where it reads it; the framework holds a status over
// the budget (the status stored kept, every observed child kept, Ready=False StatusTooLarge), for every kind.
import { Type } from '@sinclair/typebox';
import t from 'tap';
import { kib, MAX_STATUS_BYTES, statusBudgetProblem } from '../lib/budget.js';
import { defineComposite, runHook } from '../lib/operator.js';
import { specParser } from '../lib/spec.js';
import { resource as podsetResource } from '../hooks/podset/schema.js';
import { FIXED_NOW } from './fixtures/requests.js';

const toy = defineComposite({
  name: 'toy',
  resource: { ...podsetResource, kind: 'Toy', plural: 'toys', singular: 'toy' },
  spec: specParser(Type.Object({ n: Type.Number() })),
  childResources: [],
  // A status of n entries of 1 KiB, and one child of its own.
  sync: ({ spec }) => ({
    status: { entries: Array.from({ length: spec.n }, () => 'x'.repeat(1024)) },
    children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new' } }],
  }),
});

const request = (n: number) =>
  ({
    controller: {},
    parent: {
      apiVersion: 'x/v1',
      kind: 'Toy',
      metadata: { name: 't', generation: 2 },
      spec: { n },
      status: { kept: 'yes', observedGeneration: 1 },
    },
    children: { 'ConfigMap.v1': { old: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old' } } } },
  }) as never;

t.test('a status within the budget is answered as the hook made it', async (t) => {
  const res = await runHook(toy, 'sync', request(200), { now: FIXED_NOW });
  t.equal((res.status as any).entries.length, 200);
  t.same(
    res.children.map((c) => c.metadata.name),
    ['new'],
  );
});

t.test('a status over the budget is held: the stored status and every observed child kept, and said', async (t) => {
  const n = MAX_STATUS_BYTES / 1024 + 1;
  const res = await runHook(toy, 'sync', request(n), { now: FIXED_NOW });
  const status = res.status as any;
  t.equal(status.kept, 'yes', 'the status stored is kept');
  t.notOk('entries' in status, "the hook's status is not answered");
  t.equal(status.observedGeneration, 1, 'observedGeneration stays that of the status kept');
  t.same(
    res.children.map((c) => c.metadata.name),
    ['old'],
    'every observed child kept, nothing new made',
  );
  const ready = status.conditions.find((c: any) => c.type === 'Ready');
  t.match(ready, { status: 'False', reason: 'StatusTooLarge' });
  t.match(ready.message, `more than the ${kib(MAX_STATUS_BYTES)} a Toy status may have`);
  t.ok(res.resyncAfterSeconds! > 0, 'tried again later');
  t.ok(JSON.stringify(status).length < 4096, 'the answer is small');
});

t.test('statusBudgetProblem counts the status as JSON bytes', async (t) => {
  t.equal(statusBudgetProblem('Toy', { s: 'x'.repeat(MAX_STATUS_BYTES - 10) }), undefined);
  t.match(statusBudgetProblem('Toy', { s: 'é'.repeat(MAX_STATUS_BYTES / 2) }), 'a Toy status may have');
});
