// Package guard is permopa's Go guard API (docs/api.md, "Go API"): a
// Policy (AllowTools, DenyTools, RequireApprovalForTools, in the style of
// ai4j's permission policies) and a Guard around a tool Executor that asks
// the engine before every call and runs it only on ALLOW. A DENY is a
// PermissionDeniedError the model sees as the tool's result; an ASK is an
// ApprovalRequiredError the host answers (Confirm, RunApproved).
package guard
