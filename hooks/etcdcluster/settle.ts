// What members say settles before the status says it again. Metacontroller writes an answered status that differs
// from the stored one, and the write is a change of the EtcdCluster it watches: the cluster is synced again at once.
// A member that answers healthy and unhealthy in turn, or members that name another leader at each sync (an election
// storm, a flapping network, a tenant's image answering so), changed the status at every sync: syncs, dials of every
// member and status writes one after another for as long as it lasted. So a change of only what members say (their
// health, the leader, versions, the quorum and the conditions read from them: HEALTH_REASONS) is reported at once, and then the next
// one only once REPORT_HOLD_SECONDS have passed since (status.healthReportedAt), the status meanwhile answered as it
// is stored, and the cluster asked again when the hold ends. What the planner remembers (the members, their clocks,
// records of additions, upgrades and restores) is not held: a sync that changes it writes its whole status, and
// every decision is made from what the members said in this sync, never from the held report. But for one thing: a
// member clock (MEMBER_CLOCKS: since when a member whose pod is not Ready is unhealthy, since when an addition waits)
// that starts again less than REPORT_HOLD_SECONDS after the member was seen up with its clock running (seenUpAt: it
// flaps), in a sync whose report is held, waits for the hold's end with it. A member that flaps started its clock at
// one sync and dropped it at the next, a status write each; so a start is written at most once per hold, and the
// clock then starts later (a start held is not recorded: the next sync that sees the member down starts it anew), so
// nothing is timed from before it was seen down. A member that did not flap lately is timed from the first sync that
// sees it down, as before. A clock dropped (the member seen healthy, its pod Ready) is written at once: a member is
// never timed across a sync that saw it up, so one that flaps is never replaced.
import { isRecord, rfc3339, type CompositeSyncResponse, type ParentObject } from '../../lib/index.js';

/** How long a reported change of what members say stands before the next such change is reported (seconds). */
export const REPORT_HOLD_SECONDS = 15;

/** The status field that records when what members say was last reported. */
export const REPORTED_AT = 'healthReportedAt';

/** The status fields that only report what members said in the sync. */
const REPORT_KEYS: ReadonlySet<string> = new Set(['members', 'ready', 'leader', 'quorum', 'currentVersion']);
/**
 * The reasons of the conditions read from what members said while the cluster runs (Ready, Available, Scaling,
 * Upgrading, Recovering of a cluster whose members are all there or some are down): those conditions settle; any
 * other (a step under way, a refusal, a lost quorum, a held name or class) is written at once.
 */
export const HEALTH_REASONS: ReadonlySet<string> = new Set([
  'ClusterReady',
  'Degraded',
  'QuorumAvailable',
  'WaitingForHealthy',
  'AtSize',
  'AtVersion',
  'Healthy',
]);
/**
 * The reasons of every other condition the planner answers: written at once. Every condition reason in
 * hooks/etcdcluster is in exactly one of the two lists (test/etcdcluster/settle-reasons-classified.test.ts reads the
 * sources): a reason added there and not classified here fails it.
 */
export const AT_ONCE_REASONS: ReadonlySet<string> = new Set([
  // Steps under way and their waits.
  'Bootstrapping',
  'CancellingAddition',
  'Converging',
  'MembersRestarting',
  'MoveToRestartInPlaceFailed',
  'MovingToRestartInPlace',
  'PromotingLearner',
  'MemberDataLost',
  'ReplacingDeadMember',
  'ReplacingUnhealthyMember',
  'RestartingBootstrap',
  'BootstrapBackingOff',
  'MemberInitFailing',
  'MemberCannotStart',
  'RestartingMember',
  'RestartingMembers',
  'Restoring',
  'ScalingDown',
  'ScalingUp',
  'UpgradingMember',
  'WaitingForLearner',
  'WaitingForMember',
  'WaitingForQuorum',
  'WaitingForTermination',
  'WaitingForVersion',
  'WaitingToAdd',
  // Refusals, failures, held names and classes.
  'MemberNameNotChecked',
  'RestoreFailed',
  'ScaleUpFailed',
  'ScaleUpRefused',
  'StorageClassNotSeen',
  'TLSFailed',
  'AuthenticationEnabled',
  'ForeignMember',
  'BootstrapFailed',
  'UpgradeFailed',
  'UpgradeRefused',
  // A quorum lost, a member out of space, members lost for good.
  'AllMembersLost',
  'EtcdUnreachable',
  'MajorityCrashLooping',
  'MajorityLost',
  'NoSpace',
  'DataCorrupt',
  'QuorumLost',
]);
/** A listed member's fields that only report what it said. */
const MEMBER_REPORT_KEYS: ReadonlySet<string> = new Set(['healthy', 'leader', 'version', 'alarm']);
/** Fields stamped after the hook (lib/operator.ts) or by this step: neither report nor memory. */
const STAMPS: ReadonlySet<string> = new Set(['observedGeneration', REPORTED_AT]);

type Status = Record<string, unknown>;

/** JSON with every object's keys sorted: the stored status comes back from the API server in its own key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isRecord(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * The planner's clocks a member's answer starts (plan/answered.ts memberClocks): since when a started member whose pod
 * is not Ready is unhealthy, since when an addition waits for its member to start. Each starts at the first sync that
 * sees it so and is dropped at the first that does not.
 */
