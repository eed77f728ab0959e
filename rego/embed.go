// Package rego embeds permopa's default policy: plain, documented Rego v1,
// one package per concern under permopa/policy/ (decision, call, modes, rules,
// tools/...). The engine compiles it when no bundle replaces it.
package rego

import "embed"

// FS holds the default policy's .rego files, rooted at "permopa/".
//
//go:embed permopa
var FS embed.FS
