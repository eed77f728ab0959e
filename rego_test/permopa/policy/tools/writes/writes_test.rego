# METADATA
# title: Write checks tests
# description: |
#   Writes the shell model used to miss, links made and used in one call,
#   git repositories that are not a working directory's .git, and the
#   protected paths of permopa and the agent hosts, with the real built-ins.
package permopa.policy.tools.writes_test

_settings := {"home": "/home/u", "cwd": "/w"}

_call(command, mode) := {"tool_name": "Bash", "tool_input": {"command": command}, "permission_mode": mode, "cwd": "/w"}

_allow_bash(contents) := {"permission_context": {"allow_rules": {"Bash": [r |
	some c in contents
	r := {"tool_name": "Bash", "rule_content": c, "behavior": "ALLOW"}
]}}}

_decide(command, mode, extra) := d if {
	d := data.permopa.policy.decision with input as object.union(_call(command, mode), extra)
		with data.permopa.settings as _settings
}

_writers := _allow_bash(["chmod:*", "chown:*", "truncate:*", "install:*", "split:*", "setfacl:*", "tar:*", "less:*"])

# Each case: [command, mode, expected behavior, expected step]; the writers
# are allowed by rule, so only a safety check can ask.
writer_cases := {
	"chmod authorized_keys": ["chmod 777 ~/.ssh/authorized_keys", "default", "ASK", "tool_check"],
	"chmod mode as option": ["chmod -w ~/.bashrc", "acceptEdits", "ASK", "tool_check"],
	"chown gitconfig": ["chown -R u ~/.gitconfig", "dontAsk", "DENY", "tool_check"],
	"truncate history": ["truncate -s0 ~/.zshrc", "default", "ASK", "tool_check"],
	"install into hooks": ["install -D x .git/hooks/pre-push", "acceptEdits", "ASK", "tool_check"],
	"setfacl on ssh": ["setfacl -m u:e:r ~/.ssh/id_rsa", "default", "ASK", "tool_check"],
	"tar into ssh": ["tar xf a.tar -C ~/.ssh", "default", "ASK", "tool_check"],
	"less log file": ["less -o ~/.profile notes.txt", "default", "ASK", "tool_check"],
	"less reads": ["less ~/.profile", "default", "ALLOW", "read_only"],
	"chmod inside by rule": ["chmod +x run.sh", "default", "ALLOW", "allow_rule"],
	"chmod inside, acceptEdits": ["chmod +x run.sh", "acceptEdits", "ALLOW", "tool_check"],
	"chmod outside, bypass": ["chmod 777 ~/.ssh/authorized_keys", "bypassPermissions", "ALLOW", "allow_rule"],
}

test_writer_targets[name] if {
	some name, [command, mode, behavior, step] in writer_cases
	d := _decide(command, mode, _writers)
	d.behavior == behavior
	d.step == step
}

_linkers := _allow_bash(["ln:*", "cp:*", "mv:*", "echo:*", "cat:*", "touch:*"])

# Each case: [command, mode, expected behavior, expected step]. The programs
# are allowed by rule: a link to a dangerous or credential path is a safety
# ASK, a link out of the working directories is no edit inside them.
link_cases := {
	"link to a key, read": ["ln -s ~/.ssh/id_rsa k; cat k", "default", "ASK", "tool_check"],
	"link to a key, dontAsk": ["ln -s ~/.ssh/id_rsa k; cat k", "dontAsk", "DENY", "tool_check"],
	"link to bashrc, append": ["ln -s ~/.bashrc b && echo x >> b", "acceptEdits", "ASK", "tool_check"],
	"hard link to profile": ["ln ~/.profile p; echo x >> p", "acceptEdits", "ASK", "tool_check"],
	"move ssh dir, read": ["mv ~/.ssh s && cat s/id_rsa", "default", "ASK", "tool_check"],
	"link into hooks": ["ln -s .git/hooks h && touch h/post-merge", "acceptEdits", "ASK", "tool_check"],
	"link to etc, acceptEdits by rule": ["ln -s /etc nl && echo x > nl/f", "acceptEdits", "ASK", "mode_fallback"],
	"link inside, acceptEdits": ["ln -sfn build/v2 current", "acceptEdits", "ALLOW", "tool_check"],
}