export const MEMBER_CLOCKS: ReadonlyArray<string> = ['unhealthySince', 'pendingSince'];

/** The names of the listed members that carry `clock` in a status. */
function timed(status: Status, clock: string): Set<string> {
  const list = status['memberList'];
  const names = new Set<string>();
  for (const m of Array.isArray(list) ? (list as unknown[]) : [])
    if (isRecord(m) && typeof m['name'] === 'string' && m[clock] !== undefined) names.add(m['name']);
  return names;
}

/** Whether a listed member was seen up, its clock dropped, less than REPORT_HOLD_SECONDS before `now`. */
function upLately(m: Status, now: Date): boolean {
  const at = typeof m['seenUpAt'] === 'string' ? Date.parse(m['seenUpAt']) : Number.NaN;
  const since = (now.getTime() - at) / 1000;
  return since >= 0 && since < REPORT_HOLD_SECONDS;
}

/**
 * `after` without the clocks it starts of members seen up lately (upLately): those `before` lists, seen up lately,
 * without them. (A clock dropped, or recorded at another time, stays, and so does the start of a member that did
 * not flap lately: only a start that follows a drop is ever held.)
 */
function withoutStarts(before: Status, after: Status, now: Date): Status {
  const list = after['memberList'];
  if (!Array.isArray(list)) return after;
  const listed = new Set(
    (Array.isArray(before['memberList']) ? (before['memberList'] as unknown[]) : [])
      .filter(isRecord)
      .filter((m) => upLately(m, now))
      .map((m) => m['name'])
      .filter((n) => typeof n === 'string'),
  );
  const running = new Map(MEMBER_CLOCKS.map((c) => [c, timed(before, c)]));
  return {
    ...after,
    memberList: (list as unknown[]).map((m) => {
      if (!isRecord(m) || typeof m['name'] !== 'string' || !listed.has(m['name'])) return m;
      const kept: Status = { ...m };
      for (const c of MEMBER_CLOCKS) if (!running.get(c)!.has(m['name'])) delete kept[c];
      return kept;
    }),
  };
}

/** A status's two parts, each as canonical text: what members said (report), and everything else (memory). */
function parts(status: Status): { report: string; memory: string } {
  const report: Status = {};
  const memory: Status = {};
  for (const [k, v] of Object.entries(status)) {
    if (STAMPS.has(k)) continue;
    if (k === 'quorum' && isRecord(v)) {
      // Whether quorum holds is read back by the planner (upgrade.ts quorumLostIn): never held.
      const { ok, ...counts } = v;
      report[k] = counts;
      memory['quorumOk'] = ok;
    } else if (REPORT_KEYS.has(k)) report[k] = v;
    else if (k === 'conditions' && Array.isArray(v)) {
      const said = (c: unknown) => isRecord(c) && typeof c['reason'] === 'string' && HEALTH_REASONS.has(c['reason']);
      report[k] = v.filter(said);
      memory[k] = v.filter((c) => !said(c));
    } else if (k === 'memberList' && Array.isArray(v)) {
      const said: unknown[] = [];
      const kept: unknown[] = [];
      for (const m of v as unknown[]) {
        const s: Status = {};
        const rest: Status = {};
        for (const [mk, mv] of Object.entries(isRecord(m) ? m : { value: m }))
          (MEMBER_REPORT_KEYS.has(mk) ? s : rest)[mk] = mv;
        said.push(s);
        kept.push(rest);
      }
      report[k] = said;
      memory[k] = kept;
    } else memory[k] = v;
  }
  return { report: canonical(report), memory: canonical(memory) };
}

/**
 * The answer with its status settled (see above): as answered, stamped when what members say changed; or, when only
 * that changed and it was last reported less than REPORT_HOLD_SECONDS ago, the stored status as it is, and the
 * cluster asked again once the hold ends.
 */
export function settleReport(parent: ParentObject, response: CompositeSyncResponse, now: Date | undefined) {
  const before = parent.status;
  const after = response.status;
  if (!now || !isRecord(after)) return response;
  const stamped = (at: unknown) =>
    typeof at === 'string' ? { ...response, status: { ...after, [REPORTED_AT]: at } } : response;
  if (!isRecord(before)) return stamped(rfc3339(now));
  const was = parts(before);
  const is = parts(after);
  if (was.report === is.report) return stamped(before[REPORTED_AT]);
  const at = typeof before[REPORTED_AT] === 'string' ? Date.parse(before[REPORTED_AT]) : Number.NaN;
  const since = (now.getTime() - at) / 1000;
  // A clock started with what members say waits for the hold's end as they do (a later start: never sooner).
  const started = was.memory !== is.memory && was.memory === parts(withoutStarts(before, after, now)).memory;
  if ((was.memory !== is.memory && !started) || !(since >= 0 && since < REPORT_HOLD_SECONDS))
    return stamped(rfc3339(now));
  const wait = Math.max(1, Math.ceil(REPORT_HOLD_SECONDS - since));
  const resync = response.resyncAfterSeconds;
  return {
    ...response,
    status: structuredClone(before),
    resyncAfterSeconds: typeof resync === 'number' && resync > 0 ? Math.min(resync, wait) : wait,
  };
}
