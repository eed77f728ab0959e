package paths

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitTree builds, under a temporary root:
//
//	work/.git/{HEAD,objects,refs}      a work tree and its repository
//	work/sub/deeper                    a subdirectory of it
//	work/bare/{HEAD,objects,refs,config}  a bare repository inside the work tree
//	work/bare/x                        a directory below it
//	norepo/a                           no repository at all
//	half/{objects,refs}                two of the three
//	wt/.git                            a .git file naming work/.git/worktrees/wt
//	evilfile/.git                      a .git file naming half
//	named.git/{HEAD,objects,refs}      a bare repository named *.git
//	plain/.git/{HEAD,objects,refs}     reached through cd plain/.git
//	linked -> work/bare                a symlink to the bare repository
func gitTree(t *testing.T) string {
	t.Helper()
	root := tempRoot(t)
	for _, d := range []string{
		"work/.git/objects", "work/.git/refs", "work/sub/deeper", "work/bare/objects", "work/bare/refs",
		"work/bare/x", "norepo/a", "half/objects", "half/refs", "wt", "evilfile", "named.git/objects",
		"named.git/refs", "plain/.git/objects", "plain/.git/refs", "work/.git/worktrees/wt/objects",
	} {
		mkdirs(t, filepath.Join(root, d))
	}
	for f, body := range map[string]string{
		"work/.git/HEAD":    "ref: refs/heads/main\n",
		"work/bare/HEAD":    "ref: refs/heads/main\n",
		"work/bare/config":  "[core]\n\tfsmonitor = touch /tmp/pwn\n",
		"wt/.git":           "gitdir: " + root + "/work/.git/worktrees/wt\n",
		"evilfile/.git":     "gitdir: ../half\n",
		"named.git/HEAD":    "ref: refs/heads/main\n",
		"plain/.git/HEAD":   "ref: refs/heads/main\n",
		"norepo/a/.git.bak": "x",
	} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink(t, filepath.Join(root, "work/bare"), filepath.Join(root, "linked"))
	return root
}

func TestUnsafeRepository(t *testing.T) {
	root := gitTree(t)
	cases := []struct {
		dir, repo string // repo "" when safe
	}{
		{"work", ""},
		{"work/sub/deeper", ""},
		{"work/.git", ""},
		{"plain/.git", ""},
		{"norepo/a", ""},
		{"half", ""},
		{"wt", ""},
		{"work/bare", "work/bare"},
		{"work/bare/x", "work/bare"},
		{"named.git", "named.git"},
		{"evilfile", "half"},
	}
	for _, c := range cases {
		repo, reason, found := UnsafeRepository(filepath.Join(root, c.dir), nil)
		if (c.repo != "") != found {
			t.Errorf("%s: found %v (%s %s), want %v", c.dir, found, repo, reason, c.repo != "")
			continue
		}
		if found && repo != filepath.Join(root, c.repo) {
			t.Errorf("%s: repository %s, want %s", c.dir, repo, c.repo)
		}
	}
	// Through a symlink, the caller passes the resolved directory.
	real, _ := RealPath(filepath.Join(root, "linked"))
	if _, _, found := UnsafeRepository(real, nil); !found {
		t.Errorf("linked: the bare repository behind the symlink was not found")
	}
}

func TestGitWrite(t *testing.T) {
	root := gitTree(t)
	cases := []struct {
		path string
		hit  string // substring of the reason, "" for no hit
	}{
		{"work/bare/config", "is a git repository"},
		{"work/bare/hooks/pre-commit", "is a git repository"},
		{"work/bare/HEAD", "is a git repository"},
		{"work/bare/x/y", "is a git repository"},
		{"named.git/config", "is a git repository"},
		{"half/HEAD", "makes"},
		{"half/head", "makes"},
		{"norepo/a/objects", ""},
		{"norepo/a/config", ""},
		{"half/config", ""},
		{"work/src/main.go", ""},
		{"work/.git/config", ""}, // dangerous by its name already
		{"work/bare", ""},        // removing or replacing the repository itself
	}
	for _, c := range cases {
		reason, hit := GitWrite(filepath.Join(root, c.path), nil)
		if hit != (c.hit != "") || (hit && !strings.Contains(reason, c.hit)) {
			t.Errorf("%s: hit %v %q, want %q", c.path, hit, reason, c.hit)
		}
	}
	// half gets its third part: refs/objects next to a HEAD.
	if err := os.WriteFile(filepath.Join(root, "half/HEAD"), []byte("ref: refs/heads/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, hit := GitWrite(filepath.Join(root, "half/config"), nil); !hit {
		t.Errorf("half/config: no hit once half is a repository")
	}
}