test_links[name] if {
	some name, [command, mode, behavior, step] in link_cases
	d := _decide(command, mode, _linkers)
	d.behavior == behavior
	d.step == step
}

# Without rules, a link out of the working directories asks in ACCEPT_EDITS.
test_link_out_of_workdir_asks if {
	d := _decide("ln -s /etc nl && echo x > nl/f", "acceptEdits", {})
	d.behavior == "ASK"
	d.step == "mode_fallback"
}

test_split_names_bashrc if {
	d := _decide("split -a1 -l1 f ~/.bashr", "default", _writers)
	d.behavior == "ASK"
	d.step == "tool_check"
}

# Each case: [command, mode, expected behavior, expected step]. git is
# allowed by rule; where it runs decides whether it is read-only.
git_cases := {
	"status in the work tree": ["git status", "plan", "ALLOW", "read_only"],
	"-C a subdirectory": ["git -C src log", "plan", "ALLOW", "read_only"],
	"-C outside": ["git -C /tmp/e status", "plan", "DENY", "mode_fallback"],
	"cd outside": ["cd /srv/x && git log", "plan", "DENY", "mode_fallback"],
	"-C not static": ["git -C \"$D\" status", "plan", "DENY", "mode_fallback"],
	"built in one call": [
		"mkdir -p e/objects e/refs && echo 'ref: refs/heads/main' > e/HEAD && printf '[core]' > e/config && git -C e status",
		"acceptEdits", "ASK", "tool_check",
	],
	"built in one call, by rule": [
		"mkdir -p e/objects e/refs && echo x > e/HEAD && git -C e status",
		"default", "ASK", "tool_check",
	],
	"written before git": ["echo x > sub/HEAD; cd sub && git status", "plan", "DENY", "mode_fallback"],
}

test_git[name] if {
	some name, [command, mode, behavior, step] in git_cases
	d := _decide(command, mode, _allow_bash(["git:*", "mkdir:*", "echo:*", "printf:*"]))
	d.behavior == behavior
	d.step == step
}

# Each case: [tool, tool_input, mode, expected behavior, expected step].
# Permission settings: a safety ASK in every mode that asks, BYPASS too.
protected_cases := {
	"Write local settings, acceptEdits": ["Write", {"file_path": "/w/.permopa/settings.local.yaml", "content": "x"}, "acceptEdits", "ASK", "tool_check"],
	"Write local settings, bypass": ["Write", {"file_path": ".permopa/settings.local.yaml", "content": "x"}, "bypassPermissions", "ASK", "tool_check"],
	"Edit project settings, dontAsk": ["Edit", {"file_path": "/w/.permopa/settings.yaml"}, "dontAsk", "DENY", "tool_check"],
	"MultiEdit claude settings, bypass": ["MultiEdit", {"file_path": "/w/.claude/settings.json", "edits": []}, "bypassPermissions", "ASK", "tool_check"],
	"NotebookEdit in .claude": ["NotebookEdit", {"notebook_path": "/w/.claude/x.ipynb"}, "acceptEdits", "ASK", "tool_check"],
	"Write user settings": ["Write", {"file_path": "~/.config/permopa/settings.yaml", "content": "x"}, "bypassPermissions", "ASK", "tool_check"],
	"Write claude.json": ["Write", {"file_path": "/home/u/.claude.json", "content": "{}"}, "bypassPermissions", "ASK", "tool_check"],
	"Write mcp.json": ["Write", {"file_path": "/w/.mcp.json", "content": "{}"}, "acceptEdits", "ASK", "tool_check"],
	"Write codex config": ["Write", {"file_path": "/home/u/.codex/config.toml", "content": ""}, "bypassPermissions", "ASK", "tool_check"],
	"Write gemini settings": ["Write", {"file_path": "/w/.gemini/settings.json", "content": ""}, "default", "ASK", "tool_check"],
	"Bash redirect, bypass": ["Bash", {"command": "echo 'allow: [Bash]' > .permopa/settings.local.yaml"}, "bypassPermissions", "ASK", "tool_check"],
	"Bash sed -i, acceptEdits": ["Bash", {"command": "sed -i /deny/d .permopa/settings.yaml"}, "acceptEdits", "ASK", "tool_check"],
	"Bash mv the directory": ["Bash", {"command": "mv .permopa .old"}, "bypassPermissions", "ASK", "tool_check"],
	"Bash rm claude": ["Bash", {"command": "rm -rf .claude"}, "bypassPermissions", "ASK", "tool_check"],
	"Bash permopa rules add": ["Bash", {"command": "permopa rules add Bash"}, "bypassPermissions", "ASK", "tool_check"],
	"Bash through a link": ["Bash", {"command": "ln -s .permopa p && echo x > p/settings.local.yaml"}, "bypassPermissions", "ASK", "tool_check"],
	"Bash unanalysable, bypass": ["Bash", {"command": "eval x; echo y > .permopa/settings.yaml"}, "bypassPermissions", "ASK", "tool_check"],
	"Bash plan": ["Bash", {"command": "echo x > .permopa/settings.yaml"}, "plan", "DENY", "mode_fallback"],
	"code-running, acceptEdits": ["Write", {"file_path": "/w/.husky/pre-commit", "content": "x"}, "acceptEdits", "ASK", "tool_check"],
	"code-running, bypass": ["Write", {"file_path": "/w/.husky/pre-commit", "content": "x"}, "bypassPermissions", "ALLOW", "mode_fallback"],
	"ordinary file, bypass": ["Write", {"file_path": "/w/src/a.go", "content": "x"}, "bypassPermissions", "ALLOW", "mode_fallback"],
}

