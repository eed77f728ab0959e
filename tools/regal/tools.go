//go:build tools

// Package tools pins Regal, the Rego linter, in a module of its own: Regal
// v0.42.0 needs gobwas/glob v0.2.3, whose API v1.1.0 (required by OPA
// v1.22.3 in the main module) broke, so the two cannot share a go.mod.
//
// Build it with:
//
//	cd tools/regal && go build -o ../../bin/regal github.com/open-policy-agent/regal
package tools

import _ "github.com/open-policy-agent/regal"
