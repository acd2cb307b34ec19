// Who may debug: the admission policy stamps the author's user, UID, groups and extra (docs/podbuggertool.md), and
// the hook reads a stamp of at most 16 KiB. An enterprise user whose identity provider sends a few hundred groups
// as LDAP distinguished names (`cn=...,ou=groups,dc=example,dc=com`: every `,` and `=` escaped by the policy, three
// characters each) is stamped with more than that. Such a tool is refused AuthorUnverified with "the tool has no
// author stamp from the admission policy (it was written before the policy was in force): delete it and create it
// again": neither is true, and doing it changes nothing. The author must be asked about, or told the real reason.
import t from 'tap';
import { AUTHOR_ANNOTATION, AuthorCache, AuthorCheck } from '../../hooks/podbuggertool/author.js';
import { FakeApi, stamp, tool } from '../fixtures/pbt.js';

t.test('an author in 300 LDAP groups is asked about, or told why not (not "written before the policy")', async (t) => {
  const groups = [
    'system:authenticated',
    ...Array.from(
      { length: 300 },
      (_, i) => `cn=team-${String(i).padStart(3, '0')}-platform,ou=groups,dc=example,dc=com`,
    ),
  ];
  const tl = tool('a', { label: 'app=web', image: 'busybox' });
  tl.metadata.annotations[AUTHOR_ANNOTATION] = stamp('alice', groups).replace(/=/g, '%3D');
  t.ok(tl.metadata.annotations[AUTHOR_ANNOTATION].length > 16 * 1024, 'the stamp the policy writes: over 16 KiB');
  t.ok(tl.metadata.annotations[AUTHOR_ANNOTATION].length < 256 * 1024, 'which the API server keeps (256 KiB)');
  const api = new FakeApi().put(tl);
  const verdict = await new AuthorCheck(api, new AuthorCache()).verify(api.stored('PodBuggerTool', 'dbg', 'a'));
  const message = verdict.allowed ? '' : verdict.message;
  t.notMatch(message, /written before the policy|delete it and create it again/, `not a false reason: ${message}`);
  t.ok(
    verdict.allowed || /16 KiB|too long|too large|groups/i.test(message),
    `asked about (the API server allows the author), or told that the stamp is too long (said: ${message})`,
  );
});
