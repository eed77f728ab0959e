// Package settings reads, merges, watches and writes permopa's settings:
// the layers (managed, --settings files, PERMOPA_* variables, the
// project's local and shared files, the user's), rule parsing and
// validation, session rules and modes, project rules, `permopa rules
// lint` and `permopa rules export`, and the settings document
// (Settings.DocumentAt) the policy reads at data.permopa.settings.
//
// It evaluates no policy: it imports neither the engine nor OPA's
// evaluation. The engine imports it and stores the document it builds;
// Layers keep an engine up to date through Target. The mode names and
// file tool classes it checks rules against come from the policy through
// rego/tables. docs/architecture.md describes the layers and the rule.
package settings
