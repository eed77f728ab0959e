# METADATA
# title: Bash tool check
# description: |
#   The Bash tool: the command is analysed once by permopa.bash.analyze
#   (leaves, wrappers, paths read and written, critical removals, dangerous
#   patterns; docs/shell.md) and judged here: read-only fast path, safety ASKs,
#   and the working-directory auto-allow of ACCEPT_EDITS and DONT_ASK.
# schemas:
#   - input: schema.permopa.input
#   - data.permopa.settings: schema.permopa.settings
#   - data.permopa.rules: schema.permopa.rules
package permopa.policy.tools.bash

import data.permopa.policy.call
import data.permopa.policy.modes

# METADATA
# description: The command line.
command := input.tool_input.command

# METADATA
# description: The analysis of the command (see permopa.bash.analyze).
analysis := permopa.bash.analyze(input.tool_input.command, call.context.bash_opts)

# METADATA
# description: |
#   The hard analysis limit the command exceeds (command_length,
#   nesting_depth, word_count, command_count), undefined when none. The
#   analyser stopped there, so the call is denied (builtins/bash/doc.go, "Limits").
limit_exceeded := analysis.limit_exceeded if analysis.limit_exceeded != ""

# What the command reads: the paths it reads, the operands of programs the
# vocabulary cannot place (any may be read: less ~/.ssh/id_rsa), and the
# trees it reads recursively (grep -r KEY ~ reads ~/.ssh; see docs/reads.md,
# "Recursive reads"). A tree too large to check is in _reads.unknown.
_reads := permopa.path.check(
	array.flatten([analysis.reads, analysis.touches, analysis.recursive_reads]),
	call.context.path_opts,
)

# METADATA
# description: |
#   The trees the command reads that are too large to check ({path,
#   reason}): a deny or ask rule could match beyond the walk
#   (docs/decision.md, point 1).
unknown_trees := _reads.unknown

# METADATA
# description: |
#   Whether printing the environment (printenv, env, export -p, jq env, ps e,
#   ...) is a credential read: true unless the settings say
#   environment_is_secret: false.
# scope: document
default environment_is_secret := true

environment_is_secret := false if data.permopa.settings.environment_is_secret == false

_reads_environment if {
	count(analysis.environment) > 0
	environment_is_secret
}

_writes := permopa.path.check(analysis.writes, call.context.write_opts)

# Writes of permission settings whose place is not known but whose
# spelling names them (protected-write: "cd $D; echo x > .permopa/s").
_unplaced_protected := [{"path": h.detail, "reason": "names permission settings; its directory is not known statically"} |
	some h in analysis.dangerous
	h.pattern == "protected-write"
]

# What is removed or renamed away takes what it holds along (mv .permopa
# .old, rm -rf of a project holding .permopa); looked at only when the
# command removes something.
default _removals := {"protected": []}

_removals := permopa.path.check(analysis.removals, object.union(call.context.write_opts, {"removes": true})) if {
	count(analysis.removals) > 0
}

# Operands of programs the vocabulary cannot place (less, tar, scp, an
# unknown writer): any of them may be written.
default _touches := {"dangerous": [], "credential": [], "protected": []}

_touches := permopa.path.check(analysis.touches, call.context.write_opts) if count(analysis.touches) > 0

# The git commands' repositories that are not a .git directory (a bare
# repository runs programs from its config on "git status"), looked up on
# disk only when the command runs git.
default _git_repos := []

_git_repos := permopa.path.git_repositories(analysis.git_dirs, call.context.path_opts) if {
	count(analysis.git_dirs) > 0
}

# What git (every git leaf) and read-only yarn, npm, pnpm, cargo and rustc leaves load
# from the project that runs code, writes or reads other files (a
# repository's core.fsmonitor, diff.external, textconv and filter drivers,
# post-index-change hook; .yarnrc.yml yarnPath; .npmrc userconfig;
# docs/shell.md, "What a program reads besides its argv"), read on disk
# only when such a leaf runs. A finding is a safety ASK, as a bare
# repository is: an allow rule for the command does not mean its project.
default _project_configs := []

_project_configs := permopa.path.project_configs(_config_uses, call.context.path_opts) if {
	count(_config_uses) > 0
}

# Environment the host sets for every command from the project's own
# files (input.project_env, set by the hooks: Gemini CLI's .env, a
# project's host settings; docs/shell.md, "What a program reads besides
# its argv"): a name a shell or a known program reads (BASH_ENV, GIT_PAGER,
# LD_PRELOAD; not DATABASE_URL) is a finding like a configuration entry.
default _host_env_read := set()

