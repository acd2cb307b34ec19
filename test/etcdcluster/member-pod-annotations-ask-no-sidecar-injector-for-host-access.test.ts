// spec.pod.labels and spec.pod.annotations are copied onto every member pod, which Metacontroller creates with its own
// rights, in a namespace whose administrator may have set no Pod Security label because its tenants make no pods
// (docs/operating.md "Tenants": "the pods metaops makes keep Pod Security baseline's kernel confinement"). Istio's
// sidecar injector (a mutating webhook most meshed clusters run) reads pod annotations as instructions: the pod label
// `sidecar.istio.io/inject: "true"` asks for the sidecar whatever the namespace says (unless the namespace opts out);
// `sidecar.istio.io/userVolume` / `userVolumeMount` add any volume, a hostPath of `/` included, to the pod and mount it
// into the proxy; `sidecar.istio.io/proxyImage` runs the proxy (and its init container, with NET_ADMIN and NET_RAW)
// from the image named. So tenant A, who may only create custom resources (issue 29), gets its own image running with
// the node's root filesystem mounted and network capabilities, on a shared node: everything `baseline` refuses, asked
// for by annotations the hook checks only for form (it refuses the same reach by securityContext, and Multus's
// network annotations, lib/pod-policy.ts).
//
// Must hold: no member pod carries an annotation asking an admission component for a host volume or for its own image
// in a privileged container: such a spec is InvalidSpec naming the field, and no member pod carries it.
import t from 'tap';
import { etcdRefusal } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const escape = {
  labels: { 'sidecar.istio.io/inject': 'true' },
  annotations: {
    'sidecar.istio.io/userVolume': '{"host":{"hostPath":{"path":"/"}}}',
    'sidecar.istio.io/userVolumeMount': '{"host":{"mountPath":"/host"}}',
    'sidecar.istio.io/proxyImage': 'registry.tenant-a.example/exfil:v1',
  },
};

const cases: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    'a hostPath volume for the sidecar',
    {
      labels: escape.labels,
      annotations: {
        'sidecar.istio.io/userVolume': escape.annotations['sidecar.istio.io/userVolume'],
        'sidecar.istio.io/userVolumeMount': escape.annotations['sidecar.istio.io/userVolumeMount'],
      },
    },
    /spec\.pod\.annotations\["sidecar\.istio\.io\/userVolume(Mount)?"\]/,
  ],
  [
    "the tenant's image as the (NET_ADMIN) proxy and init container",
    {
      labels: escape.labels,
      annotations: { 'sidecar.istio.io/proxyImage': escape.annotations['sidecar.istio.io/proxyImage'] },
    },
    /spec\.pod\.annotations\["sidecar\.istio\.io\/proxyImage"\]/,
  ],
  ['both', escape, /spec\.pod\.annotations/],
];

for (const [what, pod, field] of cases) {
  t.test(`spec.pod asking Istio's injector for ${what}: InvalidSpec, no member carries it`, async (t) => {
    const spec = { size: 3, repository: 'registry.tenant-a.example/exfil', version: '3.5.0', pod };
    t.match(await etcdRefusal(spec), field, 'refused naming the field');
    const fresh = await running(spec);
    const asking = fresh.children
      .filter((c) => c.kind === 'Pod')
      .filter((p) => Object.keys(p.metadata.annotations ?? {}).some((k) => k.startsWith('sidecar.istio.io/')))
      .map((p) => p.metadata.name);
    t.same(asking, [], 'no member pod asks the injector for host access or its image');
  });
}