test_protected[name] if {
	some name, [tool, tool_input, mode, behavior, step] in protected_cases
	d := data.permopa.policy.decision with input as {"tool_name": tool, "tool_input": tool_input, "permission_mode": mode, "cwd": "/w"}
		with data.permopa.settings as _settings
	d.behavior == behavior
	d.step == step
}

# Settings may relax code-running names, never the protected settings.
test_settings_relax_code_running_only if {
	relaxing := object.union(_settings, {"dangerous_paths": {
		"code_running": {"remove": [".husky", ".permopa"]},
		"directories": {"remove": [".claude"]},
	}})
	husky := data.permopa.policy.decision with input as {
		"tool_name": "Write", "tool_input": {"file_path": "/w/.husky/pre-commit", "content": "x"},
		"permission_mode": "acceptEdits", "cwd": "/w",
	}
		with data.permopa.settings as relaxing
	husky.behavior == "ALLOW"
	every f in ["/w/.permopa/settings.yaml", "/w/.claude/settings.json"] {
		d := data.permopa.policy.decision with input as {
			"tool_name": "Write", "tool_input": {"file_path": f, "content": "x"},
			"permission_mode": "bypassPermissions", "cwd": "/w",
		}
			with data.permopa.settings as relaxing
		d.behavior == "ASK"
	}
}

# The settings files the engine reads (protected_paths) are protected
# wherever they are, with the directories that hold them when those are
# removed or renamed; copying into such a directory is no write of them.
test_protected_paths_from_the_engine if {
	settings := object.union(_settings, {"protected_paths": ["/srv/a/ci/permopa.yaml"]})
	every cmd in ["echo x > /srv/a/ci/permopa.yaml", "rm -rf /srv/a/ci", "mv /srv/a /old", "cp x /srv/a/ci/permopa.yaml"] {
		d := data.permopa.policy.decision with input as _call(cmd, "bypassPermissions")
			with data.permopa.settings as settings
		d.behavior == "ASK"
		d.reason == "safety check (self-protection)"
	}
}

test_copy_into_a_settings_directory_is_no_settings_write if {
	settings := object.union(_settings, {"protected_paths": ["/srv/a/ci/permopa.yaml"]})
	d := data.permopa.policy.decision with input as _call("cp x /srv/a/ci/", "bypassPermissions")
		with data.permopa.settings as settings
	d.behavior == "ALLOW"
}
