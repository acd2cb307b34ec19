// Each PodBuggerTool adds its own container, `debug-<tool>`, with a hash of the tool's name when that name is not a
// label as it is (`x.y`) or is too long; "so two tools never share a container" (match.ts containerName). The hash
// is printed in the container name for anyone to read, and a tool may be named with it: a tool named
// `x-y-<hash of x.y>` gets the container name of tool `x.y`. Two tools selecting one pod then share one container:
// whichever came first, the other never gets its own (its status counts the other's container as its outdated one).
import { createHash } from 'node:crypto';
import t from 'tap';
import { containerName } from '../../hooks/podbuggertool/match.js';
import { FakeApi, injectAll, pod, tool } from '../fixtures/pbt.js';

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 8);

t.test('no tool name gives the container name of another tool', async (t) => {
  t.not(containerName(`x-y-${hash('x.y')}`), containerName('x.y'), 'x.y and x-y-<hash of x.y>');
  const long = 'a'.repeat(60);
  const squatter = `${`debug-${long}`.slice(0, 54).replace(/-$/, '')}-${hash(long)}`.slice('debug-'.length);
  t.not(containerName(squatter), containerName(long), 'a long name and the name its container is cut to');
});

t.test('two tools selecting one pod each add their own container, whatever their names', async (t) => {
  const api = new FakeApi();
  api.put(pod('web-1', { app: 'web' }));
  // The squatter (another user of the namespace) comes first, with a container unlike the victim's.
  api.put(
    tool(`x-y-${hash('x.y')}`, { label: 'app=web', image: 'busybox', command: ['sleep', '1d'] }, 'dbg', 'mallory'),
  );
  for (let i = 0; i < 2; i++) await injectAll(api, 'dbg');
  api.put(tool('x.y', { label: 'app=web', image: 'busybox', command: ['sh'] }));
  for (let i = 0; i < 3; i++) await injectAll(api, 'dbg');
  const containers = api.stored('Pod', 'dbg', 'web-1').spec.ephemeralContainers as any[];
  t.equal(containers.length, 2, "both tools' containers are in the pod");
  t.ok(
    containers.some((c) => JSON.stringify(c.command) === '["sh"]'),
    "tool x.y's container (command sh) is in the pod",
  );
});

t.test('container names of tool names built to collide are all distinct', async (t) => {
  // Names of the two forms side by side: labels as they are, names with dots, repeated dashes, long names, and
  // names that spell another's hashed container (its `-<hash>` or `--<hash>` written out).
  const names = new Set<string>();
  for (const stem of ['x', 'x.y', 'x-y', 'x--y', 'a'.repeat(40), 'a'.repeat(58), `${'a'.repeat(39)}.b`]) {
    names.add(stem);
    for (const other of [stem, `${stem}.z`, 'a'.repeat(70)]) {
      const hashed = containerName(other).slice('debug-'.length);
      names.add(hashed);
      names.add(hashed.replace('--', '-'));
      names.add(`${hashed}-0`);
    }
  }
  const seen = new Map<string, string>();
  for (const name of names) {
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) || name.length > 253) continue;
    const container = containerName(name);
    t.ok(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(container) && container.length <= 63, `${container} is a label`);
    t.equal(seen.get(container) ?? name, name, `${name} and ${seen.get(container)} share ${container}`);
    seen.set(container, name);
  }
});
