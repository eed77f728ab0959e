package bash

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// The second real-world corpus (issue 26, "measured, not tuned"): a sample
// of NL2Bash, shell one-liners people wrote for real tasks, which no part of
// the analyser was built from (testdata/nl2bash-{tune,holdout}.tsv, sampled
// by testdata/nl2bash/gen.go). Each command is classified by running it
// under strace in the dynamic check's fixture, extended with the files,
// directories and old files such commands look for (nl2bashFixture), in
// observe mode: what the command did, whatever the analyser thinks of it.
// The tuning half may be studied to improve the analyser; the holdout half
// has been looked at during several rounds of fixes since, so the figure
// that counted was the fresh sample's (testdata/nl2bash-fresh.tsv: 600 other
// lines of the corpus drawn with a second seed on 2026-12-06, classified
// before the analyser's judgement of them was looked at; docs/shell.md,
// "Measured recall"). The fresh sample was looked at during fixes too, so
// the unseen figure is now the second fresh sample's
// (testdata/nl2bash-fresh2.tsv: 700 more lines, a third seed, drawn and
// classified the same way later that day). fresh2 was studied too, so the
// unseen figure is now the third fresh sample's (testdata/nl2bash-fresh3.tsv:
// 700 more lines, a fourth seed, drawn and classified the same way at 07:00
// that day). fresh3 was studied too, so the unseen figure is now the fourth
// fresh sample's (testdata/nl2bash-fresh4.tsv: 700 more lines, a fifth
// seed, drawn and classified the same way at 10:00 that day). Nothing is
// tuned on the fresh samples but a false read-only.
var nl2bashHalves = []string{"tune", "holdout", "fresh", "fresh2", "fresh3", "fresh4"}

// nl2bashHoldoutRecall is the recall on the holdout half recorded last: the
// test fails when the analyser's recall drops below it (raise it when the
// analyser improves; never lower it to make a change pass).
const nl2bashHoldoutRecall = 0.920 // 197/214 with pasted sh -c scripts too (pastescript.go); 196/214 with recallP's, recallV's and the shell-state classes together; 195/214 with recallP's and recallV's classes together; 192/214 with find's -o, !, parentheses and typographic quotes modelled, clear and rgrep (issue 26, recallV); 187/214 with find's selection modelled (issue 26, findselect.go); 184/214 analysed in the classification fixture (187/214 analysed in a directory that did not exist, before 2026-12-06's fifth round)

// nl2bashFreshRecall is the same ratchet for the fresh sample: its first
// value is the unseen figure, measured once it was classified.
const nl2bashFreshRecall = 0.934 // 214/229 after the merge with pasted sh -c scripts; 213/229 with sort/wc/du --files0-from not read-only (issue 26: the list may name any file; find … -print0 | du -c --files0-from=- is the row lost, which find provenance could win back); 214/229 with the host's empty positional parameters (issue 26, positional_empty); 213/229 with find's selection modelled (issue 26, findselect.go); 205/229 analysed in the classification fixture (211/229 in a directory that did not exist); 0.847, 194/229, when first measured unseen on 2026-12-06

// nl2bashFresh2Recall is the ratchet for the second fresh sample, drawn
// and classified after the fresh one had been studied too: its first
// value is the unseen figure, measured on main as of 56a5057 before the
// fourth round's fixes.
const nl2bashFresh2Recall = 0.928 // 247/266 with the shell-state classes too; 246/266 with the host's empty positional parameters (issue 26, positional_empty); 244/266 with the shell's numbers, number variables, while read fed by find, set operands and shopt execfail (issue 26, numbervalues.go, readloop.go) beside 238/266 with find's selection, xargs -d '\n' and tr '\n' '\0' modelled (issue 26, findselect.go, findpipe.go); 229/266 with awk's regular expression literals lexed (issue 26); 228/266 when first analysed in the classification fixture (231/266 in a directory that did not exist); 230/266 (0.865), first measured unseen on 2026-12-06

// nl2bashFresh3Recall is the ratchet for the third fresh sample (the
// unseen one since 2026-12-06 07:30: drawn and classified after fresh2 had
// been studied; docs/shell.md, "Measured recall"): its first value is the
// unseen figure, measured on main as of 33b08f2 before recallA/recallB's
// fixes.
const nl2bashFresh3Recall = 0.898 // 248/276 with pasted sh -c scripts too (pastescript.go); 246/276 with the shell-state builtins too (issue 26: shopt at the end, history -c/-a/-r, set X=$(…), alias pwd and PROMPT_COMMAND at the end); 238/276 with recallP's and recallV's classes together; 236/276 with find . | xargs beside names holding spaces (issue 26, recallV, findpipe.go); 235/276 with who --ips; 234/276 after the sixth round's classes (find's selection, xargs -d '\n', the shell's numbers, while read), whose authors never saw this sample; 228/276 (0.826), first measured unseen on 2026-12-06

