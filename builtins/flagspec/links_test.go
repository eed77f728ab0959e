package flagspec

import (
	"slices"
	"strings"
	"testing"
)

// Links as each program treats them (docs/reads.md, "Links"): each
// recursive reader's entry says whether it follows a symbolic link below
// the directories it reads, per option, as checked under strace in
// engine.TestLinksAgainstStrace. Unknown or untested programs follow.
func TestRecursiveReadersFollowLinks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cmd     string
		follows bool
	}{
		// grep: -R follows every link whatever comes after it; -r and
		// -d recurse only the operands.
		{"grep -r KEY .", false}, {"grep -rn KEY src", false}, {"grep --recursive KEY", false},
		{"grep -d recurse KEY .", false}, {"grep --directories=recurse KEY .", false},
		{"grep -R KEY .", true}, {"grep --dereference-recursive KEY", true}, {"grep --deref KEY", true},
		{"grep -rR KEY .", true}, {"grep -Rr KEY .", true}, {"grep -R -d recurse KEY .", true},
		// rg: -L/--follow, the last of it and --no-follow wins.
		{"rg KEY", false}, {"rg --hidden KEY", false}, {"rg -uu KEY", false}, {"rg --files", false},
		{"rg -L KEY", true}, {"rg --follow KEY", true}, {"rg -L --no-follow KEY", false},
		{"rg --no-follow -L KEY", true}, {"rg -L --files", true},
		// find: -L or -follow; of -H -L -P the last wins.
		{"find . -name x", false}, {"find -P . -name x", false}, {"find -H . -name x", false},
		{"find -L . -name x", true}, {"find -H -L .", true}, {"find -L -P .", false}, {"find . -follow -name x", true},
		{"find -L -P . -follow", true},
		// tree -l, ls -RL, du -aL (du: the last of -L and -P).
		{"tree", false}, {"tree -a", false}, {"tree -l", true}, {"tree -al", true},
		{"ls -R", false}, {"ls -RH", false}, {"ls -R --dereference-command-line", false},
		{"ls -RL", true}, {"ls -R --dereference", true},
		{"du -a", false}, {"du -aH", false}, {"du -a -D", false}, {"du -a --dereference-args", false},
		{"du -aL", true}, {"du -a --dereference", true}, {"du -aL -P", false}, {"du -a -P -L", true},
		// git reads a link as a blob.
		{"git grep --no-index KEY", false}, {"git grep --untracked KEY", false},
		{"git diff --no-index a b", false},
		// cp -r copies links as links; -L follows (a later -P or -a taken to follow still).
		{"cp -r src dst", false}, {"cp -a src dst", false}, {"cp -rL src dst", true}, {"cp -R --dereference src dst", true},
		{"cp -rLP src dst", true},
		// tar c keeps links unless -h; zip -r follows unless -y.
		{"tar cf x.tar src", false}, {"tar -czf x.tgz src", false}, {"tar chf x.tar src", true},
		{"tar -c --dereference -f x.tar src", true}, {"tar -c --deref -f x.tar src", true},
		{"zip -r x.zip src", true}, {"zip -ry x.zip src", false}, {"zip -r --symlinks x.zip src", false},
		// Programs that follow (verified), or that are not modelled (taken to).
		{"diff -r a b", true}, {"gzip -rc src", true}, {"scp -r src h:x", true}, {"rsync -a src h:x", true},
	}
	for _, c := range cases {
		argv := strings.Fields(c.cmd)
		v := Judge(argv)
		if len(v.RecursiveReads) == 0 {
			t.Errorf("%s: no recursive read (%s)", c.cmd, v.Reason)
			continue
		}
		for _, tr := range v.RecursiveReads {
			if tr.SkipsLinks == c.follows {
				t.Errorf("%s: tree %s skips links %v, want follows %v", c.cmd, tr.Path, tr.SkipsLinks, c.follows)
			}
		}
	}
}

// curl's options as curl reads them (issue 23): abbreviations of long
// options and short synonyms reach the canonical option deny rules name;
// curl stays network egress, never read-only, and -o/-T name the paths
// written and read.
func TestCurlOptionSpellings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		argv  string
		canon string
	}{
		{"curl --upload-file x https://h", "--upload-file"}, {"curl --upload-fi x https://h", "--upload-file"},
		{"curl -T x https://h", "--upload-file"}, {"curl --output-d /tmp https://h", "--output-dir"},
		{"curl -o f https://h", "--output"}, {"curl --output f https://h", "--output"},
		{"curl -X POST https://h", "--request"}, {"curl --user-a x https://h", "--user-agent"},
		{"curl --data-bin @f https://h", "--data-binary"},
	} {
		inv, ok := Parse(strings.Fields(c.argv))
		if !ok || inv.Open != "" {
			t.Errorf("%s: not parsed (%q)", c.argv, inv.Open)
			continue
		}
		found := false
		for _, o := range inv.Options {
			found = found || o.Name == c.canon
		}
		if !found {
			t.Errorf("%s: options %+v, want %s", c.argv, inv.Options, c.canon)
		}
	}
	// --outp is ambiguous for curl too (--output, --output-dir): open.
	if inv, ok := Parse(strings.Fields("curl --outp f https://h")); ok && inv.Open == "" {
		t.Errorf("curl --outp: parsed as %+v, want open (ambiguous)", inv.Options)
	}
	for _, c := range []struct{ argv, write, read string }{
		{"curl -o out.txt https://h", "out.txt", ""}, {"curl --outpu=x https://h", "", ""},
		{"curl -T up.bin https://h", "", "up.bin"}, {"curl -K cfg https://h", "", "cfg"},
	} {
		v := Judge(strings.Fields(c.argv))
		if v.ReadOnly || v.Network != NetEgress {
			t.Errorf("%s: read-only %v network %q, want egress", c.argv, v.ReadOnly, v.Network)
		}
		if c.write != "" && !slices.Contains(v.Writes, c.write) || c.read != "" && !slices.Contains(v.Reads, c.read) {
			t.Errorf("%s: writes %v reads %v", c.argv, v.Writes, v.Reads)
		}
	}
	if v := Judge([]string{"curl", "--version"}); !v.ReadOnly {
		t.Errorf("curl --version: %s", v.Reason)
	}
}
