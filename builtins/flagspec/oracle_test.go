package flagspec

import (
	"bytes"
	"context"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWritersAgainstRealPrograms runs random option combinations of
// programs that have writing options (sort, uniq, tee, sed, xxd), and of
// installed read-only programs, for real,
// in an empty scratch directory holding two input files. Whenever Judge
// says read-only, the directory must be unchanged afterwards: no new file,
// no modified input. Options are drawn from each spec in full, abbreviated,
// glued and clustered forms, so the test checks arities and GNU
// abbreviation against the real parsers. A missing program is skipped, but
// fails the test with CI set; the test is skipped in -short mode. FLAGSPEC_ORACLE_N sets the number of runs.
func TestWritersAgainstRealPrograms(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("short")
	}
	n, m := 120, 20
	if !slowTests {
		n, m = 15, 3 // the first draws of the same seed, judged; all with -tags slow
	}
	seed := int64(2)
	if v, err := strconv.Atoi(os.Getenv("FLAGSPEC_ORACLE_N")); err == nil {
		n, m, seed = v, v/4, time.Now().UnixNano()
	}
	rng := rand.New(rand.NewSource(seed))
	dir := t.TempDir()
	checked := 0
	quick := quickFirst{}
	// Writers get n runs each; the others (which should never write) m.
	// date, hostname, env and awk are left out: a wrong verdict would set
	// the clock or run a command.
	progs := []string{"sort", "uniq", "tee", "sed", "xxd",
		"head", "tail", "cat", "nl", "cut", "wc", "od", "base64", "ls", "du", "stat", "diff",
		"comm", "join", "shuf", "tac", "fold", "paste", "expand", "grep", "realpath", "readlink",
		"md5sum", "basename", "seq", "tr", "cmp", "jq", "file", "tree", "rg", "find"}
	for pi, prog := range progs {
		if _, err := exec.LookPath(prog); err != nil {
			// A proof that skips proves nothing: CI (.ci/run installs
			// every one of them) fails instead.
			if os.Getenv("CI") != "" {
				t.Errorf("%s is not installed; CI is set, so the oracle fails instead of skipping it", prog)
			} else {
				t.Logf("%s not installed, not checked (with CI set the test fails)", prog)
			}
			continue
		}
		runs := n
		if pi >= 5 {
			runs = m
		}
		pool := wordPool(lookup(prog))
		if prog == "find" {
			pool = findPool()
			runs = n
		}
		for i := 0; i < runs; i++ {
			argv := []string{prog}
			for k := rng.Intn(4); k >= 0; k-- {
				argv = append(argv, pool[rng.Intn(len(pool))]...)
			}
			if prog == "sed" && rng.Intn(2) == 0 {
				argv = append(argv, "p")
			}
			v := Judge(argv)
			// Every invocation drawn is judged; without -tags slow the
			// first judged read-only of a writer and of another program
			// run; .ci/run runs them all (quickFirst, docs/development.md).
			kind := "writer"
			if pi >= 5 {
				kind = "reader"
			}
			if !v.ReadOnly || !quick.take(kind) {
				continue
			}
			checked++
			if changed := runIn(t, dir, argv); changed != "" {
				t.Errorf("%q judged read-only, but %s", argv, changed)
			}
		}
	}
	t.Logf("%d read-only invocations run for real", checked)
}

// wordPool returns argument groups: each option in several spellings with
// values that name files, plus operands.
func wordPool(s *spec) [][]string {
	pool := [][]string{{"in1"}, {"in2"}, {"out1"}, {"--"}, {"-"}}
	for _, d := range s.defs {
		if d.name == "--help" || d.name == "--version" {
			continue
		}
		names := []string{d.name}
		if strings.HasPrefix(d.name, "--") {
			for l := 3; l < len(d.name); l++ {
				names = append(names, d.name[:l])
			}
		}
		for _, nm := range names {
			long := len(nm) > 2
			switch d.arity {
			case argNone:
				pool = append(pool, []string{nm})
				if !long {
					pool = append(pool, []string{nm + "n"}, []string{"-n" + nm[1:]})
				}
			default:
				pool = append(pool, []string{nm, "out2"})
				if long {
					pool = append(pool, []string{nm + "=out3"})
				} else {
					pool = append(pool, []string{nm + "out4"})
				}
			}
		}
	}
	return pool
}

// runIn resets dir, runs argv there with empty stdin for at most 300ms,
// and says what changed ("" when nothing did).
func runIn(t *testing.T, dir string, argv []string) string {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
	inputs := map[string]string{"in1": "b\na\na\n", "in2": "x\ny\n"}
	for name, body := range inputs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(nil)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	_ = cmd.Run()
	ents, _ = os.ReadDir(dir)
	for _, e := range ents {
		body, ok := inputs[e.Name()]
		if !ok {
			return "it created " + e.Name()
		}
		got, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if string(got) != body {
			return "it changed " + e.Name()
		}
	}
	if len(ents) != len(inputs) {
		return "it removed an input"
	}
	return ""
}

// findPool returns find's primaries with plausible values, the denied ones
// included, and starting points.
func findPool() [][]string {
	pool := [][]string{{"."}, {"in1"}, {"-H"}, {"-L"}, {"-P"}, {"-O2"}}
	for p, n := range findArity {
		switch {
		case n == 0:
			pool = append(pool, []string{p})
		case p == "-printf":
			pool = append(pool, []string{p, "%p\\n"})
		case p == "-maxdepth" || p == "-mindepth" || p == "-links":
			pool = append(pool, []string{p, "1"})
		case p == "-type" || p == "-xtype":
			pool = append(pool, []string{p, "f"})
		default:
			pool = append(pool, []string{p, "in1"})
		}
	}
	for p := range findDenied {
		pool = append(pool, []string{p}, []string{p, "out1"}, []string{p, "touch", "out2", ";"})
	}
	return pool
}
