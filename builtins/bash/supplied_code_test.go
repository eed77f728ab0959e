package bash

import (
	"strings"
	"testing"

	"github.com/permopa/permopa/builtins/flagspec"
)

// suppliedProbes are names a hostile project can give its files: each is
// text some program reads as code, an expression or a command when it
// stands where the program expects one (yq's and jq's filter, awk's
// program, sed's script, a wrapper's command).
var suppliedProbes = []string{
	"./.|env|debug|.yaml", "./$ENV", "./x;system(id)", "./x|load(a)", "./input_filename",
	"./x`id`", "./$(id)", "./e id", "./1e", "./x\nid", "./'x'", "./w /tmp/x",
}

// TestSuppliedPathsAreNeverCode: a word that find -exec, find | xargs or
// find -print0 | xargs -0 supplies is a path the project named, so its
// text is the attacker's. For every read-only form of the vocabulary,
// when the form with supplied paths (find . -exec FORM {} +) is judged
// read-only, the same form with each hostile name written literally must
// be read-only too: otherwise the program reads that position as code
// (yq's filter read the environment through a file named
// "./.|env|debug|.yaml").
func TestSuppliedPathsAreNeverCode(t *testing.T) {
	t.Parallel()
	opts := realWorldOpts("/fixture")
	checked := 0
	for _, f := range flagspec.Forms(1) {
		words := strings.Join(f.Words, " ")
		for _, shape := range []string{"find . -name x -exec " + words + " {} +", "find . -name x -print0 | xargs -0 " + words} {
			if !analyze(shape, opts).ReadOnly {
				continue
			}
			checked++
			for _, p := range suppliedProbes {
				lit := words + " " + shellQuote(p) + " ./x.yaml"
				if a := analyze(lit, opts); !a.ReadOnly {
					t.Errorf("%q is read-only but %q is not (%s): the supplied path stands where %s reads code",
						shape, lit, strings.Join(a.NotReadOnly, "; "), words)
					break
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d forms read-only with supplied paths: the shapes no longer reach the vocabulary", checked)
	}
}