// nl2bashFresh4Recall is the ratchet for the fourth fresh sample (the
// unseen one since 2026-12-06 10:25: drawn and classified after fresh3 had
// been studied; docs/shell.md, "Measured recall"): its first value is the
// unseen figure, measured on main as of 0d0be09 (09:56) before the recall
// fixes of the round begun at 10:00.
const nl2bashFresh4Recall = 0.911 // 238/261 with sort/wc/du --files0-from not read-only (issue 26, the same row shape: find … -print0 | du -c --files0-from=-); 239/261 after the seventh round's classes (positional_empty, shell-state builtins, find's operators, clear/rgrep/who --ips), whose authors never saw this sample; 236/261 (0.904), first measured unseen on 2026-12-06 on 0d0be09

// nl2bashOpensWithoutReading are commands observed to open a credential
// file that the analysis does not name, checked by hand to disclose
// nothing of it, with why.
var nl2bashOpensWithoutReading = map[string]string{
	// GNU grep opens a command-line file before it applies --include, and
	// then skips it (key.pem matches the glob *, not --include=*.xxx).
	`grep --include="*.xxx" -nRHI "my Text to grep" *`: "grep applies --include after opening command-line files",
}

// nl2bashExecRejected are commands judged read-only whose traced run
// executes an argv the analyser does not judge read-only on its own, for a
// reason that does not hold in the command (the program rejects the argv
// without doing anything; an operand is a process substitution's pipe),
// with why.
var nl2bashExecRejected = map[string]string{
	// An unquoted *.txt (*.py) expands to several names ending in .txt (never a
	// primary or an option); find rejects the second one ("paths must
	// precede expression") and runs nothing.
	`find . -name *.txt -exec ls {} \;`:                                          "find rejects the expanded glob's second name",
	`find . -name *.txt | egrep mystring`:                                        "find rejects the expanded glob's second name",
	`find . -name *.txt -print`:                                                  "find rejects the expanded glob's second name",
	`find . -name *.py -exec wc -l {} \; | awk '{ SUM += $0} END { print SUM }'`: "find rejects the expanded glob's second name",
	`find . -depth -name *.zip`:                                                  "find rejects the expanded glob's second name",
	`find /tmp -name *.txt`:                                                      "find rejects the expanded glob's second name",
	// bash names a second process substitution /dev/fd/62 (the analysis
	// names each /dev/fd/63): both are pipes to sha1sum and md5sum.
	`echo foo | tee >(sha1sum) >(md5sum)`: "tee writes to two process substitutions' pipes",
	// The executed argv is judged on its own in "/" (execNotReadOnly),
	// where the names find would paste into the sh -c script cannot be
	// listed; the command runs in the fixture's project, whose names the
	// analysis listed (pastescript.go); each sh -c find runs is judged too.
	`find . -type l -exec sh -c "file -b {} | grep -q ^broken" \; -print`: "find pastes names of a tree that cannot be listed from /",
}

// nl2bashRow is one row of a half.
type nl2bashRow struct {
	cmd, class, note, half string
}

