// lib/shares.ts fairTake: what a namespace may take of a cap every namespace shares (the server's calls to etcd, its
// Event writes): within its own share, and never more than it leaves free.
import t from 'tap';
import { fairTake } from '../../lib/shares.js';

/** What each of `namespaces` takes, one after another, each asking for all its share. */
function filled(bound: number, share: number, namespaces: number): number[] {
  let total = 0;
  const taken: number[] = [];
  for (let n = 0; n < namespaces; n++) {
    const got = fairTake(share, 0, total, bound, share);
    taken.push(got);
    total += got;
  }
  return taken;
}

t.test('namespaces that take all they may leave the next one half of what they found', async (t) => {
  t.same(
    filled(256, 48, 12),
    [48, 48, 48, 48, 32, 16, 8, 4, 2, 1, 1, 0],
    'calls to etcd: eleven namespaces to fill 256',
  );
  t.same(filled(64, 8, 12), [8, 8, 8, 8, 8, 8, 8, 4, 2, 1, 1, 0], 'Event writes: eleven namespaces to fill 64');
});

t.test('taken one at a time, a namespace stops where it holds as much as is left', async (t) => {
  let total = 0;
  let held = 0;
  while (fairTake(1, held, total, 64, 64) === 1) {
    held++;
    total++;
  }
  t.equal(held, 32, 'half the cap, when its share would allow it all');
  t.equal(fairTake(1, 0, total, 64, 64), 1, 'another namespace still finds one');
});

t.test('a namespace alone takes its whole share; never more than asked, its share or what is free', async (t) => {
  t.equal(fairTake(100, 0, 0, 256, 48), 48);
  t.equal(fairTake(5, 0, 0, 256, 48), 5);
  t.equal(fairTake(48, 40, 40, 256, 48), 8, 'the rest of its share');
  t.equal(fairTake(10, 0, 255, 256, 48), 1, 'the last one left');
  t.equal(fairTake(10, 0, 256, 256, 48), 0, 'none when none is free');
});
