package flagspec

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sedTokens are pieces of sed scripts, chosen to probe the places where a
// scanner and GNU sed could disagree: labels, blanks, separators, braces,
// brackets holding the delimiter, escapes, text commands.
var sedTokens = []string{
	"p", "w f", "W f", "e", "e id", "r f", "R f", ":x", ": x", "bx", "b x", "b", "t", "tx",
	"T x", "v", "v 4.2", "{", "}", ";", "\n", " ", "\t", "s/a/b/", "s/a/b/w f", "s/[/]/x/",
	"s/a/b/g", "s/a/b/e", "y/a/b/", "/x/", "/[/]/", "1", "$", "!", ",", "a foo", "a\\\n",
	"i\\", "c x", "#c", "=", "l", "q", "x", "s|a|b|w f", "\\%x%", "s/a\\/b/c/", "0~2", "+3",
	"F", "z", "]", "[", "/", "\\", "w", "s", "y", "[[:alpha:]/]", "s/[^/]/", "M", "I", "2g",
	"p;", "}w f", "n", "N", "D", "G", "h",
}

// TestSedAgainstGNU compares the sed script scanner with GNU sed itself:
// "sed --sandbox" refuses, at parse time, every script with an e, r or w
// command or flag. A script judged read-only with no r file must never be
// refused for that reason. Without GNU sed it fails in CI and skips
// elsewhere. FLAGSPEC_SED_N=20000
// runs more scripts with a random seed.
func TestSedAgainstGNU(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("short")
	}
	out, err := exec.Command("sed", "--version").Output()
	if err != nil || !bytes.Contains(out, []byte("GNU sed")) {
		// The check of a read-only judgement against the real program:
		// in CI (CI set, as .ci/run sets it) it may not be skipped.
		if os.Getenv("CI") != "" {
			t.Fatal("GNU sed is not available; CI is set, so this check against the real program fails instead of skipping")
		}
		fmt.Fprintf(os.Stderr, "WARNING: %s SKIPPED: GNU sed is not available (with CI set it fails)\n", t.Name())
		t.Skip("GNU sed not available")
	}
	seed, n := int64(1), 800
	if !slowTests {
		n = 200 // the first scripts of the same seed, judged; all with -tags slow
	}
	if v, err := strconv.Atoi(os.Getenv("FLAGSPEC_SED_N")); err == nil {
		seed, n = time.Now().UnixNano(), v
	}
	rng := rand.New(rand.NewSource(seed))
	checked := 0
	quick := quickFirst{}
	for i := 0; i < n; i++ {
		var b strings.Builder
		for k := 1 + rng.Intn(6); k > 0; k-- {
			b.WriteString(sedTokens[rng.Intn(len(sedTokens))])
		}
		script := b.String()
		v := Judge([]string{"sed", "-n", script})
		// Every script is judged; without -tags slow the first judged
		// read-only runs in GNU sed; .ci/run runs them all (quickFirst,
		// docs/development.md).
		if !v.ReadOnly || len(v.Reads) > 0 || !quick.take("clean") {
			continue
		}
		checked++
		cmd := exec.Command("sed", "--sandbox", "-n", "-e", script)
		cmd.Stdin = strings.NewReader("a\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run()
		if strings.Contains(stderr.String(), "disabled in sandbox mode") {
			t.Errorf("sed script %q judged read-only, but GNU sed sees an e/r/w command", script)
		}
	}
	t.Logf("%d random scripts judged, %d judged read-only checked against GNU sed", n, checked)
}
