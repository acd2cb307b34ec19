//go:build tools

// Package tools pins the etcd 3.5 server command.
package tools

import _ "go.etcd.io/etcd/server/v3"
