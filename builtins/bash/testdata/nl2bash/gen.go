//go:build ignore

// gen samples the NL2Bash corpus (https://github.com/TellinaTool/nl2bash,
// data/bash/all.cm, MIT license) for the second real-world corpus of the
// read-only check (builtins/bash/nl2bash_test.go): the distinct non-empty
// command lines, ranked by SHA-256 of "permopa-issue-26 " + the line, the
// first -n of them; a line whose SHA-256 (alone) starts with an even byte is
// in the tuning half, the others in the holdout half. The fresh sample,
// drawn after both halves had been studied, is the first -fresh of the
// lines outside those -n, ranked by SHA-256 of "permopa-issue-26-fresh " +
// the line. The second fresh sample (fresh2), drawn after the fresh one had
// been studied too, is the first -fresh2 of the lines outside the first -n
// and the first -fresh, ranked by SHA-256 of "permopa-issue-26-fresh2 " +
// the line. The third fresh sample (fresh3), drawn after fresh2 had been
// studied too, is the first -fresh3 of the lines outside the first -n, the
// first -fresh and the first -fresh2, ranked by SHA-256 of
// "permopa-issue-26-fresh3 " + the line. The fourth fresh sample (fresh4),
// drawn after fresh3 had been studied too, is the first -fresh4 of the
// lines outside the first -n and the first three fresh samples, ranked by
// SHA-256 of "permopa-issue-26-fresh4 " + the line. It writes the six TSVs
// with the class "new" (classes already in the files are kept); the
// classification under strace fills them in:
//
//	go run ./builtins/bash/testdata/nl2bash/gen.go -repo /path/to/nl2bash.git
//	PERMOPA_NL2BASH_CLASSIFY=fresh4 go test -count=1 -run TestNL2BashClassify ./builtins/bash/
//
// Only the sampled command lines are kept (test inputs), nothing else of NL2Bash.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"sort"
	"strings"
)

var (
	repo   = flag.String("repo", "", "nl2bash git directory (bare is fine)")
	rev    = flag.String("rev", "466c5fe873ab08c7cc0112ea1521cc6ad9c20992", "revision to read")
	n      = flag.Int("n", 1000, "size of the tuning and holdout sample")
	fresh  = flag.Int("fresh", 600, "size of the fresh sample, drawn from the lines outside the first")
	fresh2 = flag.Int("fresh2", 700, "size of the second fresh sample, drawn from the lines outside the first and the fresh one")
	fresh3 = flag.Int("fresh3", 700, "size of the third fresh sample, drawn from the lines outside the first, the fresh and the second fresh one")
	fresh4 = flag.Int("fresh4", 700, "size of the fourth fresh sample, drawn from the lines outside the first and the first three fresh ones")
	dir    = flag.String("dir", "builtins/bash/testdata", "where the TSVs go")
)

const header = `# Real shell commands from a source other than tldr-pages: a sample of the NL2Bash corpus
# (https://github.com/TellinaTool/nl2bash, data/bash/all.cm at commit 466c5fe873ab08c7cc0112ea1521cc6ad9c20992,
# MIT license), one-liners people wrote for real tasks. Sampled and split by
# testdata/nl2bash/gen.go (%s); classified by running each command under strace in the dynamic
# check's fixture (nl2bash_test.go, TestNL2BashClassify). Commands are kept as written.
# class: readonly (no effect observed), not_readonly (wrote, ran code that is not the system's, read a
# secret, signalled, or talked to the network besides failing), skip (cannot be observed meaningfully here:
# note says why). note: the first effect, or why skipped.
command	class	note
`

