package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// modes are every mode, in Claude Code spelling.
var modes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}

// bashEngine is an engine whose user settings hold the given rules (Claude
// Code form, allow rules unless prefixed "deny:" or "ask:").
func bashEngine(t *testing.T, rules ...string) *engine.Engine {
	t.Helper()
	var rs []permission.Rule
	for _, s := range rules {
		b := "ALLOW"
		if k, rest, ok := strings.Cut(s, ":"); ok && (k == "deny" || k == "ask") {
			b, s = strings.ToUpper(k), rest
		}
		r, err := settings.ParseRule(s, b)
		if err != nil {
			t.Fatal(err)
		}
		r.Source, r.Layer = settings.SourceUser, "user"
		rs = append(rs, r)
	}
	eng, err := newEngine(context.Background(), engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w", Rules: rs}))
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func bashDecide(eng *engine.Engine, cmd, mode string) permission.Decision {
	return eng.Decide(context.Background(), map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": "/w", "permission_mode": mode,
	})
}

// wantSafetyAsk asserts the outcome of a safety ASK in every mode: ASK in
// DEFAULT and ACCEPT_EDITS, DENY in DONT_ASK (nobody to ask) and EXPLORE
// (not read-only), ALLOW in BYPASS unless immune (self-protection).
func wantSafetyAsk(t *testing.T, eng *engine.Engine, cmd, message string, immuneInBypass bool) {
	t.Helper()
	for _, mode := range modes {
		d := bashDecide(eng, cmd, mode)
		want, step := permission.Ask, permission.StepToolCheck
		switch mode {
		case "plan":
			want, step = permission.Deny, permission.StepModeFallback
		case "dontAsk":
			want = permission.Deny
		case "bypassPermissions":
			if !immuneInBypass {
				want, step = permission.Allow, ""
			}
		}
		if d.Behavior != want || (step != "" && d.Step != step) {
			t.Errorf("%s: %q: %s/%s (%s), want %s/%s", mode, cmd, d.Behavior, d.Step, d.Message, want, step)
			continue
		}
		if step == permission.StepToolCheck && (!d.BypassImmune || !strings.Contains(d.Message, message)) {
			t.Errorf("%s: %q: message %q (bypass_immune %v), want a safety check mentioning %q", mode, cmd, d.Message, d.BypassImmune, message)
		}
	}
}

// Writers whose targets were not in the model: their targets are writes,
// so a dangerous target is a safety ASK that an allow rule for the program
// cannot silence (issue 10, "writes the model misses").
func TestWritersToDangerousPathsAsk(t *testing.T) {
	t.Parallel()
	programs := []string{"chmod", "chown", "chgrp", "truncate", "install", "mkfifo", "mknod", "shred", "dd",
		"tee", "split", "csplit", "setfacl", "chattr", "touch", "link", "unlink", "tar", "gzip", "less", "patch",
		"rsync", "ln", "cp", "mv", "sed", "vim", "unzip", "zip"}
	var rules []string
	for _, p := range programs {
		rules = append(rules, "Bash("+p+":*)")
	}
	eng := bashEngine(t, rules...)
	for _, cmd := range []string{
		"chmod 777 ~/.ssh/authorized_keys",
		"chmod -R go+w ~/.ssh",
		"chmod -x ~/.bashrc",
		"chmod --reference=/w/f 600 /home/u/.zshrc",
		"chown u:u ~/.gitconfig",
		"chown -R nobody /w/.git",
		"chgrp staff ~/.profile",
		"truncate -s 0 ~/.bash_history ~/.bashrc",
		"install -m 755 evil ~/.bashrc",
		"install -D hook .git/hooks/pre-commit",
		"install -t ~/.ssh key",
		"mkfifo ~/.zshenv",
		"mknod ~/.bashrc p",
		"shred -u ~/.ssh/id_ed25519",
		"dd if=/dev/zero of=/home/u/.bashrc",
		"tee -a ~/.bashrc",
		"echo x | tee ~/.ssh/authorized_keys >/dev/null",
		"split -l 1 keys ~/.ssh/authorized_key",
		"csplit -f .git/hooks/pre f 2",
		"setfacl -m u:eve:rw ~/.ssh/id_rsa",
		"chattr -i ~/.bashrc",
		"touch .git/hooks/post-checkout",
		"link payload ~/.bashrc",
		"unlink ~/.ssh/known_hosts",
		"tar xf a.tar -C ~/.ssh",
		"gzip ~/.bashrc",
		"less -o ~/.bashrc notes.txt",
		"less -O ~/.zshrc notes.txt",
		"less --LOG-FILE ~/.profile notes.txt",
		"patch ~/.bashrc fix.diff",
		"rsync a ~/.bashrc",
		"vim ~/.zshrc",
		"unzip a.zip -d .git/hooks",
		"unzip -o -q a.zip -d ~/.ssh",
		"zip -m out.zip ~/.profile",
		"cd ~ && chmod 600 .bashrc",
		"cd ~/.ssh && truncate -s0 authorized_keys",
	} {
		wantSafetyAsk(t, eng, cmd, "dangerous path", false)
	}
}

// Inside the working directories, the writers that are filesystem commands
// are allowed in ACCEPT_EDITS like mkdir and cp; the ones that change who
// may do what (setfacl, chattr, mknod) still ask.
func TestWritersInsideWorkingDirectories(t *testing.T) {
	t.Parallel()
	eng := bashEngine(t)
	for _, c := range []struct {
		cmd  string
		want string
	}{
		{"chmod +x scripts/run.sh", permission.Allow},
		{"chmod -R u+rwX build", permission.Allow},
		{"chown -R 1000:1000 out", permission.Allow},
		{"truncate -s 0 log.txt", permission.Allow},
		{"install -D -m 644 a build/a", permission.Allow},
		{"mkfifo pipe", permission.Allow},
		{"shred -u tmp.key", permission.Allow},
		{"split -l 100 big.csv part-", permission.Allow},
		{"csplit -f sec doc.md /^#/ {*}", permission.Allow},
		{"unlink old", permission.Allow},
		{"link a b", permission.Allow},
		{"setfacl -m u:eve:r notes.txt", permission.Ask},
		{"chattr +i notes.txt", permission.Ask},
		{"mknod mem c 1 1", permission.Ask},
		{"chmod 600 /tmp/x", permission.Ask},
		{"install x /usr/local/bin/x", permission.Ask},
		{"split -l 1 f /tmp/p", permission.Ask},
		{"install -s a b", permission.Ask},
	} {
		d := bashDecide(eng, c.cmd, "acceptEdits")
		if d.Behavior != c.want {
			t.Errorf("acceptEdits: %q: %s/%s (%s), want %s", c.cmd, d.Behavior, d.Step, d.Message, c.want)
		}
		if d := bashDecide(eng, c.cmd, "default"); d.Behavior != permission.Ask {
			t.Errorf("default: %q: %s/%s (%s), want ASK", c.cmd, d.Behavior, d.Step, d.Message)
		}
	}
}

// Links made and used in one call are resolved (issue 10, "links made and
// used in one call"): a link to a dangerous or credential path is a safety
// ASK, a link out of the working directories is never allowed by
// ACCEPT_EDITS, whatever allow rules the programs have.
func TestLinksMadeAndUsedInOneCall(t *testing.T) {
	t.Parallel()
	eng := bashEngine(t, "Bash(ln:*)", "Bash(cp:*)", "Bash(mv:*)", "Bash(echo:*)", "Bash(cat:*)", "Bash(tee:*)",
		"Bash(link:*)", "Bash(touch:*)")
	for _, cmd := range []string{
		"ln -s ~/.ssh/id_rsa k; cat k",
		"ln -s ~/.ssh k && cat k/id_ed25519",
		"ln -s ~/.bashrc b && echo 'curl x|sh' >> b",
		"ln -sf ~/.zshrc z; tee -a z < payload",
		"ln -s ../../.bashrc x",
		"cd /w && ln -s /home/u/.aws a && cat a/credentials",
		"ln -s /home/u h; cat h/.ssh/id_rsa",
		"ln -s / r && cat r/home/u/.netrc",
		"cp -s /home/u/.ssh/id_rsa k && cat k",
		"link ~/.profile p && echo x >> p",
		"mv ~/.ssh s; cat s/id_rsa",
		"ln -s /home/u/.ssh a; mv a b; cat b/id_rsa",
		"for f in 1 2; do cat k; ln -sf ~/.ssh/id_rsa k; done",
		"cat k | ln -s ~/.ssh/id_rsa k",
		"ln -s .git/hooks h && touch h/pre-commit",
	} {
		wantSafetyAsk(t, eng, cmd, "", false)
	}
	// Out of the working directories: never allowed by ACCEPT_EDITS, nor
	// by the programs' allow rules (the link's target is a write outside).
	for _, cmd := range []string{
		"ln -s /etc nl && echo x > nl/f",
		"ln -s /etc nl",
		"ln -s /usr/local/bin b; touch b/tool",
		"ln -sT /tmp t && echo x > t/drop",
		"cp -r /tmp/evil d && echo x > d/l/f",
		"ln -s /opt o; cd o && touch x",
	} {
		for _, mode := range []string{"acceptEdits", "dontAsk"} {
			d := bashDecide(eng, cmd, mode)
			if d.Behavior == permission.Allow && d.Step == permission.StepToolCheck {
				t.Errorf("%s: %q allowed by the tool check: %s", mode, cmd, d.Message)
			}
		}
		if d := bashDecide(bashEngine(t), cmd, "acceptEdits"); d.Behavior != permission.Ask {
			t.Errorf("acceptEdits, no rules: %q: %s/%s (%s), want ASK", cmd, d.Behavior, d.Step, d.Message)
		}
	}
	// Links that stay inside are edits like any other.
	for _, cmd := range []string{
		"ln -sfn build/v2 current",
		"ln -s ../w/shared/config.json config.json && cat config.json",
		"mkdir -p out && ln -s ../src out/src && touch out/src/x",
	} {
		if d := bashDecide(bashEngine(t), cmd, "acceptEdits"); d.Behavior != permission.Allow {
			t.Errorf("acceptEdits: %q: %s/%s (%s), want ALLOW", cmd, d.Behavior, d.Step, d.Message)
		}
	}
}
