package permission

// Check ids: which check gave a decision at step "tool_check" (its ALLOW,
// DENY or safety ASK) or "deny_rule_uncertain" (Decision.Check). Stable
// strings a host can build on instead of the message; docs/api.md lists
// each with when it happens, and a test holds that list, these constants
// and the ids the default policy writes together.
const (
	// Safety ASKs (bypass_immune; DENY where nobody can answer).
	CheckSelfProtection   = "self_protection"   // Bash, Write, Edit: writes permission settings (BYPASS asks too)
	CheckUnanalysable     = "unanalysable"      // Bash: the command cannot be analysed statically
	CheckGitRepository    = "git_repository"    // Bash: git runs where its repository is not a .git directory
	CheckProjectConfig    = "project_config"    // Bash: a program's configuration in the project runs code or reads other files
	CheckDangerousWrite   = "dangerous_write"   // Bash, Write, Edit: writes a dangerous path
	CheckDangerousOperand = "dangerous_operand" // Bash: a program permopa cannot model has a dangerous path as an operand
	CheckCredentialRead   = "credential_read"   // Bash, Read, Glob, Grep: reads a credential path
	CheckEnvironmentDump  = "environment_dump"  // Bash: prints the environment
	CheckCriticalRemoval  = "critical_removal"  // Bash: removes a critical path
	CheckDangerousPattern = "dangerous_pattern" // Bash: dd of=, mkfs, a recursive chmod of a critical path, ...
	CheckUncertainHost    = "uncertain_host"    // WebFetch: permopa cannot read the URL's host as the fetcher would
	CheckUnseenCode       = "unseen_code"       // step deny_rule_uncertain: a deny rule could match code permopa cannot read
	CheckUnseenTree       = "unseen_tree"       // step deny_rule_uncertain: a deny rule could match in a tree too large to check

	// The other outcomes of tool checks.
	CheckEditsInside     = "edits_inside"     // ALLOW in ACCEPT_EDITS and DONT_ASK: every write inside the working directories
	CheckCustomPolicy    = "custom_policy"    // a policy package's check (data.permopa.custom.<tool>.check)
	CheckHostCheck       = "host_check"       // the input's tool_check: the host's own check
	CheckInvalidBehavior = "invalid_behavior" // DENY: a custom or host check whose behavior is none of the four
)
