// etcd's Maintenance Alarm API through the gateway (issue 30: an alarm kept under a member ID no member has is
// disarmed, hooks/etcdcluster/alarms.ts): the alarms listed are read by type (a member ID etcd's, a kind spelled as
// etcd's; NONE, etcd's 0, is no alarm), and a disarm names the member and the kind.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { HttpEtcdClient, MAX_LISTED_ALARMS } from '../../hooks/etcdcommon/etcd.js';

async function gateway(t: { teardown(fn: () => void): void }, alarms: unknown) {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(req.url === '/v3/maintenance/alarm' ? 200 : 404, { 'content-type': 'application/json' });
      if (req.url !== '/v3/maintenance/alarm') return res.end('404 page not found\n');
      const asked = JSON.parse(body) as { action?: string };
      bodies.push(asked);
      res.end(JSON.stringify(asked.action === 'GET' ? { header: {}, alarms } : { header: {} }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return { bodies, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

t.test('the alarms listed are read by type', async (t) => {
  const { bodies, endpoint } = await gateway(t, [
    { memberID: '9372538179322589801', alarm: 'NOSPACE' },
    { memberID: '42', alarm: 'CORRUPT' },
    { memberID: '43' }, // NONE: left out of the JSON
    { memberID: '44', alarm: 'NONE' },
    { memberID: 'not-an-id', alarm: 'NOSPACE' },
    { memberID: '45', alarm: 'nospace; rm -rf' },
    null,
    'NOSPACE',
  ]);
  const alarms = await new HttpEtcdClient().alarms([endpoint]);
  t.same(alarms, [
    { memberId: '9372538179322589801', alarm: 'NOSPACE' },
    { memberId: '42', alarm: 'CORRUPT' },
  ]);
  t.same(bodies, [{ action: 'GET' }]);
});

t.test('an answer with no list, or a list past the bound', async (t) => {
  t.same(await new HttpEtcdClient().alarms([(await gateway(t, undefined)).endpoint]), [], 'no list: no alarm');
  const many = Array.from({ length: MAX_LISTED_ALARMS + 10 }, (_, i) => ({
    memberID: String(i + 1),
    alarm: 'NOSPACE',
  }));
  const read = await new HttpEtcdClient().alarms([(await gateway(t, many)).endpoint]);
  t.equal(read.length, MAX_LISTED_ALARMS, 'at most MAX_LISTED_ALARMS read');
});

t.test('a disarm names the member ID and the alarm', async (t) => {
  const { bodies, endpoint } = await gateway(t, []);
  await new HttpEtcdClient().alarmDisarm([endpoint], { memberId: '9372538179322589801', alarm: 'NOSPACE' });
  t.same(bodies, [{ action: 'DEACTIVATE', memberID: '9372538179322589801', alarm: 'NOSPACE' }]);
});
