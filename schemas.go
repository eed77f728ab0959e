// Package permopa holds, besides the repository's hygiene tests, the JSON
// schemas of the documents permopa's policy reads (Schemas).
package permopa

import "embed"

// Schemas holds schemas/input.json (one tool call, docs/api.md#input),
// schemas/settings.json (data.permopa.settings, settings.Document) and
// schemas/rules.json (data.permopa.rules, settings.RuleSet). The policy's
// METADATA names them (schema.input, schema.settings, schema.rules), so
// that `permopa check --strict --schema schemas rego` type-checks the
// policy against them (docs/architecture.md). The directory holds nothing
// else, since --schema reads every file in it, and it is not under rego/,
// which loaded as a directory would read the schemas as data.
//
//go:embed schemas/*.json
var Schemas embed.FS