func loadNL2Bash(t testing.TB) []nl2bashRow {
	t.Helper()
	var rows []nl2bashRow
	for _, half := range nl2bashHalves {
		name := "testdata/nl2bash-" + half + ".tsv"
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		line := 0
		for sc.Scan() {
			line++
			l := sc.Text()
			if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "command\t") {
				continue
			}
			c := strings.Split(l, "\t")
			if len(c) != 3 {
				f.Close()
				t.Fatalf("%s:%d: want 3 columns (command, class, note): %q", name, line, l)
			}
			switch c[1] {
			case "readonly", "not_readonly", "skip", "new":
			default:
				f.Close()
				t.Fatalf("%s:%d: unknown class %q", name, line, c[1])
			}
			rows = append(rows, nl2bashRow{c[0], c[1], c[2], half})
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

// TestNL2BashRecall: no command observed to write, run code that is not the
// system's or leave the host is judged read-only (a hard failure), and the
// share of the observed read-only commands judged read-only on the holdout
// half and the four fresh samples does not drop below nl2bashHoldoutRecall,
// nl2bashFreshRecall, nl2bashFresh2Recall, nl2bashFresh3Recall and
// nl2bashFresh4Recall. It prints the recall of each, and beside it the
// recall over the read-only rows that expand no variable from outside the
// command (nl2bashParams: the corpus ran with those unset, and the
// analyser keeps its caution about them), for reporting only; -v lists
// the misses with the analyser's reasons.
//
// The commands are analysed in the fixture they were classified in
// (nl2bashFixture, built once per test binary; files only, no trace): what
// the analyser looks at when it decides (a glob's names, $(ls)'s listing,
// the names a find | xargs walk yields) is what a user in that directory
// has, as it was when the command ran under strace.
func TestNL2BashRecall(t *testing.T) {
	t.Parallel()
	root := nl2bashFixture(t, nil)
	opts := realWorldOpts(root)
	// in: the read-only rows that need no value from outside the command
	// (nl2bashParams); pos: those that expand a positional parameter.
	type tally struct{ ro, hit, nro, skip, inRO, inHit, outMiss, posRO, posMiss int }
	tallies := map[string]*tally{"tune": {}, "holdout": {}, "fresh": {}, "fresh2": {}, "fresh3": {}, "fresh4": {}}
	for _, r := range loadNL2Bash(t) {
		a := analyze(r.cmd, opts)
		tl := tallies[r.half]
		switch r.class {
		case "new":
			t.Errorf("nl2bash-%s.tsv: %q is not classified yet (TestNL2BashClassify)", r.half, r.cmd)
		case "readonly":
			tl.ro++
			use := nl2bashParams(r.cmd)
			if len(use.outside) == 0 {
				tl.inRO++
			}
			if use.positional {
				tl.posRO++
			}
			if a.ReadOnly {
				tl.hit++
				if len(use.outside) == 0 {
					tl.inHit++
				}
				continue
			}
			if len(use.outside) > 0 {
				tl.outMiss++
			}
			if use.positional {
				tl.posMiss++
			}
			t.Logf("missed (%s) %q: %s", r.half, r.cmd, strings.Join(a.NotReadOnly, "; "))
		case "not_readonly":
			tl.nro++
			// A credential read is the credential rules' to decide (Rego):
			// the analysis must name it among its reads.
			if sec, ok := strings.CutPrefix(r.note, "reads the secret FIXTURE"); ok && a.ReadOnly {
				if !namesRead(a, root+sec) && nl2bashOpensWithoutReading[r.cmd] == "" {
					t.Errorf("reads a secret the analysis does not name (nl2bash-%s.tsv, observed: %s): %q", r.half, r.note, r.cmd)
				}
				continue
			}
			if a.ReadOnly {
				t.Errorf("false read-only (nl2bash-%s.tsv, observed: %s): %q", r.half, r.note, r.cmd)
			}
		case "skip":
			tl.skip++
		}
	}
	recall := func(tl *tally) float64 { return float64(tl.hit) / float64(max(tl.ro, 1)) }
	for _, half := range []string{"fresh4", "fresh3", "fresh2", "fresh", "holdout", "tune"} {
		tl := tallies[half]
		fmt.Printf("nl2bash %s recall: %d/%d observed read-only commands judged read-only (%.3f); %d not read-only, none judged read-only; %d skipped\n",
			half, tl.hit, tl.ro, recall(tl), tl.nro, tl.skip)
		fmt.Printf("nl2bash %s recall without outside values: %d/%d (%.3f) of the read-only commands that expand no variable from outside the command; %d of the %d misses expand one; %d read-only commands expand a positional parameter, counted inside (%d of them missed)\n",
			half, tl.inHit, tl.inRO, float64(tl.inHit)/float64(max(tl.inRO, 1)), tl.outMiss, tl.ro-tl.hit, tl.posRO, tl.posMiss)
	}
	if got := recall(tallies["holdout"]); got < nl2bashHoldoutRecall {
		t.Errorf("nl2bash holdout recall %.3f dropped below the recorded %.3f", got, nl2bashHoldoutRecall)
	}
	if got := recall(tallies["fresh"]); got < nl2bashFreshRecall {
		t.Errorf("nl2bash fresh recall %.3f dropped below the recorded %.3f", got, nl2bashFreshRecall)
	}
	if got := recall(tallies["fresh2"]); got < nl2bashFresh2Recall {
		t.Errorf("nl2bash fresh2 recall %.3f dropped below the recorded %.3f", got, nl2bashFresh2Recall)
	}
	if got := recall(tallies["fresh3"]); got < nl2bashFresh3Recall {
		t.Errorf("nl2bash fresh3 recall %.3f dropped below the recorded %.3f", got, nl2bashFresh3Recall)
	}
	if got := recall(tallies["fresh4"]); got < nl2bashFresh4Recall {
		t.Errorf("nl2bash fresh4 recall %.3f dropped below the recorded %.3f", got, nl2bashFresh4Recall)
	}
}

// nl2bashSecrets are the fixture's credentials (buildFixture) whose reading
// is an effect in the corpus's classification.
var nl2bashSecrets = []string{
	"home/.ssh/id_rsa", "home/.ssh/config", "home/.aws/credentials", "home/.netrc", "home/.npmrc",
	"home/.docker/config.json", "home/.kube/config",
}

func secretPaths(root string) []string {
	out := make([]string, len(nl2bashSecrets))
	for i, s := range nl2bashSecrets {
		out[i] = filepath.Join(root, s)
	}
	return out
}

var (
	nl2bashFixtureOnce sync.Once
	nl2bashFixtureDir  string
)

// nl2bashFixture is the dynamic check's fixture plus what NL2Bash commands
// look for: files of the common extensions in the project and below it,
// directories they name (dir1, folder1, mydir, test, bin), empty files and
// directories, a name with a space, a hidden file, a broken link, a file
// writable by all, a large sparse file, and files last changed years ago
// (find -mtime +7 -exec rm finds them, so its rm is observed).
func nl2bashFixture(t testing.TB, d *dynamicTracer) string {
	nl2bashFixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "permopa-nl2bash-")
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, 0o755)
		nl2bashFixtureDir = dir // TestMain removes it, built or not
		buildFixture(t, dir)
		proj := filepath.Join(dir, "home", "proj")
		// The credentials are the home's (nl2bashSecrets): a search of the
		// project (grep -r, find -exec grep) is then observed read-only, and
		// the analyser is measured on it, while one of the home still meets
		// ~/.ssh. The analysis of a project search names its tree, which the
		// credential rules judge (docs/shell.md).
		for _, f := range []string{".env", "key.pem"} {
			if err := os.Remove(filepath.Join(proj, f)); err != nil {
				t.Fatal(err)
			}
		}
		old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		write := func(rel, content string, mode os.FileMode, mtime time.Time) {
			p := filepath.Join(proj, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), mode); err != nil {
				t.Fatal(err)
			}
			os.Chmod(p, mode)
			if !mtime.IsZero() {
				os.Chtimes(p, mtime, mtime)
			}
		}
		text := "hello world\nfoo bar\nTODO: x\n"
		for _, name := range []string{
			"file.txt", "a.txt", "b.txt", "test.txt", "foo.txt", "new.txt", "file1", "file2", "foo", "foobar",
			"filename", "index.php", "wp-config.php", "Main.java", "page.html", "style.css", "hello.c",
			"hello.h", "hello.cpp", "script.pl", "test.py", "server.log", "app.conf", "notes.txt~", "main.o",
			"core", "photo.jpg", "pic.png", "pic.bmp", "song.mp3", "sound.au", "movie.mp4", "movie.mkv",
			"doc.pdf", "query.sql", "x.sh", "old.bak", "x.tmp", "my file.txt", ".hidden",
			"dir1/file.txt", "dir1/a.c", "dir2/file.txt", "folder1/a.txt", "folder2/a.txt", "mydir/x.txt",
			"test/t.txt", "src/emacs/e.c", "src/main.java", "src/app.js", "logs/a.log", "logs/b.log.1",
			"Chapter1/p.txt", "sub/deep/er/f.txt", ".svn/entries",
			// Names NL2Bash commands use as operands.
			"dir/a.txt", "src/js/app.js", "PDFs/a.pdf", "folder_name/a.txt", "aaa/a.txt", "www/index.html",
			"trunk/a.c", "subfolder/a.txt", "src_dir/a.txt", "kat/a.txt", "lpi104-6/file1", "data.tsv",
			"date.csv", "abc.txt", "database.sql", "in1", "in2", "file.lst", "infile", "current.log", "input",
			"list.txt", "main.css", "my_driver", "xyz/a.txt", "folder/a.txt", "directory/a.txt", "mydir/sub/b.txt",
		} {
			mtime := old
			if strings.HasPrefix(name, "dir2/") || strings.HasSuffix(name, ".log") {
				mtime = time.Time{}
			}
			write(name, text, 0o644, mtime)
		}
		write("x.sh", "#!/bin/sh\necho x\n", 0o755, old)
		write("empty.txt", "", 0o644, old)
		write("open.txt", text, 0o777, old)
		write("Documents/report.txt", text, 0o644, old)
		for _, d := range []string{"emptydir", "dir1/empty"} {
			os.MkdirAll(filepath.Join(proj, d), 0o755)
		}
		os.Chmod(filepath.Join(proj, "dir2"), 0o777)
		os.Symlink("missing.txt", filepath.Join(proj, "broken"))
		if f, err := os.Create(filepath.Join(proj, "big.iso")); err == nil {
			f.Truncate(3 << 20)
			f.Close()
		}
		if c := exec.Command("gzip", "-k", filepath.Join(proj, "file.txt")); c.Run() != nil {
			t.Log("no gzip: file.txt.gz left out")
		}
		home := filepath.Join(dir, "home")
		for _, name := range []string{"file.txt", "Documents/a.txt", "Downloads/b.pdf", "bin/tool.sh"} {
			p := filepath.Join(home, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(text), 0o644)
			os.Chtimes(p, old, old)
		}
		if fixtureForNobody(d) {
			if out, err := exec.Command("chown", "-R", "-h", "65534:65534", dir).CombinedOutput(); err != nil {
				t.Fatalf("chown fixture: %v %s", err, out)
			}
		}
	})
	return nl2bashFixtureDir
}

