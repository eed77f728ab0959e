// Package rego embeds permopa's default policy: plain, documented Rego v1,
// one package per concern under permopa/policy/ (decision, call, modes, rules,
// tools/...). The engine compiles it when no bundle replaces it.
package rego

import "embed"

// FS holds the default policy's .rego files, rooted at "permopa/".
//
//go:embed permopa
var FS embed.FS

// Schemas holds the JSON schemas of the documents the policy reads:
// input.json (one tool call), settings.json (data.permopa.settings) and
// rules.json (data.permopa.rules). The policy's METADATA names them
// (schema.input, schema.settings, schema.rules); `permopa check --strict
// --schema rego/schemas rego` type-checks the policy against them
// (docs/architecture.md).
//
//go:embed schemas/*.json
var Schemas embed.FS
