#!/usr/bin/env bash
# Builds the real components of the end-to-end suite and the EtcdCluster tests from the Go module proxy, into a
# cache outside the clone:
#   kube-apiserver, kube-controller-manager, kubectl   (k8s.io/kubernetes, e2e/tools/kube)
#   etcd v3.6 and v3.5                                 (go.etcd.io/etcd/server/v3, e2e/tools/etcd, e2e/tools/etcd35)
#   metacontroller + its CRD manifests                 (github.com/metacontroller/metacontroller, e2e/tools/metacontroller)
#   helm                                               (helm.sh/helm/v3, e2e/tools/helm; cached on its own, linked in)
# Each is rebuilt only when missing. Prints the bin directory on the last line of stdout.
# Usage: e2e/build.sh [kube] [etcd] [metacontroller] [helm] [etcdctl]   (no argument: all of them but etcdctl)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

KUBE_VERSION=v1.36.3
ETCD_VERSION=v3.6.9
ETCD_OLD_VERSION=v3.5.21   # a second etcd, for the real upgrade test
MC_VERSION=v1.5.20
HELM_VERSION=$(sed -nE 's/^require helm.sh\/helm\/v3 (v[0-9.]+)$/\1/p' "$here/tools/helm/go.mod")
# The cache key changes when a wrapper module changes, so a new pin rebuilds. Helm has its own (a new Helm does
# not rebuild Kubernetes).
key=$(for f in go.mod go.sum; do for t in etcd etcd35 kube metacontroller; do cat "$here/tools/$t/$f"; done; done |
  sha256sum | cut -c1-12)
ROOT=${METAOPS_E2E_CACHE:-$HOME/.cache/metaops/e2e}
CACHE=$ROOT/k8s-$KUBE_VERSION-etcd-$ETCD_VERSION-$ETCD_OLD_VERSION-mc-$MC_VERSION-$key
# As Helm's Makefile builds it: the Kubernetes version it renders for (.Capabilities, kubeVersion checks, lint's
# deprecations) is its client-go's, 0.N -> 1.N.
HELM_KUBE_MINOR=$(sed -nE 's/^\s*k8s.io\/client-go v0\.([0-9]+)\..*/\1/p' "$here/tools/helm/go.mod")
HELM_LDFLAGS="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
for p in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  HELM_LDFLAGS="$HELM_LDFLAGS -X $p.k8sVersionMajor=1 -X $p.k8sVersionMinor=$HELM_KUBE_MINOR"
done
HELM_DIR=$ROOT/helm-$HELM_VERSION-$( (cat "$here"/tools/helm/go.mod "$here"/tools/helm/go.sum; echo "$HELM_LDFLAGS") | sha256sum | cut -c1-12)
BIN=$CACHE/bin
mkdir -p "$BIN"
# Test files start in parallel and may all ask for the components at once on a new machine: one build at a time.
exec 9>"$CACHE/.lock"
flock 9
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false
# The one Metacontroller release the proxy serves is not in the checksum database; go.sum pins its hash.
export GONOSUMDB=github.com/metacontroller/metacontroller GONOSUMCHECK=1

want() { [ $# -eq 0 ] || [ "${WANT:-}" = "" ] || [[ " $WANT " == *" $1 "* ]]; }
WANT="$*"
step() { echo "e2e-build: $*" >&2; }
timed() { local start=$SECONDS; "$@"; step "  took $((SECONDS - start))s"; }

if want kube && { [ ! -x "$BIN/kube-apiserver" ] || [ ! -x "$BIN/kube-controller-manager" ] || [ ! -x "$BIN/kubectl" ]; }; then
  step "building kube-apiserver, kube-controller-manager and kubectl $KUBE_VERSION (cold: several minutes)"
  ldf="-s -w"
  minor=$(echo "$KUBE_VERSION" | cut -d. -f2)
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf="$ldf -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$here/tools/kube" && timed go build -trimpath -ldflags "$ldf" -o "$BIN/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl) >&2
fi

if want etcd && { [ ! -x "$BIN/etcd" ] || [ ! -x "$BIN/etcdutl" ]; }; then
  step "building etcd and etcdutl $ETCD_VERSION"
  (cd "$here/tools/etcd" && timed go build -trimpath -ldflags "-s -w" -o "$BIN/etcd" go.etcd.io/etcd/server/v3 &&
    go build -trimpath -ldflags "-s -w" -o "$BIN/etcdutl" go.etcd.io/etcd/etcdutl/v3) >&2
fi

if want etcd && [ ! -x "$BIN/etcd-$ETCD_OLD_VERSION" ]; then
  step "building etcd $ETCD_OLD_VERSION"
  (cd "$here/tools/etcd35" && timed go build -trimpath -ldflags "-s -w" -o "$BIN/etcd-$ETCD_OLD_VERSION" go.etcd.io/etcd/server/v3) >&2
fi
# Member binaries by image tag, for the EtcdCluster tests' kubelet.
ln -sf etcd "$BIN/etcd-$ETCD_VERSION"

if want metacontroller && { [ ! -x "$BIN/metacontroller" ] || [ ! -f "$CACHE/metacontroller/metacontroller-crds-v1.yaml" ]; }; then
  step "building metacontroller $MC_VERSION"
  (cd "$here/tools/metacontroller" && timed go build -trimpath -ldflags "-s -w -X main.version=$MC_VERSION" \
    -o "$BIN/metacontroller" metacontroller) >&2
  dir=$(cd "$here/tools/metacontroller" && go mod download -json github.com/metacontroller/metacontroller@$MC_VERSION |
    sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  mkdir -p "$CACHE/metacontroller"
  for f in metacontroller-namespace.yaml metacontroller-rbac.yaml metacontroller-crds-v1.yaml; do
    cp "$dir/manifests/production/$f" "$CACHE/metacontroller/$f"
  done
  chmod -R u+w "$CACHE/metacontroller"
fi

if want helm && [ ! -x "$HELM_DIR/helm" ]; then
  step "building helm $HELM_VERSION"
  mkdir -p "$HELM_DIR"
  (cd "$here/tools/helm" && timed go build -trimpath -ldflags "$HELM_LDFLAGS" -o "$HELM_DIR/helm" helm.sh/helm/v3/cmd/helm) >&2
fi
if want helm; then ln -sfn "$HELM_DIR/helm" "$BIN/helm"; fi

# A stand-in for the etcdctl commands a member pod's probes run (e2e/tools/etcdctl: etcdctl's own module is not served
# here), for the real probe tests; built only when asked for (`e2e/build.sh etcdctl`), named by its sources' hash.
if [[ " $WANT " == *" etcdctl "* ]]; then
  ctl=$BIN/etcdctl-probes-$(cat "$here"/tools/etcdctl/go.mod "$here"/tools/etcdctl/go.sum "$here"/tools/etcdctl/main.go |
    sha256sum | cut -c1-12)
  if [ ! -x "$ctl" ]; then
    step "building the etcdctl stand-in for member probes"
    (cd "$here/tools/etcdctl" && timed go build -trimpath -ldflags "-s -w" -o "$ctl" .) >&2
  fi
  ln -sf "$(basename "$ctl")" "$BIN/etcdctl-probes"
fi

step "components ready in $BIN"
echo "$BIN"
