// The container a tool added is compared with its spec as the API server stores it: the fields Go drops when empty
// (`omitempty`: command, args, env, an env variable's value, an empty securityContext) compare equal to their
// absence, and nothing else does. The real API server's side: test/real/podbuggertool-stored-container-counted-real.
import t from 'tap';
import { containerDiffers, ephemeralContainer, parser, podState } from '../../hooks/podbuggertool/match.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { pod } from '../fixtures/pbt.js';

const spec = (extra: Record<string, unknown>) => {
  const parsed = parser.parse({ label: 'app=web', image: 'busybox:1.36', ...extra });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed));
  return parsed.spec;
};
/** A JSON value with Go's omitempty applied to the fields of a container the API server drops when empty. */
function asStored(c: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...c };
  for (const k of ['command', 'args', 'env'])
    if (Array.isArray(out[k]) && (out[k] as unknown[]).length === 0) delete out[k];
  if (Array.isArray(out['env']))
    out['env'] = (out['env'] as Array<Record<string, unknown>>).map((e) =>
      e['value'] === '' ? { name: e['name'] } : e,
    );
  return out;
}
const carrying = (c: Record<string, unknown>): KubeObject => pod('p', { app: 'web' }, { ephemeralContainers: [c] });

t.test('a container as the API server stores it is the one its spec adds', async (t) => {
  for (const extra of [
    { command: [] },
    { args: [] },
    { env: [] },
    { env: [{ name: 'DEBUG', value: '' }] },
    {
      command: [],
      args: [],
      env: [
        { name: 'A', value: '' },
        { name: 'B', value: 'x' },
      ],
    },
  ]) {
    const s = spec(extra);
    const added = ephemeralContainer('a', s, pod('p', { app: 'web' }));
    t.same(podState(carrying(asStored(added)), 'a', s), { state: 'injected' }, JSON.stringify(extra));
    t.same(podState(carrying(added), 'a', s), { state: 'injected' }, `${JSON.stringify(extra)}, as sent`);
  }
});

t.test('what still differs: a value, an element, a variable without its value', async (t) => {
  const base = { name: 'debug-a', image: 'busybox:1.36' };
  t.same(containerDiffers({ ...base, env: [{ name: 'A' }] }, { ...base, env: [{ name: 'A', value: 'x' }] }), ['env']);
  t.same(containerDiffers({ ...base, command: ['sh'] }, { ...base, command: [] }), ['command']);
  t.same(containerDiffers({ ...base, args: [''] }, { ...base }), ['args'], 'a list of one empty argument is not none');
  t.same(containerDiffers({ ...base, env: [{ name: 'A' }] }, { ...base }), ['env']);
  t.same(
    containerDiffers({ ...base, securityContext: { runAsUser: 0 } }, { ...base }),
    ['securityContext'],
    'user 0 is a value',
  );
  t.same(
    containerDiffers({ ...base }, { ...base, securityContext: { allowPrivilegeEscalation: false } }),
    ['securityContext'],
    'false is a value',
  );
  t.same(containerDiffers({ ...base, securityContext: {} }, { ...base }), [], 'an empty securityContext is none');
  t.same(containerDiffers({ ...base, image: '' }, { ...base }), ['image']);
});
