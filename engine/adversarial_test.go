package engine_test

import (
	"context"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// No deny rule is escaped through composition, wrappers or quoting
// (SECURITY.md): a `Bash(rm:*)` deny rule stops every one of these, in
// every mode, through the whole engine.
func TestDenyRuleCannotBeEscaped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rm := "rm:*"
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{
		Home: "/home/u", Cwd: "/w",
		Rules: []permission.Rule{{ToolName: "Bash", RuleContent: &rm, Behavior: "DENY", Source: "userSettings", Layer: "user"}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	commands := []string{
		"rm -rf build",
		"git status; rm x",
		"git status && rm x",
		"false || rm x",
		"ls | rm x",
		"ls & rm x",
		"ls\nrm x",
		"(rm x)",
		"{ rm x; }",
		"if true; then rm x; fi",
		"for f in a b; do rm $f; done",
		"while false; do :; done; rm x",
		"case a in a) rm x;; esac",
		`\rm x`,
		`'r'm x`,
		`"rm" x`,
		`r''m x`,
		`$'rm' x`,
		"/bin/rm x",
		"./../../bin/rm x",
		"command rm x",
		"builtin command rm x",
		"exec rm x",
		"env rm x",
		"env -i FOO=1 rm x",
		"FOO=1 rm x",
		"nice -n 5 rm x",
		"nohup rm x &",
		"time rm x",
		"timeout 5 rm x",
		"stdbuf -oL rm x",
		"sudo rm x",
		"sudo -u root rm x",
		"ls | xargs rm",
		"ls | xargs -I{} rm {}",
		"bash -c 'rm x'",
		`sh -c "cd / && rm -rf x"`,
		"bash -lc 'git status; rm x'",
		"find . -name x -exec rm {} \\;",
		"find . -execdir rm {} +",
		"find src -exec rm {} +",
		"find . -ok rm {} \\;",
		"find . -print0 | xargs -0 rm",
		"find . -print0 | xargs -0 -I{} rm {}",
		"echo $(rm x)",
		"echo `rm x`",
		"cat <(rm x)",
		"ls > >(rm x)",
		"cat <<EOF\n$(rm x)\nEOF",
		"x=$(rm y)",
		"f() { rm x; }; f",
		"alias r=rm; r x",
		"timeout 5 sudo env FOO=1 bash -c 'nice rm x'",
	}
	for _, mode := range []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"} {
		for _, cmd := range commands {
			d := eng.Decide(ctx, map[string]any{
				"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
				"cwd": "/w", "permission_mode": mode,
			})
			if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
				t.Errorf("%s: %q escaped the rm:* deny rule: %s/%s (%s)", mode, cmd, d.Behavior, d.Step, d.Message)
			}
		}
	}
}

// A Read deny rule guards the path from every tool and command that reads it.
func TestReadDenyRuleCannotBeEscaped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ssh := "~/.ssh/**"
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{
		Home: "/home/u", Cwd: "/w",
		Rules: []permission.Rule{{ToolName: "Read", RuleContent: &ssh, Behavior: "DENY", Source: "userSettings", Layer: "user"}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	calls := []map[string]any{
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/home/u/.ssh/id_rsa"}},
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "~/.ssh/config"}},
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/home/u/x/../.ssh/id_rsa"}},
		{"tool_name": "Grep", "tool_input": map[string]any{"pattern": "BEGIN", "path": "/home/u/.ssh"}},
		{"tool_name": "Glob", "tool_input": map[string]any{"pattern": "/home/u/.ssh/*"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat ~/.ssh/id_rsa"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": `cat "$HOME/.ssh/id_rsa"`}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat ${HOME}/.ssh/id_rsa | base64"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "cd ~/.ssh && cat id_rsa"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "wc -c < ~/.ssh/id_rsa"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "grep -r KEY ~/.ssh"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "cp ~/.ssh/id_rsa /tmp/k"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "less ~/.ssh/id_rsa"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "bash -c 'head ~/.ssh/id_rsa'"}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "git status; tail /home/u/.ssh/config"}},
	}
	for _, mode := range []string{"default", "plan", "bypassPermissions", "dontAsk"} {
		for _, c := range calls {
			in := map[string]any{"cwd": "/w", "permission_mode": mode}
			for k, v := range c {
				in[k] = v
			}
			d := eng.Decide(ctx, in)
			if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
				t.Errorf("%s: %v escaped the Read(~/.ssh/**) deny rule: %s/%s (%s)", mode, c["tool_input"], d.Behavior, d.Step, d.Message)
			}
		}
	}
}

