// A debug container's securityContext is compared for the rights it grants: the one a spec adds, stored with
// restrictions a mutating admission policy added to it (allowPrivilegeEscalation false, capabilities dropped,
// runAsNonRoot, a RuntimeDefault seccomp profile...), grants less and is that spec's container (injected). One that
// grants anything the spec's does not (privileged, a capability added, a restriction of the spec's taken away, a user,
// an SELinux type, a Localhost seccomp profile, an unmasked /proc) is not: outdated, whatever admission also added.
import t from 'tap';
import { containerDiffers, ephemeralContainer, parser, podState } from '../../hooks/podbuggertool/match.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { FakeApi, pod, statusAndApply, tool } from '../fixtures/pbt.js';

const spec = (extra: Record<string, unknown>) => {
  const parsed = parser.parse({ label: 'app=web', image: 'busybox:1.36', ...extra });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed));
  return parsed.spec;
};
const added = (extra: Record<string, unknown>) => ephemeralContainer('a', spec(extra), pod('p', { app: 'web' }));
const withContext = (extra: Record<string, unknown>, securityContext: unknown): KubeObject =>
  pod('p', { app: 'web' }, { ephemeralContainers: [{ ...added(extra), securityContext }] });

const RESTRICTED = {
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

t.test('restrictions added to the container a spec adds: that container', async (t) => {
  for (const [extra, stored] of [
    [{}, { allowPrivilegeEscalation: false, capabilities: { drop: ['NET_RAW'] } }],
    [{}, RESTRICTED],
    [
      {},
      {
        ...RESTRICTED,
        privileged: false,
        readOnlyRootFilesystem: true,
        procMount: 'Default',
        appArmorProfile: { type: 'RuntimeDefault' },
      },
    ],
    [
      { securityProfile: 'restricted', runAsUser: 1000 },
      { ...RESTRICTED, runAsUser: 1000 },
    ],
    [
      { securityProfile: 'restricted', runAsUser: 1000 },
      { ...RESTRICTED, runAsUser: 1000, capabilities: { drop: ['NET_RAW', 'ALL'] }, readOnlyRootFilesystem: true },
    ],
    [{ securityProfile: 'general' }, { capabilities: { add: ['SYS_PTRACE'], drop: ['NET_RAW'] } }],
    [
      { securityProfile: 'general' },
      { capabilities: { add: ['SYS_PTRACE'], drop: ['ALL'] }, allowPrivilegeEscalation: false },
    ],
    [{ securityProfile: 'netadmin' }, { capabilities: { add: ['NET_RAW', 'NET_ADMIN'] } }],
    [{ runAsUser: 1000 }, { runAsUser: 1000, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }],
  ] as const) {
    t.same(
      podState(withContext(extra, stored), 'a', spec(extra)),
      { state: 'injected' },
      JSON.stringify([extra, stored]),
    );
  }
});

t.test('a right the spec does not give: outdated, whatever restrictions come with it', async (t) => {
  for (const [extra, stored] of [
    // an earlier sysadmin tool's container, for a restricted or baseline one
    [{ securityProfile: 'restricted', runAsUser: 1000 }, { privileged: true }],
    [
      { securityProfile: 'restricted', runAsUser: 1000 },
      { ...RESTRICTED, runAsUser: 1000, privileged: true },
    ],
    [{}, { privileged: true, allowPrivilegeEscalation: false }],
    // a capability added, or one of the spec's drops taken away
    [{}, { capabilities: { add: ['SYS_PTRACE'] } }],
    [{}, { capabilities: { add: ['SYS_ADMIN'], drop: ['NET_RAW'] } }],
    [{ securityProfile: 'general' }, { capabilities: { add: ['SYS_PTRACE', 'NET_ADMIN'] } }],
    [
      { securityProfile: 'restricted', runAsUser: 1000 },
      { ...RESTRICTED, runAsUser: 1000, capabilities: {} },
    ],
    [
      { securityProfile: 'restricted', runAsUser: 1000 },
      { ...RESTRICTED, runAsUser: 1000, capabilities: { drop: ['NET_RAW'] } },
    ],
    [
      { securityProfile: 'restricted', runAsUser: 1000 },
      { ...RESTRICTED, runAsUser: 1000, capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] } },
    ],
    [
      { securityProfile: 'restricted', runAsUser: 1000 },
      { ...RESTRICTED, runAsUser: 1000, unknown: { x: 1 } },
    ],
    // a restriction of the spec's loosened or taken away
    [
      { securityProfile: 'restricted', runAsUser: 1000 },
      { ...RESTRICTED, runAsUser: 1000, runAsNonRoot: false },
    ],
    [
      { securityProfile: 'restricted', runAsUser: 1000 },
      { ...RESTRICTED, runAsUser: 1000, runAsNonRoot: undefined },
    ],
    [
      { securityProfile: 'restricted', runAsUser: 1000 },
      { ...RESTRICTED, runAsUser: 1000, allowPrivilegeEscalation: true },
    ],
    [
      { securityProfile: 'restricted', runAsUser: 1000 },
      { ...RESTRICTED, runAsUser: 1000, seccompProfile: { type: 'Unconfined' } },
    ],
    // settings that may grant something, which a restricting policy does not add
    [{}, { allowPrivilegeEscalation: true }],
    [{}, { runAsUser: 0 }],
    [{ runAsUser: 1000 }, { runAsUser: 2000 }],
    [{}, { runAsGroup: 0 }],
    [{}, { seccompProfile: { type: 'Unconfined' } }],
    [{}, { seccompProfile: { type: 'Localhost', localhostProfile: 'permissive.json' } }],
    [{}, { appArmorProfile: { type: 'Unconfined' } }],
    [{}, { seLinuxOptions: { type: 'spc_t' } }],
    [{}, { procMount: 'Unmasked' }],
    [{}, { windowsOptions: { hostProcess: true } }],
    [{}, { readOnlyRootFilesystem: false, runAsNonRoot: false }],
    [{}, { capabilities: { drop: ['NET_RAW'], extra: ['x'] } }],
    [{}, { capabilities: { drop: 'ALL' } }],
    [{ securityProfile: 'general' }, { capabilities: { add: ['SYS_ADMIN'] } }],
    [{}, { capabilities: { add: 'SYS_ADMIN' } }],
    [{}, { capabilities: 'ALL' }],
    [{}, 'privileged'],
    [{}, 5],
    [{}, []],
    [{}, [{ privileged: true }]],
  ] as const) {
    t.match(
      podState(withContext(extra, stored), 'a', spec(extra)),
      { state: 'outdated', differs: ['securityContext'] },
      JSON.stringify([extra, stored]),
    );
  }
});

