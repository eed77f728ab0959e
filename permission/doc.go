// Package permission holds permopa's wire types: the Decision answered for
// a tool call, the Rule it matched or suggests, and the stable error codes
// of faults and refused requests (docs/api.md). It is what a Go program
// imports to read a decision, whether it came from the engine, from
// `permopa decide`, from a hook or from a server's /v1/permission/check.
//
// It imports the standard library only, on purpose: the small hook client
// (cmd/permopa-hook) links it without linking OPA (docs/architecture.md).
package permission
