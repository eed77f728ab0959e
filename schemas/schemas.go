// Package schemas embeds the JSON schemas of the documents permopa's policy
// reads: input.json (one tool call, docs/api.md#input), settings.json
// (data.permopa.settings, settings.Document) and rules.json
// (data.permopa.rules, settings.RuleSet). The policy's METADATA names them
// (schema.input, schema.settings, schema.rules), so that
// `permopa check --strict --schema schemas rego` type-checks the policy
// against them (docs/architecture.md). They live outside rego/ so that
// loading rego/ as a directory does not read them as data.
package schemas

import "embed"

// FS holds input.json, settings.json and rules.json.
//
//go:embed *.json
var FS embed.FS
