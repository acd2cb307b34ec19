// Alarms that no member raised: etcd keeps each alarm under the member ID that raised it, and a
// snapshot keeps the alarms active when it was taken. `etcdutl snapshot restore` (a restore) keeps them under the old
// member's ID, which no restored member has: the restored cluster refuses every write ("mvcc: database space
// exceeded") while its members serve and are Ready. So whenever a member reports an alarm (its /health says so), the
// cluster's alarms are listed, and those whose member ID is no member of the cluster's member list are disarmed
// (etcd's Maintenance Alarm DEACTIVATE), said in an event. An alarm of a member stays: a member over its quota raises
// NOSPACE again under its own ID at its next write past the quota, so disarming another's alarm hides no full backend.
// CORRUPT alike: etcd raises it under the ID of the member whose data disagrees; an ID that is no member is a member
// removed (etcd's way out of a corruption: remove that member, then disarm) or the old cluster's, kept by a snapshot
// restored (every restored member is made from that one snapshot: they agree by construction). The corruption check
// raises it again under a member's own ID if members still disagree.
import type { EtcdAlarm, EtcdClient } from '../etcdcommon/etcd.js';
import type { EventSpec } from '../../lib/index.js';
import { clientURL, type Cluster } from './members.js';
import type { Observed } from './observe.js';

/** What disarming did: the alarms disarmed (or, the cluster paused, held), or why it failed. */
export interface Disarmed {
  disarmed: EtcdAlarm[];
  /** Alarms of no member left as they are: spec.paused stops every change, disarming one too. */
  held?: EtcdAlarm[];
  error?: string;
}

/**
 * Disarms the alarms of member IDs that are not members of the cluster's member list, when a member reports an
 * alarm and etcd listed its members in this sync; the members that reported the alarm are asked for their health
 * again once it is gone (this sync's view tells the truth). Undefined when nothing was asked.
 */
export async function disarmStrangers(
  c: Cluster,
  obs: Observed,
  client: EtcdClient,
  paused = false,
): Promise<Disarmed | undefined> {
  if (!obs.etcd || !client.alarms || !client.alarmDisarm) return undefined;
  const alarmed = obs.pods.map((p) => p.metadata.name).filter((n) => obs.health[n]?.alarm);
  if (alarmed.length === 0) return undefined;
  const answering = obs.pods
    .map((p) => p.metadata.name)
    .filter((n) => obs.health[n]?.healthy === true || obs.health[n]?.alarm)
    .map((n) => clientURL(c, n));
  const members = new Set(obs.etcd.members.map((m) => m.id));
  const disarmed: EtcdAlarm[] = [];
  try {
    const listed = await client.alarms(answering);
    // The members' own alarms stay, and are what the status names (a CORRUPT alarm names the member that disagrees).
    obs.alarms = listed.filter((a) => members.has(a.memberId));
    const strangers = listed.filter((a) => !members.has(a.memberId));
    // Paused (an admin working etcd's way out by hand: a member removed, the others compared before disarming):
    // nothing is disarmed until spec.paused is false again.
    if (paused && strangers.length) {
      obs.heldAlarms = strangers;
      return { disarmed, held: strangers };
    }
    for (const a of strangers) {
      await client.alarmDisarm(answering, a);
      disarmed.push(a);
    }
  } catch (err) {
    return { disarmed, error: (err as Error).message };
  }
  if (disarmed.length > 0) await askAgain(c, obs, client, alarmed);
  return { disarmed };
}

/** The health of `pods` asked again: an answer of the same member (its IDs as before) replaces the earlier one. */
async function askAgain(c: Cluster, obs: Observed, client: EtcdClient, pods: string[]): Promise<void> {
  const answers = await Promise.all(pods.map((p) => client.health(clientURL(c, p)).catch(() => undefined)));
  pods.forEach((p, i) => {
    const before = obs.health[p]!;
    const now = answers[i];
    if (now?.clusterId && now.clusterId === before.clusterId && now.memberId === before.memberId) obs.health[p] = now;
  });
}

/** The event of alarms disarmed: which, of which member IDs, and why. */
export function disarmedEvent(d: Disarmed): EventSpec {
  const which = d.disarmed.map((a) => `${a.alarm} of member ${a.memberId}`).join(', ');
  return {
    type: 'Normal',
    reason: 'AlarmDisarmed',
    action: 'AlarmDisarm',
    note: `disarmed ${which}: no member of the cluster has that ID (an alarm a restored snapshot kept, or of a member removed); writes are taken again`.slice(
      0,
      1000,
    ),
  };
}