// interactivePrograms need a terminal and a person: under the trace they
// show nothing or stop at once, which says nothing about what they do.
var interactivePrograms = map[string]bool{
	"vi": true, "vim": true, "nvim": true, "nano": true, "emacs": true, "ed": true, "less": true, "more": true,
	"most": true, "top": true, "htop": true, "watch": true, "screen": true, "tmux": true, "mc": true, "view": true,
	"passwd": true, "su": true, "sudo": true, "ssh": true, "scp": true, "sftp": true, "telnet": true, "ftp": true,
	"mail": true, "mutt": true, "crontab": true, "visudo": true, "vipw": true, "script": true, "gdb": true,
}

// findAction matches the program a find -exec/-execdir/-ok/-okdir runs.
var findAction = regexp.MustCompile(`-(?:exec|execdir|ok|okdir)\s+['"]?([A-Za-z0-9_./-]+)`)

// cpioNothing is cpio's report of an empty copy.
var cpioNothing = regexp.MustCompile(`(?m)^0 blocks?$`)

// dashNotFound is dash's report of a program it cannot find ("sh: 1: X:
// not found"; the name is $0's, "--" in sh -c '…' -- args).
var dashNotFound = regexp.MustCompile(`(?m)^[^:\n]+: [0-9]+: [^:\n]+: not found$`)