_host_env_read := {n | some n in permopa.bash.env_read([e.name | some e in input.project_env])} if {
	count(input.project_env) > 0
}

_host_env_findings := [f |
	some e in input.project_env
	e.name in _host_env_read
	f := {
		"program": "the host",
		"path": call.context.cwd,
		"file": e.file,
		"line": 0,
		"key": "",
		"reason": sprintf("sets %s for every command, which a shell or a program reads", [e.name]),
	}
]

_config_findings := array.concat(_project_configs, _host_env_findings)

# The programs of read-only leaves PATH looks up (path_programs) are
# looked up the same way: a file PATH finds inside the project is the
# project's program.
_config_uses := array.concat(analysis.project_configs, analysis.path_programs)

# METADATA
# description: |
#   The command is read-only: every leaf is, nothing is written, no
#   credential path is read (`cat .env` is not read-only), no tree read
#   recursively holds one or is too large to tell, the environment is
#   not printed (unless the settings say it holds no secret), no network
#   read is left to ask (network_read_asked), git finds the .git
#   directory of a work tree wherever it runs, and no configuration the
#   programs load from the project runs code.
read_only if {
	analysis.read_only
	count(_reads.credential) == 0
	count(_reads.unknown) == 0
	not _reads_environment
	not network_read_asked
	count(_git_repos) == 0
	count(_config_findings) == 0
}

# METADATA
# description: |
#   Why the command is not read-only, for explanations: one reason per
#   condition of read_only above that fails, from the same intermediate
#   rules (docs/decision.md, "Explanations"). Empty when it is read-only.
not_read_only_because := array.flatten([
	analysis.not_read_only,
	[sprintf("reads credential path %s", [h.path]) | some h in _reads.credential],
	[sprintf("reads a tree too large to check: %s (%s)", [h.path, h.reason]) | some h in _reads.unknown],
	[r | _reads_environment; r := "prints the environment, which may hold secrets (environment_is_secret)"],
	[r |
		network_read_asked
		r := sprintf("it reads from the network (%s) and the setting network_reads is ask", [concat(", ", network_leaves)])
	],
	[sprintf("git in %s uses %s (%s)", [g.path, g.repository, g.reason]) | some g in _git_repos],
	[_config_finding(f) | some f in _config_findings],
])

_config_finding(f) := sprintf("%s in %s loads %s:%d %s: %s", [f.program, f.path, f.file, f.line, f.key, f.reason]) if {
	f.key != ""
} else := sprintf("%s in %s loads %s: %s", [f.program, f.path, f.file, f.reason])

# METADATA
# description: |
#   The leaves that read from a service configured outside the command
#   (program and subcommand), for explanations.
network_leaves := [trim_space(concat(" ", [l.program, object.get(l, "subcommand", "")])) |
	some l in analysis.leaves
	l.network == "read"
]

# METADATA
# description: |
#   The command is read-only but reads from the network (a leaf that only
#   talks to a service configured outside the command: kubectl get, gh pr
#   view, npm view), and the setting network_reads says ask: it is then
#   judged like any command that is not read-only (allow rules, the mode's
#   fallback; EXPLORE denies). A destination named in the command (curl
#   URL, git ls-remote URL) is never read-only (the analysis says so).
network_read_asked if {
	analysis.network_read
	call.context.network_reads != "allow"
}

# METADATA
# description: |
#   The tool check of decision point 4. Safety ASKs (bypass_immune) come
#   first: constructs that cannot be analysed, writes to dangerous paths,
#   reads of credential paths, removal of critical paths, dangerous command
#   patterns. Then, in ACCEPT_EDITS and DONT_ASK, ALLOW when every leaf is
#   read-only or a filesystem command writing only inside working directories
#   (and no tree it reads is too large to check).
# scope: document
default check := {"behavior": "PASSTHROUGH", "bypass_immune": false, "message": ""}