func main() {
	flag.Parse()
	b, err := exec.Command("git", "--git-dir", *repo, "show", *rev+":data/bash/all.cm").Output()
	if err != nil {
		log.Fatalf("git show: %v", err)
	}
	seen := map[string]bool{}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" || seen[l] || strings.ContainsAny(l, "\t\r") {
			continue
		}
		seen[l] = true
		lines = append(lines, l)
	}
	rank := func(seed, s string) string {
		h := sha256.Sum256([]byte(seed + s))
		return hex.EncodeToString(h[:])
	}
	sort.Slice(lines, func(i, j int) bool {
		return rank("permopa-issue-26 ", lines[i]) < rank("permopa-issue-26 ", lines[j])
	})
	first, rest := lines[:min(*n, len(lines))], lines[min(*n, len(lines)):]
	// The fresh sample: a second seed over the lines the first sample left
	// out, so none of it was seen while the analyser was tuned.
	sort.Slice(rest, func(i, j int) bool {
		return rank("permopa-issue-26-fresh ", rest[i]) < rank("permopa-issue-26-fresh ", rest[j])
	})
	freshLines, rest := rest[:min(*fresh, len(rest))], rest[min(*fresh, len(rest)):]
	// The second fresh sample: a third seed over the lines neither sample
	// took, drawn after the fresh sample had been studied as well.
	sort.Slice(rest, func(i, j int) bool {
		return rank("permopa-issue-26-fresh2 ", rest[i]) < rank("permopa-issue-26-fresh2 ", rest[j])
	})
	fresh2Lines, rest := rest[:min(*fresh2, len(rest))], rest[min(*fresh2, len(rest)):]
	// The third fresh sample: a fourth seed over the lines no sample took,
	// drawn after the second fresh sample had been studied as well.
	sort.Slice(rest, func(i, j int) bool {
		return rank("permopa-issue-26-fresh3 ", rest[i]) < rank("permopa-issue-26-fresh3 ", rest[j])
	})
	fresh3Lines, rest := rest[:min(*fresh3, len(rest))], rest[min(*fresh3, len(rest)):]
	// The fourth fresh sample: a fifth seed over the lines no sample took,
	// drawn after the third fresh sample had been studied as well.
	sort.Slice(rest, func(i, j int) bool {
		return rank("permopa-issue-26-fresh4 ", rest[i]) < rank("permopa-issue-26-fresh4 ", rest[j])
	})
	halves := map[string][]string{"fresh": freshLines, "fresh2": fresh2Lines, "fresh3": fresh3Lines, "fresh4": rest[:min(*fresh4, len(rest))]}
	for _, l := range first {
		h := sha256.Sum256([]byte(l))
		half := "holdout"
		if h[0]%2 == 0 {
			half = "tune"
		}
		halves[half] = append(halves[half], l)
	}
	for _, half := range []string{"tune", "holdout", "fresh", "fresh2", "fresh3", "fresh4"} {
		path := fmt.Sprintf("%s/nl2bash-%s.tsv", *dir, half)
		old := map[string]string{}
		if f, err := os.Open(path); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				if c := strings.SplitN(sc.Text(), "\t", 2); len(c) == 2 && !strings.HasPrefix(c[0], "#") {
					old[c[0]] = c[1]
				}
			}
			f.Close()
		}
		var out bytes.Buffer
		what := half + " half"
		switch half {
		case "fresh":
			what = "fresh sample: a second seed over the lines outside the tuning and holdout halves,\n# drawn 2026-12-06 after both halves had been studied"
		case "fresh2":
			what = "second fresh sample: a third seed over the lines outside the halves and the fresh\n# sample, drawn 2026-12-06 after all three had been studied"
		case "fresh3":
			what = "third fresh sample: a fourth seed over the lines outside the halves and the first two fresh\n# samples, drawn 2026-12-06 after all four had been studied"
		case "fresh4":
			what = "fourth fresh sample: a fifth seed over the lines outside the halves and the first three fresh\n# samples, drawn 2026-12-06 at 10:00 UTC after all five had been studied"
		}
		fmt.Fprintf(&out, header, what)
		for _, l := range halves[half] {
			rest := old[l]
			if rest == "" {
				rest = "new\t"
			}
			fmt.Fprintf(&out, "%s\t%s\n", l, rest)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d commands\n", path, len(halves[half]))
	}
}
