package bash

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/permopa/permopa/builtins/paths"
)

// The hostile-project fuzzer (issue 23): the dynamic check's fixture with
// hostile files planted in the project — repository configuration that
// names a fixture script (core.fsmonitor, diff.external, a textconv
// driver, a clean filter, an include, the post-index-change hook, a
// pager), rc files (.yarnrc yarn-path, .yarnrc.yml yarnPath, .npmrc
// userconfig naming a planted secret), a man page that includes the
// secret with .so — and invocations of git, npm, yarn, pnpm and man
// generated from their options. Each invocation the decision allows (the
// analysis says read-only and permopa.path.project_configs' primitive,
// paths.ConfigFindings, finds nothing in what the program loads) runs under
// strace in the read-only fixture: any effect of the dynamic check, any
// exec of the fixture script and any open of the planted secret fails the
// test. Without a hostile file the same invocations must be allowed (the
// check is not vacuous).

// hostilePlanting is one hostile project.
type hostilePlanting struct {
	name string
	// programs are the programs the planting is aimed at: their allowed
	// invocations are traced (the others are traced in the plain fixture).
	programs string
	plant    func(t testing.TB, proj, evil, secret string)
}

func appendTo(t testing.TB, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

var hostilePlantings = []hostilePlanting{
	{"none", "git npm yarn pnpm man", func(testing.TB, string, string, string) {}},
	{"core.fsmonitor", "git", func(t testing.TB, proj, evil, _ string) {
		appendTo(t, proj+"/.git/config", "[core]\n\tfsmonitor = "+evil+"\n")
	}},
	{"diff.external", "git", func(t testing.TB, proj, evil, _ string) {
		appendTo(t, proj+"/.git/config", "[diff]\n\texternal = "+evil+"\n")
	}},
	{"textconv", "git", func(t testing.TB, proj, evil, _ string) {
		appendTo(t, proj+"/.git/config", "[diff \"h\"]\n\ttextconv = "+evil+"\n")
		appendTo(t, proj+"/.gitattributes", "* diff=h\n")
	}},
	{"clean filter", "git", func(t testing.TB, proj, evil, _ string) {
		appendTo(t, proj+"/.git/config", "[filter \"h\"]\n\tclean = "+evil+"\n\tprocess = "+evil+"\n")
		appendTo(t, proj+"/.git/info/attributes", "* filter=h\n")
	}},
	{"include", "git", func(t testing.TB, proj, evil, _ string) {
		appendTo(t, proj+"/.git/config", "[includeIf \"onbranch:*\"]\n\tpath = ../.hostile.cfg\n")
		appendTo(t, proj+"/.hostile.cfg", "[core]\n\tfsmonitor = "+evil+"\n[pager]\n\tlog = "+evil+"\n")
	}},
	{"hooks", "git", func(t testing.TB, proj, evil, _ string) {
		for _, h := range []string{"post-index-change", "reference-transaction"} {
			appendTo(t, proj+"/.git/hooks/"+h, "#!/bin/sh\nexec "+evil+"\n")
			os.Chmod(proj+"/.git/hooks/"+h, 0o755)
		}
	}},
	{"worktree", "git", func(t testing.TB, proj, _, secret string) {
		appendTo(t, proj+"/.git/config", "[core]\n\tworktree = "+filepath.Dir(secret)+"\n")
	}},
	{"yarn", "yarn", func(t testing.TB, proj, evil, _ string) {
		appendTo(t, proj+"/.yarnrc", "yarn-path \""+evil+"\"\n")
		appendTo(t, proj+"/.yarnrc.yml", "yarnPath: "+evil+"\n")
	}},
	{"npmrc", "npm pnpm", func(t testing.TB, proj, evil, secret string) {
		appendTo(t, proj+"/.npmrc", "userconfig="+secret+"\nscript-shell="+evil+"\n")
	}},
	{"man page", "man", func(t testing.TB, proj, _, secret string) {
		appendTo(t, proj+"/page.1", ".TH X 1\n.so "+secret+"\n")
		appendTo(t, proj+"/mp/man1/ls.1", ".TH LS 1\n.so "+secret+"\n")
		appendTo(t, proj+"/man.conf", "DEFINE\tnroff\t"+filepath.Join(proj, "evil.sh")+"\n")
	}},
}

// hostileInvocations generates n invocations of each program from its
// options and subcommands, deterministically.
func hostileInvocations(n int) []string {
	r := rand.New(rand.NewSource(23))
	type family struct {
		forms []string
		opts  []string
	}
	families := map[string]family{
		"git status": {[]string{"git status", "git -C src status", "cd src && git status"}, []string{"-s", "--short", "-b", "--porcelain", "-uno", "--ignored", "--untracked-files=all"}},
		"git diff":   {[]string{"git diff", "git diff HEAD", "git -C src diff", "git diff --cached"}, []string{"--stat", "-p", "--textconv", "--name-only", "-w", "--color=never", "--ext-diff"}},
		"git log":    {[]string{"git log", "git log HEAD", "git -C src log"}, []string{"-p", "--stat", "--oneline", "-n 2", "--all", "--format=%H", "--textconv", "--follow -- notes.txt"}},
		"git show":   {[]string{"git show", "git show HEAD", "git show HEAD:notes.txt"}, []string{"--stat", "--textconv", "-p", "--name-only"}},
		"git blame":  {[]string{"git blame notes.txt", "git blame -- notes.txt"}, []string{"-w", "-s", "--textconv", "-L 1,2"}},
		"git grep":   {[]string{"git grep TODO", "git grep -n line"}, []string{"-i", "-c", "--textconv", "-l", "--cached"}},
		"git other":  {[]string{"git ls-files", "git rev-parse HEAD", "git branch", "git tag", "git log -1 --format=%s", "git diff-index HEAD", "git cat-file -p HEAD"}, nil},
		"npm":        {[]string{"npm ls", "npm config list", "npm root", "npm prefix", "npm explain x", "npm ls --all"}, []string{"--json", "--long", "--parseable"}},
		"yarn":       {[]string{"yarn list", "yarn why x", "yarn info x"}, []string{"--json"}},
		"pnpm":       {[]string{"pnpm list", "pnpm why x"}, []string{"--json"}},
		"man":        {[]string{"man ls", "man -k ls", "man -f ls", "man -w ls", "man ./page.1", "man -l page.1", "man -M mp ls", "man -C man.conf ls", "man " + "page.1"}, []string{"--nj", "--nh", "-a", "-7"}},
	}
	names := make([]string, 0, len(families))
	for k := range families {
		names = append(names, k)
	}
	sort.Strings(names)
	seen := map[string]bool{}
	var out []string
	for _, name := range names {
		f := families[name]
		for _, form := range f.forms {
			if !seen[form] {
				seen[form] = true
				out = append(out, form)
			}
		}
		for i := 0; i < n; i++ {
			form := f.forms[r.Intn(len(f.forms))]
			words := strings.Fields(form)
			k := 2
			if words[0] == "cd" {
				k = 5
			} else if len(words) > 2 && words[1] == "-C" {
				k = 4
			}
			k = min(k, len(words))
			var opts []string
			for _, o := range f.opts {
				if r.Intn(3) == 0 {
					opts = append(opts, o)
				}
			}
			cmd := strings.Join(append(append(append([]string{}, words[:k]...), opts...), words[k:]...), " ")
			if !seen[cmd] {
				seen[cmd] = true
				out = append(out, cmd)
			}
		}
	}
	return out
}

// hostileAllowed is the decision's read-only verdict for cmd in the
// fixture: the analysis, then what the programs load from the project.
func hostileAllowed(cmd string, opts Options) (bool, *Analysis) {
	a := analyze(cmd, opts)
	if !a.ReadOnly {
		return false, a
	}
	for _, pc := range a.ProjectConfigs {
		if len(paths.ConfigFindings(pc.Program, pc.Dir, opts.Home)) > 0 {
			return false, a
		}
	}
	return true, a
}

func TestHostileProjectFuzz(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		t.Skip("hostile-project fuzzer skipped: " + why)
	}
	n := 3
	if slowTests {
		n = 20
	}
	if testing.Short() {
		n = 2
	}
	invocations := hostileInvocations(n)
	allowedPlain := map[string]bool{}
	total, traced := 0, 0
	quick := tracedSlowOnly() // TestHostileRunAllKeepsCommandsApart proves the runner quick
	for _, hp := range hostilePlantings {
		root, err := os.MkdirTemp("", "permopa-hostile-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
		os.Chmod(root, 0o755)
		// A copy of the shared fixture (built once, buildFixture), not a
		// new build per planting: the same tree, without its dozens of
		// processes (git, compressors) eleven times over.
		if out, err := exec.Command("cp", "-a", fixtureTemplate(t, d)+"/.", root).CombinedOutput(); err != nil {
			t.Fatalf("copying the fixture: %v %s", err, out)
		}
		home := filepath.Join(root, "home")
		proj := filepath.Join(home, "proj")
		evil := filepath.Join(proj, "evil.sh")
		secret := filepath.Join(home, "planted-secret")
		appendTo(t, evil, "#!/bin/sh\ncat\n")
		os.Chmod(evil, 0o755)
		appendTo(t, secret, "PLANTEDSECRET\n")
		hp.plant(t, proj, evil, secret)
		if d.root {
			if out, err := exec.Command("chown", "-R", "65534:65534", root).CombinedOutput(); err != nil {
				t.Fatalf("chown: %v %s", err, out)
			}
		}
		opts := realWorldOpts(root)
		type job struct {
			cmd string
			a   *Analysis
		}
		var jobs []job
		for _, cmd := range invocations {
			total++
			ok, a := hostileAllowed(cmd, opts)
			if hp.name == "none" && ok {
				allowedPlain[cmd] = true
			}
			if ok && hostileAimedAt(hp.programs, a) {
				jobs = append(jobs, job{cmd, a})
			}
		}
		var runs []hostileCase
		for _, j := range jobs {
			// Every invocation is decided in every planting; .ci/run
			// (-tags slow) traces every one allowed (tracedSlowOnly,
			// docs/development.md), dynamicBatch to a strace run
			// (hostileRunAll).
			kind := "hostile"
			if hp.name == "none" {
				kind = "plain"
			}
			if quick.take(kind) {
				runs = append(runs, hostileCase{j.cmd, j.a})
			}
		}
		for k, bad := range hostileRunAll(t, d, root, runs, evil, secret) {
			traced++
			for _, b := range bad {
				t.Errorf("%s: ALLOWed %q: %s", hp.name, runs[k].cmd, b)
			}
		}
		aimed := 0
		for _, cmd := range invocations {
			if hostileAimedAt(hp.programs, analyze(cmd, opts)) && allowedPlain[cmd] {
				aimed++
			}
		}
		// The man planting is reached only through invocations that are
		// never read-only (a page path, -M, -C): nothing to refuse here.
		if hp.name != "none" && hp.name != "man page" && len(jobs) >= aimed {
			t.Errorf("%s: %d of the %d invocations allowed in the plain fixture still allowed: the planting is not seen", hp.name, len(jobs), aimed)
		}
	}
	// The control: in the plain fixture, git, npm and man invocations are
	// allowed (yarn and pnpm too when their options are modelled).
	for _, want := range []string{"git status", "git diff", "git log", "npm ls", "man ls", "yarn list"} {
		if !allowedPlain[want] {
			t.Errorf("plain fixture: %q is not allowed: the fuzzer would prove nothing", want)
		}
	}
	t.Logf("hostile-project fuzzer: %d invocations × %d projects = %d decisions, %d traced (programs git, npm, yarn, pnpm, man)",
		len(invocations), len(hostilePlantings), total, traced)
}

// hostileAimedAt reports whether a leaf of a runs one of programs.
func hostileAimedAt(programs string, a *Analysis) bool {
	for _, l := range a.Leaves {
		for _, p := range strings.Fields(programs) {
			if filepath.Base(l.Program) == p {
				return true
			}
		}
	}
	return false
}

// hostileRun traces cmd in the fixture at root and returns what it did
// that an allowed command must not do.
func hostileRun(t *testing.T, d *dynamicTracer, root, cmd string, a *Analysis, evil, secret string) []string {
	return hostileRunAll(t, d, root, []hostileCase{{cmd, a}}, evil, secret)[0]
}

// hostileCase is a command hostileRunAll traces, with its analysis.
type hostileCase struct {
	cmd string
	a   *Analysis
}

// hostileRunAll is hostileRun for many commands, traced eight to a run
// (traceAll, runBatch: each command's effects, trace files and output are
// its own, TestDynamicBatchKeepsCommandsApart), the verdicts in order.
func hostileRunAll(t *testing.T, d *dynamicTracer, root string, cases []hostileCase, evil, secret string) [][]string {
	jobs := make([]tracedJob, len(cases))
	for i, c := range cases {
		// git refreshes the repository's index wherever it starts (git -C
		// src status writes proj/.git/index.lock; the analysis names the
		// index relative to the directory git starts in).
		cache := c.a.CacheWrites
		if hostileAimedAt("git", c.a) {
			cache = append([]string{filepath.Join(root, "home/proj/.git/index.lock"), filepath.Join(root, "home/proj/.git/index")}, cache...)
		}
		jobs[i] = tracedJob{cmd: c.cmd, cache: cache, helpers: helpersFor(c.a), inspect: func(procs map[int]string) []string {
			var found []string
			for _, f := range procs {
				b, err := os.ReadFile(f)
				if err != nil {
					continue
				}
				for _, line := range strings.Split(string(b), "\n") {
					switch {
					case strings.HasPrefix(line, "execve(") && strings.Contains(line, evil):
						found = append(found, "runs the fixture script: "+abbrev(line))
					case strings.Contains(line, secret) && !strings.Contains(line, "= -1"):
						found = append(found, "opens the planted secret: "+abbrev(line))
					}
				}
			}
			return found
		}}
	}
	var results []dynamicResult
	if len(jobs) == 0 {
		return nil // nothing traced: the quick suite's hostile-name tables (tracedSlowOnly)
	}
	if len(jobs) == 1 {
		results = []dynamicResult{d.runJob(t, root, jobs[0], dynamicTimeout)}
	} else {
		results = d.traceAll(t, root, jobs)
	}
	verdicts := make([][]string, len(cases))
	for i, res := range results {
		var kept []string
		for _, e := range res.effects {
			if strings.Contains(e, " "+ipcPrefix) || cases[i].a.NetworkRead && strings.Contains(e, " network ") {
				continue
			}
			kept = append(kept, e)
		}
		kept = append(kept, res.inspected...)
		if strings.Contains(res.output, "PLANTEDSECRET") {
			kept = append(kept, "prints the planted secret")
		}
		verdicts[i] = kept
	}
	return verdicts
}

// TestHostileRunAllKeepsCommandsApart: traced in one batch, the planted
// script run, the planted secret opened and printed each land on the
// command that did it, never on the read-only commands around it.
func TestHostileRunAllKeepsCommandsApart(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root, err := os.MkdirTemp("", "permopa-hostile-batch-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	copyFixture(t, d, root)
	proj := filepath.Join(root, "home/proj")
	evil := filepath.Join(proj, "evil.sh")
	secret := filepath.Join(root, "home/planted-secret")
	appendTo(t, evil, "#!/bin/sh\ncat\n")
	os.Chmod(evil, 0o755)
	appendTo(t, secret, "PLANTEDSECRET\n")
	if d.root {
		if out, err := exec.Command("chown", "-R", "65534:65534", root).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	cases := []struct {
		cmd  string
		want []string // a substring of each finding; none for a clean command
	}{
		{"cat notes.txt", nil},
		{"\"$PWD/evil.sh\" < /dev/null", []string{"runs the fixture script"}},
		{"ls -la", nil},
		{"cat ../planted-secret", []string{"opens the planted secret", "prints the planted secret"}},
		{"wc -l notes.txt", nil},
		{"head -c 0 ../planted-secret", []string{"opens the planted secret"}},
		{"echo done", nil},
	}
	opts := realWorldOpts(root)
	runs := make([]hostileCase, len(cases))
	for i, c := range cases {
		runs[i] = hostileCase{c.cmd, analyze(c.cmd, opts)}
	}
	for i, found := range hostileRunAll(t, d, root, runs, evil, secret) {
		c := cases[i]
		all := strings.Join(found, "\n")
		if len(c.want) == 0 && len(found) > 0 {
			t.Errorf("%q: %q, want nothing (another command's doing)", c.cmd, found)
		}
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%q: %q, want one with %q", c.cmd, found, w)
			}
		}
	}
}
