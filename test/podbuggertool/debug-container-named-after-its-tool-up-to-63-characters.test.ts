// A tool's ephemeral container is named `debug-<tool>` whenever that is a DNS-1123 label of 63 characters at most
// (hooks/podbuggertool/match.ts containerName): the name a user reads in `kubectl describe pod` and passes to
// `kubectl logs -c`. Only a name that is not such a label, or longer, is cut and given a hash.
import t from 'tap';
import { containerName } from '../../hooks/podbuggertool/match.js';

t.test('debug-<tool> of exactly 63 characters is the name as it is', async (t) => {
  const tool = 'a'.repeat(57);
  t.equal(containerName(tool), `debug-${tool}`);
  t.equal(containerName(tool).length, 63);
});

t.test('debug-<tool> of 64 characters is cut to 63 with a hash', async (t) => {
  const name = containerName('a'.repeat(58));
  t.equal(name.length, 63);
  t.match(name, /^debug-a+--[0-9a-f]{16}$/);
});
