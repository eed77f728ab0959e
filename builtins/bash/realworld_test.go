package bash

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// The real-world corpus (testdata/realworld.tsv) holds the example commands
// of tldr-pages for the programs agents run, with placeholders replaced by
// paths of the dynamic check's fixture (dynamic_test.go), each labelled by
// observation under strace and by review:
//
//	readonly      changes nothing, runs nothing that is not read-only, no network
//	netread       only talks to a service configured outside the command
//	              (kubectl get, gh pr view, docker ps): read-only unless the
//	              network_reads setting is ask
//	not_readonly  writes, deletes, runs code, signals, or sends to a
//	              destination named in its own arguments
//	runtime       its operands are decided at run time (xargs cat): out of recall

// realWorldRow is one corpus row.
type realWorldRow struct {
	cmd, label, source, note string
}

func loadRealWorld(t testing.TB) []realWorldRow {
	t.Helper()
	f, err := os.Open("testdata/realworld.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []realWorldRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "command\t") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 4 {
			t.Fatalf("realworld.tsv: want 4 columns: %q", line)
		}
		switch c[1] {
		case "readonly", "netread", "not_readonly", "runtime", "new":
		default:
			t.Fatalf("realworld.tsv: unknown label %q in %q", c[1], line)
		}
		rows = append(rows, realWorldRow{c[0], c[1], c[2], c[3]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// realWorldOpts are the analysis options matching the fixture layout with
// its root at root: the home directory root/home, the project root/home/proj,
// and each command run in a shell of its own as bash -c's script with no
// words after it, as the hosts' hooks decide (Options.ShellPerCall and
// PositionalEmpty; the dynamic checks run each command so).
func realWorldOpts(root string) Options {
	return Options{Cwd: root + "/home/proj", Home: root + "/home", ShellPerCall: true, PositionalEmpty: true}
}

// TestRealWorldRecall: over the real-world corpus, no command labelled
// not_readonly (or runtime) is judged read-only, and at least 90% of the
// read-only ones (readonly and netread) are. It prints the numbers, and
// the misses with their reasons under -v. The commands are analysed in the
// fixture they were labelled in (fixtureTemplate, files only, built once per
// test binary), so what the analyser looks at when it decides is there.
func TestRealWorldRecall(t *testing.T) {
	t.Parallel()
	rows := loadRealWorld(t)
	opts := realWorldOpts(fixtureTemplate(t, nil))
	var ro, roHit, net, netHit, nro, falseRO int
	missesBy := map[string]int{}
	for _, r := range rows {
		a := analyze(r.cmd, opts)
		switch r.label {
		case "new":
			t.Errorf("realworld.tsv: %q (%s) is not labelled yet", r.cmd, r.source)
		case "readonly", "netread":
			if r.label == "netread" {
				net++
			} else {
				ro++
			}
			if a.ReadOnly {
				if r.label == "netread" {
					netHit++
				} else {
					roHit++
				}
				if r.label == "netread" && !a.NetworkRead {
					t.Errorf("%q (%s) is a network read but the analysis does not say so", r.cmd, r.source)
				}
				if r.label == "readonly" && a.NetworkRead {
					t.Errorf("%q (%s) is labelled readonly but the analysis calls it a network read", r.cmd, r.source)
				}
				continue
			}
			prog := r.cmd
			if i := strings.IndexByte(prog, ' '); i > 0 {
				prog = prog[:i]
			}
			missesBy[prog]++
			t.Logf("missed (%s) %q: %s", r.source, r.cmd, strings.Join(a.NotReadOnly, "; "))
		default:
			nro++
			if a.ReadOnly {
				falseRO++
				t.Errorf("false read-only (%s, labelled %s) %q", r.source, r.label, r.cmd)
			}
		}
	}
	hit, total := roHit+netHit, ro+net
	recall := 100 * float64(hit) / float64(max(total, 1))
	var top []string
	for p, n := range missesBy {
		top = append(top, fmt.Sprintf("%s:%d", p, n))
	}
	sort.Slice(top, func(i, j int) bool {
		ni, nj := missesBy[strings.Split(top[i], ":")[0]], missesBy[strings.Split(top[j], ":")[0]]
		return ni > nj || ni == nj && top[i] < top[j]
	})
	if len(top) > 20 {
		top = top[:20]
	}
	fmt.Printf("real-world recall: %d/%d read-only commands judged read-only (%.1f%%; readonly %d/%d, netread %d/%d); "+
		"%d not read-only, %d judged read-only\n", hit, total, recall, roHit, ro, netHit, net, nro, falseRO)
	t.Logf("most missed programs: %s", strings.Join(top, " "))
	if recall < 90 {
		t.Errorf("real-world recall %.1f%% < 90%%", recall)
	}
}