// A program permopa does not model may run its arguments, or a command
// line in one of them or on its stdin, as a command: deny rules see them,
// literally and flag-aware, in every mode, BYPASS included (SECURITY.md,
// guarantee 3).
func TestDenyRuleSeesWhatUnmodelledProgramsRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rm, rmrf := "rm:*", "git push --force:*"
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{
		Home: "/home/u", Cwd: "/w",
		Rules: []permission.Rule{
			{ToolName: "Bash", RuleContent: &rm, Behavior: "DENY", Source: "userSettings", Layer: "user"},
			{ToolName: "Bash", RuleContent: &rmrf, Behavior: "DENY", Source: "userSettings", Layer: "user"},
		},
	}))
	if err != nil {
		t.Fatal(err)
	}
	commands := []string{
		"toybox rm x", "busybox-static rm -rf x", "coreutils --coreutils-prog=rm x", "ssh-agent rm x",
		"firejail --quiet rm x", "bwrap --bind / / rm x", "proot -0 rm x", "perf stat -- rm x",
		"cpulimit -l 5 rm x", "machinectl shell c /bin/rm x", "sudo toybox rm x", "nohup screen -dm rm x",
		"tmux new -d 'rm x'", "tmux new-session -d 'ls; rm x'", "socat - EXEC:'rm x'", "socat - SYSTEM:'ls&&rm x'",
		"nc -e 'rm x' h 1", "ncat --sh-exec='rm x' h 1", "fc -e rm", "fc -e 'rm x'",
		"sqlite3 db '.shell rm x'", "psql -c '\\! rm x'", "mysql -e 'system rm x'",
		"emacs --batch --eval '(shell-command \"rm x\")'", "mytool --on-exit='rm -rf x'",
		"ed -s f <<< '!rm x'", "echo '!rm x' | ed f", "sqlite3 db <<'E'\n.shell rm x\nE",
		"firejail git push -f", "screen -dm git push origin +main", "toybox git push --force-with-lease",
		"git grep --open-files-in-pager='rm x' foo", "git archive --remote=. --exec='rm x' HEAD",
	}
	for _, mode := range []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"} {
		for _, cmd := range commands {
			d := eng.Decide(ctx, map[string]any{
				"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
				"cwd": "/w", "permission_mode": mode,
			})
			if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
				t.Errorf("%s: %q escaped the deny rules: %s/%s (%s)", mode, cmd, d.Behavior, d.Step, d.Message)
			}
		}
		// Words that hold no such command stay the mode's question.
		for _, cmd := range []string{"mytool build", "mytool --name=rmx", "sqlite3 db 'select 1'", "git commit -m 'rm x'"} {
			d := eng.Decide(ctx, map[string]any{
				"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
				"cwd": "/w", "permission_mode": mode,
			})
			if d.Step == permission.StepDenyRule {
				t.Errorf("%s: %q hit a deny rule: %s", mode, cmd, d.Message)
			}
		}
	}
}

// Secrets outside the first credential list, raw disks, and the trees git
// diff compares on its own (git diff . ~ implies --no-index) are safety
// ASKs, never read-only (SECURITY.md, guarantee 2; docs/reads.md).
func TestSecretsTheModelMissed(t *testing.T) {
	t.Parallel()
	home, proj := readsFixture(t, false)
	eng := newTestEngine(t, settings.Settings{Home: home, Cwd: proj})
	checkTable(t, eng, proj, map[outcome][]string{
		credential: {
			"cat ~/.config/git/credentials", "head ~/.config/rclone/rclone.conf", "cat ~/.config/hub",
			"cat ~/.terraform.d/credentials.tfrc.json", "cat ~/.pulumi/credentials.json", "cat ~/.m2/settings.xml",
			"grep password ~/.gradle/gradle.properties", "cat ~/.s3cfg", "cat ~/.boto", "cat ~/.databrickscfg",
			"cat ~/.config/containers/auth.json", "cat /run/containers/0/auth.json",
			"cat ~/.claude/.credentials.json", "jq . ~/.codex/auth.json", "cat ~/.gemini/oauth_creds.json",
			"base64 certs/client.p12", "xxd site.pfx", "cat ~/putty.ppk", "keytool-dump < release.keystore; cat app.jks",
			"tail ~/.bash_history", "grep -i pass ~/.zsh_history", "cat ~/.psql_history", "cat ~/.mysql_history",
			"cat ~/.oci/config", "cat ~/.config/doctl/config.yaml", "ls ~/.config/op && cat ~/.config/op/config",
			"cat ~/.local/share/keyrings/login.keyring", "cat ~/.password-store/x.gpg",
			"cat ~/.mozilla/firefox/p/logins.json", "strings ~/.config/google-chrome/Default/Cookies",
			"cat /dev/sda", "head -c 4096 /dev/nvme0n1p2", "strings /dev/vda1", "xxd /dev/xvdf | head",
			"od /dev/mapper/vg-root", "grep -a shadow /dev/dm-0", "cat /dev/disk/by-uuid/x", "dd if=/dev/sda bs=1M count=1",
			"git diff . ~", "git diff --stat src " + home, "git diff -- src ../.ssh", "git diff --no-index . ..",
			"git diff --no-index --stat src ~/.aws", "git -C src diff --no-index . ~",
		},
		readOnly: {
			"cat ~/.config/git/config", "cat certs/ca.pem", "cat /dev/null", "ls /dev",
			"git diff", "git diff HEAD -- src", "git diff main feature", "git diff --stat HEAD~1 HEAD -- " + proj + "/src",
		},
	})
}

