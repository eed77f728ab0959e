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
