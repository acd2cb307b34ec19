// The answer budget measured on the answer built (lib/budget.ts answerSizeProblem), not only estimated from the spec:
// observed children a tenant labelled with a parent's selector can add to what a spec asks for. An answer whose
// children are over the kind's budget is held by the framework (the status stored kept, every observed child kept,
// Ready=False AnswerTooLarge), for every kind.
import { Type } from '@sinclair/typebox';
import t from 'tap';
import { answerSizeProblem, MAX_ANSWER_BYTES, mib } from '../lib/budget.js';
import { defineComposite, runHook } from '../lib/operator.js';
import { specParser } from '../lib/spec.js';
import { resource as podsetResource } from '../hooks/podset/schema.js';
import { FIXED_NOW } from './fixtures/requests.js';

const toy = defineComposite({
  name: 'toy',
  resource: { ...podsetResource, kind: 'Toy', plural: 'toys', singular: 'toy' },
  spec: specParser(Type.Object({ n: Type.Number() })),
  childResources: [],
  // n children of 1 KiB each: what observed children might make of an answer.
  sync: ({ spec }) => ({
    status: { made: spec.n },
    children: Array.from({ length: spec.n }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `new-${i}` },
      data: { x: 'x'.repeat(1024) },
    })),
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

t.test('an answer within the budget is answered as the hook made it', async (t) => {
  const res = await runHook(toy, 'sync', request(100), { now: FIXED_NOW });
  t.equal((res.status as any).made, 100);
  t.equal(res.children.length, 100);
});

t.test('an answer over the budget is held: the stored status and every observed child kept, and said', async (t) => {
  const n = MAX_ANSWER_BYTES / 1024 + 1;
  const res = await runHook(toy, 'sync', request(n), { now: FIXED_NOW });
  const status = res.status as any;
  t.equal(status.kept, 'yes', 'the status stored is kept');
  t.notOk('made' in status, "the hook's status is not answered");
  t.same(
    res.children.map((c) => c.metadata.name),
    ['old'],
    'every observed child kept, nothing new made',
  );
  const ready = status.conditions.find((c: any) => c.type === 'Ready');
  t.match(ready, { status: 'False', reason: 'AnswerTooLarge' });
  t.match(ready.message, `more than the ${mib(MAX_ANSWER_BYTES)} a Toy answer may have`);
  t.ok(res.resyncAfterSeconds! > 0, 'tried again later');
});

t.test('answerSizeProblem counts JSON bytes, takes the lower limit, and refuses what cannot be written', async (t) => {
  t.equal(answerSizeProblem('Toy', [{ s: 'x'.repeat(MAX_ANSWER_BYTES - 20) }]), undefined);
  t.match(answerSizeProblem('Toy', [{ s: 'é'.repeat(MAX_ANSWER_BYTES / 2) }]), 'a Toy answer may have');
  t.match(answerSizeProblem('Toy', [{ s: 'x'.repeat(2048) }], 1024), 'more than the 0.0 MiB');
  t.equal(answerSizeProblem('Toy', [{ s: 'x'.repeat(2048) }], MAX_ANSWER_BYTES * 2), undefined);
  const cyclic: any = {};
  cyclic.self = cyclic;
  t.match(answerSizeProblem('Toy', cyclic), 'more than a string can hold');
});
