//go:build tools

// Helm, built from the Go module proxy for the chart's lint, template and install tests (e2e/build.sh helm).
package tools

import _ "helm.sh/helm/v3/cmd/helm"
