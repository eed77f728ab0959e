package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Copying a link the project planted makes a link as "ln -s" does
// (docs/protected-paths.md, "Links made and used in one call"): cp -P,
// -a, -d, -r, --no-dereference, mv and ln (a hard link to a symbolic link)
// put a symbolic link with the same text at the new name, and so does
// rsync -l or -a (checked with GNU coreutils 9 and rsync 3). Its target, read from the new place, is a write of the
// command: a dangerous or credential target is a safety ASK, one out of
// the working directories is not an edit ACCEPT_EDITS allows, even under
// an allow rule for the program. Links that stay inside remain edits.
func TestCopiedLinksAreLinksTheCommandMakes(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, proj := root+"/home", root+"/proj"
	for _, d := range []string{home + "/.ssh", root + "/out", proj + "/a/b", proj + "/tree/deep", proj + "/ok"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeModeFile(t, home+"/.bashrc", "# rc\n", 0o644)
	writeModeFile(t, proj+"/ok/f", "x\n", 0o644)
	for name, target := range map[string]string{
		"lb": home + "/.bashrc", "lssh": home + "/.ssh", "lkey": home + "/.ssh/id_rsa", "lpw": "/etc/passwd",
		"lout": root + "/out", "tree/deep/inner": home + "/.bashrc",
		// Inside where it is, out of the project once copied one level up.
		"a/b/rel": "../../.bashrc",
		"ok/l":    "f", "ok/l2": "../ok/f",
	} {
		if err := os.Symlink(target, filepath.Join(proj, name)); err != nil {
			t.Fatal(err)
		}
	}
	// A tree too large to look at whole: its links are not known, a
	// safety ASK. Past the bound every entry counts, whatever it is: the
	// names are hard links to one file (one system call each; a symbolic
	// link costs some twenty times as much to make) and one symbolic link
	// to the user's rc file.
	if err := os.MkdirAll(proj+"/big", 0o755); err != nil {
		t.Fatal(err)
	}
	writeModeFile(t, proj+"/big/f", "", 0o644)
	for i := 0; i < 4100; i++ {
		if err := os.Link(proj+"/big/f", filepath.Join(proj, "big", "l"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(home+"/.bashrc", proj+"/big/rc"); err != nil {
		t.Fatal(err)
	}
	plain := newCopyEngine(t)
	ruled := newCopyEngine(t, "cp:*", "mv:*", "ln:*", "link:*", "rsync:*")
	decide := func(eng *engine.Engine, cmd, mode string) permission.Decision {
		return decideIn(eng, proj, cmd, mode)
	}
	// A dangerous or credential target: a safety ASK, allow rules or not.
	for _, cmd := range []string{
		"cp -P lb ghost", "cp -a lb ghost", "cp -d lb ghost", "cp --no-dereference lb ghost", "cp -r lb ghost",
		"cp -R lb ghost", "cp -Pp lb ghost", "cp -a lb ok/", "cp -a -t ok lb", "cp -P lssh s", "cp -P lkey k",
		"cp -a tree copy", "cp -r tree/ copy", "cp -R tree/deep ok/", "mv lb ghost", "mv tree moved",
		"ln lb ghost", "ln lssh s", "cp -P a/b/rel a/ghost", "cp -L -P lb ghost",
		"rsync -a tree/ copy", "rsync -a tree copy", "rsync -l lb ghost", "rsync -av --delete a/b/ a/x",
	} {
		for _, eng := range []*engine.Engine{plain, ruled} {
			for _, mode := range []string{"default", "acceptEdits"} {
				d := decide(eng, cmd, mode)
				if d.Behavior != permission.Ask || d.Step != permission.StepToolCheck || !d.BypassImmune {
					t.Errorf("%s: %q: %s/%s (%s), want a safety ASK", mode, cmd, d.Behavior, d.Step, d.Message)
				}
			}
			if d := decide(eng, cmd, "dontAsk"); d.Behavior != permission.Deny {
				t.Errorf("dontAsk: %q: %s/%s (%s), want DENY", cmd, d.Behavior, d.Step, d.Message)
			}
		}
	}
	// Out of the working directories: not an edit inside them.
	for _, cmd := range []string{"cp -P lpw p", "cp -a lout o", "cp -r lout o", "cp --no-dereference lpw p", "mv lout o"} {
		for _, mode := range []string{"acceptEdits", "dontAsk"} {
			if d := decide(ruled, cmd, mode); d.Behavior == permission.Allow && d.Step == permission.StepToolCheck {
				t.Errorf("%s: %q allowed by the tool check: %s", mode, cmd, d.Message)
			}
		}
		if d := decide(plain, cmd, "acceptEdits"); d.Behavior != permission.Ask {
			t.Errorf("acceptEdits, no rules: %q: %s/%s (%s), want ASK", cmd, d.Behavior, d.Step, d.Message)
		}
	}
	for _, cmd := range []string{"cp -a big big2", "mv big big2"} {
		for _, eng := range []*engine.Engine{plain, ruled} {
			d := decide(eng, cmd, "acceptEdits")
			if d.Behavior != permission.Ask || !d.BypassImmune || !strings.Contains(d.Message, "could not all be looked at") {
				t.Errorf("acceptEdits: %q: %s/%s (%s), want a safety ASK (links not known)", cmd, d.Behavior, d.Step, d.Message)
			}
		}
	}
	// Copies that dereference, and links that stay inside: edits.
	for _, cmd := range []string{
		"cp lb ghost", "cp -L lb ghost", "cp -a ok ok2", "cp -P ok/l ok/l3", "mv ok/l ok/l4", "cp -r ok sub",
		"ln ok/f hard",
	} {
		if d := decide(plain, cmd, "acceptEdits"); d.Behavior != permission.Allow {
			t.Errorf("acceptEdits: %q: %s/%s (%s), want ALLOW", cmd, d.Behavior, d.Step, d.Message)
		}
	}
}

func newCopyEngine(t *testing.T, allow ...string) *engine.Engine {
	t.Helper()
	var rules []permission.Rule
	for _, c := range allow {
		c := c
		rules = append(rules, permission.Rule{ToolName: "Bash", RuleContent: &c, Behavior: "ALLOW", Source: "userSettings", Layer: "user"})
	}
	eng, err := newEngine(context.Background(), engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/", Rules: rules}))
	if err != nil {
		t.Fatal(err)
	}
	return eng
}