# Each outcome is written out, with its stable id (docs/api.md, "Check
# ids"): a helper function would cost OPA more than the object on every
# call that reaches it. Writing permission settings comes first: it is the one safety ASK that BYPASS does not skip
# (self_protection; see decision.rego).
check := {
	"id": "self_protection",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf(
		"Bash command writes permission settings, which the agent may not change on its own: %s",
		[_hits(array.flatten([_writes.protected, _touches.protected, _removals.protected, _unplaced_protected]))],
	),
} if {
	((count(_writes.protected) + count(_touches.protected)) + count(_removals.protected)) + count(_unplaced_protected) > 0
} else := {
	"id": "unanalysable",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf("Bash command cannot be analysed statically: %s", [concat("; ", analysis.reasons)]),
} if {
	not analysis.analysable
} else := {
	"id": "git_repository",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf(
		"Bash command runs git where its repository is not a .git directory (its configuration can run programs): %s",
		[concat("; ", sort({sprintf("%s: %s %s", [h.path, h.reason, h.repository]) | some h in _git_repos}))],
	),
} if {
	count(_git_repos) > 0
} else := {
	"id": "project_config",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf(
		"Bash command runs a program the project chose, or whose configuration in the project runs code or reads other files: %s",
		[concat("; ", sort({_config_finding(f) | some f in _config_findings}))],
	),
} if {
	count(_config_findings) > 0
} else := {
	"id": "dangerous_write",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf("Bash command writes a dangerous path: %s", [_hits(_writes.dangerous)]),
} if {
	count(_writes.dangerous) > 0
} else := {
	"id": "dangerous_operand",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf(
		"Bash command may write a dangerous path: %s, an operand of a program permopa cannot model",
		[_hits(_touches.dangerous)],
	),
} if {
	count(_touches.dangerous) > 0
} else := {
	"id": "credential_read",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf("Bash command reads a credential path: %s", [_hits(_reads.credential)]),
} if {
	count(_reads.credential) > 0
} else := {
	"id": "environment_dump",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf(
		"Bash command prints the environment, which holds secrets: %s",
		[concat("; ", sort(analysis.environment))],
	),
} if {
	_reads_environment
} else := {
	"id": "critical_removal",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf("Bash command removes a critical path: %s", [concat(", ", analysis.critical_removals)]),
} if {
	count(analysis.critical_removals) > 0
} else := {
	"id": "dangerous_pattern",
	"behavior": "ASK",
	"bypass_immune": true,
	"message": sprintf(
		"Bash command matches a dangerous pattern: %s",
		[concat("; ", sort({h.detail | some h in analysis.dangerous}))],
	),
} if {
	count(analysis.dangerous) > 0
} else := {
	"id": "edits_inside",
	"behavior": "ALLOW",
	"bypass_immune": false,
	"message": "Bash command only edits inside the working directories",
} if {
	call.mode in modes.auto_edits
	_edits_inside
}

# Every finding of a kind in one message, sorted: a check yields one value
# however many paths a command touches (a rule with "some hit in" would
# yield one value per hit, which OPA reports as a conflict).
_hits(hits) := concat("; ", sort({sprintf("%s (%s)", [h.path, h.reason]) | some h in hits}))

_edits_inside if {
	count(analysis.leaves) > 0
	count(_reads.unknown) == 0
	every leaf in analysis.leaves {
		_leaf_edits_inside(leaf)
	}
	_writes_inside
}

_leaf_edits_inside(leaf) if leaf.read_only

_leaf_edits_inside(leaf) if {
	leaf.fs_command
	permopa.path.inside(leaf.writes, call.context.working_directories, call.context.path_opts)
}

_writes_inside if count(analysis.writes) == 0

_writes_inside if permopa.path.inside(analysis.writes, call.context.working_directories, call.context.path_opts)

# METADATA
# description: |
#   Suggested allow rules: one prefix rule per leaf that needs approval (permopa.bash.suggest).
suggestions := [{"tool_name": "Bash", "rule_content": c, "behavior": "ALLOW", "source": "suggested"} |
	some c in permopa.bash.suggest(input.tool_input.command, call.context.bash_opts)
]

# METADATA
# scope: document
# description: |
#   What the script files the command runs hold, for the person who
#   approves it (docs/shell.md, "Scripts"): "it runs package.json:6 script
#   test: jest --ci, eslint ." (the first five scripts); "" when it runs
#   none.
default script_note := ""

script_note := sprintf("it runs %s", [concat("; ", _script_parts)]) if count(_script_sites) > 0

# Where each script's commands are written, in the order they first run.
_script_sites := sort({[i, l.script] |
	some i, l in analysis.leaves
	l.script != ""
	i == min({j | some j, m in analysis.leaves; m.script == l.script})
})

_script_parts := [sprintf("%s: %s", [site[1], _script_commands(site[1])]) |
	some k, site in _script_sites
	k < 5
]

_script_commands(site) := replace(
	concat(", ", [concat(" ", l.argv) | some l in analysis.leaves; l.script == site]),
	"\u0000", "$…",
)
