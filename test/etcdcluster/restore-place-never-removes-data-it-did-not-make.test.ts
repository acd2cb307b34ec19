// The last init step of a restored member (etcd-restore-place: hooks/etcdcommon/snapshot.ts placeRestored) makes the
// data etcdutl restored the member's data directory. It runs on the volume the pod mounts: the hook answers a member
// pod only on a claim observed as the cluster's own (member-added-whose-claim-name-another-takes-never-serves-on-it),
// and this step is the last guard should a volume that is not the member's be mounted all the same (a claim of the
// member's name another owner made): a data directory holding files that are not an etcd member is never removed.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { placeRestored } from '../../hooks/etcdcommon/snapshot.js';

t.test('a data directory holding other files than an etcd member is left as it is', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'h-etcd-restore-place-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const restored = join(root, 'restored');
  const data = join(root, 'data');
  mkdirSync(join(restored, 'member'), { recursive: true });
  writeFileSync(join(restored, 'member', 'db'), 'restored');
  // Another owner's files where the member's data directory would be.
  mkdirSync(join(data, 'tables'), { recursive: true });
  writeFileSync(join(data, 'tables', 'orders'), 'their data');
  writeFileSync(join(data, 'notes.txt'), 'theirs too');
  t.throws(() => placeRestored(restored, data), /holds no etcd member but other files/);
  t.equal(readFileSync(join(data, 'tables', 'orders'), 'utf8'), 'their data', 'their files kept');
  t.equal(readFileSync(join(data, 'notes.txt'), 'utf8'), 'theirs too');
  t.notOk(existsSync(join(data, 'member')), 'no member placed over them');
  // An empty data directory (a crash before the place step) is the member's to take.
  rmSync(data, { recursive: true });
  mkdirSync(data);
  t.equal(placeRestored(restored, data), 'placed');
  t.equal(readFileSync(join(data, 'member', 'db'), 'utf8'), 'restored');
});