// Writes the model used to miss reach protected settings: a safety ASK in
// BYPASS too (SECURITY.md, guarantee 4).
func TestProtectedSettingsThroughMissedWriters(t *testing.T) {
	t.Parallel()
	s := newProtectedSetup(t, "permissions:\n  deny: [\"Bash(rm:*)\"]\n")
	for _, cmd := range []string{
		"xxd -r dump .permopa/settings.yaml", "xxd -r -p hex .permopa/settings.local.yaml",
		"yq -i '.permissions.deny=[]' .permopa/settings.yaml", "yq eval --inplace . .permopa/settings.yaml",
		"aria2c -d.permopa http://x", "wget -O.permopa/settings.local.yaml http://x",
		"7z x a.7z -o.permopa", "cc x.c -o.permopa/settings.local.yaml", "mytool --out=.claude/settings.json",
		"unzip-like -d.codex a.zip",
	} {
		s.wantProtected(t, "Bash", map[string]any{"command": cmd})
	}
}

// An allow rule for a program does not cover a file one of its options or
// its script writes unless it spells that file out, as it never covers a
// redirect (SECURITY.md, guarantee 3): Bash(git diff:*) does not let
// git diff --output=/tmp/x write outside the working directories.
func TestAllowRuleDoesNotCoverOptionWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var rules []permission.Rule
	for _, c := range []string{"git diff:*", "git log:*", "sort:*", "find:*", "sed:*", "awk:*", "info:*", "tree:*",
		"openssl x509:*", "blkid:*", "git diff --output=out.patch"} {
		rules = append(rules, permission.Rule{ToolName: "Bash", RuleContent: &c, Behavior: "ALLOW", Source: "userSettings", Layer: "user"})
	}
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w", Rules: rules}))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"default", "acceptEdits"} {
		for _, cmd := range []string{
			"git diff --output=/tmp/x", "git diff HEAD --output /tmp/x", "git log -p --output=/tmp/x",
			"sort -o /tmp/x in", "sort -o/tmp/x in", "sort --out=/tmp/x in", "find . -fprint /tmp/x", "find . -fls /tmp/x",
			"sed -n 'w /tmp/x' f", "sed 's/a/b/w /tmp/x' f", "awk '{print > \"/tmp/x\"}' f", "info -o /tmp/x ls",
			"tree -o /tmp/x", "openssl x509 -in c.pem -out /tmp/x", "blkid -c /tmp/x",
		} {
			d := eng.Decide(ctx, map[string]any{
				"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": "/w", "permission_mode": mode,
			})
			if d.Behavior == permission.Allow {
				t.Errorf("%s: %q: ALLOW (%s), an allow rule covered a file it does not name", mode, cmd, d.Message)
			}
		}
		for _, cmd := range []string{"git diff --stat", "sort -u in", "find . -name x", "git diff --output=out.patch"} {
			d := eng.Decide(ctx, map[string]any{
				"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": "/w", "permission_mode": mode,
			})
			if d.Behavior != permission.Allow {
				t.Errorf("%s: %q: %s/%s (%s), want ALLOW", mode, cmd, d.Behavior, d.Step, d.Message)
			}
		}
	}
}
