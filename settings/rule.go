package settings

import "github.com/permopa/permopa/permission"

// Behaviors of a rule (permission.Rule.Behavior), as the policy spells them.
const (
	allow = permission.Allow
	deny  = permission.Deny
	ask   = permission.Ask
)
