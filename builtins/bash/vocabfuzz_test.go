package bash

import (
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/builtins/paths"
)

// The vocabulary fuzzer (issue 23): for every form the vocabulary can call
// read-only (flagspec.Forms: each program and subcommand), invocations are
// generated from the options its entry allows, with values (paths from the
// fixture, the hostile ones included), and operands as its entry says,
// in a project holding every hostile planting of hostilePlantings (git
// configuration naming a fixture script, yarn and npm rc files, a man page
// with .so, a man configuration) and links into ~/.ssh (a link to a planted
// key, a link to the directory). Each invocation the decision allows (the
// analysis says read-only, what the program loads from the project holds
// nothing that runs code, and no path or tree it reads is a credential) runs
// under strace in the read-only fixture: any effect of the dynamic check,
// any exec of the fixture script and any open of the planted key fails the
// test. A program the vocabulary calls read-only that is not installed
// cannot be fuzzed: under CI it fails the test unless vocabUnfuzzable
// names it with the reason (SECURITY.md reports both).

// vocabUnfuzzable are the read-only programs the fuzzer cannot run here,
// with the reason; SECURITY.md lists them.
var vocabUnfuzzable = map[string]string{
	"brew": "Homebrew is no Debian package (macOS and Linuxbrew only)",
	"md5":  "BSD md5 has no Debian package (md5sum is fuzzed)",
	"yarn": "Debian ships yarn 1 as yarnpkg; the yarn rc plantings are fuzzed by TestHostileProjectFuzz where yarn is installed",
	"pnpm": "no Debian package (installed from npm)",
	"fd":   "Debian ships it as fdfind (fuzzed)",
	"bat":  "Debian ships it as batcat (fuzzed)",
	// Debian names.
	"tealdeer": "Debian's package installs it as tldr (fuzzed)",
	"mlocate":  "Debian's mlocate is plocate's transitional package, with no mlocate program (locate, plocate fuzzed)",
}

// vocabFixtureOperands are the paths generated invocations name: plain
// files, the project, and the hostile ones.
var vocabFixtureOperands = []string{"notes.txt", "src", ".", "data.json", "seclink", "sshdir", "page.1", "link"}

// vocabInvocations generates n invocations of form f, deterministically.
func vocabInvocations(f flagspec.Form, n int) []string {
	h := fnv.New64a()
	h.Write([]byte(strings.Join(f.Words, " ")))
	r := rand.New(rand.NewSource(int64(h.Sum64())))
	pick := func(xs []string) string { return xs[r.Intn(len(xs))] }
	var opts []flagspec.FormOption
	for _, o := range f.Options {
		if o.Role != "write" && o.Name != "--help" && o.Name != "--version" {
			opts = append(opts, o)
		}
	}
	seen := map[string]bool{}
	var out []string
	for i := 0; i < n*3 && len(out) < n; i++ {
		words := append([]string{}, f.Words...)
		for k := r.Intn(3); k > 0 && len(opts) > 0; k-- {
			o := opts[r.Intn(len(opts))]
			val := "1"
			if o.Role == "read" {
				val = pick(vocabFixtureOperands)
			}
			switch {
			case o.Value == "":
				words = append(words, o.Name)
			case o.Value == "optional":
				words = append(words, o.Name)
			case o.Value == "two":
				words = append(words, o.Name, "x", val)
			case strings.HasPrefix(o.Name, "--"):
				words = append(words, o.Name+"="+val)
			default:
				words = append(words, o.Name, val)
			}
		}
		switch f.Operands {
		case "read", "hook":
			words = append(words, pick(vocabFixtureOperands))
		case "pattern":
			words = append(words, "line", pick(vocabFixtureOperands))
		case "git":
			words = append(words, pick([]string{"HEAD", "--", "notes.txt", "seclink"}))
		case "text":
			words = append(words, "x")
		}
		cmd := strings.Join(words, " ")
		if !seen[cmd] {
			seen[cmd] = true
			out = append(out, cmd)
		}
	}
	return out
}

// vocabAllowed is the decision's verdict for cmd in the fixture: the
// analysis is read-only, the project's configurations hold nothing that
// runs code, and no path or tree read is a credential (the primitives the
// policy calls: docs/reads.md).
func vocabAllowed(cmd string, opts Options) (bool, *Analysis) {
	ok, a := hostileAllowed(cmd, opts)
	if !ok {
		return false, a
	}
	cl := paths.Default()
	for _, l := range a.Leaves {
		for _, p := range append(append([]string{}, l.Reads...), l.Touches...) {
			r := paths.ResolvePath(p, opts.Cwd, opts.Home)
			if r.Unknown != "" {
				return false, a
			}
			for _, q := range []string{r.Abs, r.Real} {
				if _, cred, _ := cl.Classify(q); cred {
					return false, a
				}
			}
		}
	}
	for _, t := range a.RecursiveReads {
		tr := paths.Tree{Root: paths.ResolvePath(t.Path, opts.Cwd, opts.Home), Hidden: t.Hidden, NamesOnly: t.NamesOnly,
			Ignores: t.Ignores, ExcludeDirs: t.ExcludeDirs, Include: t.Include, Exclude: t.Exclude,
			IncludeFirst: t.IncludeFirst, MaxDepth: t.MaxDepth, SkipsLinks: t.SkipsLinks}
		if v := cl.CheckTree(tr, opts.Home, nil); v.Credential || v.Unknown {
			return false, a
		}
	}
	return true, a
}