// errorLine is a program's error message (GNU style: "prog: ...", zip's
// "zip error: ...").
var errorLine = regexp.MustCompile(`^(?:/usr/bin/)?([A-Za-z0-9_.+-]+)(?: error)?: `)

// observedClass turns a traced run (observe mode) into the corpus class and
// its note. root is the fixture.
func observedClass(cmd string, res dynamicResult, root string) (string, string) {
	clean := func(s string) string {
		s = strings.ReplaceAll(s, root, "FIXTURE")
		// A NUL (find -print0's output in a note) would make the TSV binary.
		s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\x00", " ")), " ")
		if r := []rune(s); len(r) > 120 {
			s = string(r[:120]) + "…"
		}
		return s
	}
	ran := map[string]bool{}
	for _, argv := range res.execs {
		ran[filepath.Base(argv[0])] = true
	}
	for p := range interactivePrograms {
		if ran[p] {
			return "skip", "interactive or needs root: " + p
		}
	}
	var network, other []string
	for _, e := range res.effects {
		switch {
		case strings.Contains(e, " "+ipcPrefix):
		case strings.Contains(e, " /var/cache/man/"):
			// man-db's cache of formatted pages (it runs as the man user
			// where it is installed setuid; here it fails to write it).
		case strings.Contains(e, " network "):
			network = append(network, e)
		default:
			other = append(other, e)
		}
	}
	if len(other) > 0 {
		// Secret reads last: a write is the stronger finding.
		sort.SliceStable(other, func(i, j int) bool {
			return !strings.HasPrefix(other[i], "reads the secret") && strings.HasPrefix(other[j], "reads the secret")
		})
		return "not_readonly", clean(other[0])
	}
	if len(network) > 0 {
		return "skip", "network: " + clean(network[0])
	}
	out := res.output
	switch {
	case res.exit == 127 || strings.Contains(out, "command not found") || dashNotFound.MatchString(out):
		return "skip", "a program is not installed: " + clean(firstLine(out))
	case strings.Contains(out, "Permission denied") || strings.Contains(out, "Operation not permitted") ||
		strings.Contains(out, "must be root") || strings.Contains(out, "superuser"):
		return "skip", "needs root: " + clean(firstLine(out))
	case strings.Contains(out, "missing operand") || strings.Contains(out, "missing file operand"):
		return "skip", "a program ran without operands (its input was empty): " + clean(firstLine(out))
	case res.exit != 0 && (strings.Contains(out, "No such file or directory") || strings.Contains(out, "cannot access") ||
		strings.Contains(out, "does not exist") || strings.Contains(out, "No such device")):
		return "skip", "names what the fixture lacks: " + clean(firstLine(out))
	}
	// A program that reported an error did not do its work: what it would
	// have done was not observed. A failing exit makes any "name: " line
	// an error, but not the deadline's (find -exec printf "File: %s\n"
	// stopped on a loaded machine); "/usr/bin/name: " is bash's or a
	// program's run by that path, not file(1)'s "/usr/bin/file: ELF ...".
	runAs := map[string]bool{}
	for _, argv := range res.execs {
		runAs[argv[0]] = true
	}
	for _, l := range strings.Split(out, "\n") {
		m := errorLine.FindStringSubmatch(l)
		if m == nil || !ran[m[1]] && m[1] != "bash" && (res.exit == 0 || res.timeout) {
			continue
		}
		if res.exit == 0 && strings.Contains(cmd, m[0]) {
			continue // the command's own text (echo "dirname: `dirname $0`")
		}
		if strings.HasPrefix(l, "/usr/bin/") && m[1] != "bash" && !runAs["/usr/bin/"+m[1]] {
			continue
		}
		if m[1] == "grep" && (strings.HasSuffix(l, ": Is a directory") || strings.HasSuffix(l, ": binary file matches")) {
			continue // grep over a glob that matches directories too; a match in a binary file
		}
		return "skip", "failed: " + clean(l)
	}
	// A shell reading its script from its input (find | sed | sh) that
	// executed nothing after it started read an empty script: what it
	// was given to run was not observed.
	if n := len(res.execs); n > 0 {
		last := res.execs[n-1]
		if base := filepath.Base(last[0]); (base == "sh" || base == "bash" || base == "dash") && (len(last) == 1 || len(last) == 2 && last[1] == "-s") {
			return "skip", base + " read no commands (its input was empty)"
		}
	}
	// What xargs was to run, it never ran (its input was empty); a
	// program that changes what it is given ran with nothing to change.
	for _, argv := range res.execs {
		base := filepath.Base(argv[0])
		if base == "xargs" {
			if c := xargsCommand(argv[1:]); c != "" && !ran[filepath.Base(c)] {
				return "skip", "xargs never ran " + c + " (its input was empty)"
			}
		}
		need := 1
		if base == "rename" || (base == "perl" || base == "sed") && inPlace(argv[1:]) {
			need = 2 // the expression, then the files
		}
		if changesOperands[base] && len(plainWords(argv[1:])) < need {
			return "skip", base + " ran without operands"
		}
		if base == "cpio" && cpioNothing.MatchString(out) {
			return "skip", "cpio was given no names"
		}
		if base == "rsync" {
			return "skip", "rsync: a remote copy or a copy, unobserved without its host"
		}
	}
	// A find action that never ran was not observed.
	if strings.HasPrefix(strings.TrimSpace(cmd), "find") || strings.Contains(cmd, "| find") || strings.Contains(cmd, "sudo find") {
		for _, m := range findAction.FindAllStringSubmatch(cmd, -1) {
			if !ran[filepath.Base(m[1])] {
				return "skip", "find matched nothing for its action: " + m[1]
			}
		}
		if strings.Contains(cmd, "-delete") {
			return "skip", "find -delete deleted nothing"
		}
	}
	// A program the command names that never ran (a loop body over
	// values that did not come, the right side of a pipe into a program
	// that is not installed, a background job) was not observed.
	names, background := calledPrograms(cmd)
	for _, name := range names {
		if !ran[filepath.Base(name)] {
			return "skip", name + " never ran"
		}
	}
	if background {
		// A background job's errors are not in the output (java -jar of
		// a jar the fixture lacks looked like a clean run).
		return "skip", "a background job: its errors are not seen"
	}
	for _, argv := range res.execs {
		if slices.Contains(argv, "--help") || slices.Contains(argv, "--version") {
			continue
		}
		switch filepath.Base(argv[0]) {
		case "rename":
			// rename skips a name its expression leaves as it is.
			return "skip", "rename renamed nothing"
		case "split":
			return "skip", "split wrote nothing (its input was empty)"
		case "curl", "wget":
			// Without a network effect it failed before connecting
			// (curl -s says nothing).
			return "skip", filepath.Base(argv[0]) + " could not reach its host here"
		}
	}
	if res.timeout {
		return "readonly", "stopped at the deadline"
	}
	return "readonly", ""
}

