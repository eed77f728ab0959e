package paths

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// probeTree is gitTree with the layouts a shared probe must not confuse:
// a repository inside a repository, a linked work tree whose common
// directory holds the configuration (commondir), a .git file that is not
// a gitfile, a .git directory that is not shaped like a repository, a
// submodule repository, and a link to a work tree.
func probeTree(t *testing.T) (root string, dirs []string) {
	t.Helper()
	root = gitTree(t)
	for _, d := range []string{
		"work/inner/.git/objects", "work/inner/.git/refs", "work/inner/src",
		"work/.git/worktrees/wt/refs", "work/.git/modules/lib/objects", "work/.git/modules/lib/refs",
		"notgitfile/sub", "fake/.git/objects", "fake/sub",
	} {
		mkdirs(t, filepath.Join(root, d))
	}
	for f, body := range map[string]string{
		"work/inner/.git/HEAD":             "ref: refs/heads/main\n",
		"work/inner/.git/config":           "[core]\n\tfsmonitor = /x/inner\n",
		"work/.git/config":                 "[diff]\n\texternal = /x/work\n",
		"work/.git/worktrees/wt/HEAD":      "ref: refs/heads/wt\n",
		"work/.git/worktrees/wt/commondir": "../..\n",
		"work/.git/modules/lib/HEAD":       "ref: refs/heads/main\n",
		"work/.git/modules/lib/config":     "[core]\n\tpager = /x/lib\n",
		"notgitfile/.git":                  "not a gitfile\n",
		"fake/.git/HEAD":                   "ref: refs/heads/main\n",
	} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink(t, filepath.Join(root, "work/inner"), filepath.Join(root, "innerlink"))
	for _, d := range []string{
		"work", "work/sub/deeper", "work/.git", "work/inner/src", "work/bare/x", "wt", "evilfile",
		"named.git", "plain/.git", "half", "norepo/a", "notgitfile/sub", "fake/sub", "innerlink",
	} {
		real, ok := RealPath(filepath.Join(root, d))
		if !ok {
			t.Fatalf("%s: not resolved", d)
		}
		dirs = append(dirs, real)
	}
	return root, dirs
}

type probeAnswers struct {
	repo, reason string
	found        bool
	configs      map[string][]ConfigFinding
	writes       map[string]string
}

// askAll asks what one decision on a git command run in dir asks, in the
// policy's order (permopa.path.git_repositories, then
// permopa.path.project_configs for each program, then write checks).
func askAll(probe *DirProbe, dir, home string) probeAnswers {
	var a probeAnswers
	a.repo, a.reason, a.found = UnsafeRepository(dir, probe)
	a.configs = map[string][]ConfigFinding{}
	for _, prog := range []string{"git", "yarn", "npm", "pnpm"} {
		a.configs[prog] = ConfigFindingsWith(probe, prog, dir, home)
	}
	a.writes = map[string]string{}
	for _, p := range []string{"x", "HEAD", "objects/y", "refs/z", "config", "hooks/pre-commit"} {
		reason, _ := GitWrite(filepath.Join(dir, p), probe)
		a.writes[p] = reason
	}
	return a
}

// One decision's built-ins share a DirProbe (issue 28): the answers are
// those of the file system asked afresh by each function, in every layout,
// and a second walk from the same directory asks the file system nothing.
func TestDirProbeAnswersAsTheFileSystem(t *testing.T) {
	root, dirs := probeTree(t)
	home := filepath.Join(root, "home")
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		want := askAll(nil, dir, home)
		probe := NewDirProbe()
		if got := askAll(probe, dir, home); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: with a shared probe\n%+v\nwant (no probe)\n%+v", rel, got, want)
		}
		asked := probe.asked
		if got := askAll(probe, dir, home); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: asked again through the same probe\n%+v\nwant\n%+v", rel, got, want)
		}
		if probe.asked != asked {
			t.Errorf("%s: the second round asked the file system %d more questions", rel, probe.asked-asked)
		}
		// The configuration reader's walk up to the repository asks
		// nothing the repository walk asked: each directory once per
		// decision.
		probe = NewDirProbe()
		UnsafeRepository(dir, probe)
		asked = probe.asked
		gitRepo(dir, probe)
		if probe.asked != asked {
			t.Errorf("%s: the configuration reader's walk asked %d questions the repository walk had answered", rel, probe.asked-asked)
		}
	}
}

// The configuration reader reads the repository the repository walk found
// in the same decision: both see one view of the file system, even when
// it changes between the two built-ins' calls.
func TestDirProbeOneViewPerDecision(t *testing.T) {
	root, _ := probeTree(t)
	home := filepath.Join(root, "home")
	dir := filepath.Join(root, "work/inner/src")
	probe := NewDirProbe()
	if _, _, found := UnsafeRepository(dir, probe); found {
		t.Fatal("work/inner is a .git repository, not an unsafe one")
	}
	// The inner repository loses its HEAD after the walk: a fresh walk
	// now finds the outer repository, the decision's probe the inner.
	if err := os.Remove(filepath.Join(root, "work/inner/.git/HEAD")); err != nil {
		t.Fatal(err)
	}
	inner := filepath.Join(root, "work/inner/.git/config")
	outer := filepath.Join(root, "work/.git/config")
	if got := ConfigFindingsWith(probe, "git", dir, home); len(got) != 1 || got[0].File != inner {
		t.Errorf("through the decision's probe: %+v, want the inner repository's core.fsmonitor", got)
	}
	if got := ConfigFindings("git", dir, home); len(got) == 0 || got[0].File != outer {
		t.Errorf("asked afresh: %+v, want the outer repository's diff.external first", got)
	}
}
