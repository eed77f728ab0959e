package bash

import (
	"bytes"
	"math/rand"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Words as bash splits them (docs/shell.md, "Words"): the analyser's argv of
// a command must be the argv bash itself passes. The oracle is bash: each
// generated command line runs through bash's own parser (eval of the text,
// which reads it as bash -c does) and a function prints every argument it
// gets with its length; the analyser's leaf must carry the same words.

// wordPieces are what a generated word list is made of: blanks bash splits
// on, characters it does not split on although other tools do (carriage
// return, form feed, vertical tab, NUL-free control characters, Unicode
// spaces), quotes, escapes, ANSI-C strings, comments, tildes and braces.
var wordPieces = []string{
	"a", "b", "-r", "--x", "=", "x=y", " ", "  ", "\t", "\r", "\r\r", "\f", "\v", "\x1b", "\x7f", "\x01",
	"\u00a0", "\u2003", "\u3000", "\ufeff", "\u0085", "\u2028", "\u200b",
	"'q'", "''", `"d"`, `""`, "\"\r\"", "'\r'", "\"a\tb\"", "'a\nb'", "\"\r\n\"",
	"\\\r", "\\ ", "\\\t", "\\\n", "\\a", "\\\\", "\\'", "\\\"",
	"$'\\r'", "$'\\x0b'", "$'\\f'", "$'\\t'", "$'a b'", "$'\\u00a0'", "$'\\''",
	"~", "~/x", "x~", "#c", "x#y", "{a,b}", "{1..3}", "{a}", "{,}", "%", "^", ":", ",", "+", "@", ".", "/",
	"x=~", "x=~/a", "--o=~", ":~", "a:~/b", `\~`, "'~'", `"~"`, `$"a"`, `"$'x'"`, `"\$"`, `"\x"`,
	"\"a\\\nb\"", `'\'`, "{a,'b c'}", `{a\,b}`, `\{a,b}`, `{a,b}\ c`, "{x..z}", "{1..5..2}", "{a..c}{1,2}",
}

// bashWordsScript runs each positional parameter as a command line whose
// command is the function p, which prints, per argument, its length in
// bytes, ':' and the argument; \x02 starts a command's output and \x03,
// the status and a newline end it.
const bashWordsScript = `p() { local a LC_ALL=C; for a; do printf '%d:%s' "${#a}" "$a"; done; }
for c; do printf '\002'; eval "p $c"; printf '\003%d\n' $?; done`

// bashArgvs returns the argv bash gives p for each word list (nil
// when bash rejects the line).
func bashArgvs(t testing.TB, lines []string) [][]string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is needed as the oracle of this test: %v", err)
	}
	cmd := exec.Command(bash, append([]string{"--norc", "--noprofile", "-c", bashWordsScript, "bash"}, lines...)...)
	cmd.Env = []string{"LC_ALL=C.UTF-8", "HOME=" + conformanceOpts.Home, "PATH=/usr/bin:/bin"}
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	var res [][]string
	for len(out) > 0 {
		if out[0] != 2 {
			t.Fatalf("bash output out of step at %q", out[:min(len(out), 40)])
		}
		out = out[1:]
		argv := []string{}
		for len(out) > 0 && out[0] != 3 {
			k := bytes.IndexByte(out, ':')
			n, err := strconv.Atoi(string(out[:max(k, 0)]))
			if k < 0 || err != nil || k+1+n > len(out) {
				t.Fatalf("bash output out of step at %q", out[:min(len(out), 40)])
			}
			argv = append(argv, string(out[k+1:k+1+n]))
			out = out[k+1+n:]
		}
		end := bytes.IndexByte(out, '\n')
		if len(out) == 0 || end < 0 {
			t.Fatal("bash output cut short")
		}
		if string(out[1:end]) != "0" {
			argv = nil
		}
		res = append(res, argv)
		out = out[end+1:]
	}
	if len(res) != len(lines) {
		t.Fatalf("bash ran %d of %d lines", len(res), len(lines))
	}
	return res
}

// analyserArgv is the analyser's reading of the same words: the arguments of
// its one leaf, and false when it has no such reading (it did not parse the
// line, or a word is only known at run time).
func analyserArgv(line string) ([]string, bool) {
	a := analyze("echo "+line, conformanceOpts)
	if !a.Analysable || len(a.Leaves) != 1 || a.Leaves[0].Program != "echo" {
		return nil, false
	}
	argv := a.Leaves[0].Argv[1:]
	for _, w := range argv {
		if strings.Contains(w, dyn) {
			return nil, false
		}
	}
	return argv, true
}

// compareWords fails on every line whose words the analyser reads otherwise
// than bash, and returns how many lines both read.
func compareWords(t *testing.T, lines []string) int {
	t.Helper()
	both := 0
	for i, want := range bashArgvs(t, lines) {
		got, ok := analyserArgv(lines[i])
		if !ok {
			continue // no words to compare: the line is unanalysable (fails closed)
		}
		if want == nil {
			t.Errorf("bash rejects %q, the analyser reads the words %q", lines[i], got)
			continue
		}
		both++
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Errorf("%q: bash's words %q, the analyser's %q", lines[i], want, got)
		}
	}
	return both
}

// piecesLine builds a word list from piece numbers.
func piecesLine(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		s.WriteString(wordPieces[int(c)%len(wordPieces)])
	}
	return s.String()
}

// wordSeeds are the cases and their relatives, each a word list.
var wordSeeds = []string{
	"status\rrm -rf x", "status\r\rrm", "status \rrm", "status\r rm", "a\fb", "a\vb", "a\u00a0b", "a\u3000b",
	"'a\rb' \"c\rd\" e\\\rf", "$'a\\rb'", "a\r#b", "a #\rb", "\r", "\r\r a", "{a,\rb}", "~\r", "x=\ry",
}

// TestWordsAgainstBash compares the analyser's words with bash's for the
// seeds and a deterministic sample of generated word lists.
func TestWordsAgainstBash(t *testing.T) {
	t.Parallel()
	lines := append([]string(nil), wordSeeds...)
	rng := rand.New(rand.NewSource(23))
	for range 3000 {
		b := make([]byte, 1+rng.Intn(12))
		rng.Read(b)
		lines = append(lines, piecesLine(b))
	}
	both := compareWords(t, lines)
	// The comparison must have compared: most lines are analysable.
	if both < len(lines)*3/4 {
		t.Fatalf("only %d of %d lines were read by both bash and the analyser", both, len(lines))
	}
}

// FuzzWordsAgainstBash is TestWordsAgainstBash on word lists from the
// fuzzer (each byte picks a piece of wordPieces).
func FuzzWordsAgainstBash(f *testing.F) {
	f.Add([]byte{0, 9, 1})
	f.Add([]byte{20, 9, 21, 30, 41})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64 {
			return
		}
		compareWords(t, []string{piecesLine(b)})
	})
}
