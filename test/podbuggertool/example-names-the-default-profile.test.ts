// The example users apply first (manifests/examples/podbuggertool.yaml, the walkthrough of docs/podbuggertool.md)
// says in its comment which security profile the tool gets by default and that the server allows it. Since the
// default became `baseline` and `general` (SYS_PTRACE) was taken out of the default METAOPS_DEBUG_PROFILES, the
// comment still says "the default profile, general, in its default profiles": a reader expects SYS_PTRACE, and an
// administrator reading it would not know that `general` must now be enabled.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { DEFAULT_POLICY } from '../../hooks/podbuggertool/match.js';
import { PodBuggerToolSpec } from '../../hooks/podbuggertool/schema.js';
import { root } from '../fixtures/requests.js';

t.test('the example manifest names the default profile the schema gives, allowed by default', async (t) => {
  const text = readFileSync(join(root, 'manifests', 'examples', 'podbuggertool.yaml'), 'utf8');
  const comment = text
    .split('\n')
    .filter((l) => l.startsWith('#'))
    .map((l) => l.replace(/^#\s?/, ''))
    .join(' ');
  const named = /default profile,? (\w+)/.exec(comment)?.[1];
  const schemaDefault = (PodBuggerToolSpec.properties.securityProfile as { default?: string }).default;
  t.equal(named, schemaDefault, `the comment's default profile (${named}) is the schema's (${schemaDefault})`);
  t.ok(
    named !== undefined && (DEFAULT_POLICY.profiles as readonly string[]).includes(named),
    `the profile it names is in the server's default profiles (${DEFAULT_POLICY.profiles.join(', ')})`,
  );
});
