//go:build tools

// Package tools pins the Metacontroller command the end-to-end suite builds.
package tools

import _ "metacontroller"
