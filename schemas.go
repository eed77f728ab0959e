// Package permopa holds, besides the repository's hygiene tests, the JSON
// schemas of the documents permopa's policy reads (Schemas).
package permopa

import "embed"

// Schemas holds schemas/permopa/input.json (one tool call,
// docs/api.md#input), schemas/permopa/settings.json (data.permopa.settings,
// settings.Document) and schemas/permopa/rules.json (data.permopa.rules,
// settings.RuleSet). The policy's METADATA names them schema.permopa.input,
// schema.permopa.settings and schema.permopa.rules: the names OPA gives
// these files when the directory schemas/ is a schema set (`--schema
// schemas`), namespaced so that they never meet a policy author's own
// schema.input. `permopa check` type-checks a policy that names them
// against this copy with no flag (cmd/permopa/check.go,
// docs/architecture.md#the-data-documents). The directory holds nothing
// else, since --schema reads every file in it, and it is not under rego/,
// which loaded as a directory would read the schemas as data.
//
//go:embed schemas/permopa/*.json
var Schemas embed.FS