var (
	bashBuiltinNamesOnce sync.Once
	bashBuiltinNames     map[string]bool
)

// calledPrograms are the programs cmd names in command position (and
// after nohup, nice, exec, command, time), and in the command position of
// a literal script given to sh/bash/dash -c anywhere in its words
// (xargs sh -c "…; rm {}", find -exec sh -c '…'), not bash's builtins or
// keywords nor functions it defines: each should run when the command
// does what it is written for. background reports a statement run with &.
func calledPrograms(cmd string) (names []string, background bool) {
	return calledProgramsDepth(cmd, 0)
}

func calledProgramsDepth(cmd string, depth int) (names []string, background bool) {
	bashBuiltinNamesOnce.Do(func() {
		bashBuiltinNames = map[string]bool{}
		out, _ := exec.Command("bash", "-c", "compgen -b; compgen -k").Output()
		for _, w := range strings.Fields(string(out)) {
			bashBuiltinNames[w] = true
		}
	})
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil, false
	}
	funcs := map[string]bool{}
	var called []string
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			background = background || n.Background
		case *syntax.FuncDecl:
			funcs[n.Name.Value] = true
		case *syntax.CallExpr:
			if depth < 3 {
				for _, script := range shellScripts(n.Args) {
					inner, bg := calledProgramsDepth(script, depth+1)
					called = append(called, inner...)
					background = background || bg
				}
			}
			for i := 0; i < len(n.Args); i++ {
				w := n.Args[i].Lit()
				switch {
				case w == "" || strings.HasPrefix(w, "-"):
					if i > 0 && w != "" {
						continue // an option of a wrapper below
					}
					return true
				case w == "nohup" || w == "nice" || w == "exec" || w == "command" || w == "time":
					continue
				}
				if !bashBuiltinNames[w] {
					called = append(called, w)
				}
				break
			}
		}
		return true
	})
	for _, name := range called {
		if !funcs[name] {
			names = append(names, name)
		}
	}
	return names, background
}

// shellScripts are the literal scripts of sh/bash/dash -c among args
// (single-quoted, or double-quoted without expansions).
func shellScripts(args []*syntax.Word) []string {
	var out []string
	for i := 0; i+2 < len(args); i++ {
		switch filepath.Base(args[i].Lit()) {
		case "sh", "bash", "dash":
		default:
			continue
		}
		if args[i+1].Lit() != "-c" {
			continue
		}
		if script, ok := literalWord(args[i+2]); ok {
			out = append(out, script)
		}
	}
	return out
}

// literalWord is w's value when it has no expansion.
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" && !strings.Contains(l, batchEnd[1:]) {
			return l
		}
	}
	return ""
}

