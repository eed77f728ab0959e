package bash

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// conformanceOpts are the options every table test uses.
var conformanceOpts = Options{Cwd: "/home/u/proj", Home: "/home/u"}

type conformanceRow struct {
	command, expected, category string
}

// unescapeTSV decodes the command column: a literal \n is a newline and \\ one backslash.
func unescapeTSV(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func loadConformance(t testing.TB) []conformanceRow {
	t.Helper()
	f, err := os.Open("testdata/bash-readonly.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []conformanceRow
	sc := bufio.NewScanner(f)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 3 {
			continue
		}
		rows = append(rows, conformanceRow{unescapeTSV(cols[0]), cols[1], cols[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// eitherChoices pins every "either" row of the conformance table to the
// verdict permopa chose, with the reason.
var eitherChoices = map[string]struct {
	readOnly bool
	why      string
}{
	"ls > /dev/null":                            {true, "/dev/null is not a file write"},
	"ls >> /dev/null 2>&1":                      {true, "/dev/null and fd duplication are not writes"},
	"git status 2>/dev/null | head":             {true, "/dev/null is not a file write"},
	"ls >/dev/stdout":                           {true, "/dev/stdout is the command's own output"},
	"tee /dev/null < README.md":                 {true, "tee writing only to /dev/null writes no file (the vocabulary special-cases it)"},
	"git ls-files | xargs wc -l":                {false, "xargs appends operands (paths) not known statically"},
	"echo README.md | xargs cat":                {false, "xargs appends operands (paths) not known statically"},
	"echo $(pwd)":                               {true, "a substitution is read-only when its commands are"},
	"echo `pwd`":                                {true, "a substitution is read-only when its commands are"},
	"echo $(git log)":                           {true, "a substitution is read-only when its commands are"},
	"git log && echo $(git log)":                {true, "a substitution is read-only when its commands are"},
	`grep foo <<< "$(id)"`:                      {true, "a here-string with a read-only substitution"},
	`rg -g"$(echo '*.py')" pattern`:             {true, "the substitution only fills a glob option value"},
	"diff <(ls a) <(ls b)":                      {true, "process substitutions are pipes (/dev/fd/N) fed by read-only commands"},
	"comm -12 <(sort a) <(sort b)":              {true, "process substitutions are pipes (/dev/fd/N) fed by read-only commands"},
	`find . -name '*.go' -exec cat {} \;`:       {true, "{} is a path under the static root ., read as the tree of . (docs/shell.md)"},
	"git --work-tree=. status":                  {false, "the vocabulary rejects --work-tree (alternate work tree)"},
	"git -c core.pager=cat log -n 1":            {false, "git -c can set any config, including ones that run programs"},
	"git diff --no-index /etc/passwd notes.txt": {true, "reads only; the policy checks the paths it reads"},
	"sed -f edits.sed file.txt":                 {false, "a sed script file may contain w or e commands"},
	"sed '1r notes.txt' file.txt":               {true, "r only reads; the vocabulary reports notes.txt as read"},
	"sh -c 'git status'":                        {true, "the script is parsed and read-only"},
	`bash -lc "sed -n '1,5p' file.txt"`:         {true, "the script is parsed and read-only"},
	"timeout 5 ls":                              {true, "timeout is transparent"},
	"nice -n 10 grep -r TODO .":                 {true, "nice is transparent"},
	"exec ls":                                   {true, "exec is transparent"},
	"LC_ALL=C sort names.txt":                   {true, "LC_* is allowlisted"},
	"TZ=UTC date":                               {true, "TZ is allowlisted"},
	"FOO=bar ls":                                {false, "only allowlisted variables may prefix a read-only command"},
	"env FOO=bar ls":                            {false, "only allowlisted variables may prefix a read-only command"},
	"FOO=bar":                                   {false, "a bare assignment of a non-allowlisted variable"},
	"cd ~/.ssh":                                 {true, "cd is read-only; the leaf reads ~/.ssh, which the policy sees as a credential read"},
	"docker -H ssh://user@host ps":              {false, "the vocabulary rejects -H (another daemon)"},
	"python -m pip list":                        {false, "python -m runs an arbitrary module"},
}

func TestConformance(t *testing.T) {
	t.Parallel()
	rows := loadConformance(t)
	var wrongNotRO, ro, roTotal int
	for _, r := range rows {
		a := Analyze(r.command, conformanceOpts)
		switch r.expected {
		case "not_readonly":
			if a.ReadOnly {
				wrongNotRO++
				t.Errorf("not_readonly judged read-only: %q (%s)", r.command, r.category)
			}
		case "readonly":
			if strings.HasPrefix(r.category, "dangerous-path-read") || strings.HasPrefix(r.category, "path-escape-read") {
				continue
			}
			roTotal++
			if a.ReadOnly {
				ro++
			} else {
				t.Logf("readonly judged not read-only: %q: %v %v", r.command, a.NotReadOnly, a.Reasons)
			}
		case "either":
			choice, ok := eitherChoices[r.command]
			if !ok {
				t.Errorf("either row %q has no pinned choice", r.command)
				continue
			}
			if a.ReadOnly != choice.readOnly {
				t.Errorf("either row %q: read-only = %v, pinned %v (%s); not read-only because %v %v",
					r.command, a.ReadOnly, choice.readOnly, choice.why, a.NotReadOnly, a.Reasons)
			}
		}
	}
	frac := float64(ro) / float64(roTotal)
	t.Logf("not_readonly judged read-only: %d; readonly judged read-only: %d/%d = %.3f", wrongNotRO, ro, roTotal, frac)
	if wrongNotRO != 0 {
		t.Errorf("%d not_readonly rows judged read-only", wrongNotRO)
	}
	if frac < 0.90 {
		t.Errorf("only %.3f of read-only rows judged read-only, want >= 0.90", frac)
	}
}