t.test('the spec keeps its own rights: a container with fewer of them is not its container', async (t) => {
  // ptrace asked for, and not there: the spec's container would have it.
  t.same(containerDiffers(added({ securityProfile: 'general' }), added({})), ['securityContext']);
  t.same(containerDiffers(added({}), added({ securityProfile: 'general' })), ['securityContext']);
  t.same(containerDiffers(added({ securityProfile: 'netadmin' }), added({ securityProfile: 'general' })), [
    'securityContext',
  ]);
  t.same(containerDiffers(added({}), added({ securityProfile: 'sysadmin' })), ['securityContext']);
});

t.test('an image that is not text is no image the spec adds', async (t) => {
  for (const image of [5, null, undefined, ['busybox:1.36'], { name: 'busybox:1.36' }])
    t.same(containerDiffers({ ...added({}), image }, added({})), ['image'], JSON.stringify(image));
});

t.test(
  "a tool's status: restricted by admission injected, an earlier sysadmin tool's container outdated",
  async (t) => {
    const restrictedTool = { label: 'app=web', image: 'busybox:1.36', securityProfile: 'restricted', runAsUser: 1000 };
    const mine = added({ securityProfile: 'restricted', runAsUser: 1000 });
    const admitted = { ...mine, securityContext: { ...RESTRICTED, runAsUser: 1000, readOnlyRootFilesystem: true } };
    const sysadmin = {
      ...mine,
      securityContext: { ...RESTRICTED, privileged: true, readOnlyRootFilesystem: true },
    };
    const api = new FakeApi()
      .put(tool('a', restrictedTool))
      .put(pod('web-1', { app: 'web' }, { ephemeralContainers: [admitted] }))
      .put(pod('web-2', { app: 'web' }, { ephemeralContainers: [sysadmin] }));
    const res = await statusAndApply(api, ['dbg', 'a']);
    t.match(res.status, { matched: 2, injected: 1, outdated: 1 });
    t.match(res.status, { conditions: [{ type: 'Ready', status: 'False', reason: 'Outdated' }] });
  },
);