// TestNL2BashClassify traces the commands of the corpus in observe mode
// and writes the classes to the TSVs: PERMOPA_NL2BASH_CLASSIFY=1 every
// half, =fresh (a comma-separated list of halves) only those; without it,
// it does nothing (the classes are stored; TestNL2BashDynamic is the check
// that runs in CI).
func TestNL2BashClassify(t *testing.T) {
	which := os.Getenv("PERMOPA_NL2BASH_CLASSIFY")
	if which == "" {
		t.Skip("set PERMOPA_NL2BASH_CLASSIFY=1 (or =fresh) to classify the NL2Bash corpus under strace")
	}
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root := nl2bashFixture(t, d)
	var rows []nl2bashRow
	for _, r := range loadNL2Bash(t) {
		if which == "1" || strings.Contains(","+which+",", ","+r.half+",") {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("PERMOPA_NL2BASH_CLASSIFY=%s names no half of %q", which, nl2bashHalves)
	}
	opts := realWorldOpts(root)
	jobs := make([]tracedJob, len(rows))
	var batched, alone []int
	for i, r := range rows {
		a := analyze(r.cmd, opts)
		jobs[i] = tracedJob{cmd: r.cmd, cache: a.CacheWrites, cacheOwners: cacheOwnersOf(a), observe: true, secrets: secretPaths(root)}
		// A background job outlives its command and prints into the next
		// commands' output in a batch (nohup sh -c '… >output.txt' & made a
		// later read -s look failed): it is traced on its own.
		if _, background := calledPrograms(r.cmd); background {
			alone = append(alone, i)
		} else {
			batched = append(batched, i)
		}
	}
	results := make([]dynamicResult, len(rows))
	batchJobs := make([]tracedJob, len(batched))
	for k, i := range batched {
		batchJobs[k] = jobs[i]
	}
	for k, res := range d.traceAll(t, root, batchJobs) {
		results[batched[k]] = res
	}
	for _, i := range alone {
		results[i] = d.runJob(t, root, jobs[i], dynamicTimeout)
	}
	classes := make([][2]string, len(rows))
	var again []int
	for i, r := range rows {
		class, note := observedClass(r.cmd, results[i], root)
		classes[i] = [2]string{class, note}
		if class == "readonly" {
			again = append(again, i)
		}
	}
	// A command observed read-only is traced a second time on its own:
	// read-only needs two runs without an effect.
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res := d.runJob(t, root, jobs[i], dynamicTimeout)
				if class, note := observedClass(rows[i].cmd, res, root); class != "readonly" {
					t.Logf("%q: read-only in its batch, %s alone (%s)", rows[i].cmd, class, note)
					classes[i] = [2]string{class, note}
				}
			}
		}()
	}
	for _, i := range again {
		next <- i
	}
	close(next)
	wg.Wait()
	byHalf := map[string][]string{}
	for i, r := range rows {
		byHalf[r.half] = append(byHalf[r.half], r.cmd+"\t"+classes[i][0]+"\t"+classes[i][1])
	}
	for half, lines := range byHalf {
		name := "testdata/nl2bash-" + half + ".tsv"
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var head []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "command\t") {
				head = append(head, l)
			}
		}
		if err := os.WriteFile(name, []byte(strings.Join(append(head, lines...), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// traceAll traces jobs in batches with a few workers (as TestDynamicReadOnly).
func (d *dynamicTracer) traceAll(t testing.TB, root string, jobs []tracedJob) []dynamicResult {
	results := make([]dynamicResult, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first := range next {
				end := min(first+dynamicBatch, len(jobs))
				for k, res := range d.runBatch(t, root, jobs[first:end], dynamicTimeout) {
					results[first+k] = res
				}
			}
		}()
	}
	for i := 0; i < len(jobs); i += dynamicBatch {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// TestNL2BashDynamic traces the corpus's commands the analyser judges
// read-only, as TestDynamicReadOnly does (a program executed must be judged
// read-only by the analyser too), and fails on any effect or secret read:
// the stored classes cannot hide a false read-only that the trace shows
// today. The quick suite traces the first of them (quickFirst); -tags slow
// (CI) all of them, the second, third and fourth fresh samples' included.
func TestNL2BashDynamic(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	root := nl2bashFixture(t, d)
	opts := realWorldOpts(root)
	var jobs []tracedJob
	var analyses []*Analysis
	n := 0
	quick := quickFirst{}
	for _, r := range loadNL2Bash(t) {
		if !slowTests && (r.half == "fresh2" || r.half == "fresh3" || r.half == "fresh4") {
			continue // traced with -tags slow only: the quick suite keeps its time
		}
		a := analyze(r.cmd, opts)
		if !a.ReadOnly {
			continue
		}
		n++
		// find / and find /usr walk the machine's tree: seconds under
		// strace; -tags slow traces them, and every other command.
		if !slowTests && strings.HasPrefix(r.cmd, "find /") || !quick.take("clean") {
			continue
		}
		jobs = append(jobs, tracedJob{cmd: r.cmd, cache: a.CacheWrites, cacheOwners: cacheOwnersOf(a), helpers: helpersFor(a), secrets: secretPaths(root)})
		analyses = append(analyses, a)
		if !slowTests {
			break // the rest is analysed by TestNL2BashRecall
		}
	}
	for i, res := range d.traceAll(t, root, jobs) {
		var bad []string
		for _, e := range res.effects {
			if why := nl2bashExecRejected[jobs[i].cmd]; why != "" && strings.HasPrefix(e, "executes ") {
				t.Logf("%q: %s (%s)", jobs[i].cmd, e, why)
				continue
			}
			if strings.Contains(e, " "+ipcPrefix) || analyses[i].NetworkRead && strings.Contains(e, " network ") {
				continue
			}
			// A credential read is the credential rules' to decide (Rego):
			// the analysis must name it among its reads.
			if sec, ok := strings.CutPrefix(e, "reads the secret "); ok && namesRead(analyses[i], sec) {
				continue
			}
			bad = append(bad, e)
		}
		if len(bad) > 0 {
			t.Errorf("judged read-only but has effects: %q\n\t%s", jobs[i].cmd, strings.Join(bad, "\n\t"))
		}
	}
	t.Logf("traced %d of %d commands judged read-only", len(jobs), n)
}

// namesRead reports whether the analysis names file among what it reads:
// the file itself or a tree above it read in full.
func namesRead(a *Analysis, file string) bool {
	for _, r := range a.Reads {
		if r == file {
			return true
		}
	}
	for _, tr := range a.RecursiveReads {
		if !tr.NamesOnly && strings.HasPrefix(file, tr.Path+"/") {
			return true
		}
	}
	return false
}

// TestNL2BashTraceOne is a tool for investigating a class: it traces the
// command in $NL2BASH_ONE in observe mode alone and, when it is in the
// corpus, in its batch, and prints what each run did and the class.
func TestNL2BashTraceOne(t *testing.T) {
	cmd := os.Getenv("NL2BASH_ONE")
	if cmd == "" {
		t.Skip("set NL2BASH_ONE to a command to trace it")
	}
	d, _ := newDynamicTracer()
	root := nl2bashFixture(t, d)
	rows := loadNL2Bash(t)
	for i, r := range rows {
		if r.cmd != cmd {
			continue
		}
		first := i / dynamicBatch * dynamicBatch
		var jobs []tracedJob
		for _, r := range rows[first:min(first+dynamicBatch, len(rows))] {
			jobs = append(jobs, tracedJob{cmd: r.cmd, observe: true, secrets: secretPaths(root)})
		}
		res := d.runBatch(t, root, jobs, dynamicTimeout)[i-first]
		t.Logf("in its batch %v: exit=%d effects=%q execs=%q out=%q", jobs, res.exit, res.effects, res.execs, res.output)
	}
	for _, batch := range []bool{false, true} {
		j := tracedJob{cmd: cmd, observe: true, secrets: secretPaths(root)}
		var res dynamicResult
		if batch {
			res = d.runBatch(t, root, []tracedJob{{cmd: "true", observe: true}, j}, dynamicTimeout)[1]
		} else {
			res = d.runJob(t, root, j, dynamicTimeout)
		}
		c, n := observedClass(cmd, res, root)
		t.Logf("batch=%v exit=%d effects=%q execs=%q out=%q => %s %s", batch, res.exit, res.effects, res.execs, res.output, c, n)
	}
}

// changesOperands are programs whose work is on their operands: run
// without any, what they would do to them was not observed.
var changesOperands = map[string]bool{
	"rm": true, "mv": true, "cp": true, "chmod": true, "chown": true, "chgrp": true, "ln": true, "touch": true,
	"mkdir": true, "rmdir": true, "kill": true, "rename": true, "shred": true, "truncate": true, "tar": true,
	"gzip": true, "gunzip": true, "bzip2": true, "xz": true, "sed": true, "perl": true, "unlink": true,
}

// plainWords are the words of args that do not start with "-".
func plainWords(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

// xargsCommand is the program xargs runs (its first word after xargs's own
// options), "" for the default echo.
func xargsCommand(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case a == "-I" || a == "-d" || a == "-n" || a == "-L" || a == "-P" || a == "-s" || a == "-a" || a == "-E":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// inPlace reports whether perl or sed args edit files in place (-i, -pi).
func inPlace(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i") || strings.HasPrefix(a, "--in-place") {
			return true
		}
	}
	return false
}

// TestNL2BashVocabulary: the vocabulary added from the tuning half's misses,
// with the hostile forms of each: bc reads its program files (named, so the
// credential rules see them) and nothing else; BC_ENV_ARGS, which names
// more files, is not allowed; its interactive mode is not modelled; man's
// page cache is a named cache write.
func TestNL2BashVocabulary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd   string
		ro    bool
		reads string
	}{
		{`seq -s "*" 1 500 | bc`, true, ""},
		{"echo '2^10' | bc -l", true, ""},
		{"bc -q calc.bc", true, "/home/u/proj/calc.bc"},
		{"bc ~/.ssh/id_rsa", true, "/home/u/.ssh/id_rsa"},
		{"BC_ENV_ARGS=~/.ssh/id_rsa bc", false, ""},
		{"bc -i", false, ""},
		{"echo 1 | bc > out", false, ""},
		{"dc -e '!id'", false, ""},
	} {
		a := analyze(c.cmd, conformanceOpts)
		if a.ReadOnly != c.ro {
			t.Errorf("%q: read-only %v, want %v (%s)", c.cmd, a.ReadOnly, c.ro, strings.Join(a.NotReadOnly, "; "))
		}
		if c.reads != "" && !namesRead(a, c.reads) {
			t.Errorf("%q: reads %q, want %s among them", c.cmd, a.Reads, c.reads)
		}
	}
	if a := analyze("man find", conformanceOpts); !a.ReadOnly || !strings.Contains(strings.Join(a.CacheWrites, " "), "/var/cache/man") {
		t.Errorf("man find: read-only %v, cache writes %q, want /var/cache/man", a.ReadOnly, a.CacheWrites)
	}
}
