package flagspec

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestConformanceTSV runs the single simple commands of the shared
// conformance table (a copy in testdata/) through Judge: a not_readonly row
// must never be judged read-only, and at least 95% of the readonly rows must
// be. Rows with shell syntax are the bash analyser's business and skipped;
// plain single and double quotes are removed (see simpleWords).
func TestConformanceTSV(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/bash-readonly.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ro, roOK, nro, either int
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
		cmd, want, cat := cols[0], cols[1], cols[2]
		argv, ok := simpleWords(cmd)
		if !ok || len(argv) == 0 {
			continue
		}
		v := Judge(argv)
		switch want {
		case "not_readonly":
			nro++
			if v.ReadOnly {
				t.Errorf("not_readonly row judged read-only: %q", cmd)
			}
		case "readonly":
			ro++
			if v.ReadOnly {
				roOK++
			} else if strings.HasPrefix(cat, "dangerous-path-read") || strings.HasPrefix(cat, "path-escape-read") {
				t.Logf("readonly (path) row not read-only: %q: %s", cmd, v.Reason)
			} else {
				t.Logf("readonly row not read-only: %q: %s", cmd, v.Reason)
			}
		default:
			either++
			t.Logf("either: %q → read-only=%v %s", cmd, v.ReadOnly, v.Reason)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	frac := float64(roOK) / float64(ro)
	t.Logf("single-command rows: readonly %d/%d judged read-only (%.1f%%), not_readonly %d never read-only, either %d",
		roOK, ro, 100*frac, nro, either)
	if frac < 0.95 {
		t.Errorf("only %.1f%% of readonly rows judged read-only", 100*frac)
	}
}

// simpleWords splits a command that is one simple command: words separated
// by blanks, with '...' and "..." quoting (no $, backquote or backslash
// inside double quotes). ok is false for anything else (operators,
// redirections, expansions, escapes, the tsv's \n).
func simpleWords(cmd string) (words []string, ok bool) {
	var w strings.Builder
	inWord := false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			w.WriteString(cmd[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(cmd[i+1:], '"')
			if j < 0 {
				return nil, false
			}
			body := cmd[i+1 : i+1+j]
			if strings.ContainsAny(body, "$`\\") {
				return nil, false
			}
			w.WriteString(body)
			i += j + 1
			inWord = true
		case strings.IndexByte("|;&<>$`(){}\\#", c) >= 0:
			return nil, false
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	// An assignment prefix (FOO=bar cmd) is the analyser's business.
	if len(words) > 0 && strings.Contains(words[0], "=") {
		return nil, false
	}
	return words, true
}
