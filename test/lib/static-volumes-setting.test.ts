// METAOPS_ALLOW_STATIC_VOLUMES: a cluster admin's switch for `storageClassName: ""` in the claims custom resources
// ask for. Off unless set to true (or 1); a value that is neither true nor false stops the server with a message
// naming it (a typo must not turn the check off, nor on), and both kinds that make claims read it.
import t from 'tap';
import { staticVolumesAllowed, staticVolumesProblems } from '../../lib/config.js';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';

t.test('off by default and when false', async (t) => {
  t.equal(staticVolumesAllowed({}), false);
  t.equal(staticVolumesAllowed({ METAOPS_ALLOW_STATIC_VOLUMES: 'false' }), false);
  t.equal(staticVolumesAllowed({ METAOPS_ALLOW_STATIC_VOLUMES: '0' }), false);
  t.same(staticVolumesProblems({}), []);
});

t.test('on when true or 1', async (t) => {
  t.equal(staticVolumesAllowed({ METAOPS_ALLOW_STATIC_VOLUMES: 'true' }), true);
  t.equal(staticVolumesAllowed({ METAOPS_ALLOW_STATIC_VOLUMES: ' TRUE ' }), true);
  t.equal(staticVolumesAllowed({ METAOPS_ALLOW_STATIC_VOLUMES: '1' }), true);
});

t.test('anything else is off and a start-up problem naming the variable', async (t) => {
  for (const value of ['yes', 'on', 'ture']) {
    t.equal(staticVolumesAllowed({ METAOPS_ALLOW_STATIC_VOLUMES: value }), false, value);
    t.match(staticVolumesProblems({ METAOPS_ALLOW_STATIC_VOLUMES: value }), [/METAOPS_ALLOW_STATIC_VOLUMES/], value);
    for (const op of [etcdcluster, mysqlcluster])
      t.match(
        op.configProblems?.({ METAOPS_ALLOW_STATIC_VOLUMES: value }) ?? [],
        [/METAOPS_ALLOW_STATIC_VOLUMES/],
        `${op.name} ${value}`,
      );
  }
});

t.test('the kinds that make claims read it into their settings', async (t) => {
  for (const op of [etcdcluster, mysqlcluster]) {
    t.match(op.settings?.({ env: {} }), { allowStaticVolumes: false }, op.name);
    t.match(op.settings?.({ env: { METAOPS_ALLOW_STATIC_VOLUMES: 'true' } }), { allowStaticVolumes: true }, op.name);
  }
});
