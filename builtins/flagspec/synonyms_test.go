package flagspec

import (
	"context"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// gnuHelpPrograms are the programs whose --help lists their options as
// "-x, --long" and prints without side effects; TestGNUSynonymsTable reads
// the synonyms of those installed here.
var gnuHelpPrograms = strings.Fields(`arp b2sum base32 base64 basename blkid chgrp chmod chown cksum cmp column comm cp csplit
	cut date df diff diff3 dircolors dirname dmesg dpkg-deb dpkg-query du egrep env envsubst expand fgrep file findmnt
	fmt fold free getent getopt gettext grep gunzip gzip head hexdump hostname iconv id install ipcs join kill last
	lastb lastlog ln locale look ls lsb_release lsblk lscpu lsipc lslocks lsmem lsns lzcat lzma md5sum mkdir mkfifo
	mknod mktemp mountpoint mv namei netstat ngettext nice nl nm numfmt objdump od paste pgrep pr printenv pstree pwd
	readlink realpath rev rm rmdir route sdiff sed seq sha1sum sha224sum sha256sum sha384sum sha512sum shasum shred
	shuf sort split ss stat sum sync sysctl tac tail tar touch tr truncate uname unexpand uniq unlink unlzma unxz
	unzstd uptime vmstat w wc whereis who xz xzcat zcat zstd zstdcat`)

// helpPair matches an option line of --help: one or more short spellings
// and the long one// ("  -E, -r, --regexp-extended"), a short one perhaps with its value
// ("  -i[SUFFIX], --in-place[=SUFFIX]", "  -e script, --expression=script").
var helpPair = regexp.MustCompile(`(?m)^\s{1,8}((?:-[A-Za-z0-9](?:\[[^\]\s]*\]| [A-Za-z_]+)?, )+)(--[a-z0-9][a-z0-9-]*)((?:, --[a-z0-9][a-z0-9-]*)*)`)

// helpShort is one short spelling of a helpPair match.
var helpShort = regexp.MustCompile(`-[A-Za-z0-9]`)

// helpSynonyms runs prog --help and returns its short/long pairs whose
// spec knows at least one spelling, as joinSynonyms reads them.
func helpSynonyms(t *testing.T, prog string) (node string, pairs []string, ok bool) {
	if _, err := exec.LookPath(prog); err != nil {
		if os.Getenv("CI") != "" {
			// A table that skips proves nothing (.ci/run installs them all).
			t.Errorf("%s is not installed; CI is set, so its synonyms are not skipped", prog)
		}
		return "", nil, false
	}
	s := lookup(prog)
	return s.name, nodeSynonyms(t, s, prog, "--help"), true
}

// gitSubcommands are git's subcommands without subcommands of their own,
// whose "git SUB -h" prints their options (parse-options) and exits.
func gitSubcommands() []string {
	g := lookup("git")
	var subs []string
	for w := range g.kids {
		if g.kid(w).subs == nil {
			subs = append(subs, w)
		}
	}
	sort.Strings(subs)
	return subs
}

// nodeSynonyms runs argv and returns the short/long pairs its output
// lists for options node s knows at least one spelling of.
func nodeSynonyms(t *testing.T, s *spec, argv ...string) (pairs []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"LC_ALL=C", "HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
	cmd.Dir = t.TempDir()
	out, _ := cmd.CombinedOutput()
	known := map[string]bool{}
	for _, d := range s.defs {
		if !d.parseOnly {
			known[d.name] = true
		}
	}
	seen := map[string]bool{}
	for _, m := range helpPair.FindAllStringSubmatch(string(out), -1) {
		var ps [][2]string
		for _, short := range helpShort.FindAllString(m[1], -1) {
			ps = append(ps, [2]string{short, m[2]})
		}
		// More long spellings ("-n, --quiet, --silent").
		for _, long := range strings.Split(m[3], ", ")[1:] {
			ps = append(ps, [2]string{m[2], long})
		}
		for _, pr := range ps {
			p := pr[0] + " " + pr[1]
			if (known[pr[0]] || known[pr[1]]) && !seen[p] {
				seen[p] = true
				pairs = append(pairs, p)
			}
		}
	}
	return pairs
}

// TestGNUSynonymsTable: every "-x, --long" pair the installed programs'
// --help (and git's subcommands' -h) lists, for an option their spec knows, is in gnuSynonyms (so that
// rules read both spellings as one option). PERMOPA_UPDATE_SYNONYMS=1
// rewrites synonyms_table.go from the programs installed here, keeping
// the entries of programs that are not.
func TestGNUSynonymsTable(t *testing.T) {
	t.Parallel()
	table := map[string][]string{}
	for n, p := range gnuSynonyms {
		f := strings.Fields(p)
		for k := 0; k+1 < len(f); k += 2 {
			table[n] = append(table[n], f[k]+" "+f[k+1])
		}
	}
	checked := 0
	update := os.Getenv("PERMOPA_UPDATE_SYNONYMS") != ""
	type source struct {
		node  string
		pairs []string
	}
	var sources []source
	// Without -tags slow, the ones docs/rules.md shows (sed, chmod, git
	// push): every --help is a process, 12 s of the quick suite in all;
	// .ci/run reads every program's (docs/development.md).
	quickNames := map[string]bool{"sed": true, "chmod": true, "push": true}
	sampled := func(_ int, name string) bool {
		return slowTests || update || quickNames[name]
	}
	for i, prog := range gnuHelpPrograms {
		if !sampled(i, prog) {
			continue
		}
		if node, pairs, ok := helpSynonyms(t, prog); ok {
			sources = append(sources, source{node, pairs})
		}
	}
	if _, err := exec.LookPath("git"); err == nil {
		var subs []string
		for i, sub := range gitSubcommands() {
			if sampled(i, sub) {
				subs = append(subs, sub)
			}
		}
		found := make([]source, len(subs))
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		for i, sub := range subs {
			n := lookup("git").kid(sub)
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				found[i] = source{n.name, nodeSynonyms(t, n, "git", sub, "-h")}
				<-sem
			}()
		}
		wg.Wait()
		sources = append(sources, found...)
	}
	for _, src := range sources {
		node, pairs := src.node, src.pairs
		prog := node
		checked++
		have := map[string]bool{}
		for _, p := range table[node] {
			have[p] = true
		}
		for _, p := range pairs {
			if !have[p] {
				if update {
					table[node] = append(table[node], p)
					have[p] = true
					continue
				}
				t.Errorf("%s --help lists %s as one option; gnuSynonyms[%q] does not (PERMOPA_UPDATE_SYNONYMS=1 regenerates it)", prog, p, node)
			}
		}
	}
	t.Logf("%d programs and git subcommands checked", checked)
	if checked < 20 && (slowTests || update) || checked < len(quickNames) {
		t.Fatalf("only %d of the programs are installed here: coreutils, grep, sed and tar at least are needed", checked)
	}
	if update {
		var b strings.Builder
		b.WriteString("// Code generated by TestGNUSynonymsTable (PERMOPA_UPDATE_SYNONYMS=1) from the programs' --help; DO NOT EDIT.\n\npackage flagspec\n\n")
		b.WriteString("// gnuSynonyms are, per program, the short and long spellings of one option (synonyms.go).\nvar gnuSynonyms = map[string]string{\n")
		names := make([]string, 0, len(table))
		for n := range table {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "\t%q: %q,\n", n, strings.Join(table[n], " "))
		}
		b.WriteString("}\n")
		src, err := format.Source([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("synonyms_table.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
