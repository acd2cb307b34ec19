//go:build tools

// Package tools pins the etcd server and etcdutl (snapshot restore) commands.
package tools

import (
	_ "go.etcd.io/etcd/etcdutl/v3"
	_ "go.etcd.io/etcd/server/v3"
)
