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
	"less may write": ["less ~/.profile", "default", "ASK", "tool_check"],
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
	"link to etc, acceptEdits by rule": ["ln -s /etc nl && echo x > nl/f", "acceptEdits", "ALLOW", "allow_rule"],
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
