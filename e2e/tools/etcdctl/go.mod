// Wrapper module: a stand-in for the etcdctl v3 commands a member pod's probes run (`alarm list`, `endpoint
// status`), with etcdctl's flags, exit codes and client (go.etcd.io/etcd/client/v3), for the tests that run a probe
// command as the kubelet would (test/real). etcdctl's own module is not served by the Go module proxy
// here. Not part of the product; never shipped.
module metaops.local/e2e/etcdctl

go 1.25.0

require (
	go.etcd.io/etcd/client/pkg/v3 v3.6.9
	go.etcd.io/etcd/client/v3 v3.6.9
)

require (
	github.com/coreos/go-semver v0.3.1 // indirect
	github.com/coreos/go-systemd/v22 v22.5.0 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/grpc-ecosystem/grpc-gateway/v2 v2.26.3 // indirect
	go.etcd.io/etcd/api/v3 v3.6.9 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.uber.org/zap v1.27.0 // indirect
	golang.org/x/net v0.51.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/text v0.34.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20251202230838-ff82c1b0f217 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20251202230838-ff82c1b0f217 // indirect
	google.golang.org/grpc v1.79.3 // indirect
	google.golang.org/protobuf v1.36.10 // indirect
)