// installed reports whether bash finds prog (a program or a builtin).
func installed(prog string) bool {
	// A program in PATH is what bash's type finds first: no bash started.
	if _, err := exec.LookPath(prog); err == nil {
		return true
	}
	return exec.Command("bash", "-c", `type -t -- "$1" >/dev/null`, "bash", prog).Run() == nil
}

func TestReadOnlyVocabularyFuzz(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the vocabulary fuzzer cannot run: %s; CI is set, so it fails instead of skipping", why)
		}
		t.Skip("vocabulary fuzzer skipped: " + why)
	}
	forms := flagspec.Forms(1)
	n, every := 3, 1
	if !slowTests {
		// The quick suite: one invocation of every thirty-second form,
		// judged in process; all of them, three each, judged and traced
		// with -tags slow (.ci/run).
		n, every = 1, 32
	}
	if testing.Short() {
		n, every = 1, 40
	}
	root, err := os.MkdirTemp("", "permopa-vocab-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	copyFixture(t, d, root)
	home := filepath.Join(root, "home")
	proj := filepath.Join(home, "proj")
	evil := filepath.Join(proj, "evil.sh")
	secret := filepath.Join(home, ".ssh", "id_planted")
	appendTo(t, evil, "#!/bin/sh\ncat\n")
	os.Chmod(evil, 0o755)
	appendTo(t, secret, "PLANTEDSECRET\n")
	for _, hp := range hostilePlantings {
		hp.plant(t, proj, evil, secret)
	}
	for link, target := range map[string]string{"seclink": secret, "sshdir": filepath.Join(home, ".ssh")} {
		if err := os.Symlink(target, filepath.Join(proj, link)); err != nil {
			t.Fatal(err)
		}
	}
	if d.root {
		if out, err := exec.Command("chown", "-R", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	opts := realWorldOpts(root)
	type job struct {
		cmd, prog string
		a         *Analysis
	}
	var jobs []job
	missing := map[string]bool{}
	present := map[string]bool{} // bash is asked once a program
	programs := map[string]bool{}
	total := 0
	quick := tracedSlowOnly() // TestHostileRunAllKeepsCommandsApart proves the runner quick
	for i, f := range forms {
		if i%every != 0 {
			continue
		}
		prog := f.Words[0]
		if !present[prog] && (missing[prog] || !installed(prog)) {
			missing[prog] = true
			continue
		}
		present[prog] = true
		for _, cmd := range vocabInvocations(f, n) {
			total++
			// Every invocation generated is decided; .ci/run (-tags
			// slow) traces every one allowed (tracedSlowOnly,
			// docs/development.md).
			if ok, a := vocabAllowed(cmd, opts); ok && quick.take("clean") {
				jobs = append(jobs, job{cmd, prog, a})
			}
		}
	}
	traced := map[string]int{}
	runs := make([]hostileCase, len(jobs))
	for i, j := range jobs {
		programs[j.prog] = true
		runs[i] = hostileCase{j.cmd, j.a}
	}
	// Traced eight to a strace run (hostileRunAll).
	for i, bad := range hostileRunAll(t, d, root, runs, evil, secret) {
		j := jobs[i]
		traced[j.prog]++
		for _, b := range bad {
			if strings.Contains(b, "(attempted:EISDIR") {
				// Opening a directory for writing always fails:
				// shasum (perl) tries it on a directory operand.
				continue
			}
			t.Errorf("ALLOWed %q: %s", j.cmd, b)
		}
	}
	var unfuzzed []string
	for p := range missing {
		if _, ok := vocabUnfuzzable[p]; !ok {
			unfuzzed = append(unfuzzed, p)
		}
	}
	sort.Strings(unfuzzed)
	if len(unfuzzed) > 0 {
		msg := fmt.Sprintf("read-only programs not installed, not fuzzed: %s (.ci/run installs the Debian ones)", strings.Join(unfuzzed, " "))
		if os.Getenv("CI") != "" {
			t.Error(msg + "; CI is set: install them or make them not read-only")
		} else {
			t.Log(msg)
		}
	}
	t.Logf("vocabulary fuzzer: %d forms (every %d), %d invocations, %d allowed and traced (-tags slow), %d programs traced; not installed: %d",
		len(forms), every, total, len(jobs), len(programs), len(missing))
}
