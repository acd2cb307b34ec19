// The upgrade soak (docs/etcdcluster.md, "Upgrades"; docs/operating.md): five minutes unless the server is set
// otherwise by METAOPS_ETCD_UPGRADE_SOAK_SECONDS, a whole number of seconds from 20 to 3600; any other value stops
// the server with a message naming it (a typo never shortens the soak unseen).
import t from 'tap';
import { etcdSettings, etcdSettingsProblems } from '../../hooks/etcdcommon/index.js';
import { etcdContainerMark } from '../../hooks/etcdcluster/pods.js';
import {
  servedSteadily,
  UPGRADE_SERVING_CONTAINER,
  UPGRADE_SERVING_SINCE,
  UPGRADE_SOAK_SECONDS,
} from '../../hooks/etcdcluster/upgrade.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ENV = 'METAOPS_ETCD_UPGRADE_SOAK_SECONDS';

t.test('the setting: default five minutes, a value within 20..3600 taken, any other refused', async (t) => {
  t.equal(UPGRADE_SOAK_SECONDS, 300);
  t.equal(etcdSettings({ env: {} }).upgradeSoakSeconds, undefined, 'unset: the default');
  t.same(etcdSettingsProblems({}), []);
  for (const ok of ['20', '600', ' 3600 ']) {
    t.equal(etcdSettings({ env: { [ENV]: ok } }).upgradeSoakSeconds, Number(ok), `${ENV}=${ok}`);
    t.same(etcdSettingsProblems({ [ENV]: ok }), [], `${ENV}=${ok}: no problem`);
  }
  for (const bad of ['19', '0', '3601', '5m', '300.5', '-300', '']) {
    t.equal(etcdSettings({ env: { [ENV]: bad } }).upgradeSoakSeconds, undefined, `${ENV}=${bad}: not taken`);
    t.match(etcdSettingsProblems({ [ENV]: bad }), [new RegExp(ENV)], `${ENV}=${bad}: the server refuses to start`);
  }
});

t.test('a member moved soaks for the soak set, by the hook clock, in one container', async (t) => {
  const status = { containerStatuses: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.5.1', restartCount: 1 }] };
  const pod = (servingFor: number): KubeObject => {
    const p = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'e-0' }, status } as unknown as KubeObject;
    p.metadata.annotations = {
      [UPGRADE_SERVING_SINCE]: new Date(FIXED_NOW.getTime() - servingFor * 1000).toISOString(),
      [UPGRADE_SERVING_CONTAINER]: etcdContainerMark(p),
    };
    return p;
  };
  t.notOk(servedSteadily(pod(UPGRADE_SOAK_SECONDS - 1), FIXED_NOW), 'the default: not yet, just under five minutes');
  t.ok(servedSteadily(pod(UPGRADE_SOAK_SECONDS), FIXED_NOW), 'the default: five minutes');
  t.notOk(servedSteadily(pod(59), FIXED_NOW, 60), 'set to 60: not yet at 59 s');
  t.ok(servedSteadily(pod(60), FIXED_NOW, 60), 'set to 60: at 60 s');
  const restarted = pod(UPGRADE_SOAK_SECONDS);
  restarted['status'] = { containerStatuses: [{ ...status.containerStatuses[0], restartCount: 2 }] };
  t.notOk(servedSteadily(restarted, FIXED_NOW), 'another container since (a restart): the soak starts again');
});
